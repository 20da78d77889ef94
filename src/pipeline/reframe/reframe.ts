// Stage 5: where the vertical frame looks. Samples faces over the clip only, follows the main face with
// a crop window that does not jitter, and decides the layout for `auto`. Everything but planReframe is
// pure so the geometry and the smoothing are tested without video.
import { AbortedError } from '../../media/process.js';
import { PipelineError } from '../../errors.js';
import { BOTH_SPEAK_SHARE, decideSpeakers, shotPeople, speechShares, speechUnits, type ActiveSpeakers, type SpeechTiming } from './active-speaker.js';
import { pickMainFace, type MainFace } from './face-tracker.js';
import { sampleFaces, sampleRangeFaces, type FaceDetector, type FaceSample, type FaceSampling } from './faces.js';
import {
  faceCropSize, FrameEvidenceBuilder, INSET_MAX_AREA, INSET_MAX_HEIGHT, INSET_MIN_OFFSET, insetRect, judgeScreen, screenHeight, screenRegion, summariseTrack, toSourceRect,
  type FrameEvidence, type InsetFace, type ScreenVerdict,
} from './screen-detect.js';
import { findCuts, frameSignature, splitShots, type SampledFrame } from './shots.js';
import { median } from '../shared/stats.js';
import { findTwoPeople, needsSplit, splitCropSize, type Person } from './two-people.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { evenSize } from '../../media/layout-graphs.js';
import type { CropKeyframe, Layout, ReframePlan, ResolvedLayout, SpeakerSpan } from '../../domain/layout.js';
import type { MediaInfo } from '../../domain/source.js';
import type { TimeRange } from '../../domain/time.js';

export interface ReframeRequest {
  mediaPath: string;
  info: MediaInfo;
  range: TimeRange;
  layout: Layout;
  output: { width: number; height: number };
  signal?: AbortSignal;
  /** Runs ffmpeg for the face samples and the cut search; default defaultMediaRunner(). */
  media?: MediaRunner;
  /** Finds the faces; default the process's (faces.ts loadFaceDetector). */
  faces?: FaceDetector;
  /**
   * The transcript's words and sentences (source seconds) over the clip: with them, a shot of two or more
   * people follows whoever speaks (active-speaker.ts). Without them, the main face, as before.
   */
  speech?: SpeechTiming;
}

export interface Size { width: number; height: number }

/** What decideLayout needs to know about the main face (a MainFace fits). */
export type FaceSummary = Pick<MainFace, 'coverage' | 'medianHeight'>;

/** A source at or below this aspect is already portrait: fill it (it needs at most a small crop). */
export const PORTRAIT_ASPECT = 0.6;
/** `auto` fills when the main face is in at least this fraction of samples... */
export const FILL_MIN_COVERAGE = 0.6;
/** ...and is at least this tall relative to the frame (smaller: a wide shot or a webcam inset — fit). */
export const FILL_MIN_FACE_HEIGHT = 0.12;

/**
 * Crop window in source pixels. fill: the largest window of the output's aspect (full height for a
 * landscape source, full width for one narrower than the output); square: the largest square; fit: the
 * whole frame. Even sizes, because the renderer's chroma-subsampled crop wants them.
 */
export function cropWindow(layout: ResolvedLayout, source: Size, output: Size): Size {
  const { width: w, height: h } = source;
  // screen: the region and the face crop are sized by planReframe; without them it shows the whole frame.
  if (layout === 'fit' || layout === 'screen') return { width: w, height: h };
  // split: each half is output.width x output.height/2.
  const aspect = layout === 'square' ? 1 : layout === 'split' ? (2 * output.width) / output.height : output.width / output.height;
  if (w / h >= aspect) return { width: Math.min(w, evenSize(h * aspect)), height: h };
  return { width: w, height: Math.min(h, evenSize(w / aspect)) };
}

/** `auto` resolved from the source and its main face; an explicit layout is kept. */
export function decideLayout(info: MediaInfo, face: FaceSummary | null, output: Size, requested: Layout = 'auto'): ResolvedLayout {
  if (requested !== 'auto') return requested;
  if (!info.hasVideo || !info.width || !info.height) return 'fit';
  const aspect = info.width / info.height;
  // Already (nearly) as tall as the output: filling loses little or nothing, and bars would waste the screen.
  if (aspect <= Math.max(PORTRAIT_ASPECT, output.width / output.height)) return 'fill';
  if (face && face.coverage >= FILL_MIN_COVERAGE && face.medianHeight >= FILL_MIN_FACE_HEIGHT) return 'fill';
  // Screen content, wide shots, several small people, no faces: show everything.
  return 'fit';
}

