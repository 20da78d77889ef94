// Preview images of the caption templates (spec 2.5 `thumbnail`, `preview`, `gif`). They are made by
// rendering each template itself through the real renderer (renderClip with a RenderPlan, captions
// from buildAss) on a few seconds of the demo sample, with the words Whisper hears in it: what a
// client sees in the catalog is what a short with that template looks like. scripts/build-previews.mjs
// (`npm run previews`) writes them to assets/templates, where they are shipped and served from.
import { existsSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { probeMedia } from '../../media/probe.js';
import { defaultMediaRunner } from '../../media/local-runner.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { renderClip } from '../../media/render.js';
import type { RenderCaptions, RenderPlan } from '../../media/render-plan.js';
import { buildAss, buildCues, captionEmoji, wordsPerCueFor } from './captions.js';
import { createTranscriber } from '../transcribe/transcribe.js';
import type { CaptionCue } from '../../domain/captions.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';
import { fontsDir, type CaptionTemplate } from '../../catalog/templates.js';

/** The rendered clip and the static preview: a quarter of 1080x1920, small enough to ship ten of. */
export const PREVIEW_SIZE = { width: 270, height: 480 } as const;
export const THUMBNAIL_SIZE = { width: 135, height: 240 } as const;
/** The GIF: a few seconds at a low rate and size, so each stays well under 300 KB. */
export const GIF = { width: 180, height: 320, fps: 8, seconds: 2.5, colors: 64 } as const;

/** The demo sample and the stretch of it the previews show. */
export const PREVIEW_SOURCE = { file: 'talk.mp4', clip: { start: 0, end: 6 } } as const;

export interface TemplatePreviewFiles { thumbnail: string; preview: string; gif: string }

/** Absolute path of assets/templates (same depth from src/pipeline and dist/pipeline). */
export function templatesAssetsDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'assets', 'templates');
}

export function sampleVideoPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'assets', 'sample', PREVIEW_SOURCE.file);
}

/** File names of a template's previews (the template name is the stem: stable and URL-safe). */
export function templatePreviewNames(template: Pick<CaptionTemplate, 'name'>): TemplatePreviewFiles {
  return { thumbnail: `${template.name}.thumb.png`, preview: `${template.name}.png`, gif: `${template.name}.gif` };
}

/**
 * The URLs GET /templates gives for a template's images: on a server `${base}/assets/templates/<file>`
 * (public, served by http-server.ts); without one (the local engine) the shipped files' file:// URLs.
 */
export function templatePreviewUrls(template: Pick<CaptionTemplate, 'name'>, base: string | undefined): TemplatePreviewFiles {
  const n = templatePreviewNames(template);
  const root = base?.replace(/\/+$/, '');
  const url = (name: string) => (root ? `${root}/assets/templates/${encodeURIComponent(name)}` : pathToFileURL(path.join(templatesAssetsDir(), name)).href);
  return { thumbnail: url(n.thumbnail), preview: url(n.preview), gif: url(n.gif) };
}

export function templatePreviewFiles(template: Pick<CaptionTemplate, 'name'>, dir = templatesAssetsDir()): TemplatePreviewFiles {
  const n = templatePreviewNames(template);
  return { thumbnail: path.join(dir, n.thumbnail), preview: path.join(dir, n.preview), gif: path.join(dir, n.gif) };
}

/** Only these names are ever served: a template stem, then .png, .thumb.png or .gif. No dots, no slashes. */
const ASSET_NAME = /^([a-z0-9][a-z0-9-]{0,63})(\.thumb\.png|\.png|\.gif)$/;

/**
 * The file behind a public template image URL path (`/assets/templates/<name>`), or null when the path
 * is not one (other folders, encoded slashes or dots, `..`, unknown extensions, missing files). The
 * name is matched against a strict pattern before it touches the file system, so no path can escape
 * the folder.
 */
export function templateAssetFile(urlPath: string, dir = templatesAssetsDir()): { file: string; contentType: string } | null {
  const prefix = '/assets/templates/';
  if (!urlPath.startsWith(prefix)) return null;
  const name = urlPath.slice(prefix.length);
  const m = ASSET_NAME.exec(name);
  if (!m) return null;
  const file = path.join(dir, name);
  if (path.dirname(file) !== path.resolve(dir)) return null;
  if (!existsSync(file) || !statSync(file).isFile()) return null;
  return { file, contentType: m[2] === '.gif' ? 'image/gif' : 'image/png' };
}

/** What the previews are rendered from: a source file, the clip range in it and the words spoken there. */
export interface PreviewSample {
  path: string;
  /** Display size of the source. */
  width: number;
  height: number;
  clip: TimeRange;
  /** Words in source time (a transcript of the clip). */
  words: Word[];
}

/**
 * The demo sample's preview stretch with the words the real transcriber hears in it (nothing is typed
 * in by hand). `model` is a Whisper model name or ggml file (default: SHORTS_WHISPER_MODEL, else tiny.en
 * downloaded into dataDir/models).
 */
