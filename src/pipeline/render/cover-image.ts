// The cover image of a clip (issue 14): one JPEG at the clip's output size (1080x1920), the frame
// cover-frame.ts chooses drawn through the clip's own filter graph (buildFilterGraph: the same crop
// size, layout, blurred or coloured background, split-screen gameplay), with the hook title drawn by
// libass exactly as the render burns it when the clip has one. Captions, emoji, the CTA banner, the meme
// intro and the end card are left out: a cover is a poster, not a frame caught mid-sentence.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PipelineError } from '../../errors.js';
import { fontsDir } from '../../catalog/templates.js';
import { chooseCoverFrame, coverCropCentre, cropCentreAt, type CoverChoice, type CoverFace } from './cover-frame.js';
import { HOOK_SECONDS, withOverlays } from './overlays.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import type { FaceDetector } from '../reframe/faces.js';
import { ffmpegReason } from '../../media/render.js';
import type { RenderPlan } from '../../media/render-plan.js';
import { AbortedError, ProcessError } from '../../media/process.js';
import { defaultMediaRunner } from '../../media/local-runner.js';
import { buildFilterGraph, fileArg } from '../../media/ffmpeg-args.js';

/** Seconds of source read after the frame: enough for the fps filter to emit its first frame. */
const READ_SEC = 0.5;
/** The seek lands this much before the frame's timestamp, so millisecond rounding never skips it. */
const SEEK_EARLY_SEC = 0.004;
/** mjpeg quality scale (2 best .. 31): 2 keeps faces and the title's edges clean for ~0.3-0.5 MB. */
const JPEG_QUALITY = 2;

export interface CoverOptions {
  /** The clip's hook title when hookTitle was on (what the render burns over the first seconds), else null. */
  hookTitle: string | null;
  /** Runs ffmpeg; default defaultMediaRunner(). */
  media?: MediaRunner;
  /** Finds the faces of the candidate frames; default the process's (faces.ts loadFaceDetector). */
  faces?: FaceDetector;
  signal?: AbortSignal;
}

/**
 * The plan the cover is drawn with: the clip's picture at frame `t` (clip seconds) only. The crop is one
 * keyframe (fill and square centred on the face, see coverCropCentre), the split's silent half stays
 * dimmed as at t, the gameplay is the one under the frame; no sound, captions only for the title. Nothing
 * in it depends on time any more, so the one frame drawn (at time 0) is the clip's frame at t.
 */
export function coverPlan(plan: RenderPlan, t: number, face: CoverFace | null, titleAss: string | null): RenderPlan {
  const { input, reframe } = plan;
  const second = reframe.second ? { keyframes: [{ t: 0, ...cropCentreAt(reframe.second.keyframes, t) }] } : reframe.second;
  const speakers = reframe.speakers?.filter((s) => s.start <= t && t < s.end).map((s) => ({ ...s, start: 0, end: READ_SEC + 1 }));
  const game = plan.gameVideo;
  return {
    version: plan.version,
    input: { ...input, start: input.start + t, end: input.start + t + READ_SEC, hasAudio: false },
    output: plan.output,
    reframe: {
      ...reframe,
      keyframes: [{ t: 0, ...coverCropCentre(plan, t, face) }],
      ...(second !== undefined ? { second } : {}),
      ...(speakers !== undefined ? { speakers } : {}),
    },
    background: plan.background,
    captions: titleAss ? { assPath: titleAss, fontsDir: plan.captions?.fontsDir ?? fontsDir() } : null,
    music: null,
    gameVideo: game ? { ...game, offset: (game.offset + t) % game.duration } : null,
    outro: null,
    memeHook: null,
    loudness: null,
  };
}

/**
 * The hook title alone, as the render's ASS draws it (withOverlays: same style, size, place and wrap,
 * for the clip's picture size), standing still: the event's leading override block (its pop-in scale
 * and fades) is dropped, which leaves the look it animates to, so the cover's frame (at time 0 of its
 * one-frame run) shows the title whole.
 */
export function hookTitleAss(plan: Pick<RenderPlan, 'output' | 'gameVideo'>, title: string): string {
  const picture = plan.gameVideo ? { width: plan.output.width, height: plan.output.height / 2 } : plan.output;
  const ass = withOverlays(null, { hookTitle: title, cta: null, clipDuration: HOOK_SECONDS }, picture);
  return ass.split('\n').map((line) => (line.startsWith('Dialogue:') ? stillEvent(line) : line)).join('\n');
}

/** An ASS Dialogue line without the override block that opens its text (the 9 fields before it hold no braces). */
function stillEvent(line: string): string {
  const m = /^((?:[^,]*,){9})\{[^}]*\}/.exec(line);
  return m ? m[1]! + line.slice(m[0].length) : line;
}

/** ffmpeg argv drawing a cover plan's one frame into `out` as a JPEG (pure; coverPlan's input starts at the frame). */
export function buildCoverArgs(cover: RenderPlan, out: string): string[] {
  const { input } = cover;
  const n = (v: number) => String(Math.round(v * 1000) / 1000);
  const args = [
    '-hide_banner', '-nostdin', '-y', '-v', 'error',
    '-ss', n(Math.max(0, input.start - SEEK_EARLY_SEC)), '-t', n(input.end - input.start), '-i', fileArg(input.path),
  ];
  const game = cover.gameVideo;
  // Same input index as the render's (no music in a cover plan): [1:v].
  if (game) args.push('-stream_loop', '-1', '-ss', n(game.offset), '-t', n(input.end - input.start), '-an', '-i', fileArg(game.path));
  args.push('-filter_complex', buildFilterGraph(cover), '-map', '[vout]', '-frames:v', '1',
    '-c:v', 'mjpeg', '-q:v', String(JPEG_QUALITY), '-pix_fmt', 'yuvj420p', '-f', 'image2', '-update', '1', out);
  return args;
}

/**
 * Writes the clip's cover to `out` (atomically: a file at `out` is always a whole JPEG) and returns the
 * choice it made (the frame's time and the measured candidates).
 */
export async function writeCover(plan: RenderPlan, out: string, opts: CoverOptions): Promise<CoverChoice> {
  const media = opts.media ?? defaultMediaRunner();
  const choice = await chooseCoverFrame(plan, opts.signal, media, opts.faces);
  const partial = `${out}.partial.jpg`;
  const titleAss = opts.hookTitle ? `${out}.title.ass` : null;
  await mkdir(path.dirname(out), { recursive: true });
  try {
    if (titleAss && opts.hookTitle) await writeFile(titleAss, hookTitleAss(plan, opts.hookTitle));
    await media.run('ffmpeg', buildCoverArgs(coverPlan(plan, choice.t, choice.face, titleAss), partial), { signal: opts.signal });
    await rename(partial, out);
  } catch (e) {
    await rm(partial, { force: true });
    if (opts.signal?.aborted || e instanceof AbortedError) throw new AbortedError();
    const reason = e instanceof ProcessError ? ffmpegReason(e.stderr) : (e as Error).message;
    throw new PipelineError('rendering', `the clip's cover could not be drawn: ${reason}`, { cause: e });
  } finally {
    if (titleAss) await rm(titleAss, { force: true });
  }
  return choice;
}