export interface PathPoint { t: number; cx: number; cy: number }

export interface SmoothOptions {
  /** The crop holds still while the face stays inside this central fraction of the crop (per axis). */
  deadZone?: number;
  /** Gaussian smoothing width, seconds (zero-phase: the path has no lag behind the face). */
  sigmaSec?: number;
  /** Keyframes may depart from the smoothed path by this fraction of the crop size. */
  tolerance?: number;
  /** When the crop moves vertically, put the face this fraction of the crop height above centre. */
  headroom?: number;
}

const SMOOTH_DEFAULTS: Required<SmoothOptions> = { deadZone: 0.3, sigmaSec: 0.4, tolerance: 0.01, headroom: 0.1 };

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function median3(values: number[]): number[] {
  return values.map((v, i) => {
    if (i === 0 || i === values.length - 1) return v;
    const a = values[i - 1]!, c = values[i + 1]!;
    return Math.max(Math.min(a, v), Math.min(Math.max(a, v), c));
  });
}

/** One axis: despike, hold inside a dead zone, re-centre when the face leaves it, then smooth. */
function smoothAxis(ts: number[], raw: number[], crop: number, o: Required<SmoothOptions>): number[] {
  const half = crop / 2;
  if (half >= 0.5) return raw.map(() => 0.5); // the crop spans the axis: nothing to follow
  const lo = half, hi = 1 - half;
  const wanted = median3(raw).map((v) => clamp(v, lo, hi));
  const zone = (o.deadZone * crop) / 2;
  // Start where the face mostly is over the first second, not where one early detection put it.
  const head = wanted.slice(0, 3).sort((a, b) => a - b);
  let target = head[head.length >> 1] ?? 0.5;
  const held = wanted.map((v) => {
    if (Math.abs(v - target) > zone) target = v;
    return target;
  });
  const sigma = o.sigmaSec;
  return held.map((_, i) => {
    let sw = 0, sv = 0;
    for (let j = 0; j < held.length; j++) {
      const d = (ts[j]! - ts[i]!) / sigma;
      if (Math.abs(d) > 3) continue;
      const wgt = Math.exp(-0.5 * d * d);
      sw += wgt; sv += wgt * held[j]!;
    }
    return clamp(sv / sw, lo, hi);
  });
}

/** Ramer–Douglas–Peucker on values: keep only the points that linear interpolation cannot reproduce. */
function simplify(ts: number[], xs: number[], ys: number[], tolX: number, tolY: number): number[] {
  const keep = new Set<number>([0, ts.length - 1]);
  const visit = (a: number, b: number) => {
    let worst = -1, worstErr = 1;
    for (let i = a + 1; i < b; i++) {
      const f = (ts[i]! - ts[a]!) / (ts[b]! - ts[a]! || 1);
      const ex = Math.abs(xs[a]! + (xs[b]! - xs[a]!) * f - xs[i]!) / tolX;
      const ey = Math.abs(ys[a]! + (ys[b]! - ys[a]!) * f - ys[i]!) / tolY;
      const err = Math.max(ex, ey);
      if (err > worstErr) { worst = i; worstErr = err; }
    }
    if (worst < 0) return;
    keep.add(worst);
    visit(a, worst);
    visit(worst, b);
  };
  visit(0, ts.length - 1);
  return [...keep].sort((a, b) => a - b);
}

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

/**
 * Face centres (clip-relative t, normalised source coordinates) -> crop keyframes that keep the face in
 * frame without jitter. `crop` is the crop window's size normalised to the source (1 = spans the axis).
 * Keyframes are clamped so the window stays inside the frame, the first is at t=0, and a still subject
 * yields a single keyframe.
 */
