// The editor timeline the project exports (EDL, FCPXML, MLT) share: each clip's range of the source
// placed one after the other on a vertical timeline (the render's output size), with where the source
// picture sits in the frame over time (the crop path as keyframes) and the caption cues. It is computed
// from the render plan as rendered with the render graph's own geometry (layout-graphs.ts, the same
// crop offsets as cropExpression), so an editor opens the clip where the AI left it.
//
// Positions are whole frames of the timeline's rate: editors place clips on frames, and the render's
// clip edges fall between frames by less than half a frame.
import { centredPicture, clampCrop, screenGeometry, splitGeometry, type Rect, type Size } from '../media/layout-graphs.js';
import type { RenderPlan } from '../media/render-plan.js';
import type { CaptionCue } from '../domain/captions.js';
import type { CropKeyframe } from '../domain/layout.js';

/** A frame rate as a fraction (30000/1001 for 29.97). */
export interface Rate { num: number; den: number }

/** Where the whole source frame is drawn (output px) at `frame` (clip-relative). */
export interface PlacementKey { frame: number; rect: Rect }

/**
 * One picture of the layout: the part of the frame it shows (`panel`) and where the source sits to
 * show it. Only `fill`, `fit` and `square` pictures cover exactly their panel; a split or screen panel's
 * source overflows its panel, and a writer that cannot mask says so.
 */
export interface Picture {
  panel: Rect;
  keys: PlacementKey[];
  /** The crop window in source px, for writers that crop instead of placing (null: the whole source). */
  crop: { width: number; height: number; keys: { frame: number; x: number; y: number }[] } | null;
}

export interface TimelineSource {
  /** The media file as the project names it (an absolute path locally, a file name for the API). */
  path: string;
  /** Display name of the clip in the editor (the file name). */
  name: string;
  width: number;
  height: number;
  hasAudio: boolean;
  /** Source frame rate and length, when known (source.json); else the timeline's rate and the clip's end. */
  fps: number;
  durationSec: number;
}

export interface TimelineClip {
  id: string;
  title: string;
  source: TimelineSource;
  /** Source range in seconds (the render plan's input.start/end) and in source frames of the timeline rate. */
  start: number;
  end: number;
  sourceIn: number;
  /** Frames on the timeline. */
  length: number;
  /** First frame on the timeline. */
  offset: number;
  pictures: Picture[];
  /** Caption cues, clip-relative seconds. */
  cues: CaptionCue[];
  /** The content's loudness gain (dB) the render applied. */
  gainDb: number;
  layout: RenderPlan['reframe']['layout'];
  /** Split screen: the content fills only the top half (the gameplay below is not part of the project). */
  gameVideo: boolean;
}

export interface Timeline {
  name: string;
  width: number;
  height: number;
  rate: Rate;
  background: string;
  clips: TimelineClip[];
  /** Total frames. */
  length: number;
}

export interface TimelineInput {
  id: string;
  title: string;
  plan: RenderPlan;
  cues: CaptionCue[];
  source: TimelineSource;
}

/** The timeline of one or more clips, in the given order; the rate and size are the first clip's render's. */
export function buildTimeline(name: string, inputs: readonly TimelineInput[]): Timeline {
  const first = inputs[0];
  if (!first) throw new RangeError('a timeline needs at least one clip');
  const rate = rateOf(first.plan.output.fps ?? first.source.fps);
  let offset = 0;
  const clips = inputs.map((c) => {
    const fps = rate.num / rate.den;
    const sourceIn = Math.round(c.plan.input.start * fps);
    const length = Math.max(1, Math.round(c.plan.input.end * fps) - sourceIn);
    const clip: TimelineClip = {
      id: c.id, title: c.title, source: c.source, start: c.plan.input.start, end: c.plan.input.end, sourceIn, length, offset,
      pictures: pictures(c.plan, fps, length), cues: c.cues, gainDb: c.plan.loudness?.gainsDb?.content ?? 0,
      layout: c.plan.reframe.layout, gameVideo: Boolean(c.plan.gameVideo),
    };
    offset += length;
    return clip;
  });
  return { name, width: first.plan.output.width, height: first.plan.output.height, rate, background: first.plan.background.color, clips, length: offset };
}

/** A frame rate as editors write it: the NTSC rates as n*1000/1001, others as an integer or a 1/1000 fraction. */
export function rateOf(fps: number): Rate {
  for (const base of [24, 30, 60]) if (Math.abs(fps - (base * 1000) / 1001) < 0.005) return { num: base * 1000, den: 1001 };
  if (Math.abs(fps - Math.round(fps)) < 0.005) return { num: Math.round(fps), den: 1 };
  return { num: Math.round(fps * 1000), den: 1000 };
}

