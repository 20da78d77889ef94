// Real renders with the system ffmpeg, kept tiny: 640x360 sources of a few seconds rendered to 360x640.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, fontsDir } from '../src/catalog/templates.js';
import { partialOutputPath } from '../src/media/ffmpeg-args.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import { buildAss, buildCues } from '../src/pipeline/captions/captions.js';
import type { ReframePlan } from '../src/domain/layout.js';
import { PipelineError } from '../src/errors.js';
import { speech, video } from './helpers/media.js';
import { frameAt } from './helpers/frames.js';

const W = 360, H = 640;
let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'render-test-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILL: ReframePlan = { layout: 'fill', cropWidth: 202, cropHeight: 360, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 };
const FIT: ReframePlan = { layout: 'fit', cropWidth: 640, cropHeight: 360, keyframes: [], faceCoverage: 0 };

function plan(name: string, input: Partial<RenderPlan['input']> & { path: string }, over: Partial<Omit<RenderPlan, 'input'>> = {}): RenderPlan {
  return {
    version: 1,
    input: { start: 0, end: 3, width: 640, height: 360, hasAudio: false, ...input },
    output: { path: path.join(dir, name), width: W, height: H, preset: 'ultrafast', crf: 30 },
    reframe: FILL,
    background: { blur: false, color: '#204080' },
    captions: null,
    ...over,
  };
}

interface Probe {
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; pix_fmt?: string; r_frame_rate: string; avg_frame_rate: string; nb_frames?: string }[];
  format: { duration: string };
}
function probe(file: string): Probe {
  return JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { encoding: 'utf8' })) as Probe;
}

function pixel(frame: Buffer, x: number, y: number): [number, number, number] {
  const i = (y * W + x) * 3;
  return [frame[i]!, frame[i + 1]!, frame[i + 2]!];
}
function near(p: [number, number, number], hex: string, tol = 40): boolean {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return p.every((v, i) => Math.abs(v - c[i]!) <= tol);
}
/** Pixels of a colour, with where they are. */
function find(frame: Buffer, hex: string): { count: number; minY: number; maxY: number; maxX: number } {
  const r = { count: 0, minY: H, maxY: -1, maxX: -1 };
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    if (!near(pixel(frame, x, y), hex)) continue;
    r.count++; r.minY = Math.min(r.minY, y); r.maxY = Math.max(r.maxY, y); r.maxX = Math.max(r.maxX, x);
  }
  return r;
}

/** Top-level MP4 box types in file order. */
function topLevelBoxes(file: string): string[] {
  const buf = readFileSync(file);
  const types: string[] = [];
  for (let off = 0; off + 8 <= buf.length;) {
    let size = buf.readUInt32BE(off);
    types.push(buf.toString('latin1', off + 4, off + 8));
    if (size === 1) size = Number(buf.readBigUInt64BE(off + 8));
    if (size < 8) break;
    off += size;
  }
  return types;
}