export function smoothPath(points: PathPoint[], crop: { w: number; h: number }, options: SmoothOptions = {}): CropKeyframe[] {
  const o = { ...SMOOTH_DEFAULTS, ...options };
  const centre = (v: number, size: number) => (size >= 1 ? 0.5 : clamp(v, size / 2, 1 - size / 2));
  const pts = [...points].sort((a, b) => a.t - b.t);
  if (pts.length === 0) return [{ t: 0, cx: 0.5, cy: 0.5 }];
  const ts = pts.map((p) => p.t);
  const xs = smoothAxis(ts, pts.map((p) => p.cx), crop.w, o);
  const ys = smoothAxis(ts, pts.map((p) => p.cy + o.headroom * crop.h), crop.h, o);
  const tolX = Math.max(1e-4, o.tolerance * Math.min(1, crop.w));
  const tolY = Math.max(1e-4, o.tolerance * Math.min(1, crop.h));
  const kept = simplify(ts, xs, ys, tolX, tolY);
  const frames = kept.map((i) => ({ t: round4(i === 0 ? 0 : Math.max(0, ts[i]!)), cx: round4(centre(xs[i]!, crop.w)), cy: round4(centre(ys[i]!, crop.h)) }));
  const first = frames[0]!;
  const still = frames.every((f) => Math.abs(f.cx - first.cx) <= tolX && Math.abs(f.cy - first.cy) <= tolY);
  return still ? [first] : frames;
}

function staticPlan(layout: ResolvedLayout, crop: Size, faceCoverage: number): ReframePlan {
  return { layout, cropWidth: crop.width, cropHeight: crop.height, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage };
}

/** A shot and its main face (null: nobody steady in it). Times in source seconds. */
export interface ShotFace { shot: TimeRange; main: MainFace | null }

/**
 * The main face of each shot, picked among that shot's samples only (after a cut, the person on screen
 * is another one), and the faces taken together for the layout decision: coverage over all samples,
 * median height over every main-face detection. Shots without samples join the one before (a flash
 * shorter than the sampling step has no face of its own to follow).
 */
export function mainFacesByShot(samples: readonly FaceSample[], shots: readonly TimeRange[]): { shots: ShotFace[]; summary: FaceSummary | null } {
  const groups: { shot: TimeRange; samples: FaceSample[] }[] = [];
  for (const shot of shots) {
    const inside = samples.filter((s) => s.t >= shot.start && s.t < shot.end);
    const last = groups[groups.length - 1];
    if (inside.length === 0 && last) last.shot = { start: last.shot.start, end: shot.end };
    else if (last && last.samples.length === 0) groups[groups.length - 1] = { shot: { start: last.shot.start, end: shot.end }, samples: inside };
    else groups.push({ shot: { ...shot }, samples: inside });
  }
  const out = groups.map((g) => ({ shot: g.shot, main: pickMainFace(g.samples) }));
  const mains = out.flatMap((o) => (o.main ? [o.main] : []));
  if (mains.length === 0 || samples.length === 0) return { shots: out, summary: null };
  return {
    shots: out,
    summary: {
      coverage: mains.reduce((n, m) => n + m.track.boxes.length, 0) / samples.length,
      medianHeight: median(mains.flatMap((m) => m.track.boxes.map((b) => b.h))),
    },
  };
}

/** Faces this small (height, fraction of the frame) are background: they do not steer the crop. */
const MIN_STEERING_FACE = 0.05;

/**
 * Whether the faces differ between two samples in a way that would move the crop: a face appears or
 * goes, or one is not near any face of the other sample (half its height). A cut between two samples
 * with the same faces in the same places (a change of background, a b-roll of an empty room) leaves the
 * crop where it is, so it is not worth finding exactly.
 */
export function facesChange(a: FaceSample | undefined, b: FaceSample | undefined): boolean {
  if (!a || !b) return true;
  const fa = a.faces.filter((f) => f.h >= MIN_STEERING_FACE), fb = b.faces.filter((f) => f.h >= MIN_STEERING_FACE);
  if (fa.length !== fb.length) return true;
  const near = (f: (typeof fa)[number], others: typeof fa) => others.some((o) => Math.hypot(f.cx - o.cx, f.cy - o.cy) <= 0.5 * Math.max(f.h, o.h));
  return !fa.every((f) => near(f, fb)) || !fb.every((f) => near(f, fa));
}

/** Half the gap around a cut where the crop switches: far less than a frame at any frame rate. */
const SWITCH = 0.0005;

