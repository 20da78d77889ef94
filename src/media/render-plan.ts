// The render plan: everything one clip's ffmpeg run needs, as plain data. It is versioned because plans
// are stored with a job's artifacts and replayed on retry; a plan written by another version is
// rebuilt, never half-understood.
import type { MediaInfo } from '../domain/source.js';
import type { ReframePlan } from '../domain/layout.js';

export const RENDER_PLAN_VERSION = 1;

export interface RenderPlan {
  version: 1;
  input: {
    path: string;
    /** Clip range in source seconds. */
    start: number;
    end: number;
    /** Display size of the source (rotation applied, as probeMedia reports it). */
    width: number;
    height: number;
    hasAudio: boolean;
  };
  output: {
    path: string;
    /** Even numbers (yuv420p). */
    width: number;
    height: number;
    /** x264 preset; DEFAULT_PRESET unless measured otherwise. */
    preset: string;
    crf: number;
    /** Extra x264 options (`-x264-params`), e.g. the measured speed tuning of render-settings.ts. */
    x264Params?: string;
    /** Constant output frame rate; omitted keeps the source's (already constant, <= 30) rate. */
    fps?: number;
  };
  /**
   * How the source fills the picture (the frame, or its top half with gameVideo): one moving crop (fill,
   * square), the whole frame (fit), two crops stacked in halves (split, with `second`) or the screen
   * region above a face crop (screen, with `screen`). The panels' geometry is layout-graphs.ts.
   */
  reframe: ReframePlan;
  /** What fills the frame around a `fit`/`square` picture. */
  background: { blur: boolean; color: string };
  /** ASS file written by the captions stage; null renders no captions. */
  captions: RenderCaptions | null;
  /**
   * Background music mixed under the speech; absent or null renders none. Optional, so plans written
   * before music existed still mean the same (RENDER_PLAN_VERSION unchanged).
   */
  music?: RenderMusic | null;
  /**
   * Split screen (spec `gameVideo`): the clip in the top half, this gameplay loop muted in the bottom
   * half. With it, `reframe` and `captions` are planned for the top half (output.width x output.height/2).
   * Optional and null-able like `music`, so older plans keep their meaning.
   */
  gameVideo?: RenderGameVideo | null;
  /**
   * End-screen outro (spec `outroEnabled`): a card of `seconds` appended after the content in the same
   * run, so the output lasts (end - start) + seconds. Optional and null-able like `music`.
   */
  outro?: RenderOutro | null;
  /**
   * Meme intro (spec `memeHook`): a catalog clip played full-frame before the content in the same run
   * (also before a split screen), so the output lasts seconds + (end - start) (+ the outro).
   * Optional and null-able like `music`.
   */
  memeHook?: RenderMemeHook | null;
  /**
   * Platform loudness (PLATFORM_LOUDNESS): each segment's sound is measured, then
   * raised or lowered in the render to the target and limited to the true-peak ceiling, so the whole
   * short measures targetLufs. Absent or null keeps the source's levels (plans written before it).
   */
  loudness?: RenderLoudness | null;
}

/**
 * Platform loudness: short-video platforms normalise playback to about -14 LUFS, so a clip at the
 * source's level (-18 to -22 LUFS measured) sounds quiet next to everyone else's; -1 dBTP leaves room
 * for the platforms' own lossy transcode.
 */
export const PLATFORM_LOUDNESS = { targetLufs: -14, truePeakDb: -1 } as const;

/** The loudness a short is brought to, and what was measured to get there. */
export interface RenderLoudness {
  /** Integrated loudness (EBU R128) of the whole short, LUFS. */
  targetLufs: number;
  /** True-peak limit, dBTP. */
  truePeakDb: number;
  /**
   * Gain (dB) of each segment's sound, found by measuring it as the render mixes it (renderClip's
   * measuring pass fills it in when it is missing); 0 for a silent or absent segment.
   */
  gainsDb?: SegmentGains;
}

export interface SegmentGains { content: number; meme: number; sting: number }

