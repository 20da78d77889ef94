// Camera cuts inside a clip, so the reframer treats each shot on its own: a two-camera podcast cuts from
// one speaker to the other, and a crop path smoothed across that cut would slide over the frame for a
// second instead of jumping with the picture. Found in two steps that cost almost nothing: the frames the
// face detector already samples (3 fps) are compared coarsely, and only where two neighbours differ a lot
// is a fraction of a second decoded at full frame rate (tiny thumbnails) to find the exact frame, or to
// drop the candidate when the change was gradual (a pan, a zoom, someone walking past the lens).
import { defaultMediaRunner } from '../../media/local-runner.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import type { TimeRange } from '../../domain/time.js';

/** Mean R, G, B over a GRID x GRID grid, 0..1: where the light and colour are in the picture. */
export type FrameSignature = Float32Array;

const GRID = 8;
/** Sampled neighbours this far apart (mean per cell and channel) are worth a closer look. */
export const CANDIDATE_DISTANCE = 0.06;
/** A cut is one frame-to-frame change at least this large... */
export const CUT_MIN_CHANGE = 0.07;
/** ...and this many times the typical change between the other frames around it. */
export const CUT_CONTRAST = 3;
/** Thumbnail for the exact-frame search: enough to tell two shots apart, 1.7 kB a frame. */
const PROBE = { w: 32, h: 18 };
/** Samples may show a frame up to ~0.1 s early (faces.ts skips B-frames): look this much before. */
const LOOK_BEFORE = 0.15;

/** Signature of one packed RGB24 frame. */
export function frameSignature(rgb: Uint8Array, width: number, height: number): FrameSignature {
  const sums = new Float64Array(GRID * GRID * 3);
  const counts = new Float64Array(GRID * GRID);
  for (let y = 0; y < height; y++) {
    const gy = Math.min(GRID - 1, Math.floor((y * GRID) / height));
    for (let x = 0; x < width; x++) {
      const cell = gy * GRID + Math.min(GRID - 1, Math.floor((x * GRID) / width));
      const p = (y * width + x) * 3;
      sums[cell * 3]! += rgb[p]!;
      sums[cell * 3 + 1]! += rgb[p + 1]!;
      sums[cell * 3 + 2]! += rgb[p + 2]!;
      counts[cell]! += 1;
    }
  }
  const sig = new Float32Array(GRID * GRID * 3);
  for (let i = 0; i < sig.length; i++) sig[i] = counts[Math.floor(i / 3)]! > 0 ? sums[i]! / counts[Math.floor(i / 3)]! / 255 : 0;
  return sig;
}

/** Mean absolute difference, 0 (same) .. 1. */
export function signatureDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) throw new RangeError('signatures of different sizes');
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

export interface SampledFrame { t: number; signature: FrameSignature }

/** Pairs of neighbouring samples (their times) that differ enough to hide a cut between them. */
export function cutCandidates(frames: readonly SampledFrame[], threshold = CANDIDATE_DISTANCE): { from: number; to: number }[] {
  const sorted = [...frames].sort((a, b) => a.t - b.t);
  const out: { from: number; to: number }[] = [];
  for (let i = 1; i < sorted.length; i++) {
    if (signatureDistance(sorted[i - 1]!.signature, sorted[i]!.signature) >= threshold) out.push({ from: sorted[i - 1]!.t, to: sorted[i]!.t });
  }
  return out;
}

/**
 * Given the frame-to-frame changes of a short window (`changes[i]` between frame i and i+1), the index of
 * the one change that is a cut, or null: it must be large and stand out from the rest of the window.
 */
export function pickCut(changes: readonly number[]): number | null {
  if (changes.length === 0) return null;
  let best = 0;
  for (let i = 1; i < changes.length; i++) if (changes[i]! > changes[best]!) best = i;
  const others = changes.filter((_, i) => i !== best).sort((a, b) => a - b);
  const typical = others.length > 0 ? others[others.length >> 1]! : 0;
  const peak = changes[best]!;
  if (peak < CUT_MIN_CHANGE) return null;
  // A floor under `typical` so a static shot (changes ~0) does not turn any flicker into a cut.
  return peak >= CUT_CONTRAST * Math.max(typical, 0.01) ? best : null;
}

