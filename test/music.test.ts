// The music catalog (manifest, GET /music listing, musicName validation) and the mix in a real render:
// the music's level relative to the voice follows musicVolume, it plays in the pauses and is ducked
// under speech. Festival speech is band-limited to 8 kHz (16 kHz WAV), so everything above 9 kHz in
// the output is music: a high-pass isolates the music inside the mix without subtracting signals.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findMusic, musicCatalog, musicFilePath, musicPreviewPath, randomMusic } from '../src/catalog/music.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { buildRenderArgs, musicGainDb } from '../src/media/ffmpeg-args.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import { measureIntegratedLoudness } from '../src/media/speech-loudness.js';
import { validateCreateRequest } from '../src/service/create-request.js';
import { ShortsError } from '../src/errors.js';
import { Service } from '../src/service/service.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';
import { concatSpeech, speech, video } from './helpers/media.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

function probeDuration(file: string): number {
  const r = spawnSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

/** Mean (RMS) level in dBFS of [start, start+dur] of a file's audio, optionally high-passed. */
function level(file: string, start: number, dur: number, highpass = false): number {
  const af = `${highpass ? 'highpass=f=9000,highpass=f=9000,highpass=f=9000,' : ''}volumedetect`;
  const r = spawnSync('ffmpeg', ['-hide_banner', '-nostats', '-ss', String(start), '-t', String(dur), '-i', file, '-map', '0:a:0', '-af', af, '-f', 'null', '-'], { encoding: 'utf8' });
  const m = /mean_volume:\s*(-?[\d.]+|-inf) dB/.exec(r.stderr);
  if (!m) throw new Error(`no level for ${file}: ${r.stderr.slice(-300)}`);
  return m[1] === '-inf' ? -120 : Number(m[1]);
}

describe('music catalog manifest', () => {
  const items = musicCatalog().items;

  it('ships at least 10 tracks with licence, attribution, source package and a preview', () => {
    expect(items.length).toBeGreaterThanOrEqual(10);
    for (const t of items) {
      expect(t.licence.length, t.name).toBeGreaterThan(2);
      expect(t.attribution.length, t.name).toBeGreaterThan(5);
      expect(t.source.kind).toBe('debian');
      if (t.source.kind === 'debian') {
        expect(t.source.package).toMatch(/^(davegnukem-data|singularity-music)$/);
        expect(t.source.version).toMatch(/^\d/);
      }
      const png = readFileSync(musicPreviewPath(t));
      expect(png.subarray(1, 4).toString(), t.name).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(400);
      expect(png.readUInt32BE(20)).toBe(100);
    }
    expect(new Set(items.map((t) => t.name)).size).toBe(items.length);
  });

  it('records durations that ffprobe measures, and keeps the shipped audio small', () => {
    let bytes = 0;
    for (const t of items) {
      const file = musicFilePath(t);
      expect(Math.abs(probeDuration(file) - t.duration), t.name).toBeLessThan(0.05);
      expect(t.duration).toBeLessThanOrEqual(90);
      bytes += statSync(file).size;
    }
    expect(bytes).toBeLessThan(8 * 1024 * 1024);
  });

  it('finds names exactly (case-sensitive) and picks random tracks from the catalog', () => {
    const first = items[0]!;
    expect(findMusic(first.name)).toBe(first);
    expect(findMusic(first.name.toUpperCase())).toBeUndefined();
    expect(randomMusic(() => 0)).toBe(first);
    expect(randomMusic(() => 0.9999)).toBe(items[items.length - 1]);
  });
});

describe('music in the service', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'music-svc-'));
  const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  const service = new Service(store, { blobs: new FsBlobStore(store.dataDir) });
  const total = musicCatalog().items.length;

  it('lists {name, duration, url} with pagination (spec 4.8); locally the url is the track\'s own file', () => {
    const p1 = service.catalog('music', { page: '1', limit: '5' });
    expect(p1.items).toHaveLength(5);
    for (const item of p1.items) {
      expect(Object.keys(item).sort()).toEqual(['duration', 'name', 'url']);
      expect(item.url).toMatch(/^file:\/\//);
      expect(fileURLToPath(item.url)).toBe(musicFilePath(findMusic(item.name)!));
      expect(item.duration).toBe(findMusic(item.name)!.duration);
    }
    expect(p1.pagination).toEqual({ page: 1, limit: 5, totalPages: Math.ceil(total / 5), totalCount: total });
    const last = service.catalog('music', { page: String(Math.ceil(total / 5)), limit: '5' });
    expect(last.items.length).toBe(total - 5 * (Math.ceil(total / 5) - 1));
    const all = service.catalog('music', {});
    expect(all.items.map((i) => i.name)).toEqual(musicCatalog().items.slice(0, 20).map((t) => t.name));
    expect(() => service.catalog('music', { limit: '101' })).toThrow(ShortsError);
  });

  it('refuses an unknown or differently-cased musicName with invalid_request', async () => {
    const name = musicCatalog().items[0]!.name;
    const body = { fileUrl: 'https://cdn.example.com/talk.mp4', start: 0, end: 120, music: true };
    const err = await service.create({ id: 'a', email: 'a@example.com' }, { ...body, musicName: name.toLowerCase() }, 'api').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShortsError);
    expect((err as ShortsError).code).toBe('invalid_request');
    expect((err as ShortsError).message).toMatch(/exact, case-sensitive name from GET \/music/);
    const ctx = { allowLocalFile: false, templateExists: () => true, defaultTemplateId: DEFAULT_TEMPLATE.templateId, supportedFeatures: new Set(['music'] as const), musicExists: (n: string) => findMusic(n) !== undefined };
    expect(validateCreateRequest({ ...body, musicName: name }, ctx).musicName).toBe(name);
    expect(validateCreateRequest({ ...body, musicVolume: 35 }, ctx)).toMatchObject({ music: true, musicName: null, musicVolume: 35 });
  });
});

