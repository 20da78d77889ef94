// Turns per-frame detections into face tracks and picks the main face. Pure: no I/O, no model.
// Why tracks and not the best box per frame: single-frame false positives score like real faces
// (a cat's face 0.78 against people from 0.80), but they do not persist from one sample to the next.
import type { FaceBox } from '../../domain/layout.js';
import { median } from '../shared/stats.js';

export interface TrackedSample { t: number; faces: Omit<FaceBox, 't'>[] }

export interface FaceTrack {
  /** Detections in time order; `index` is the sample they came from. */
  boxes: (FaceBox & { index: number })[];
}

export interface MainFace {
  track: FaceTrack;
  /** Fraction of samples where this face was detected (0..1). */
  coverage: number;
  /** Median face height, normalised to the frame height. */
  medianHeight: number;
  /** One box per sample: the detection, or the nearest one held over a gap (none is null). */
  path: FaceBox[];
}

export interface TrackerOptions {
  /** A track survives this many samples without a detection (occlusion, a turned head, a blink of the detector). */
  maxGap?: number;
  /** Centre distance allowed between linked detections, in units of the face's size. */
  maxDistance?: number;
  /** Linked detections differ in height by at most this factor. */
  maxSizeRatio?: number;
}

const DEFAULTS: Required<TrackerOptions> = { maxGap: 3, maxDistance: 1, maxSizeRatio: 1.8 };

/**
 * Greedy frame-to-frame association: each detection joins the open track whose last box is nearest
 * (centre distance relative to the face size, similar size), closest pairs first; the rest start tracks.
 */
export function buildTracks(samples: TrackedSample[], options: TrackerOptions = {}): FaceTrack[] {
  const o = { ...DEFAULTS, ...options };
  const tracks: FaceTrack[] = [];
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i]!;
    const open = tracks.filter((tr) => i - tr.boxes[tr.boxes.length - 1]!.index <= o.maxGap + 1);
    const pairs: { track: FaceTrack; face: number; cost: number }[] = [];
    sample.faces.forEach((f, fi) => {
      for (const track of open) {
        const last = track.boxes[track.boxes.length - 1]!;
        const size = Math.max(last.h, f.h);
        const cost = Math.hypot(f.cx - last.cx, f.cy - last.cy) / size;
        const ratio = Math.max(f.h, last.h) / Math.min(f.h, last.h);
        if (cost <= o.maxDistance && ratio <= o.maxSizeRatio) pairs.push({ track, face: fi, cost });
      }
    });
    pairs.sort((a, b) => a.cost - b.cost);
    const usedTracks = new Set<FaceTrack>();
    const usedFaces = new Set<number>();
    for (const p of pairs) {
      if (usedTracks.has(p.track) || usedFaces.has(p.face)) continue;
      usedTracks.add(p.track);
      usedFaces.add(p.face);
      p.track.boxes.push({ ...sample.faces[p.face]!, t: sample.t, index: i });
    }
    sample.faces.forEach((f, fi) => {
      if (!usedFaces.has(fi)) tracks.push({ boxes: [{ ...f, t: sample.t, index: i }] });
    });
  }
  return tracks;
}

/**
 * The main face: the largest steady face, i.e. the track with the most "face height x presence".
 * Tracks seen in a single sample are noise unless the clip has only one or two samples.
 */
export function pickMainFace(samples: TrackedSample[], options: TrackerOptions = {}): MainFace | null {
  if (samples.length === 0) return null;
  const minLength = samples.length >= 3 ? 2 : 1;
  const tracks = buildTracks(samples, options).filter((tr) => tr.boxes.length >= minLength);
  let best: FaceTrack | null = null;
  let bestWeight = 0;
  for (const tr of tracks) {
    const weight = tr.boxes.reduce((sum, b) => sum + b.h, 0);
    if (weight > bestWeight) { best = tr; bestWeight = weight; }
  }
  if (!best) return null;
  return {
    track: best,
    coverage: best.boxes.length / samples.length,
    medianHeight: median(best.boxes.map((b) => b.h)),
    path: fillHoles(best, samples),
  };
}

/** One box per sample: gaps hold the last position; samples before the first detection take the first. */
export function fillHoles(track: FaceTrack, samples: TrackedSample[]): FaceBox[] {
  const path: FaceBox[] = [];
  let k = 0;
  let held = track.boxes[0]!;
  for (let i = 0; i < samples.length; i++) {
    const box = track.boxes[k];
    if (box && box.index === i) { held = box; k++; }
    const { index: _index, ...rest } = held;
    path.push({ ...rest, t: samples[i]!.t });
  }
  return path;
}