/** The pictures of the layout over `length` frames (see Picture). */
export function pictures(plan: RenderPlan, fps: number, length: number): Picture[] {
  const { input, output, reframe } = plan;
  const picture: Size = plan.gameVideo ? { width: output.width, height: output.height / 2 } : { width: output.width, height: output.height };
  const whole: Rect = { x: 0, y: 0, ...picture };
  const source: Size = { width: input.width, height: input.height };
  const crop = clampCrop({ width: reframe.cropWidth, height: reframe.cropHeight }, source);
  const moving = (panel: Rect, keyframes: CropKeyframe[], size: Size) => croppedPicture(panel, source, size, offsets(keyframes, size, source, fps, length));
  switch (reframe.layout) {
    case 'fill': return [moving(whole, reframe.keyframes, crop)];
    case 'square': return [moving(centredPicture('square', picture, source, crop), reframe.keyframes, crop)];
    case 'fit': {
      const r = centredPicture('fit', picture, source, crop);
      return [{ panel: r, keys: [{ frame: 0, rect: r }], crop: null }];
    }
    case 'split': {
      const g = splitGeometry(picture, source, crop);
      return [moving(g.top, reframe.keyframes, g.crop), moving(g.bottom, reframe.second?.keyframes ?? [], g.crop)];
    }
    case 'screen': {
      if (!reframe.screen) throw new RangeError('a screen layout needs its screen region');
      const g = screenGeometry(picture, source, reframe.screen, crop);
      const region = g.region;
      const screen = croppedPicture(g.screen, source, region, [{ frame: 0, x: region.x, y: region.y }]);
      return [screen, moving(g.face, reframe.keyframes, g.crop!)];
    }
  }
}

/** A crop window of `size` at the given offsets, scaled onto `panel`. */
function croppedPicture(panel: Rect, source: Size, size: Size, keys: { frame: number; x: number; y: number }[]): Picture {
  const sx = panel.width / size.width, sy = panel.height / size.height;
  return {
    panel,
    keys: keys.map((k) => ({ frame: k.frame, rect: { x: panel.x - k.x * sx, y: panel.y - k.y * sy, width: source.width * sx, height: source.height * sy } })),
    crop: { ...size, keys },
  };
}

/**
 * The crop window's top-left offset (source px) at the frames where the path turns: the render's own
 * rule (cropExpression: a centre at c is offset round(c*size - crop/2), clamped to the source, linear
 * between keyframes, held before the first and after the last), sampled at frame 0, at each keyframe
 * inside the clip and at the last frame.
 */
export function offsets(keyframes: readonly CropKeyframe[], crop: Size, source: Size, fps: number, length: number): { frame: number; x: number; y: number }[] {
  const off = (c: number, cropSize: number, sourceSize: number) => Math.min(Math.max(0, sourceSize - cropSize), Math.max(0, Math.round(c * sourceSize - cropSize / 2)));
  const points = [...keyframes].sort((a, b) => a.t - b.t).map((k) => ({ t: k.t, x: off(k.cx, crop.width, source.width), y: off(k.cy, crop.height, source.height) }));
  if (points.length === 0) return [{ frame: 0, x: Math.round((source.width - crop.width) / 2), y: Math.round((source.height - crop.height) / 2) }];
  const at = (t: number) => {
    const first = points[0]!, last = points[points.length - 1]!;
    if (t <= first.t) return { x: first.x, y: first.y };
    if (t >= last.t) return { x: last.x, y: last.y };
    const i = points.findIndex((p) => p.t > t);
    const a = points[i - 1]!, b = points[i]!;
    const f = b.t - a.t < 1e-9 ? 1 : (t - a.t) / (b.t - a.t);
    return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
  };
  const lastFrame = Math.max(0, length - 1);
  const frames = new Set<number>([0, lastFrame]);
  for (const p of points) {
    const f = Math.round(p.t * fps);
    if (f > 0 && f < lastFrame) frames.add(f);
  }
  const out = [...frames].sort((a, b) => a - b).map((frame) => ({ frame, ...round2(at(frame / fps)) }));
  // A path that never moves is one keyframe: editors show it as a static position.
  return out.every((k) => k.x === out[0]!.x && k.y === out[0]!.y) ? [out[0]!] : out;
}

function round2(p: { x: number; y: number }): { x: number; y: number } {
  return { x: Math.round(p.x * 100) / 100, y: Math.round(p.y * 100) / 100 };
}

/** Timeline timecode HH:MM:SS:FF (non-drop frame, at the rate's rounded frames per second). */
export function timecode(frame: number, rate: Rate): string {
  const fps = Math.round(rate.num / rate.den);
  const f = frame % fps, total = Math.floor(frame / fps);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}:${pad(f)}`;
}

/** Frames to seconds at the rate. */
export function seconds(frame: number, rate: Rate): number {
  return (frame * rate.den) / rate.num;
}