describe('the music mix in a rendered clip', () => {
  const a = speech('The music sits under my voice while I am talking here.');
  const b = speech('And it swells back up when I stop for a breath.');
  const gap = 2.5;
  const wav = concatSpeech([a, b], gap);
  const dA = probeDuration(a), dB = probeDuration(b);
  const duration = Math.floor(probeDuration(wav) * 10) / 10;
  const src = video({ duration, audio: wav, width: 320, height: 180, fps: 10 });
  const track = findMusic('Funky Gameplay')!;
  const out = mkdtempSync(path.join(os.tmpdir(), 'music-mix-'));

  async function render(name: string, music: RenderPlan['music']): Promise<string> {
    const plan: RenderPlan = {
      version: 1,
      input: { path: src, start: 0, end: duration, width: 320, height: 180, hasAudio: true },
      output: { path: path.join(out, `${name}.mp4`), width: 180, height: 320, preset: 'ultrafast', crf: 35 },
      reframe: { layout: 'fill', cropWidth: 100, cropHeight: 180, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
      background: { blur: false, color: '#000000' },
      captions: null,
      music,
    };
    await renderClip(plan);
    return plan.output.path;
  }

  it('follows musicVolume relative to the voice, plays in the pause and ducks under speech', async () => {
    expect(track).toBeDefined();
    const speechLufs = await measureIntegratedLoudness(src, { start: 0, end: duration });
    expect(speechLufs).not.toBeNull();
    const music = (volume: number) => ({ path: musicFilePath(track), volume, trackLufs: track.loudnessLufs, speechLufs });
    const [v50, v10, v0] = await Promise.all([render('v50', music(50)), render('v10', music(10)), render('v0', music(0))]);
    expect(Math.abs(probeDuration(v50) - duration)).toBeLessThan(0.15);

    // Windows: the pause (after the compressor's release), and the middle of the second sentence.
    const pause = { start: dA + 0.8, dur: gap - 1.0 };
    const talk = { start: dA + gap + 0.4, dur: Math.min(2, dB - 0.8) };
    // The music alone at the gain the plan gives it, measured in the track itself at the same times.
    const expected = (w: { start: number; dur: number }, volume: number) => level(musicFilePath(track), w.start, w.dur, true) + musicGainDb(music(volume));

    // Level follows musicVolume: 50 vs 10 is 20*log10(5) = 14 dB apart, in the pause.
    const p50 = level(v50, pause.start, pause.dur, true), p10 = level(v10, pause.start, pause.dur, true);
    expect(p50 - p10).toBeGreaterThan(14 - 1.5);
    expect(p50 - p10).toBeLessThan(14 + 1.5);
    // ...and relative to the voice: in the pause the music is where the gain model puts it.
    expect(Math.abs(p50 - expected(pause, 50))).toBeLessThan(2);
    expect(Math.abs(p10 - expected(pause, 10))).toBeLessThan(2);
    // Audible in the pause (full band), absent when musicVolume is 0.
    expect(level(v10, pause.start, pause.dur)).toBeGreaterThan(-50);
    expect(level(v0, pause.start, pause.dur)).toBeLessThan(-70);
    expect(buildRenderArgs({ ...JSON.parse('{}'), version: 1, input: { path: src, start: 0, end: duration, width: 320, height: 180, hasAudio: true }, output: { path: '/x.mp4', width: 180, height: 320, preset: 'ultrafast', crf: 35 }, reframe: { layout: 'fill', cropWidth: 100, cropHeight: 180, keyframes: [], faceCoverage: 0 }, background: { blur: false, color: '#000000' }, captions: null, music: music(0) })).not.toContain('-stream_loop');

    // Ducked while someone speaks: well below where it would be without ducking.
    const t50 = level(v50, talk.start, talk.dur, true);
    const duck = expected(talk, 50) - t50;
    expect(duck).toBeGreaterThan(5);
    expect(duck).toBeLessThan(20);
    // The voice itself is untouched by the mix: same level as with no music (full band, under 8 kHz).
    expect(Math.abs(level(v0, talk.start, talk.dur) - level(v50, talk.start, talk.dur))).toBeLessThan(1.5);
  }, 120_000);

  it('mixes music alone, faded in, when the source has no audio', async () => {
    const silent = video({ duration: 3, width: 320, height: 180, fps: 10 });
    const plan: RenderPlan = {
      version: 1,
      input: { path: silent, start: 0, end: 3, width: 320, height: 180, hasAudio: false },
      output: { path: path.join(out, 'silent.mp4'), width: 180, height: 320, preset: 'ultrafast', crf: 35 },
      reframe: { layout: 'fill', cropWidth: 100, cropHeight: 180, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
      background: { blur: false, color: '#000000' },
      captions: null,
      music: { path: musicFilePath(track), volume: 100, trackLufs: track.loudnessLufs, speechLufs: null },
    };
    await renderClip(plan);
    expect(existsSync(plan.output.path)).toBe(true);
    // Fade-in (0.75 s for a 3 s clip): the first 0.2 s is much quieter than the body.
    expect(level(plan.output.path, 1, 1)).toBeGreaterThan(level(plan.output.path, 0, 0.2) + 6);
    expect(level(plan.output.path, 1, 1)).toBeGreaterThan(-30);
  }, 60_000);
});