/** The meme intro: its picture covers the whole frame, its own sound plays, then the content starts. */
export interface RenderMemeHook {
  /** Video file (catalog item), with or without an audio track. */
  path: string;
  /** Exactly how long it plays (catalog manifest); a file that is shorter holds its last frame. */
  seconds: number;
  /** Frame rate it is converted to: the content's output rate, so the joined file keeps one rate. */
  fps: number;
  /** Whether the file has an audio track; without one the intro is silent. */
  hasAudio: boolean;
}

/** Seconds of the rendered file: meme intro + content + end card. */
export function renderedSeconds(plan: Pick<RenderPlan, 'input' | 'memeHook' | 'outro'>): number {
  return (plan.memeHook?.seconds ?? 0) + (plan.input.end - plan.input.start) + (plan.outro?.seconds ?? 0);
}

/** The burned-in captions: an ASS document for libass, and emoji images overlaid after it. */
export interface RenderCaptions {
  assPath: string;
  /** Fonts for assPath (assets/fonts). */
  fontsDir: string;
  /**
   * Emoji accents (templates with `emoji`), in the captioned picture's pixels: the full frame, or the
   * top half of a split screen, like the ASS. Optional, so plans written before emoji keep their meaning.
   */
  emoji?: RenderCaptionEmoji[];
}

/** One emoji PNG drawn size x size with its top-left at (x, y) from start to end (clip seconds). */
export interface RenderCaptionEmoji {
  path: string;
  start: number;
  end: number;
  x: number;
  y: number;
  size: number;
}

/** The end card: a solid backdrop (background.color), optionally an image fitted on it, and ASS text. */
export interface RenderOutro {
  /** 1-3 s (spec outroSeconds). */
  seconds: number;
  /** Frame rate of the card: the content's output rate, so the concatenated file keeps one rate. */
  fps: number;
  /** The card's line and handle as shown (kept for the record; the pixels come from assPath). */
  text: string | null;
  handle: string | null;
  /** Downloaded outroImageUrl (PNG/JPEG/WebP/BMP), fitted inside the frame on the backdrop; null = stock card. */
  imagePath: string | null;
  /** Audio file of the bell played at the card's start; null = the card is silent. */
  stingPath: string | null;
  /** ASS document with the card's text in card time (0 = first card frame); null draws no text. */
  assPath: string | null;
  /** Fonts for assPath. */
  fontsDir: string;
}

/** The gameplay of a split-screen short: looped for as long as the clip lasts, never heard. */
export interface RenderGameVideo {
  /** Video file (catalog item); its audio, if any, is not read. */
  path: string;
  /** Where in the file the gameplay starts, seconds (random per clip, so shorts differ). */
  offset: number;
  /** Length of the file, seconds (catalog manifest); the offset must fall inside it. */
  duration: number;
}

/** Inputs of the music mix (DESIGN.md, "Background music"): all levels are measured, none assumed. */
export interface RenderMusic {
  /** Audio file; looped when shorter than the clip. */
  path: string;
  /** Music loudness relative to the voice, 0-100 (spec `musicVolume`): gain 20*log10(volume/100) dB; 0 = no music. */
  volume: number;
  /** Integrated loudness of the track (catalog manifest), LUFS. */
  trackLufs: number;
  /** Integrated loudness of the clip's own audio (the voice), LUFS; null when the clip has no audible audio. */
  speechLufs: number | null;
}

/** The encoder preset dominates render time (DESIGN.md, Performance notes): veryfast is 2.9x real time. */
export const DEFAULT_PRESET = 'veryfast';
export const DEFAULT_CRF = 23;
/** Short-video platforms play 30 fps; more only costs encode time and upload size. */
export const MAX_FPS = 30;

/**
 * The output frame rate for a source: capped at 30, and always set for variable-frame-rate sources
 * (phone video) so the clip comes out constant-rate. Undefined means "keep the source's rate".
 */
export function outputFps(info: Pick<MediaInfo, 'fps' | 'variableFrameRate'>): number | undefined {
  if (info.variableFrameRate || !(info.fps > 0)) return MAX_FPS;
  if (info.fps > MAX_FPS + 0.01) return MAX_FPS;
  return undefined;
}
