// The end-screen outro: localized default line, card text layout, guarded image download, and REAL
// small renders (270x480: 3 s of colour + tone, then a 2 s card) checked in the output's pixels,
// duration and sound.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fontsDir } from '../src/catalog/templates.js';
import { renderClip } from '../src/media/render.js';
import type { RenderOutro, RenderPlan } from '../src/media/render-plan.js';
import { guardUrlCheck } from '../src/net/url-guard.js';
import { SUBSCRIBE_LINES, buildOutroAss, fetchOutroImage, outroHandle, outroLine, outroStingPath } from '../src/pipeline/render/outro.js';
import { LANGUAGES } from '../src/languages.js';
import type { RequestDetail } from '../src/api/types.js';
import { SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { frameAt } from './helpers/frames.js';
import { SEEDED_RANGE, seed, warmCache } from './helpers/seeded-cache.js';

const W = 270, H = 480;
const BACKDROP = '#204080';
let dir: string, source: string, wide: string;
let server: http.Server, base: string;

function ffmpeg(args: string[]): Buffer {
  return execFileSync('ffmpeg', ['-hide_banner', '-nostdin', '-v', 'error', '-y', ...args], { maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'outro-test-'));
  source = path.join(dir, 'src.mp4');
  // Red picture, 440 Hz tone: the content is easy to tell from the card.
  ffmpeg(['-f', 'lavfi', '-i', `color=c=red:s=${W}x${H}:r=30:d=3`, '-f', 'lavfi', '-i', 'sine=f=440:d=3:sample_rate=48000',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', source]);
  wide = path.join(dir, 'wide.png');
  ffmpeg(['-f', 'lavfi', '-i', 'color=c=0x00FF00:s=400x200', '-frames:v', '1', wide]);
  const png = readFileSync(wide);
  server = http.createServer((req, res) => {
    if (req.url === '/card.png') res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
    else if (req.url === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<p>no</p>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function plan(name: string, outro: Partial<RenderOutro>): RenderPlan {
  return {
    version: 1,
    input: { path: source, start: 0, end: 3, width: W, height: H, hasAudio: true },
    output: { path: path.join(dir, name), width: W, height: H, preset: 'ultrafast', crf: 28, fps: 30 },
    reframe: { layout: 'fill', cropWidth: W, cropHeight: H, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 },
    background: { blur: false, color: BACKDROP },
    captions: null,
    outro: { seconds: 2, fps: 30, text: null, handle: null, imagePath: null, stingPath: outroStingPath(), assPath: null, fontsDir: fontsDir(), ...outro },
  };
}

function duration(file: string): number {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString().trim());
}
function pixel(frame: Buffer, x: number, y: number): [number, number, number] {
  const i = (y * W + x) * 3;
  return [frame[i]!, frame[i + 1]!, frame[i + 2]!];
}
function near(p: [number, number, number], hex: string, tol = 14): boolean {
  const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return p.every((v, i) => Math.abs(v - c[i]!) <= tol);
}
/** Peak level (dB) of the audio from `from` for `len` seconds; -Infinity is digital silence. */
function peakDb(file: string, from: number, len: number): number {
  const r = spawnSync('ffmpeg', ['-hide_banner', '-nostdin', '-ss', String(from), '-t', String(len), '-i', file, '-vn', '-af', 'volumedetect', '-f', 'null', '-'], { encoding: 'utf8' });
  const m = /max_volume: (-?[\d.]+|-inf) dB/.exec(r.stderr);
  if (!m) throw new Error(`no volumedetect result: ${r.stderr}`);
  return m[1] === '-inf' ? -Infinity : Number(m[1]);
}

describe('outro text', () => {
  it('defaults to the subscribe line of the caption language, else the language', () => {
    expect(outroLine(null, 'es')).toBe('Suscríbete para más');
    expect(outroLine('', 'es', 'de')).toBe('Abonniere für mehr');
    expect(outroLine('   ', 'en', null)).toBe('Subscribe for more');
    expect(outroLine(null, 'xx')).toBe('Subscribe for more');
  });
  it('has a line for every spec language', () => {
    for (const lang of LANGUAGES) expect(SUBSCRIBE_LINES[lang]?.length ?? 0).toBeGreaterThan(0);
  });
  it('trims outroText to 80 and outroHandle to 40', () => {
    expect(outroLine(`  ${'a'.repeat(100)}  `, 'en')).toBe('a'.repeat(80));
    expect(outroHandle(` @${'b'.repeat(60)} `)).toBe(`@${'b'.repeat(39)}`);
    expect(outroHandle('  ')).toBeNull();
  });
  it('lays the line above the centre and the handle below it, fading and zooming in', () => {
    const ass = buildOutroAss({ text: 'Hi {there}', handle: '@me', seconds: 2, textColor: '#FFFFFF', accentColor: '#FFD400', outlineColor: '#000000' }, { width: 1080, height: 1920 })!;
    expect(ass).toContain('PlayResX: 1080');
    expect(ass).toContain('Dialogue: 1,0:00:00.00,0:00:02.00,SwOutroText,,0,0,0,,{\\an2\\pos(540,932)\\fad(250,0)\\fscx85\\fscy85\\t(0,2000,0.6,\\fscx100\\fscy100)}Hi \\{there\\}');
    expect(ass).toContain('SwOutroHandle,,0,0,0,,{\\an8\\pos(540,988)');
    expect(buildOutroAss({ text: null, handle: null, seconds: 2, textColor: '#FFFFFF', accentColor: '#FFD400', outlineColor: '#000000' }, { width: 1080, height: 1920 })).toBeNull();
  });
});

describe('outro image download', () => {
  it('fetches an image from a loopback server through the guard when private URLs are allowed', async () => {
    const prev = process.env.SHORTS_ALLOW_PRIVATE_URLS;
    process.env.SHORTS_ALLOW_PRIVATE_URLS = '1';
    try {
      const file = await fetchOutroImage(`${base}/card.png`, { destDir: dir, checkUrl: guardUrlCheck('invalid_request') });
      expect(file).toBe(path.join(dir, 'outro-image.png'));
      expect(readFileSync(file).equals(readFileSync(wide))).toBe(true);
    } finally {
      if (prev === undefined) delete process.env.SHORTS_ALLOW_PRIVATE_URLS; else process.env.SHORTS_ALLOW_PRIVATE_URLS = prev;
    }
  });
  it('the guard refuses loopback by default; a non-image is refused; nothing is left behind', async () => {
    await expect(fetchOutroImage(`${base}/card.png`, { destDir: dir, baseName: 'x1', checkUrl: guardUrlCheck('invalid_request', { allowPrivate: false }) }))
      .rejects.toMatchObject({ code: 'invalid_request' });
    await expect(fetchOutroImage(`${base}/page.html`, { destDir: dir, baseName: 'x2' })).rejects.toThrow(/text\/html/);
    await expect(fetchOutroImage(`${base}/missing.png`, { destDir: dir, baseName: 'x3' })).rejects.toThrow(/HTTP 404/);
    for (const n of ['x1', 'x2', 'x3']) expect(existsSync(path.join(dir, `${n}.part`))).toBe(false);
  });
});

describe('outro render (real ffmpeg)', () => {
  it('stock card with sting: 3 + 2 s, card pixels after 3 s, the bell audible over the card', async () => {
    const assPath = path.join(dir, 'outro.ass');
    writeFileSync(assPath, buildOutroAss({ text: outroLine(null, 'en'), handle: '@shortwright', seconds: 2, textColor: '#FFFFFF', accentColor: '#FFD400', outlineColor: '#000000' }, { width: W, height: H })!);
    const p = plan('stock.mp4', { text: 'Subscribe for more', handle: '@shortwright', assPath });
    await renderClip(p);
    const out = p.output.path;
    expect(Math.abs(duration(out) - 5)).toBeLessThanOrEqual(0.1);
    const content = frameAt(out, 1.5);
    expect(near(pixel(content, 10, 10), '#FF0000', 40)).toBe(true);
    const card = frameAt(out, 4.2);
    expect(near(pixel(card, 5, 5), BACKDROP)).toBe(true);
    expect(near(pixel(card, W - 5, H - 5), BACKDROP)).toBe(true);
    // White text pixels in the middle band (line above centre, handle below).
    let white = 0;
    for (let y = Math.round(H * 0.3); y < Math.round(H * 0.7); y++) for (let x = 0; x < W; x++) if (near(pixel(card, x, y), '#FFFFFF', 40)) white++;
    expect(white).toBeGreaterThan(150);
    // The bell rings in the card; the tone of the content stopped at 3 s.
    expect(peakDb(out, 3.1, 1.5)).toBeGreaterThan(-30);
  });

  it('outroSting false: the card is silent', async () => {
    const p = plan('silent.mp4', { stingPath: null });
    await renderClip(p);
    expect(Math.abs(duration(p.output.path) - 5)).toBeLessThanOrEqual(0.1);
    expect(peakDb(p.output.path, 0.5, 2)).toBeGreaterThan(-30);
    expect(peakDb(p.output.path, 3.15, 1.8)).toBeLessThan(-70);
  });

  it('a 400x200 image sits on the solid backdrop (backdrop above and below it)', async () => {
    const p = plan('image.mp4', { imagePath: wide, seconds: 1 });
    await renderClip(p);
    expect(Math.abs(duration(p.output.path) - 4)).toBeLessThanOrEqual(0.1);
    const card = frameAt(p.output.path, 3.5);
    // 400x200 fitted to 270 wide is 270x135, centred: rows ~172-307.
    expect(near(pixel(card, W / 2, 240), '#00FF00', 40)).toBe(true);
    expect(near(pixel(card, W / 2, 60), BACKDROP)).toBe(true);
    expect(near(pixel(card, W / 2, 420), BACKDROP)).toBe(true);
  });
});

describe('shorts create --outro (end to end)', () => {
  it('appends the fetched image card with the sting; duration = content + outro, timestamps stay the source range', async () => {
    const env = cliEnv({ SHORTS_ALLOW_PRIVATE_URLS: '1' });
    // What is checked is the card, not the words: the sample's 0-60 s transcript made once per machine
    // (seeded-cache.ts, shared with other files) spares whisper.cpp here.
    seed(env.SHORTS_DATA_DIR!, await warmCache());
    const r = await runCli(['create', '--file', SAMPLE, ...SEEDED_RANGE, '--language', 'en', '--max-shorts', '1', '--preferred-length', 'under30sec',
      '--no-captions', '--outro', '--outro-seconds', '3', '--outro-handle', '@shortwright', '--outro-image-url', `${base}/card.png`, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as RequestDetail;
    const s = d.shorts[0]!;
    expect(s.error).toBe(false);
    const content = s.endTimestamp - s.startTimestamp;
    expect(s.duration).toBeCloseTo(content + 3, 2);
    const file = new URL(s.video_url).pathname;
    expect(Math.abs(duration(file) - s.duration)).toBeLessThanOrEqual(0.15);
    const card = frameAt(file, s.duration - 1);
    expect(near(pixel(card, W / 2, 240), '#00FF00', 40)).toBe(true);
    expect(near(pixel(card, 5, 5), '#00FF00', 60)).toBe(false);
    expect(peakDb(file, content + 0.05, 1)).toBeGreaterThan(-30);
  }, 300_000);
});
