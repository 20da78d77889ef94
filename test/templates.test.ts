// The caption template catalog: every template rendered for real (tiny 270x480 renders), its shipped
// preview images, the URLs GET /templates hands out, and the static route that serves them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, TEMPLATES, fontsDir, type CaptionTemplate } from '../src/catalog/templates.js';
import { GIF, PREVIEW_SIZE, THUMBNAIL_SIZE, templateAssetFile, templatePreviewFiles, templatesAssetsDir } from '../src/pipeline/captions/template-previews.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { buildAss, buildCues, wordsPerCueFor } from '../src/pipeline/captions/captions.js';
import type { CaptionCue } from '../src/domain/captions.js';
import type { Word } from '../src/domain/transcript.js';
import { servePublicAsset } from '../src/server/http-server.js';
import { ShortsError } from '../src/errors.js';
import { Service } from '../src/service/service.js';
import { renderCaptions } from './helpers/caption-render.js';
import { video } from './helpers/media.js';
import { frameAt } from './helpers/frames.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

const W = PREVIEW_SIZE.width, H = PREVIEW_SIZE.height;
const GREY = '#404040';
let dir: string;
let source: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'templates-test-'));
  source = video({ duration: 4, width: 360, height: 640, picture: 'color=c=0x404040:s=360x640:r=25' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A spoken phrase in source time: seven words, 0.35 s each with 0.05 s gaps, from 0.5 s. */
const SPOKEN: Word[] = ['Welcome', 'back', 'everyone', 'today', 'we', 'practise', 'properly']
  .map((text, i) => ({ text, start: 0.5 + i * 0.4, end: 0.85 + i * 0.4, probability: 0.9 }));
const CLIP = { start: 0, end: 3.5 };

function near(frame: Buffer, i: number, hex: string, tol: number): boolean {
  return [1, 3, 5].every((o, k) => Math.abs(frame[i + k]! - parseInt(hex.slice(o, o + 2), 16)) <= tol);
}
/** Pixels of a colour (or, with `not`, pixels that are not that colour), with their bounding box. */
function find(frame: Buffer, hex: string, opts: { not?: boolean; tol?: number } = {}) {
  const r = { count: 0, minX: W, maxX: -1, minY: H, maxY: -1 };
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    if (near(frame, (y * W + x) * 3, hex, opts.tol ?? 40) === !!opts.not) continue;
    r.count++; r.minX = Math.min(r.minX, x); r.maxX = Math.max(r.maxX, x); r.minY = Math.min(r.minY, y); r.maxY = Math.max(r.maxY, y);
  }
  return r;
}

/** The colour that marks the spoken word, or null for styles without one. */
function markColour(t: CaptionTemplate): string | null {
  if (t.animation === 'box') return t.colors.box ?? null;
  if (t.animation === 'none' || t.colors.active.toUpperCase() === t.colors.text.toUpperCase()) return null;
  return t.colors.active;
}

async function render(t: CaptionTemplate): Promise<{ file: string; cues: CaptionCue[]; ass: string }> {
  const cues = buildCues(SPOKEN, CLIP, { wordsPerCue: wordsPerCueFor(t) });
  return { ...(await renderCaptions({ template: t, cues, source, clip: CLIP, dir, size: { width: W, height: H }, background: t.colors.background })), cues };
}

describe('caption template catalog', () => {
  it('has at least 9 distinct styles with stable ids, Karaoke the default, and every animation kind', () => {
    expect(TEMPLATES.length).toBeGreaterThanOrEqual(9);
    expect(DEFAULT_TEMPLATE.name).toBe('karaoke');
    expect(new Set(TEMPLATES.map((t) => t.templateId)).size).toBe(TEMPLATES.length);
    // The ids clients may already have stored.
    expect(TEMPLATES.filter((t) => ['e406d10fb28cea57e8105110', '5599b3c40d926deb77e807b4', '7c5a12121c05330cc35885b7'].includes(t.templateId))
      .map((t) => t.name)).toEqual(['karaoke', 'bold-pop', 'minimal']);
    expect(new Set(TEMPLATES.map((t) => t.animation))).toEqual(new Set(['karaoke-highlight', 'pop', 'box', 'typewriter', 'none']));
    expect(TEMPLATES.some((t) => t.glow > 0)).toBe(true);
    expect(TEMPLATES.some((t) => t.lineBox)).toBe(true);
    // An emoji-accented style, named for what it shows.
    expect(TEMPLATES.filter((t) => t.emoji).map((t) => t.displayName)).toEqual(['Emoji Accent']);
    // Distinct looks: no two templates share font, colours, animation and position.
    const looks = TEMPLATES.map((t) => JSON.stringify([t.font, t.colors, t.animation, t.position, t.glow, t.lineBox, t.wordsPerLine]));
    expect(new Set(looks).size).toBe(TEMPLATES.length);
  });

  it('libass reads every template without warnings or errors', () => {
    for (const t of TEMPLATES) {
      const cues = buildCues(SPOKEN, CLIP, { wordsPerCue: wordsPerCueFor(t) });
      const ass = path.join(dir, `${t.name}-lint.ass`);
      writeFileSync(ass, buildAss(cues, t, { width: W, height: H }));
      const { stderr, status } = spawnSync('ffmpeg', ['-hide_banner', '-v', 'warning', '-f', 'lavfi', '-i', `color=c=gray:s=${W}x${H}:d=3:r=5`,
        '-vf', `ass=filename=${ass}:fontsdir=${fontsDir()}`, '-f', 'null', '-'], { encoding: 'utf8' });
      expect(status, t.name).toBe(0);
      // libass tries every file in fontsdir; the licence texts beside the fonts are not fonts.
      const problems = stderr.split('\n').filter((l) => l.trim() && !/Error opening memory font '[^']+\.(txt|md)'/.test(l));
      expect(problems, t.name).toEqual([]);
    }
  });

  // One render per template: the spoken word is marked in the template's colour at its time (and not
  // before any word), and every caption pixel stays inside the 9:16 safe area.
  for (const t of TEMPLATES) {
    it(`${t.name}: renders, marks the spoken word and stays inside the safe area`, async () => {
      const { file, cues } = await render(t);
      const second = cues[0]!.words[1]!;
      const during = frameAt(file, (second.start + second.end) / 2);
      const ink = find(during, GREY, { not: true, tol: 12 });
      expect(ink.count).toBeGreaterThan(100);
      // Clear of the bottom 15% and of the right edge where the platform's buttons are.
      expect(ink.maxY).toBeLessThan(H * 0.85);
      expect(ink.maxX).toBeLessThan(W * 0.92);
      expect(ink.minX).toBeGreaterThan(W * 0.05);
      expect(ink.minY).toBeGreaterThan(H * 0.1);
      const before = frameAt(file, 0.2);
      expect(find(before, GREY, { not: true, tol: 12 }).count).toBe(0);
      const mark = markColour(t);
      if (mark) {
        expect(find(during, mark).count).toBeGreaterThan(8);
        expect(find(before, mark).count).toBe(0);
      }
      if (t.animation === 'typewriter') {
        // Words appear as they are spoken: more ink at the third word than at the first.
        const first = cues[0]!.words[0]!, third = cues[0]!.words[2]!;
        const early = find(frameAt(file, (first.start + first.end) / 2), GREY, { not: true, tol: 12 }).count;
        const later = find(frameAt(file, (third.start + third.end) / 2), GREY, { not: true, tol: 12 }).count;
        expect(later).toBeGreaterThan(early * 1.5);
      }
    });
  }
});

interface Probe { streams: { codec_name: string; width: number; height: number; nb_frames?: string }[] }
function probe(file: string, countFrames = false): Probe {
  return JSON.parse(execFileSync('ffprobe', ['-v', 'error', ...(countFrames ? ['-count_frames'] : []), '-print_format', 'json', '-show_streams', file], { encoding: 'utf8' })) as Probe;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/**
 * A PNG's facts as ffprobe -show_streams reports them (codec and size, from the IHDR chunk), read from the
 * file in this process: twenty ffprobe processes cost about 5 s of CPU for these header bytes. Also checks the
 * file is complete (IEND last).
 */
function pngStream(file: string): Probe['streams'][number] {
  const b = readFileSync(file);
  const png = b.subarray(0, 8).equals(PNG_SIGNATURE) && b.toString('latin1', 12, 16) === 'IHDR' && b.toString('latin1', b.length - 8, b.length - 4) === 'IEND';
  return { codec_name: png ? 'png' : 'not png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('template previews (assets/templates, npm run previews)', () => {
  it('ships a thumbnail PNG, preview PNG and animated GIF per template, at their sizes and small', () => {
    for (const t of TEMPLATES) {
      const files = templatePreviewFiles(t);
      for (const f of Object.values(files)) {
        expect(existsSync(f), f).toBe(true);
        expect(statSync(f).size, f).toBeLessThan(300 * 1024);
      }
      const thumb = pngStream(files.thumbnail), still = pngStream(files.preview);
      expect([thumb.codec_name, thumb.width, thumb.height]).toEqual(['png', THUMBNAIL_SIZE.width, THUMBNAIL_SIZE.height]);
      expect([still.codec_name, still.width, still.height]).toEqual(['png', PREVIEW_SIZE.width, PREVIEW_SIZE.height]);
      const gif = probe(files.gif, true).streams[0] as Probe['streams'][number] & { nb_read_frames?: string };
      expect([gif.codec_name, gif.width, gif.height]).toEqual(['gif', GIF.width, GIF.height]);
      expect(Number(gif.nb_read_frames)).toBeGreaterThanOrEqual(GIF.fps * 2);
    }
  });
});

describe('GET /templates image URLs', () => {
  it('locally: file:// URLs of the shipped files', () => {
    const store = new SqliteRequestStore(path.join(dir, 'local.db'));
    const service = new Service(store, { blobs: new FsBlobStore(store.dataDir) });
    const list = service.templates();
    expect(list.templates).toHaveLength(TEMPLATES.length);
    expect(list.defaultTemplateId).toBe(DEFAULT_TEMPLATE.templateId);
    for (const item of list.templates) {
      for (const url of [item.thumbnail, item.preview, item.gif]) {
        expect(url).toMatch(/^file:\/\//);
        expect(existsSync(fileURLToPath(url)), url).toBe(true);
      }
      expect(item.gif).toMatch(/\.gif$/);
    }
  });

  it('served: absolute URLs under the public base that the static route answers', async () => {
    const server = http.createServer((req, res) => {
      servePublicAsset(req, res, new URL(req.url ?? '/', 'http://x').pathname).catch((e: unknown) => {
        res.writeHead(e instanceof ShortsError && e.code === 'resource_not_found' ? 404 : 500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const store = new SqliteRequestStore(path.join(dir, 'served.db'));
      const service = new Service(store, { blobs: new FsBlobStore(store.dataDir), assetsBaseUrl: () => `${base}/` });
      const item = service.templates().templates.find((t) => t.name === 'karaoke')!;
      expect(item.preview).toBe(`${base}/assets/templates/karaoke.png`);
      const png = await fetch(item.preview);
      expect(png.status).toBe(200);
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await png.arrayBuffer()).equals(readFileSync(templatePreviewFiles(DEFAULT_TEMPLATE).preview))).toBe(true);
      const gif = await fetch(item.gif, { method: 'HEAD' });
      expect([gif.status, gif.headers.get('content-type')]).toEqual([200, 'image/gif']);
      expect(Number(gif.headers.get('content-length'))).toBe(statSync(templatePreviewFiles(DEFAULT_TEMPLATE).gif).size);
      // Traversal, sent raw (fetch would normalise `..` away), encoded, and other files: all 404.
      for (const p of ['/assets/templates/../fonts/OFL.txt', '/assets/templates/..%2F..%2Fpackage.json', '/assets/templates/%2e%2e/fonts/OFL.txt',
        '/assets/templates/karaoke.ass', '/assets/templates/nope.png', '/assets/templates/']) {
        const status = await new Promise<number>((resolve, reject) => {
          http.get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: p }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject);
        });
        expect(status, p).toBe(404);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('templateAssetFile accepts only preview names inside assets/templates', () => {
    expect(templateAssetFile('/assets/templates/neon.thumb.png')).toEqual({ file: path.join(templatesAssetsDir(), 'neon.thumb.png'), contentType: 'image/png' });
    expect(templateAssetFile('/assets/templates/neon.gif')?.contentType).toBe('image/gif');
    for (const p of ['/assets/templates/../fonts/OFL.txt', '/assets/templates/a/b.png', '/assets/templates/.png', '/assets/fonts/OFL.txt', '/assets/templates/NEON.PNG'])
      expect(templateAssetFile(p), p).toBeNull();
  });
});
