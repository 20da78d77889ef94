// Which frame of a clip becomes its cover (issue 14): the speaker's face sharp, centred and with open
// eyes, never a frame inside a camera cut, a dissolve or a fade. Candidates are a few dozen frames of the
// clip measured at (up to) 720p; everything but decodeCandidates/chooseCoverFrame is pure, so the
// measures and the choice are tested on numbers as well as on footage.
import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clampCrop } from '../../media/layout-graphs.js';
import { fileArg } from '../../media/ffmpeg-args.js';
import { defaultMediaRunner } from '../../media/local-runner.js';
import { AbortedError, ProcessError } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import type { RenderPlan } from '../../media/render-plan.js';
import { PipelineError } from '../../errors.js';
import { loadFaceDetector, type DetectedFace, type FaceDetector, type FacePoint } from '../reframe/faces.js';
import { CANDIDATE_DISTANCE, frameSignature, showinfoTimes, signatureDistance, type SampledFrame } from '../reframe/shots.js';
import { median, quantile } from '../shared/stats.js';
import { mouthOpening } from '../reframe/mouth-activity.js';
import type { CropKeyframe } from '../../domain/layout.js';

/** At most this many frames are measured, whatever the clip's length (each costs a detection, ~10 ms). */
export const MAX_CANDIDATES = 40;
/** ...and at most two a second: neighbours closer than that are nearly the same picture. */
export const CANDIDATE_FPS = 2;
/**
 * A candidate must look like its neighbours this far either side: a cut, a dissolve or a fade changes
 * the picture's layout of light within half a second, a talking head does not. The threshold is the
 * shot finder's (shots.ts CANDIDATE_DISTANCE), on the same 8x8 colour signature. Measured: a 1 s dissolve
 * between two webcam shots changed 0.095-0.13 within ±0.5 s (0.047 within ±0.25 s, missed), a 1 s fade to
 * black 0.22-0.31; talking heads 0.001-0.044.
 */
export const STILL_WINDOW_SEC = 0.5;
/** Signatures are taken this often over the whole clip to judge the candidates' neighbourhoods. */
const SIGNATURE_FPS = 8;
const SIGNATURE_SIZE = { w: 32, h: 18 };
/**
 * Candidates are measured with their short side at most this: ranking frames of one clip needs a face of
 * a few hundred pixels (talk.mp4's are ~100 px wide at 300p and rank fine), and 40 frames of 4K would be
 * 1 GB of raw RGB.
 */
const MEASURE_SHORT_SIDE = 720;
/**
 * Eyes count as closed when their darkness (eyeDarkness) falls under this share of the clip's open eyes
 * (90th percentile of the candidates). On franck.mp4 (40 s, every other frame) the 90th percentile was
 * 0.62; the blinks, half-blinks, downcast and laugh-narrowed frames looked at measured 0.49-0.55 (at most
 * 0.89 of it), the open ones 0.58-0.63 (at least 0.93): a real but narrow margin, so a shut-eye frame is
 * only penalised (pickCover), never excluded. test/cover-image.test.ts keeps those hand-labelled frames.
 */
export const CLOSED_EYES_RATIO = 0.9;

/**
 * A cover shows the speaker with the mouth at rest, not caught mid-word: a frame loses this much score
 * per unit its mouth opening exceeds the clip's rest opening (the candidates' 25th percentile), so a mouth
 * 25 % wider than at rest costs what being half as sharp costs. Without it the sharpest face was often an
 * open mouth (teeth are edges: Laplacian variance rewards them; the demo clip's cover was one).
 */
export const OPEN_MOUTH_WEIGHT = 4;

/** A candidate face, normalised to the source frame (0..1) like DetectedFace. */
export type CoverFace = DetectedFace;

export interface CoverCandidate {
  /** Clip seconds: the frame's own timestamp from the clip's start. */
  t: number;
  /** Largest picture change (signature distance) within STILL_WINDOW_SEC of the frame. */
  change: number;
  /** The speaker's face, or null when none was found. */
  face: CoverFace | null;
  /** Laplacian variance of the face (of the whole frame when there is no face), 8-bit luma. */
  sharpness: number;
  /** Eye darkness (eyesOpenness: lower is more closed), null without eye landmarks. */
  eyes: number | null;
  /** Mouth opening (mouth-activity.ts mouthOpening, inter-ocular distances), null without landmarks. */
  mouth?: number | null;
}

