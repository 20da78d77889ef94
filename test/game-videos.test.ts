// The game-video catalog (manifest, GET /game-videos listing, gameVideoName validation) and the split
// screen in a real render: the clip's picture in the top half, the gameplay looped in the bottom half
// (also when the loop is shorter than the clip), and only the clip's audio in the output.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  findGameVideo, gameVideoCatalog, gameVideoFilePath, gameVideoPreviewPath, randomGameOffset, randomGameVideo,
} from '../src/catalog/game-videos.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import { validateCreateRequest } from '../src/service/create-request.js';
import { ShortsError } from '../src/errors.js';
import { Service } from '../src/service/service.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

function ff(args: string[]): string {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ffmpeg ${args.join(' ')}: ${r.stderr}`);
  return r.stderr;
}

function probe(file: string, entries: string, select?: string): string {
  const r = spawnSync('ffprobe', ['-v', 'error', ...(select ? ['-select_streams', select] : []), '-show_entries', entries, '-of', 'csv=p=0', file], { encoding: 'utf8' });
  return r.stdout.trim();
}

describe('game-video catalog manifest', () => {
  const items = gameVideoCatalog().items;

  it('ships at least 6 loops, each with licence, attribution, a generating recipe, a PNG preview and its measured duration', () => {
    expect(items.length).toBeGreaterThanOrEqual(6);
    for (const g of items) {
      expect(g.licence.length).toBeGreaterThan(0);
      expect(g.attribution.length).toBeGreaterThan(0);
      expect(['debian', 'generated', 'operator']).toContain(g.source.kind);
      if (g.source.kind === 'generated') expect(g.source.recipe.length).toBeGreaterThan(0);
      const preview = gameVideoPreviewPath(g);
      expect(readFileSync(preview).subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(probe(preview, 'stream=width,height')).toBe('360,320');
      const file = gameVideoFilePath(g);
      expect(existsSync(file)).toBe(true);
      // The recorded duration is the file's, and the recorded size is the picture's.
      expect(Number(probe(file, 'format=duration'))).toBeCloseTo(g.duration, 1);
      expect(probe(file, 'stream=width,height', 'v:0')).toBe(`${g.width},${g.height}`);
      expect(g.duration).toBeGreaterThanOrEqual(15);
    }
    // "A few MB": the catalog ships inside the npm package.
    const bytes = items.reduce((n, g) => n + statSync(gameVideoFilePath(g)).size, 0);
    expect(bytes).toBeLessThan(8 << 20);
  });

  it('finds names exactly (case-sensitive) and draws random items and offsets inside the loop', () => {
    const first = items[0]!;
    expect(findGameVideo(first.name)).toBe(first);
    expect(findGameVideo(first.name.toUpperCase())).toBeUndefined();
    expect(randomGameVideo(() => 0)).toBe(first);
    expect(randomGameVideo(() => 0.9999)).toBe(items[items.length - 1]);
    expect(randomGameOffset({ duration: 20 }, () => 0)).toBe(0);
    expect(randomGameOffset({ duration: 20 }, () => 0.5)).toBe(9.5);
    expect(randomGameOffset({ duration: 20 }, () => 0.99999)).toBeLessThanOrEqual(19);
    expect(randomGameOffset({ duration: 0.5 }, () => 0.7)).toBe(0);
  });
});

describe('game videos in the service', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'game-svc-'));
  const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  const service = new Service(store, { blobs: new FsBlobStore(store.dataDir) });
  const items = gameVideoCatalog().items;

  it('lists {name, preview, video, video_duration} with pagination (spec 2.8, 4.10); locally the URLs are the real PNG and MP4', () => {
    const p1 = service.catalog('gameVideos', { page: '1', limit: '4' });
    expect(p1.items).toHaveLength(4);
    expect(p1.pagination).toEqual({ page: 1, limit: 4, totalPages: Math.ceil(items.length / 4), totalCount: items.length });
    const p2 = service.catalog('gameVideos', { page: '2', limit: '4' });
    expect(p2.items.map((i) => i.name)).toEqual(items.slice(4, 8).map((g) => g.name));
    for (const item of [...p1.items, ...p2.items]) {
      expect(Object.keys(item).sort()).toEqual(['name', 'preview', 'video', 'video_duration']);
      expect(item.preview).toMatch(/^file:\/\//);
      expect(fileURLToPath(item.preview)).toBe(gameVideoPreviewPath(findGameVideo(item.name)!));
      expect(item.video).toMatch(/^file:\/\//);
      expect(fileURLToPath(item.video)).toBe(gameVideoFilePath(findGameVideo(item.name)!));
      expect(item.video_duration).toBe(findGameVideo(item.name)!.duration);
    }
    expect(() => service.catalog('gameVideos', { limit: '101' })).toThrow(ShortsError);
  });

  it('accepts a known gameVideoName and refuses an unknown or differently-cased one with invalid_request', async () => {
    const name = items[0]!.name;
    const body = { fileUrl: 'https://cdn.example.com/talk.mp4', start: 0, end: 120, gameVideo: true };
    for (const wrong of [name.toLowerCase(), 'No Such Game']) {
      const err = await service.create({ id: 'a', email: 'a@example.com' }, { ...body, gameVideoName: wrong }, 'api').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ShortsError);
      expect((err as ShortsError).code).toBe('invalid_request');
      expect((err as ShortsError).message).toMatch(/exact, case-sensitive name from GET \/game-videos/);
    }
    const ctx = {
      allowLocalFile: false, templateExists: () => true, defaultTemplateId: DEFAULT_TEMPLATE.templateId,
      supportedFeatures: new Set(['gameVideo'] as const), gameVideoExists: (n: string) => findGameVideo(n) !== undefined,
    };
    expect(validateCreateRequest({ ...body, gameVideoName: name }, ctx)).toMatchObject({ gameVideo: true, gameVideoName: name });
    expect(validateCreateRequest(body, ctx)).toMatchObject({ gameVideo: true, gameVideoName: null });
    // Without a catalog lookup no name is trusted.
    expect(() => validateCreateRequest({ ...body, gameVideoName: name }, { ...ctx, gameVideoExists: undefined })).toThrow(/not in the game-video catalog/);
  });
});

describe('split screen in a rendered clip', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'game-render-'));
  // The clip: solid red with a 440 Hz tone, 6 s. The "gameplay": a 2 s loop, blue for 1 s then green,
  // carrying a loud 3 kHz tone that must not be heard.
  const content = path.join(dir, 'content.mp4');
  const game = path.join(dir, 'game.mp4');
  ff(['-f', 'lavfi', '-i', 'color=c=0xFF0000:s=320x240:r=25:d=6', '-f', 'lavfi', '-i', 'sine=f=440:d=6:sample_rate=48000',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', content]);
  ff(['-f', 'lavfi', '-i', 'color=c=0x0000FF:s=180x160:r=30:d=1', '-f', 'lavfi', '-i', 'color=c=0x00FF00:s=180x160:r=30:d=1',
    '-f', 'lavfi', '-i', 'sine=f=3000:d=2:sample_rate=48000,volume=0.9',
    '-filter_complex', '[0:v][1:v]concat=n=2:v=1:a=0[v]', '-map', '[v]', '-map', '2:a',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '10', '-c:a', 'aac', game]);

  /** RGB of pixel (x, y) of the frame at time t. */
  function pixel(file: string, t: number, x: number, y: number): [number, number, number] {
    const r = spawnSync('ffmpeg', ['-v', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-vf', `format=rgb24,crop=1:1:${x}:${y}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1 << 20 });
    const b = r.stdout as Buffer;
    if (b.length < 3) throw new Error(`no frame at ${t}: ${r.stderr.toString()}`);
    return [b[0]!, b[1]!, b[2]!];
  }
  const near = (rgb: [number, number, number], want: [number, number, number]) => rgb.every((c, i) => Math.abs(c - want[i]!) < 40);

  /** Mean level (dBFS) of the audio, optionally only above 2 kHz (where the gameplay tone is). */
  function level(file: string, highpass: boolean): number {
    const af = `${highpass ? 'highpass=f=2000,highpass=f=2000,highpass=f=2000,' : ''}volumedetect`;
    const r = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-i', file, '-map', '0:a:0', '-af', af, '-f', 'null', '-'], { encoding: 'utf8' });
    const m = /mean_volume:\s*(-?[\d.]+|-inf) dB/.exec(r.stderr);
    if (!m) throw new Error(r.stderr.slice(-300));
    return m[1] === '-inf' ? -120 : Number(m[1]);
  }

  it('content on top, the looped muted gameplay below, for the whole clip', async () => {
    const out = path.join(dir, 'split.mp4');
    const plan: RenderPlan = {
      version: 1,
      // 5 s of clip against a 2 s gameplay loop: it must loop twice and a half.
      input: { path: content, start: 0.5, end: 5.5, width: 320, height: 240, hasAudio: true },
      output: { path: out, width: 270, height: 480, preset: 'ultrafast', crf: 23, fps: 30 },
      // The top half is 270x240 (9:8): the fill crop is 270x240 of the 320x240 source.
      reframe: { layout: 'fill', cropWidth: 270, cropHeight: 240, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 },
      background: { blur: false, color: '#000000' },
      captions: null,
      gameVideo: { path: game, offset: 0.3, duration: 2 },
    };
    await renderClip(plan);

    expect(Number(probe(out, 'format=duration'))).toBeCloseTo(5, 1);
    expect(probe(out, 'stream=width,height', 'v:0')).toBe('270,480');
    const RED: [number, number, number] = [255, 0, 0], BLUE: [number, number, number] = [0, 0, 255], GREEN: [number, number, number] = [0, 255, 0];
    // Gameplay time is (t + 0.3) mod 2: blue before 1 s of the loop, green after. A loop that ran out
    // (frozen on its last, green frame) would fail at 2.2 s; a gameplay that did not start at the
    // offset would not matter here, but the halves must never mix.
    for (const [t, bottom] of [[0.2, BLUE], [1.2, GREEN], [2.2, BLUE], [3.2, GREEN]] as const) {
      for (const y of [5, 120, 234]) expect(near(pixel(out, t, 135, y), RED), `top y=${y} at ${t}s`).toBe(true);
      for (const y of [246, 360, 475]) expect(near(pixel(out, t, 135, y), bottom), `bottom y=${y} at ${t}s`).toBe(true);
    }

    // One audio stream: the clip's 440 Hz tone; the gameplay's loud 3 kHz tone is absent.
    expect(probe(out, 'stream=codec_type').split('\n').filter((s) => s === 'audio')).toHaveLength(1);
    const full = level(out, false), high = level(out, true);
    expect(full).toBeGreaterThan(-30);
    expect(high).toBeLessThan(full - 30);
  }, 60_000);
});
