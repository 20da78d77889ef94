// Who is talking, seen from the face: a mouth-activity signal per face track from BlazeFace's keypoints,
// and how well it agrees with speech in the audio. Pure: no I/O, no model (faces.ts gives the keypoints,
// audio-features.ts the audio frames).
//
// BlazeFace gives only the mouth's centre, not the lips. When the jaw drops the centre moves down, away
// from the nose, by about half the opening; head motion moves mouth, nose and eyes together. So the
// signal is the mouth-to-nose distance measured along the face's own vertical (perpendicular to the eye
// line) in units of the inter-ocular distance, and activity is how much that changes from one sample to
// the next. Measured on real footage (docs/benchmarks.md, "Mouth activity", scripts/bench-mouth.mjs):
// - talking seconds against listening ones separate with an AUC of 1.00 at 10-15 fps, 0.99 at 6 fps and
//   0.97 at 3 fps (franck.mp4), and down to faces ~90 px tall in 1080p (eyes 5 px apart in the detector's
//   256 px input; 0.97 at 68 px): the NMS blend of overlapping anchors gives sub-pixel keypoints;
// - it follows speech: r = 0.84 with movie-hello.mp4's audio at 10 fps (0.70 at 3 fps), ~0 when shifted;
// - a head turning with the mouth closed also moves the keypoint (talking beats it with an AUC of only
//   0.78 at 10 fps), and levels differ between people (talking ~0.005 to ~0.05): decide by comparing the
//   faces of one shot and by agreement with speech, not by a fixed threshold.
// A pixel-difference energy of the mouth region was measured too: it mostly measures head motion
// (AUC 1.00 raw on franck, whose listening seconds are also still ones, but 0.52-0.63 once the upper
// face's own difference is taken off), so the keypoint it is.
import type { FaceKeypoints, FacePoint } from './faces.js';
import type { AudioTrack } from '../../domain/audio.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';

/** One sample of a face track: its time (source seconds) and the detector's keypoints when it had them. */
export interface MouthSample { t: number; keypoints?: FaceKeypoints }

export interface MouthActivity {
  t: number;
  /**
   * Smoothed change of the mouth opening per sample, in inter-ocular distances (at 10 fps: talking
   * ~0.005-0.05 depending on the person, a listening face ~0.001-0.003, a frozen frame ~0). It grows as the
   * rate falls (larger steps), so only compare tracks sampled at the same rate. Null where the track has no
   * keypoints near this time.
   */
  value: number | null;
}

export interface MouthActivityOptions {
  /** Centred moving-average window, seconds. Short enough for a speaker change to show within ~0.5 s. */
  smoothSec?: number;
  /** Two samples further apart than this are not compared (a gap in the track, a cut). */
  maxStepSec?: number;
}

const DEFAULTS: Required<MouthActivityOptions> = { smoothSec: 0.5, maxStepSec: 0.5 };
/** Eyes closer than this (in frame units) are too small to measure anything against. */
const MIN_IOD = 1e-4;

/**
 * The mouth centre's distance below the nose tip along the face's vertical, in inter-ocular distances
 * (~0.5 on a frontal face; it grows as the mouth opens). Frame coordinates are normalised per axis, so
 * `aspect` (width / height of the frame) puts both axes in the same unit first.
 */
export function mouthOpening(k: FaceKeypoints, aspect = 1): number | null {
  const p = (q: FacePoint) => ({ x: q.x * aspect, y: q.y });
  const re = p(k.rightEye), le = p(k.leftEye), nose = p(k.nose), mouth = p(k.mouth);
  const ux = le.x - re.x, uy = le.y - re.y;
  const iod = Math.hypot(ux, uy);
  if (!(iod > MIN_IOD)) return null;
  // Down the face: the eye vector turned 90 degrees (x right, y down in image coordinates).
  const dx = -uy / iod, dy = ux / iod;
  return ((mouth.x - nose.x) * dx + (mouth.y - nose.y) * dy) / iod;
}

/**
 * Per-sample mouth activity of one face track (samples in time order): |change of mouthOpening| between
 * consecutive samples, then a centred moving average. `aspect` is the source frame's width / height.
 */