export async function transcribePreviewSample(opts: { dataDir: string; model?: string; source?: string; clip?: TimeRange }): Promise<PreviewSample> {
  const source = opts.source ?? sampleVideoPath();
  const clip = opts.clip ?? PREVIEW_SOURCE.clip;
  const { info } = await probeMedia(source);
  const transcript = await createTranscriber({ dataDir: opts.dataDir, model: opts.model }).transcribe({ mediaPath: source, range: clip, language: 'en' });
  return { path: source, width: info.width, height: info.height, clip, words: transcript.words };
}

/**
 * The moment the static preview shows: the middle of the second word of the first phrase with at least
 * three words, so a highlight is on and (for typewriter) part of the phrase is already written.
 */
export function previewMoment(cues: CaptionCue[]): number {
  const cue = cues.find((c) => c.words.length >= 3) ?? cues.find((c) => c.words.length >= 2) ?? cues[0];
  if (!cue) throw new Error('the preview sample has no words: nothing to caption');
  const w = cue.words[Math.min(1, cue.words.length - 1)]!;
  return Math.round(((w.start + w.end) / 2) * 1000) / 1000;
}

/**
 * Renders one template's previews into outDir (thumbnail PNG, preview PNG, animated GIF) through
 * renderClip, using workDir for the intermediate clip. Returns the files written.
 */
export async function renderTemplatePreview(template: CaptionTemplate, sample: PreviewSample, outDir: string, workDir: string, media: MediaRunner = defaultMediaRunner()): Promise<TemplatePreviewFiles> {
  const { width: W, height: H } = PREVIEW_SIZE;
  await mkdir(outDir, { recursive: true });
  await mkdir(workDir, { recursive: true });
  const cues = buildCues(sample.words, sample.clip, { wordsPerCue: wordsPerCueFor(template) });
  const assPath = path.join(workDir, `${template.name}.ass`);
  await writeFile(assPath, buildAss(cues, template, { width: W, height: H }));
  const clipPath = path.join(workDir, `${template.name}.mp4`);
  const emoji = captionEmoji(cues, template, { width: W, height: H });
  await renderClip(previewPlan(sample, clipPath, { assPath, fontsDir: fontsDir(), ...(emoji.length ? { emoji } : {}) }, template.colors.background), { media });

  const files = templatePreviewFiles(template, outDir);
  // An emoji template is shown with its first emoji up (the still) and popping in (the GIF).
  const shown = emoji[0] ? cues.filter((c) => c.end > emoji[0]!.start) : cues;
  const at = previewMoment(shown);
  // Stills as 8-bit palette PNGs (a palette made for the frame): a third of the size of truecolour,
  // with no visible loss on a video frame.
  const still = (file: string, scale: string) => media.run('ffmpeg', ['-v', 'error', '-y', '-ss', String(at), '-i', clipPath, '-frames:v', '1',
    '-filter_complex', `[0:v]${scale}split[a][b];[a]palettegen=max_colors=256:reserve_transparent=0[p];[b][p]paletteuse=dither=sierra2_4a`, '-update', '1', file]);
  await still(files.preview, '');
  await still(files.thumbnail, `scale=${THUMBNAIL_SIZE.width}:${THUMBNAIL_SIZE.height}:flags=lanczos,`);
  // The GIF starts with the first phrase; one palette for the whole loop (palettegen/paletteuse), built
  // from what changes between frames, with ordered dithering (stable between frames: small and no crawl).
  const gifStart = Math.max(0, Math.min(emoji[0] ? emoji[0].start - 0.5 : cues[0]?.start ?? 0, sample.clip.end - sample.clip.start - GIF.seconds));
  const scale = `fps=${GIF.fps},scale=${GIF.width}:${GIF.height}:flags=lanczos`;
  await media.run('ffmpeg', ['-v', 'error', '-y', '-ss', String(gifStart), '-t', String(GIF.seconds), '-i', clipPath,
    '-filter_complex', `[0:v]${scale},split[a][b];[a]palettegen=max_colors=${GIF.colors}:stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle`,
    '-loop', '0', files.gif]);
  await rm(clipPath, { force: true });
  await rm(assPath, { force: true });
  return files;
}

/** The render plan of a preview clip: the sample's centre cropped to 9:16, no audio, captions on. */
function previewPlan(sample: PreviewSample, output: string, captions: RenderCaptions, background: string): RenderPlan {
  const cropHeight = sample.height;
  const cropWidth = Math.min(sample.width, Math.round((cropHeight * 9) / 16 / 2) * 2);
  return {
    version: 1,
    input: { path: sample.path, start: sample.clip.start, end: sample.clip.end, width: sample.width, height: sample.height, hasAudio: false },
    output: { path: output, width: PREVIEW_SIZE.width, height: PREVIEW_SIZE.height, preset: 'veryfast', crf: 18, fps: 24 },
    reframe: { layout: 'fill', cropWidth, cropHeight, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
    background: { blur: false, color: background },
    captions,
  };
}