/**
 * Crop keyframes (clip-relative) for a clip of several shots: each shot's path is smoothed on its own
 * and the crop jumps at the cut, on the first frame of the new shot, instead of panning across it.
 * `shots[i].path` holds clip-relative face centres, or null for a shot without a face (centred).
 */
export function shotKeyframes(shots: readonly { start: number; path: PathPoint[] | null }[], crop: { w: number; h: number }, options: SmoothOptions = {}): CropKeyframe[] {
  const tol = options.tolerance ?? SMOOTH_DEFAULTS.tolerance;
  const frames: CropKeyframe[] = [];
  for (const [i, shot] of shots.entries()) {
    const local = smoothPath((shot.path ?? []).map((p) => ({ ...p, t: Math.max(0, p.t - shot.start) })), crop, options)
      .map((k) => ({ ...k, t: round4(k.t + shot.start) }));
    const prev = frames[frames.length - 1];
    if (i === 0 || !prev) {
      frames.push(...local);
      continue;
    }
    const first = local[0]!;
    const same = Math.abs(first.cx - prev.cx) <= tol * crop.w && Math.abs(first.cy - prev.cy) <= tol * crop.h;
    if (!same) {
      frames.push({ t: round4(shot.start - SWITCH), cx: prev.cx, cy: prev.cy });
      frames.push({ ...first, t: round4(shot.start + SWITCH) });
    }
    frames.push(...local.slice(1));
  }
  return frames;
}

/** A clip's sampled faces as ReframePlan.faces has them: clip-relative, boxes without scores. */
function clipFaces(samples: readonly FaceSample[], range: TimeRange): NonNullable<ReframePlan['faces']> {
  return samples.map((s) => ({ t: round4(s.t - range.start), boxes: s.faces.map((f) => ({ cx: f.cx, cy: f.cy, w: f.w, h: f.h })) }));
}

/** Clip-relative path points of `path` (one box per sample) cut into the clip's shots, for shotKeyframes. */
function pathByShot(path: readonly { t: number; cx: number; cy: number }[], shots: readonly ShotFace[], range: TimeRange): { start: number; path: PathPoint[] | null }[] {
  return shots.map(({ shot }) => {
    const inside = path.filter((b) => b.t >= shot.start && b.t < shot.end).map((b) => ({ t: b.t - range.start, cx: b.cx, cy: b.cy }));
    return { start: shot.start - range.start, path: inside.length > 0 ? inside : null };
  });
}

/** Faces are sampled this often in shots of two or more people: mouth activity needs it (mouth-activity.ts). */
export const SPEAKER_FPS = 10;

/**
 * A shot's path when it follows the speaker: one piece per speaker turn (clip-relative), each the
 * speaker's face, for shotKeyframes to cut between (a jump at the change, never a pan across the room).
 */
function speakerPieces(found: ActiveSpeakers, range: TimeRange, fps: number): { start: number; path: PathPoint[] | null }[] {
  return found.turns.map((turn, i) => {
    const path = found.tracks[turn.speaker]!.path
      .filter((b) => b.t >= turn.start && b.t < turn.end)
      .map((b) => ({ t: b.t - range.start, cx: b.cx, cy: b.cy }));
    return { start: i === 0 ? turn.start - range.start : offFrameGrid(turn.start - range.start, fps), path: path.length > 0 ? path : null };
  });
}

/** Frame rates a render may sample the crop at (the output's or the source's). */
const COMMON_FPS = [24, 25, 30, 48, 50, 60];

/**
 * A change of speaker moved off every frame time of common rates (and the source's): the crop jumps over
 * 1 ms (shotKeyframes' SWITCH), and a frame landing inside that ramp would show the crop halfway across
 * the room. Speaker changes come on the 10 fps sampling grid, which 25, 30, 50 and 60 fps frames share.
 */
export function offFrameGrid(t: number, fps: number): number {
  const rates = fps > 0 ? [fps, ...COMMON_FPS] : COMMON_FPS;
  const clear = (x: number) => rates.every((r) => { const d = Math.abs(x * r - Math.round(x * r)) / r; return d > 2 * SWITCH; });
  for (let k = 0; k < 50; k++) if (clear(t - 0.0031 * k)) return round4(t - 0.0031 * k);
  return t;
}