export function mouthActivity(samples: readonly MouthSample[], aspect = 1, options: MouthActivityOptions = {}): MouthActivity[] {
  const o = { ...DEFAULTS, ...options };
  const opening = samples.map((s) => (s.keypoints ? mouthOpening(s.keypoints, aspect) : null));
  const step: (number | null)[] = samples.map((s, i) => {
    const a = opening[i - 1], b = opening[i];
    if (i === 0 || a == null || b == null || s.t - samples[i - 1]!.t > o.maxStepSec) return null;
    return Math.abs(b - a);
  });
  // The first sample of a run has no step of its own: it borrows the next one so a track's start is not a hole.
  for (let i = 0; i < step.length; i++) if (step[i] == null && opening[i] != null && step[i + 1] != null) step[i] = step[i + 1]!;
  const half = o.smoothSec / 2;
  const out: MouthActivity[] = [];
  let lo = 0, hi = 0, sum = 0, n = 0;
  for (let i = 0; i < samples.length; i++) {
    const t = samples[i]!.t;
    while (hi < samples.length && samples[hi]!.t <= t + half + 1e-9) {
      const v = step[hi++];
      if (v != null) { sum += v; n++; }
    }
    while (samples[lo]!.t < t - half - 1e-9) {
      const v = step[lo++];
      if (v != null) { sum -= v; n--; }
    }
    out.push({ t, value: step[i] == null && opening[i] == null ? null : n > 0 ? Math.max(0, sum / n) : null });
  }
  return out;
}

/** Speech over time: `values[i]` (0..1) is how much of frame i, starting at start + i * frameSec, is speech. */
export interface SpeechEnvelope { start: number; frameSec: number; values: number[] }

/** Frames this far above the noise floor count as speech (a room's own hum stays within ~3 dB of it). */
const SPEECH_OVER_FLOOR_DB = 10;

/**
 * Speech from the audio's level alone: a frame is speech when it is SPEECH_OVER_FLOOR_DB above the range's
 * noise floor (its 20th-percentile level). Not YIN voicing: on movie-hello.mp4's webcam microphone it
 * found a pitch in 11 of the ~80 frames of its 2 s of speech. Anything loud counts (music, laughter), so
 * prefer speechFromWords where a transcript exists.
 */
export function speechFromAudio(track: AudioTrack): SpeechEnvelope {
  const sorted = [...track.levelDb].sort((a, b) => a - b);
  const floor = sorted[Math.floor(sorted.length * 0.2)] ?? 0;
  return { start: track.start, frameSec: track.frameSec, values: track.levelDb.map((db) => (db >= floor + SPEECH_OVER_FLOOR_DB ? 1 : 0)) };
}

/** Speech from a transcript's word timings over `range`, in frames of `frameSec`. */
export function speechFromWords(words: readonly Word[], range: TimeRange, frameSec = 0.025): SpeechEnvelope {
  const values = new Array<number>(Math.max(0, Math.ceil((range.end - range.start) / frameSec))).fill(0);
  for (const w of words) {
    const from = Math.max(0, Math.floor((w.start - range.start) / frameSec));
    const to = Math.min(values.length, Math.ceil((w.end - range.start) / frameSec));
    for (let i = from; i < to; i++) values[i] = 1;
  }
  return { start: range.start, frameSec, values };
}

export interface SpeechAgreement {
  /** Pearson correlation of mouth activity with the speech envelope at the track's samples (-1..1); null if either is flat. */
  correlation: number | null;
  /** Mean activity where speech covers at least half of the smoothing window, and where it does not. */
  speaking: number | null;
  silent: number | null;
  /** Samples of the span with both an activity value and audio. */
  samples: number;
}

/**
 * How well a track's mouth activity follows the speech heard over `span` (source seconds). The envelope
 * is averaged over the same window the activity was smoothed with, so both have the same time resolution.
 */
export function speechAgreement(activity: readonly MouthActivity[], speech: SpeechEnvelope, span: TimeRange, smoothSec = DEFAULTS.smoothSec): SpeechAgreement {
  const xs: number[] = [], ys: number[] = [];
  let on = 0, onN = 0, off = 0, offN = 0;
  for (const a of activity) {
    if (a.value == null || a.t < span.start || a.t >= span.end) continue;
    const from = Math.max(0, Math.floor((a.t - smoothSec / 2 - speech.start) / speech.frameSec));
    const to = Math.min(speech.values.length, Math.ceil((a.t + smoothSec / 2 - speech.start) / speech.frameSec));
    if (to <= from) continue;
    let sum = 0;
    for (let i = from; i < to; i++) sum += speech.values[i]!;
    const frac = sum / (to - from);
    xs.push(a.value);
    ys.push(frac);
    if (frac >= 0.5) { on += a.value; onN++; } else { off += a.value; offN++; }
  }
  return { correlation: pearson(xs, ys), speaking: onN ? on / onN : null, silent: offN ? off / offN : null, samples: xs.length };
}

function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 3) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n, my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx, dy = ys[i]! - my;
    sxy += dx * dy; sxx += dx * dx; syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}
