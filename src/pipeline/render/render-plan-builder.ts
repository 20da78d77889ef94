// Plans and renders one clip: the crop (or the one given), captions clear of faces and banners, overlays,
// music, and the ffmpeg run. Shared by a request's render stage and a re-render (issue 14), so a clip
// re-rendered with the same options is made exactly as the first time.
import { writeFileSync } from 'node:fs';
import { renderClip } from '../../media/render.js';
import { PLATFORM_LOUDNESS, RENDER_PLAN_VERSION, outputFps, type RenderPlan } from '../../media/render-plan.js';
import { DEFAULT_TEMPLATE, findTemplate, fontsDir, type CaptionTemplate } from '../../catalog/templates.js';
import type { CaptionCue } from '../../domain/captions.js';
import type { ReframePlan } from '../../domain/layout.js';
import type { CreateRequest } from '../../domain/request.js';
import type { FetchedSource, MediaInfo } from '../../domain/source.js';
import type { TimeRange } from '../../domain/time.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { planReframe } from '../reframe/reframe.js';
import type { FaceDetector } from '../reframe/faces.js';
import type { SpeechTiming } from '../reframe/active-speaker.js';
import { buildAss, captionBlocks, captionEmoji } from '../captions/captions.js';
import { captionTops } from '../captions/caption-placement.js';
import { clearOfBands, overlayBands, withOverlays } from './overlays.js';
import { gameVideoFor, musicFor } from './clip-extras.js';

/** The encoder's settings a clip is rendered with (the engine's RenderSettings). */
export interface ClipOutputSettings { width: number; height: number; preset: string; crf: number; x264Params: string }

/** What renderOne needs from whoever runs it. */
export interface ClipRenderDeps {
  output: ClipOutputSettings;
  /** The account's saved background preference, used when blurBackground is omitted. */
  blurPreference?: () => Promise<boolean> | boolean;
  faces?: FaceDetector;
}

/** One clip for renderOne. */
export interface ClipRender {
  id: string;
  clip: TimeRange;
  /** Drawn by the hook title. */
  title: string;
  /** The request's options with the clip's own changes (a re-render's) over them. */
  options: CreateRequest;
  /** The clip's caption cues (clip time); null when captions are off. */
  cues: CaptionCue[] | null;
  /** The template the cues are drawn with (translated captions: without the per-word highlight). */
  template: CaptionTemplate;
  assPath: string;
  output: string;
  outro: RenderPlan['outro'];
  memeHook: RenderPlan['memeHook'];
  /** The words and sentences of the clip's speech: who speaks when, for following the speaker (active-speaker.ts). */
  speech?: SpeechTiming;
  /** What an earlier render of the clip decided and still holds (a re-render keeps them; undefined: decide now). */
  reuse?: { reframe?: ReframePlan; gameVideo?: RenderPlan['gameVideo']; music?: RenderPlan['music'] };
  onProgress: (fraction: number) => void;
}

/** Returns the plan as rendered (measured gains included). */
export async function renderOne(deps: ClipRenderDeps, source: FetchedSource, info: MediaInfo, language: string, c: ClipRender, signal: AbortSignal, media: MediaRunner): Promise<RenderPlan> {
  const { width, height, preset, crf, x264Params } = deps.output;
  const o = c.options;
  const template = findTemplate(o.templateId) ?? DEFAULT_TEMPLATE;
  const blur = o.blurBackground ?? await deps.blurPreference?.() ?? true;
  // Split screen: the content, its layout and its captions live in the top half only.
  const gameVideo = c.reuse?.gameVideo !== undefined ? c.reuse.gameVideo : gameVideoFor(o);
  const picture = gameVideo ? { width, height: height / 2 } : { width, height };
  const reframe = c.reuse?.reframe ?? await planReframe({ mediaPath: source.path, info, range: c.clip, layout: o.layout, output: picture, signal, media, faces: deps.faces,
    ...(c.speech ? { speech: c.speech } : {}) });
  let captions: RenderPlan['captions'] = null;
  // Hook title and CTA ride in the same libass pass as the captions.
  const overlays = { hookTitle: o.hookTitle ? c.title : null, cta: o.ctaEnabled ? o.ctaText : null, clipDuration: c.clip.end - c.clip.start };
  const bands = overlayBands(overlays, picture);
  const cues = c.cues ?? [];
  const captioned = o.captionsEnabled && c.cues !== null;
  // Captions clear of faces (and of the banners): the reframe's sampled faces mapped through its crops
  // to this picture; a page moves only where the template's place would cover eyes or a mouth.
  const placement = captioned ? { tops: captionTops(captionBlocks(cues, c.template, picture), reframe, info, picture, bands) } : {};
  const captionAss = captioned ? buildAss(cues, c.template, picture, placement) : null;
  const ass = overlays.hookTitle || overlays.cta ? withOverlays(captionAss, overlays, picture) : captionAss;
  if (ass) {
    writeFileSync(c.assPath, ass);
    // Emoji accents (templates with `emoji`) are images overlaid after libass, in the same picture space.
    // They give way to the hook title and CTA banner where both would take the same rows.
    const emoji = captioned ? clearOfBands(captionEmoji(cues, c.template, picture, { language, ...placement }), bands) : [];
    captions = { assPath: c.assPath, fontsDir: fontsDir(), ...(emoji.length ? { emoji } : {}) };
  }
  const renderPlan: RenderPlan = {
    version: RENDER_PLAN_VERSION,
    input: { path: source.path, start: c.clip.start, end: c.clip.end, width: info.width, height: info.height, hasAudio: info.hasAudio },
    output: { path: c.output, width, height, preset, crf, x264Params: x264Params || undefined, fps: outputFps(info) },
    reframe,
    background: { blur, color: template.colors.background },
    captions,
    music: c.reuse?.music !== undefined ? c.reuse.music : await musicFor(o, source.path, c.clip, info.hasAudio, signal, media),
    gameVideo,
    outro: c.outro,
    memeHook: c.memeHook,
    // Every short at the platforms' loudness (-14 LUFS, <= -1 dBTP); renderClip measures the gains.
    loudness: { ...PLATFORM_LOUDNESS },
  };
  // renderClip writes beside the output and renames over it: an earlier MP4 at that path is served whole
  // until the new one replaces it (a re-render's "old file stays served").
  return renderClip(renderPlan, { signal, media, onProgress: c.onProgress });
}