/** Whether one crop `cropW` wide (normalised) holds every person of the shot: then no one needs following. */
function cropHoldsAll(found: ActiveSpeakers, cropW: number): boolean {
  const lo = Math.min(...found.tracks.map((t) => t.medianCx - t.medianWidth / 2));
  const hi = Math.max(...found.tracks.map((t) => t.medianCx + t.medianWidth / 2));
  return hi - lo <= cropW;
}

/** What the screen layout would be for this clip: the inset face, the screen region, the verdict. */
interface ScreenFinding { face: InsetFace; main: MainFace; inset: ReturnType<typeof insetRect>; verdict: ScreenVerdict }

function findScreen(samples: readonly FaceSample[], evidence: FrameEvidence | null): ScreenFinding | null {
  if (!evidence) return null;
  const main = pickMainFace([...samples]);
  if (!main) return null;
  const face = summariseTrack(main.track.boxes, samples.length);
  if (!face) return null;
  const inset = insetRect(evidence, face);
  return { face, main, inset, verdict: judgeScreen(face, evidence, inset) };
}

/**
 * Plans the crop for one clip. Faces are sampled (3 fps, clip range only) unless the answer cannot
 * depend on them: `fit`, or a fill/square window that already is the whole frame. Camera cuts found in
 * the same frames split the clip into shots, each followed on its own.
 *
 * `auto` on a landscape source, in this order: a screen recording with a small still face inset near an
 * edge -> `screen`; two people side by side through the clip, too far apart for one fill crop -> `split`;
 * else fill/fit as decideLayout says. An explicit `split` without two people falls back to what `auto`
 * would pick; an explicit `screen` takes the inset when there is one, else the whole frame above the main
 * face, and `fit` when there is no face at all. The returned `layout` is what the clip really gets.
 */
export async function planReframe(req: ReframeRequest): Promise<ReframePlan> {
  const { info, range, output } = req;
  const source = { width: info.width, height: info.height };
  if (!info.hasVideo || !source.width || !source.height) return staticPlan('fit', source, 0);
  if (req.layout === 'fit') return staticPlan('fit', source, 0);
  const portrait = decideLayout(info, null, output, req.layout);
  if (req.layout === 'fill' || req.layout === 'square' || (req.layout === 'auto' && portrait === 'fill')) {
    const layout = req.layout === 'auto' ? portrait : req.layout;
    const crop = cropWindow(layout, source, output);
    if (crop.width === source.width && crop.height === source.height) return staticPlan(layout, crop, 0);
  }

  const frames: SampledFrame[] = [];
  const evidence = new FrameEvidenceBuilder();
  // One pass over the range (issue 22): where the speaker may be followed, the SPEAKER_FPS frames are
  // decoded with the 3 fps ones and kept, so a two-person shot is not decoded again — on sources without
  // B-frames only. With them the 3 fps pass decodes only the reference frames (faces.ts, -skip_frame
  // bidir: ~2.5x cheaper at 1080p) and a B-pyramid source's P-frames then decode against a missing
  // reference, so decoding every frame for the denser samples would both cost every clip a full decode
  // (~+70 % ffmpeg CPU on a 1080p talking head, for the few shots of two people that use it) and change
  // its 3 fps samples (docs/benchmarks.md, "Work done once"). There the shot is decoded on first need.
  const sampling = await sampleRangeFaces(req.mediaPath, range, {
    signal: req.signal, media: req.media, detector: req.faces, size: source,
    ...(info.bFrames === false && mayFollowSpeaker(req) ? { denseFps: SPEAKER_FPS } : {}),
    onFrame: (t, rgb, w, h) => {
      frames.push({ t, signature: frameSignature(rgb, w, h) });
      evidence.add(rgb, w, h);
    },
  });
  try {
    return await planFromSamples(req, sampling, frames, evidence);
  } finally {
    await sampling.close();
  }
}

/** Whether a shot of the clip may be sampled at SPEAKER_FPS: there is speech to follow and a layout that can follow it. */
function mayFollowSpeaker(req: ReframeRequest): boolean {
  if (!req.speech || req.layout === 'screen') return false;
  return req.speech.words.some((w) => w.end > req.range.start && w.start < req.range.end);
}