describe('renderClip', () => {
  it('renders h264 yuv420p at the requested size with AAC audio, the clip duration and moov before mdat', async () => {
    const source = video({ duration: 6, audio: speech('Rendering a short vertical clip from a wide video.') });
    const p = plan('fill.mp4', { path: source, start: 1.5, end: 4.5, hasAudio: true }, {
      reframe: { ...FILL, keyframes: [{ t: 0, cx: 0.2, cy: 0.5 }, { t: 3, cx: 0.8, cy: 0.5 }] },
    });
    const progress: number[] = [];
    await renderClip(p, { onProgress: (f) => progress.push(f) });

    const info = probe(p.output.path);
    const v = info.streams.find((s) => s.codec_type === 'video')!;
    const a = info.streams.find((s) => s.codec_type === 'audio');
    expect([v.codec_name, v.pix_fmt, v.width, v.height]).toEqual(['h264', 'yuv420p', W, H]);
    expect(a?.codec_name).toBe('aac');
    expect(Number(info.format.duration)).toBeCloseTo(3, 1);
    const boxes = topLevelBoxes(p.output.path);
    expect(boxes.indexOf('moov')).toBeGreaterThanOrEqual(0);
    expect(boxes.indexOf('moov')).toBeLessThan(boxes.indexOf('mdat'));
    expect(progress[progress.length - 1]).toBe(1);
    expect(progress).toEqual([...progress].sort((x, y) => x - y));
    expect(existsSync(partialOutputPath(p))).toBe(false);
  });

  it('renders no audio stream when the plan says the source has none (-an)', async () => {
    const source = video({ duration: 4, audio: speech('Silence please.') });
    const p = plan('noaudio.mp4', { path: source, hasAudio: false });
    await renderClip(p, {});
    expect(probe(p.output.path).streams.map((s) => s.codec_type)).toEqual(['video']);
  });

  it('switches the crop on the exact frame of a camera cut', async () => {
    // Left half red, right half green, 25 fps; the plan jumps from the left to the right half at a cut
    // 1.98 s into the clip (between the frames at 1.96 and 2.00), as shotKeyframes writes it.
    const source = video({
      duration: 5, width: 640, height: 360, fps: 25,
      picture: 'color=c=red:s=320x360:r=25[l];color=c=0x00ff00:s=320x360:r=25[r];[l][r]hstack,trim=duration=5[out0]',
    });
    const p = plan('cut.mp4', { path: source, start: 1, end: 4 }, {
      reframe: { ...FILL, keyframes: [{ t: 0, cx: 0.25, cy: 0.5 }, { t: 1.9795, cx: 0.25, cy: 0.5 }, { t: 1.9805, cx: 0.75, cy: 0.5 }] },
    });
    await renderClip(p, {});
    expect(near(pixel(frameAt(p.output.path, 1.95), W / 2, H / 2), '#ff0000')).toBe(true); // the frame at 1.96
    expect(near(pixel(frameAt(p.output.path, 2.0), W / 2, H / 2), '#00ff00')).toBe(true); // the frame at 2.00
  });

  it('moves the crop along clip-relative time after input seeking', async () => {
    // Left half red, right half blue; the window sits left until t=1 of the clip, then moves right.
    const halves = 'color=c=red:s=320x360:r=25[l];color=c=blue:s=320x360:r=25[r];[l][r]hstack[out0]';
    const source = video({ duration: 6, picture: halves });
    const p = plan('moving.mp4', { path: source, start: 2, end: 4 }, {
      reframe: { ...FILL, keyframes: [{ t: 0, cx: 0.1, cy: 0.5 }, { t: 1, cx: 0.1, cy: 0.5 }, { t: 1.2, cx: 0.9, cy: 0.5 }] },
    });
    await renderClip(p, {});
    // Were t the source time (2..4), the window would already be on the right at the start.
    expect(near(pixel(frameAt(p.output.path, 0.5), W / 2, H / 2), '#FF0000')).toBe(true);
    expect(near(pixel(frameAt(p.output.path, 1.6), W / 2, H / 2), '#0000FF')).toBe(true);
  });

  it('fit fills the background with the solid template colour, or with a blurred copy of the source', async () => {
    const halves = 'color=c=red:s=320x360:r=25[l];color=c=blue:s=320x360:r=25[r];[l][r]hstack[out0]';
    const source = video({ duration: 3, picture: halves });
    const solid = plan('fit-solid.mp4', { path: source, end: 1 }, { reframe: FIT, background: { blur: false, color: '#204080' } });
    const blurred = plan('fit-blur.mp4', { path: source, end: 1 }, { reframe: FIT, background: { blur: true, color: '#204080' } });
    await renderClip(solid, {});
    await renderClip(blurred, {});
    const s = frameAt(solid.output.path, 0.5), b = frameAt(blurred.output.path, 0.5);
    // The picture (360x202) sits in the middle; 40 px from the top is background.
    expect(near(pixel(s, 40, 40), '#204080', 12)).toBe(true);
    expect(near(pixel(s, 320, 40), '#204080', 12)).toBe(true);
    expect(near(pixel(b, 20, 40), '#FF0000', 60)).toBe(true);
    expect(near(pixel(b, 340, 40), '#0000FF', 60)).toBe(true);
    // Both show the picture itself unchanged in the middle.
    for (const f of [s, b]) expect(near(pixel(f, 60, H / 2), '#FF0000', 30)).toBe(true);
  });

  it('burns in karaoke captions: the active word shows in the template colour only while spoken', async () => {
    const source = video({ duration: 5, picture: 'color=c=0x404040:s=640x360:r=25' });
    // Words in source time; the clip starts at 1, so "BRIGHT" is spoken 1.5..1.9 s into the clip.
    const words = [['hello', 2.0, 2.4], ['bright', 2.5, 2.9], ['world', 3.0, 3.4]]
      .map(([text, start, end]) => ({ text: text as string, start: start as number, end: end as number, probability: 1 }));
    const cues = buildCues(words, { start: 1, end: 4 }, { wordsPerCue: 6 });
    // A folder name that needs filter-graph escaping.
    const assDir = mkdtempSync(path.join(dir, "it's: a, [caption]-"));
    const assPath = path.join(assDir, 'clip.ass');
    writeFileSync(assPath, buildAss(cues, DEFAULT_TEMPLATE, { width: W, height: H }));
    const p = plan('captions.mp4', { path: source, start: 1, end: 4 }, { captions: { assPath, fontsDir: fontsDir() } });
    await renderClip(p, {});

    const active = DEFAULT_TEMPLATE.colors.active;
    const during = find(frameAt(p.output.path, 1.7), active);
    expect(during.count).toBeGreaterThan(30);
    // Inside the safe area: lower half, above the bottom 15%, clear of the right 8%.
    expect(during.minY).toBeGreaterThan(H / 2);
    expect(during.maxY).toBeLessThan(H * 0.85);
    expect(during.maxX).toBeLessThan(W * 0.92);
    const before = frameAt(p.output.path, 0.5);
    expect(find(before, active).count).toBe(0);
    expect(find(before, DEFAULT_TEMPLATE.colors.text).count).toBe(0);
  });

  it('comes out constant-rate at the capped frame rate from a variable-rate source', async () => {
    // Dropping every fourth frame of a 30 fps picture leaves timestamp gaps: a VFR file.
    const source = video({ duration: 4, fps: 30, picture: "testsrc2=size=640x360:rate=30,select='not(eq(mod(n\\,4)\\,1))'",
      extraArgs: ['-fps_mode', 'vfr'] });
    const src = probe(source).streams[0]!;
    expect(src.avg_frame_rate).not.toBe(src.r_frame_rate);
    const p = plan('cfr.mp4', { path: source, end: 3 });
    p.output.fps = 30;
    await renderClip(p, {});
    const v = probe(p.output.path).streams[0]!;
    expect(v.r_frame_rate).toBe('30/1');
    expect(v.avg_frame_rate).toBe('30/1');
    expect(Number(v.nb_frames)).toBe(90);
  });

  it('fails with a readable PipelineError and leaves no file when ffmpeg cannot render', async () => {
    const p = plan('missing.mp4', { path: path.join(dir, 'does-not-exist.mp4') });
    const err = await renderClip(p, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).stage).toBe('rendering');
    expect((err as Error).message).toMatch(/No such file or directory/);
    expect((err as Error).message).not.toMatch(/-filter_complex|out_time/);
    expect(existsSync(p.output.path)).toBe(false);
    expect(existsSync(partialOutputPath(p))).toBe(false);
  });

  it('cancelling kills ffmpeg and removes the partial file', async () => {
    const source = video({ duration: 12, audio: speech('This render is cancelled before it can finish.') });
    // Full-size output at a slow preset: seconds of work, so the abort lands mid-render.
    const p = plan('aborted.mp4', { path: source, end: 12, hasAudio: true });
    p.output = { ...p.output, width: 1080, height: 1920, preset: 'medium' };
    const controller = new AbortController();
    const rendering = renderClip(p, { signal: controller.signal, onProgress: (f) => { if (f > 0) controller.abort(); } });
    const watchdog = setInterval(() => { if (existsSync(partialOutputPath(p))) controller.abort(); }, 20);
    const err = await rendering.catch((e: unknown) => e).finally(() => clearInterval(watchdog));
    expect((err as Error).name).toBe('AbortError');
    expect(err).not.toBeInstanceOf(PipelineError);
    expect(existsSync(partialOutputPath(p))).toBe(false);
    expect(existsSync(p.output.path)).toBe(false);
  });
});