export interface CoverChoice {
  /** The chosen frame, clip seconds. */
  t: number;
  face: CoverFace | null;
  /** Index into candidates. */
  index: number;
  candidates: CoverCandidate[];
}

/** BT.601 luma of packed RGB24, 0..255. */
export function lumaOf(rgb: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < out.length; i++, p += 3) out[i] = (rgb[p]! * 77 + rgb[p + 1]! * 150 + rgb[p + 2]! * 29) >> 8;
  return out;
}

export interface PixelRect { x0: number; y0: number; x1: number; y1: number }

/** A normalised box (centre and size, 0..1) as whole pixels inside the frame; null when nothing is left. */
export function pixelRect(box: { cx: number; cy: number; w: number; h: number }, width: number, height: number): PixelRect | null {
  const x0 = Math.max(0, Math.floor((box.cx - box.w / 2) * width)), x1 = Math.min(width, Math.ceil((box.cx + box.w / 2) * width));
  const y0 = Math.max(0, Math.floor((box.cy - box.h / 2) * height)), y1 = Math.min(height, Math.ceil((box.cy + box.h / 2) * height));
  return x1 - x0 >= 3 && y1 - y0 >= 3 ? { x0, y0, x1, y1 } : null;
}

/**
 * Variance of the 4-neighbour Laplacian over a rectangle of a luma plane: the classic focus measure.
 * Motion blur and defocus remove the high frequencies it responds to; the same face sharp scores
 * several times higher than blurred.
 */