/** planReframe once the faces are sampled. */
async function planFromSamples(req: ReframeRequest, sampling: FaceSampling, frames: SampledFrame[], evidence: FrameEvidenceBuilder): Promise<ReframePlan> {
  const { info, range, output } = req;
  const source = { width: info.width, height: info.height };
  const portrait = decideLayout(info, null, output, req.layout);
  const { samples } = sampling;
  let cuts: number[] = [];
  try {
    const at = new Map(samples.map((sm) => [sm.t, sm]));
    cuts = await findCuts(req.mediaPath, frames, {
      signal: req.signal, media: req.media,
      worthALook: (from, to) => facesChange(at.get(from), at.get(to)),
    });
  } catch (e) {
    if (e instanceof AbortedError) throw e;
    throw new PipelineError('reframe', 'could not read video frames to find camera cuts', { cause: e });
  }
  const { shots, summary } = mainFacesByShot(samples, splitShots(range, cuts));
  const coverage = summary?.coverage ?? 0;
  const faces = clipFaces(samples, range);
  const ev = evidence.finish();
  const landscape = portrait !== 'fill';
  const aspect = source.width / source.height;

  // Who speaks in each shot of two or more people that a crop `cropW` wide (normalised; 0 for split)
  // cannot show together: faces at SPEAKER_FPS over that shot only, detected on first need (a screen
  // recording, a lone face or a two-shot the crop holds whole never pays for the detection), on the frames
  // the range's pass kept or, where it kept none, from a pass over the shot. Keyed by shot index.
  const speakerShots = new Map<number, Promise<Map<number, ActiveSpeakers>>>();
  const speakersByShot = (cropW: number): Promise<Map<number, ActiveSpeakers>> => {
    const cached = speakerShots.get(cropW);
    if (cached) return cached;
    const made = findSpeakers(cropW);
    speakerShots.set(cropW, made);
    return made;
  };
  const findSpeakers = async (cropW: number): Promise<Map<number, ActiveSpeakers>> => {
    const out = new Map<number, ActiveSpeakers>();
    if (!req.speech) return out;
    // The orchestrator hands the whole transcript: only the clip's part can say anything about it.
    const inClip = <T extends TimeRange>(x: T) => x.end > range.start && x.start < range.end;
    const clipSpeech = { words: req.speech.words.filter(inClip), sentences: req.speech.sentences.filter(inClip) };
    const speech: SpeechTiming = { words: clipSpeech.words, sentences: speechUnits(clipSpeech) };
    for (const [i, { shot }] of shots.entries()) {
      const people = shotPeople(samples.filter((sm) => sm.t >= shot.start && sm.t < shot.end));
      if (people.length < 2) continue;
      const lo = Math.min(...people.map((p) => median(p.boxes.map((b) => b.cx - b.w / 2))));
      const hi = Math.max(...people.map((p) => median(p.boxes.map((b) => b.cx + b.w / 2))));
      if (hi - lo <= cropW) continue;
      // The frames the range's pass kept when the shot starts the range; a later shot is decoded on its own.
      const dense = await (sampling.dense(shot)
        ?? sampleFaces(req.mediaPath, shot, { fps: SPEAKER_FPS, signal: req.signal, media: req.media, detector: req.faces, size: source }));
      const found = decideSpeakers(dense, shot, speech, aspect);
      if (found) out.set(i, found);
    }
    return out;
  };
  const norm = (c: Size) => ({ w: c.width / source.width, h: c.height / source.height });

  const screenOf = (found: ScreenFinding | null): ReframePlan | null => {
    if (!found) return null;
    const { face, main, inset, verdict } = found;
    // An inset-shaped face: the screen is the frame minus the inset's side. Any other face (explicit
    // `screen` on a talking head): the whole frame above, the face below.
    const m = verdict.metrics;
    const insetShaped = m.faceHeight <= INSET_MAX_HEIGHT && m.offset >= INSET_MIN_OFFSET && m.insetArea <= INSET_MAX_AREA;
    const region = insetShaped && ev ? screenRegion(ev, inset) : { x0: 0, y0: 0, x1: 1, y1: 1 };
    const rect = toSourceRect(region, source, output);
    const panel = { width: output.width, height: output.height - screenHeight(rect, output) };
    const crop = faceCropSize(face.h * source.height, panel, output.height, source);
    return {
      layout: 'screen', cropWidth: crop.width, cropHeight: crop.height,
      keyframes: shotKeyframes(pathByShot(main.path, shots, range), norm(crop)),
      faceCoverage: main.coverage, screen: rect, faces,
    };
  };
  /** The half each person of a split is in: the nearer of the two people, by the face's centre. */
  const halfOf = (left: Person, right: Person) => (t: { medianCx: number }): SpeakerSpan['half'] =>
    Math.abs(t.medianCx - left.medianCx) <= Math.abs(t.medianCx - right.medianCx) ? 'top' : 'bottom';
  const splitOf = (left: Person, right: Person, found: Map<number, ActiveSpeakers>): ReframePlan => {
    const crop = splitCropSize({ left, right }, source, output);
    const plan: ReframePlan = {
      layout: 'split', cropWidth: crop.width, cropHeight: crop.height,
      keyframes: shotKeyframes(pathByShot(left.path, shots, range), norm(crop)),
      second: { keyframes: shotKeyframes(pathByShot(right.path, shots, range), norm(crop)) },
      faceCoverage: Math.min(left.coverage, right.coverage), faces,
    };
    const half = halfOf(left, right);
    const speakers = [...found.values()].flatMap((f) => f.turns.map((tu): SpeakerSpan => ({
      start: round4(tu.start - range.start), end: round4(tu.end - range.start), half: half(f.tracks[tu.speaker]!),
    }))).filter((sp) => sp.end > sp.start);
    if (speakers.length > 0) plan.speakers = speakers;
    return plan;
  };
  /**
   * fill/fit/square following each shot's main face, as before layouts existed; in a shot where the
   * speaker is known and one crop cannot hold everyone, following the speaker instead.
   */
  const classic = (requested: Layout, found: Map<number, ActiveSpeakers> = new Map()): ReframePlan => {
    const layout = decideLayout(info, summary, output, requested);
    const crop = cropWindow(layout, source, output);
    if (layout === 'fit' || !summary) return { ...staticPlan(layout, crop, coverage), faces };
    const relative = shots.flatMap(({ shot, main }, i) => {
      const speakers = found.get(i);
      if (speakers && !cropHoldsAll(speakers, norm(crop).w)) return speakerPieces(speakers, range, info.fps);
      return [{ start: shot.start - range.start, path: main ? main.path.map((b) => ({ t: b.t - range.start, cx: b.cx, cy: b.cy })) : null }];
    });
    return { layout, cropWidth: crop.width, cropHeight: crop.height, keyframes: shotKeyframes(relative, norm(crop)), faceCoverage: coverage, faces };
  };
  const auto = async (): Promise<ReframePlan> => {
    if (landscape) {
      const found = findScreen(samples, ev);
      if (found?.verdict.isScreen) return screenOf(found)!;
      const two = findTwoPeople(samples);
      if (two && needsSplit(two, cropWindow('fill', source, output).width / source.width)) {
        const speakers = await speakersByShot(0);
        // No transcript, or no sentence decided anyone: both people, as before the speaker was known.
        if (speakers.size === 0) return splitOf(two.left, two.right, speakers);
        const shares = speechShares([...speakers.values()], halfOf(two.left, two.right));
        if ((shares.get('top') ?? 0) >= BOTH_SPEAK_SHARE && (shares.get('bottom') ?? 0) >= BOTH_SPEAK_SHARE) return splitOf(two.left, two.right, speakers);
        // One of the two does (nearly) all the talking: a fill crop on whoever speaks shows them bigger.
        return classic('fill', speakers);
      }
    }
    const layout = decideLayout(info, summary, output, 'auto');
    return classic('auto', layout === 'fit' ? new Map() : await speakersByShot(norm(cropWindow(layout, source, output)).w));
  };

  if (req.layout === 'auto') return auto();
  if (req.layout === 'split') {
    const two = findTwoPeople(samples);
    // Fewer than two people: the clip gets what auto would have picked (the plan's layout says which).
    return two ? splitOf(two.left, two.right, await speakersByShot(0)) : auto();
  }
  if (req.layout === 'screen') {
    return screenOf(findScreen(samples, ev)) ?? { ...staticPlan('fit', source, 0), faces };
  }
  return classic(req.layout, await speakersByShot(norm(cropWindow(req.layout, source, output)).w));
}