/** `pts_time` of each frame showinfo printed, in order. */
export function showinfoTimes(stderr: string): number[] {
  const times: number[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.includes('showinfo')) continue;
    const m = /pts_time:\s*(-?\d+(?:\.\d+)?)/.exec(line);
    if (m) times.push(Number(m[1]));
  }
  return times;
}

/**
 * Decodes [from - LOOK_BEFORE, to] at full frame rate as tiny thumbnails and returns the cut's time: the
 * midpoint between the last frame of the old shot and the first of the new one (source seconds), so a
 * crop switched there changes on exactly that frame. Null when the window holds no single-frame change.
 */
export async function exactCut(mediaPath: string, from: number, to: number, signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<number | null> {
  const start = Math.max(0, from - LOOK_BEFORE);
  const frameBytes = PROBE.w * PROBE.h * 3;
  const { stdoutBytes: raw, stderr } = await media.run('ffmpeg', [
    '-nostdin', '-hide_banner', '-nostats', '-v', 'info', '-ss', start.toFixed(3), '-i', mediaPath, '-t', (to - start + 0.02).toFixed(3),
    '-map', '0:v:0', '-an', '-sn', '-dn',
    '-vf', `scale=${PROBE.w}:${PROBE.h}:flags=area,showinfo`,
    // passthrough: one raw frame per decoded frame. Left to its default, the rawvideo output is made
    // constant-rate and duplicates the first frame when it starts between two ticks of the seek point,
    // which shifted every frame against the showinfo times by one.
    '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-',
  ], { signal, stderrLimit: 1 << 20 });
  const times = showinfoTimes(stderr);
  const count = Math.min(times.length, Math.floor(raw.length / frameBytes));
  if (count < 2) return null;
  const frame = (i: number) => raw.subarray(i * frameBytes, (i + 1) * frameBytes);
  const changes: number[] = [];
  for (let i = 1; i < count; i++) changes.push(signatureDistance(frame(i - 1), frame(i)) / 255);
  const k = pickCut(changes);
  if (k === null) return null;
  // Frame k is the last of the old shot, k + 1 the first of the new; times are relative to the seek point.
  return start + (times[k]! + times[k + 1]!) / 2;
}

/**
 * Exact cut times (source seconds, ascending) inside the sampled frames' span. `worthALook(from, to)`
 * can skip candidates whose cut could not matter to the caller (each exact search costs one short ffmpeg
 * run, ~0.2 s with the seek from the previous keyframe): the reframer only cares where the faces change.
 */
export async function findCuts(mediaPath: string, frames: readonly SampledFrame[], opts: { signal?: AbortSignal; media?: MediaRunner; worthALook?: (from: number, to: number) => boolean } = {}): Promise<number[]> {
  const cuts: number[] = [];
  for (const c of cutCandidates(frames)) {
    if (opts.worthALook && !opts.worthALook(c.from, c.to)) continue;
    const t = await exactCut(mediaPath, c.from, c.to, opts.signal, opts.media);
    // Two candidates can find the same cut (a sample that still showed the old shot).
    if (t !== null && !cuts.some((u) => Math.abs(u - t) < 0.05)) cuts.push(t);
  }
  return cuts.sort((a, b) => a - b);
}

/** The range cut into shots at `cuts` (those strictly inside it). */
export function splitShots(range: TimeRange, cuts: readonly number[]): TimeRange[] {
  const inside = [...cuts].filter((c) => c > range.start && c < range.end).sort((a, b) => a - b);
  const edges = [range.start, ...inside, range.end];
  return edges.slice(1).map((end, i) => ({ start: edges[i]!, end }));
}