export function laplacianVariance(gray: Uint8Array, width: number, height: number, rect: PixelRect = { x0: 0, y0: 0, x1: width, y1: height }): number {
  const x0 = Math.max(1, rect.x0), x1 = Math.min(width - 1, rect.x1);
  const y0 = Math.max(1, rect.y0), y1 = Math.min(height - 1, rect.y1);
  let n = 0, sum = 0, sum2 = 0;
  for (let y = y0; y < y1; y++) {
    let p = y * width + x0;
    for (let x = x0; x < x1; x++, p++) {
      const l = 4 * gray[p]! - gray[p - 1]! - gray[p + 1]! - gray[p - width]! - gray[p + width]!;
      n++; sum += l; sum2 += l * l;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sum2 / n - mean * mean;
}

/**
 * How dark one eye's region is against the face: (face median luma - the eye box's 10th percentile) /
 * face median, for a box around the eye centre a quarter of the face wide and an eighth high. BlazeFace
 * gives only the eye's centre, not the lids, so openness cannot be measured as a lid distance; what can
 * be measured is that an open eye shows a dark iris and pupil (well over a tenth of the box), a closed or
 * narrowed one mostly lid, as bright as the face, with a thin line of lashes. On franck.mp4 (360x288,
 * faces ~100 px wide) open eyes measured 0.57-0.65, blinks, narrowed (laughing) and downcast eyes
 * 0.48-0.54; contrast (p90 - p10) did not separate them (lighting moved it more than the lids).
 */
export function eyeDarkness(gray: Uint8Array, width: number, height: number, eye: FacePoint, face: CoverFace): number | null {
  const fw = face.w * width;
  const box = pixelRect({ cx: eye.x, cy: eye.y, w: (fw * 0.25) / width, h: (fw * 0.125) / height }, width, height);
  const inner = pixelRect({ cx: face.cx, cy: face.cy, w: face.w * 0.6, h: face.h * 0.6 }, width, height);
  if (!box || !inner) return null;
  const skin = median(lumaValues(gray, width, inner));
  if (!(skin > 0)) return null;
  return (skin - quantile(lumaValues(gray, width, box), 0.1)) / skin;
}

function lumaValues(gray: Uint8Array, width: number, r: PixelRect): number[] {
  const values: number[] = [];
  for (let y = r.y0; y < r.y1; y++) for (let x = r.x0; x < r.x1; x++) values.push(gray[y * width + x]!);
  return values;
}

/**
 * Faces narrower than this (measuring pixels) have eye boxes of a few pixels (16x8 at 64 px), where one
 * pixel of lashes or shadow moves the 10th percentile: their eyes are not measured (null).
 */
export const MIN_EYE_FACE_PX = 64;

/**
 * Both eyes' darkness, the lighter one's (one eye shut is a shut-eye frame); null without landmarks or
 * for a face too small to tell (MIN_EYE_FACE_PX).
 */
export function eyesOpenness(gray: Uint8Array, width: number, height: number, face: CoverFace): number | null {
  const k = face.keypoints;
  if (!k || face.w * width < MIN_EYE_FACE_PX) return null;
  const a = eyeDarkness(gray, width, height, k.rightEye, face), b = eyeDarkness(gray, width, height, k.leftEye, face);
  return a === null || b === null ? null : Math.min(a, b);
}

/** Largest signature distance between the frame at t and any signature within `window` seconds of it. */
export function changeAround(signatures: readonly SampledFrame[], t: number, window = STILL_WINDOW_SEC): number {
  if (signatures.length === 0) return 0;
  let centre = signatures[0]!;
  for (const s of signatures) if (Math.abs(s.t - t) < Math.abs(centre.t - t)) centre = s;
  let most = 0;
  for (const s of signatures) {
    if (Math.abs(s.t - t) <= window + 1e-6) most = Math.max(most, signatureDistance(centre.signature, s.signature));
  }
  return most;
}

/** The planned crop centre at clip time t: linear between keyframes, held before the first and after the last (as cropExpression). */
export function cropCentreAt(keyframes: readonly CropKeyframe[], t: number): { cx: number; cy: number } {
  const k = [...keyframes].sort((a, b) => a.t - b.t);
  if (k.length === 0) return { cx: 0.5, cy: 0.5 };
  if (t <= k[0]!.t) return { cx: k[0]!.cx, cy: k[0]!.cy };
  for (let i = 1; i < k.length; i++) {
    const a = k[i - 1]!, b = k[i]!;
    if (t <= b.t) {
      const f = b.t - a.t > 1e-9 ? (t - a.t) / (b.t - a.t) : 1;
      return { cx: a.cx + (b.cx - a.cx) * f, cy: a.cy + (b.cy - a.cy) * f };
    }
  }
  const last = k[k.length - 1]!;
  return { cx: last.cx, cy: last.cy };
}

/**
 * The crop centre (normalised) the cover uses for a face at t: fill and square put the window on the
 * face's centre horizontally (keeping the planned height), so the cover's face is centred even where
 * the clip's smoothed path lets it drift inside its dead zone; split and screen keep the planned path.
 * The renderer clamps the window inside the source, as for the clip.
 */
export function coverCropCentre(plan: Pick<RenderPlan, 'reframe'>, t: number, face: CoverFace | null): { cx: number; cy: number } {
  const planned = cropCentreAt(plan.reframe.keyframes, t);
  const recentre = face && (plan.reframe.layout === 'fill' || plan.reframe.layout === 'square');
  return recentre ? { cx: face.cx, cy: planned.cy } : planned;
}

/**
 * How far the face's centre sits from the middle of what the picture shows, as a share of that width
 * (0 = centred, 0.5 = on the edge): the crop window at the cover's centre, clamped like the renderer's,
 * or the whole frame for fit.
 */
export function faceOffCentre(plan: Pick<RenderPlan, 'reframe' | 'input'>, t: number, face: CoverFace): number {
  const { input, reframe } = plan;
  if (reframe.layout === 'fit') return Math.abs(face.cx - 0.5);
  const crop = clampCrop({ width: reframe.cropWidth, height: reframe.cropHeight }, input);
  const centre = coverCropCentre(plan, t, face);
  const left = Math.min(Math.max(0, input.width - crop.width), Math.max(0, Math.round(centre.cx * input.width - crop.width / 2)));
  return Math.abs((face.cx * input.width - left) / crop.width - 0.5);
}

/** The face the clip is about at t: the one nearest the planned crop centre (fit: the largest, by score). */
export function speakerFace(plan: Pick<RenderPlan, 'reframe'>, t: number, faces: readonly DetectedFace[]): DetectedFace | null {
  if (faces.length === 0) return null;
  if (plan.reframe.layout === 'fit') return [...faces].sort((a, b) => b.w * b.h * b.score - a.w * a.h * a.score)[0]!;
  const c = cropCentreAt(plan.reframe.keyframes, t);
  return [...faces].sort((a, b) => Math.hypot(a.cx - c.cx, a.cy - c.cy) - Math.hypot(b.cx - c.cx, b.cy - c.cy))[0]!;
}

/**
 * The cover among the candidates. Only still frames (no cut, dissolve or fade within STILL_WINDOW_SEC)
 * compete, unless there are none, then the stillest ones do; frames with a face beat frames without.
 * Score: sharpness against the clip's median face (log2, so twice as sharp is +1), minus 4 per unit of
 * off-centre (a face a quarter of the crop's width off costs what being half as sharp costs), minus 2
 * when the eyes look closed (a shut-eye frame must be four times sharper to win), minus OPEN_MOUTH_WEIGHT
 * per unit of mouth opening above the clip's rest (caught mid-word). Pure, so the weights
 * are tested on numbers.
 */
export function pickCover(candidates: readonly CoverCandidate[], offCentre: (c: CoverCandidate) => number): number {
  if (candidates.length === 0) throw new RangeError('no candidate frames');
  const still = candidates.map((c, i) => ({ c, i })).filter(({ c }) => c.change < CANDIDATE_DISTANCE);
  const leastChange = Math.min(...candidates.map((c) => c.change));
  const pool = still.length > 0 ? still : candidates.map((c, i) => ({ c, i })).filter(({ c }) => c.change <= leastChange * 1.5 + 1e-9);
  const withFace = pool.filter(({ c }) => c.face);
  const field = withFace.length > 0 ? withFace : pool;
  const typical = Math.max(1e-6, median(field.map(({ c }) => c.sharpness)));
  const openEyes = quantile(field.flatMap(({ c }) => (c.eyes === null ? [] : [c.eyes])), 0.9);
  const mouths = field.flatMap(({ c }) => (c.mouth == null ? [] : [c.mouth]));
  const restMouth = mouths.length > 0 ? quantile(mouths, 0.25) : 0;
  let best = field[0]!, bestScore = -Infinity;
  for (const entry of field) {
    const { c } = entry;
    let score = Math.log2(Math.max(1e-6, c.sharpness) / typical);
    if (c.face) score -= 4 * offCentre(c);
    if (c.eyes !== null && openEyes > 0 && c.eyes < CLOSED_EYES_RATIO * openEyes) score -= 2;
    if (c.mouth != null && restMouth > 0) score -= OPEN_MOUTH_WEIGHT * Math.max(0, c.mouth / restMouth - 1);
    if (score > bestScore) { best = entry; bestScore = score; }
  }
  return best.i;
}

/** The decoded candidates: their times, one raw RGB24 file of the frames at measuring size, the clip's signatures. */
export interface DecodedCandidates {
  width: number;
  height: number;
  times: number[];
  /** Packed RGB24 frames, in `times` order; read one at a time (40 frames of 720p are 110 MB). */
  framesFile: string;
  signatures: SampledFrame[];
}

/** Measuring size for a source: short side at most MEASURE_SHORT_SIDE, even. */
export function measureSize(source: { width: number; height: number }): { width: number; height: number } {
  const k = Math.min(1, MEASURE_SHORT_SIDE / Math.min(source.width, source.height));
  const even = (n: number) => Math.max(2, 2 * Math.round(n / 2));
  return { width: even(source.width * k), height: even(source.height * k) };
}

/** Seconds between candidates for a clip of `duration` s: CANDIDATE_FPS, spread out to at most MAX_CANDIDATES. */
export function candidateStep(duration: number): number {
  return Math.max(1 / CANDIDATE_FPS, duration / MAX_CANDIDATES);
}

/**
 * The ffmpeg argv that decodes the clip once into two raw outputs: the candidates (one frame every
 * `step` seconds, real frames with their own timestamps, printed by showinfo) at measuring size, and
 * the 8 fps signature thumbnails. -skip_frame noref: frames nothing refers to are not decoded; x264
 * compresses those hardest (softest frames), so a cover loses nothing. Not `bidir` as faces.ts samples:
 * with x264's B-pyramid some B-frames are references, and skipping them left P-frames decoded against
 * missing pictures, blocky ghosts whose edges measured as the "sharpest" face of talk.mp4.
 */
export function candidateArgs(plan: Pick<RenderPlan, 'input'>, step: number, size: { width: number; height: number }, out: { frames: string; signatures: string }): string[] {
  const { input } = plan;
  const n = (v: number) => String(Math.round(v * 1000) / 1000);
  const graph = `[0:v]split=2[c][s];`
    + `[c]select='isnan(prev_selected_t)+gte(t-prev_selected_t,${n(step)})',scale=${size.width}:${size.height},showinfo,format=rgb24[cand];`
    + `[s]fps=${SIGNATURE_FPS},scale=${SIGNATURE_SIZE.w}:${SIGNATURE_SIZE.h}:flags=area,format=rgb24[sig]`;
  return [
    '-nostdin', '-hide_banner', '-nostats', '-v', 'info', '-y', '-skip_frame', 'noref',
    '-ss', n(input.start), '-t', n(input.end - input.start), '-i', fileArg(input.path),
    '-filter_complex', graph,
    // passthrough: one raw frame per selected frame, in step with showinfo's times (shots.ts exactCut).
    '-map', '[cand]', '-vsync', 'passthrough', '-f', 'rawvideo', out.frames,
    '-map', '[sig]', '-f', 'rawvideo', out.signatures,
  ];
}

/** Decodes the candidates into `dir` (the caller removes it). */
export async function decodeCandidates(plan: Pick<RenderPlan, 'input'>, dir: string, signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<DecodedCandidates> {
  const size = measureSize(plan.input);
  const out = { frames: path.join(dir, 'frames.rgb'), signatures: path.join(dir, 'signatures.rgb') };
  try {
    const { stderr } = await media.run('ffmpeg', candidateArgs(plan, candidateStep(plan.input.end - plan.input.start), size, out), { signal, stderrLimit: 1 << 20 });
    const frameBytes = size.width * size.height * 3;
    const count = Math.floor((await stat(out.frames)).size / frameBytes);
    const sigRaw = await readFile(out.signatures);
    const sigBytes = SIGNATURE_SIZE.w * SIGNATURE_SIZE.h * 3;
    const signatures: SampledFrame[] = [];
    for (let i = 0; (i + 1) * sigBytes <= sigRaw.length; i++) {
      signatures.push({ t: i / SIGNATURE_FPS, signature: frameSignature(sigRaw.subarray(i * sigBytes, (i + 1) * sigBytes), SIGNATURE_SIZE.w, SIGNATURE_SIZE.h) });
    }
    return { ...size, times: showinfoTimes(stderr).slice(0, count), framesFile: out.frames, signatures };
  } catch (e) {
    if (signal?.aborted || e instanceof AbortedError) throw new AbortedError();
    if (e instanceof ProcessError) throw new PipelineError('rendering', 'could not read the clip\'s frames for its cover', { cause: e });
    throw e;
  }
}

/** Measures every candidate (face, sharpness, eyes, stillness) and picks the cover frame. */
export async function chooseCoverFrame(plan: Pick<RenderPlan, 'input' | 'reframe'>, signal?: AbortSignal, media: MediaRunner = defaultMediaRunner(),
  faces?: FaceDetector): Promise<CoverChoice> {
  const dir = await mkdtemp(path.join(tmpdir(), 'shorts-cover-'));
  try {
    const decoded = await decodeCandidates(plan, dir, signal, media);
    if (decoded.times.length === 0) throw new PipelineError('rendering', 'the clip has no frames to make a cover from');
    const detector = faces ?? await loadFaceDetector();
    const { width, height } = decoded;
    const rgb = new Uint8Array(width * height * 3);
    const candidates: CoverCandidate[] = [];
    const fh = await open(decoded.framesFile, 'r');
    try {
      for (const [i, t] of decoded.times.entries()) {
        if (signal?.aborted) throw new AbortedError();
        await fh.read(rgb, 0, rgb.length, i * rgb.length);
        const gray = lumaOf(rgb, width, height);
        const face = speakerFace(plan, t, await detector.detect(rgb, width, height));
        const rect = face ? pixelRect(face, width, height) : null;
        candidates.push({
          t,
          change: changeAround(decoded.signatures, t),
          face,
          sharpness: laplacianVariance(gray, width, height, rect ?? undefined),
          eyes: face ? eyesOpenness(gray, width, height, face) : null,
          mouth: face?.keypoints ? mouthOpening(face.keypoints, width / height) : null,
        });
      }
    } finally {
      await fh.close();
    }
    const index = pickCover(candidates, (c) => (c.face ? faceOffCentre(plan, c.t, c.face) : 0));
    const chosen = candidates[index]!;
    return { t: chosen.t, face: chosen.face, index, candidates };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
