import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError } from '../src/media/process.js';
import { dispositionFileName, headFileUrl } from '../src/net/download.js';
import { isShortFormUrl, parseYtDlpInfo, parseYtDlpProgress, ytDlpErrorReason } from '../src/net/ytdlp.js';
import { contentKey, fetchSource } from '../src/pipeline/fetch/fetch.js';
import { PipelineError, ShortsError } from '../src/errors.js';
import { video } from './helpers/media.js';
import { rejection } from './helpers/rejection.js';

const FIXTURE_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'ytdlp');
const fixture = (name: string) => readFileSync(path.join(FIXTURE_DIR, name), 'utf8');

let tagged: string;   // 1 s clip with a `title` tag
let untagged: string; // 1 s clip without one
let clipBytes: Buffer;
let server: Server;
let base: string;
let workDir: string;
let flakyHits = 0;
/** Responses held open by the "slow" route, ended when the test is over. */
const held = new Set<ServerResponse>();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `body` in small pieces with pauses, so the client sees several chunks. */
async function dribble(res: ServerResponse, body: Buffer, piece: number, pauseMs: number): Promise<void> {
  for (let i = 0; i < body.length && !res.destroyed; i += piece) {
    res.write(body.subarray(i, i + piece));
    await sleep(pauseMs);
  }
  res.end();
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  switch (url.pathname) {
    case '/clip.mp4':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clipBytes.length });
      if (req.method === 'HEAD') return void res.end();
      return void dribble(res, clipBytes, Math.ceil(clipBytes.length / 8), 5);
    case '/get':
      // Typical object-store download link: opaque path, name in Content-Disposition.
      res.writeHead(200, { 'content-type': 'video/mp4; codecs="avc1"', 'content-disposition': 'attachment; filename="Quarterly All Hands.mp4"' });
      return void res.end(readFileSync(untagged));
    case '/raw/My%20Talk.mp4':
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return void res.end(readFileSync(untagged));
    case '/hop':
      res.writeHead(302, { location: '/clip.mp4' });
      return void res.end();
    case '/page.html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end('<html><body>not a video</body></html>');
    case '/big.mp4':
      // Announces 5 MB; the client must give up on the headers alone.
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 5_000_000 });
      res.write(Buffer.alloc(1000));
      held.add(res);
      return;
    case '/endless.mp4':
      // Chunked: no Content-Length, keeps sending until the client hangs up.
      res.writeHead(200, { 'content-type': 'video/mp4' });
      return void dribble(res, Buffer.alloc(4_000_000, 7), 16_384, 2);
    case '/slow.mp4':
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 1_000_000 });
      res.write(Buffer.alloc(50_000, 1));
      held.add(res);
      return;
    case '/flaky.mp4':
      if (flakyHits++ === 0) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        return void res.end('busy');
      }
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clipBytes.length });
      return void res.end(clipBytes);
    default:
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('not found');
  }
}

beforeAll(async () => {
  tagged = video({ duration: 1, width: 160, height: 90, fps: 10, extraArgs: ['-metadata', 'title=Harbour Walk, Part 1'] });
  untagged = video({ duration: 1, width: 160, height: 90, fps: 10 });
  clipBytes = readFileSync(tagged);
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'shorts-fetch-'));
});

afterEach(() => {
  for (const res of held) res.destroy();
  held.clear();
  rmSync(workDir, { recursive: true, force: true });
});


describe('fetchSource: local file', () => {
  it('reads a local file in place and takes the title from the container tag', async () => {
    const src = await fetchSource({ kind: 'file', path: tagged }, { workDir });
    expect(src).toMatchObject({ path: tagged, title: 'Harbour Walk, Part 1', url: tagged, heatmap: [], downloaded: false });
    expect(src.contentKey).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('falls back to the file name without its extension', async () => {
    const src = await fetchSource({ kind: 'file', path: untagged }, { workDir });
    expect(src.title).toBe(path.basename(untagged, '.mp4'));
  });

  it('rejects a missing file with a clear invalid_request', async () => {
    const e = await rejection(fetchSource({ kind: 'file', path: '/nope/talk.mp4' }, { workDir }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_request', message: 'file not found: /nope/talk.mp4' });
  });

  it('rejects a directory', async () => {
    await expect(fetchSource({ kind: 'file', path: workDir }, { workDir })).rejects.toMatchObject({ code: 'invalid_request', message: `not a regular file: ${workDir}` });
  });
});

describe('contentKey', () => {
  it('is the same for the same bytes and differs for different bytes', async () => {
    expect(await contentKey(tagged)).toBe(await contentKey(tagged));
    expect(await contentKey(tagged)).not.toBe(await contentKey(untagged));
  });

  it('reads only the head and tail of a large file', async () => {
    // A sparse 3 GB file: hashing all of it would take many seconds, the key takes two 1 MiB reads.
    const big = path.join(workDir, 'big.bin');
    const { openSync, ftruncateSync, closeSync, writeSync } = await import('node:fs');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 3 * 1024 ** 3);
    writeSync(fd, Buffer.from('middle'), 0, 6, 1.5 * 1024 **3);
    closeSync(fd);
    const before = await contentKey(big);
    // A change in the middle is (by design) not seen; a change of size is.
    const fd2 = openSync(big, 'r+');
    writeSync(fd2, Buffer.from('MIDDLE'), 0, 6, 1.5 * 1024 ** 3);
    closeSync(fd2);
    expect(await contentKey(big)).toBe(before);
    const fd3 = openSync(big, 'r+');
    ftruncateSync(fd3, 3 * 1024 ** 3 + 1);
    closeSync(fd3);
    expect(await contentKey(big)).not.toBe(before);
  });
});

describe('fetchSource: file URL', () => {
  it('downloads a video/mp4 URL into the work folder and reports progress', async () => {
    const progress: number[] = [];
    const src = await fetchSource({ kind: 'fileUrl', url: `${base}/clip.mp4` }, { workDir, onProgress: (f) => progress.push(f) });
    expect(src.downloaded).toBe(true);
    expect(path.dirname(src.path)).toBe(workDir);
    expect(path.extname(src.path)).toBe('.mp4');
    expect(readFileSync(src.path).equals(clipBytes)).toBe(true);
    expect(src.title).toBe('Harbour Walk, Part 1');
    expect(src.url).toBe(`${base}/clip.mp4`);
    expect(src.contentKey).toBe(await contentKey(tagged));
    // Served in 8 pieces with pauses: some intermediate fractions, rising, ending at exactly 1.
    expect(progress.at(-1)).toBe(1);
    expect(progress.some((f) => f > 0 && f < 1)).toBe(true);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(readdirSync(workDir)).toEqual([path.basename(src.path)]);
  });

  it('titles an untagged download from Content-Disposition', async () => {
    const src = await fetchSource({ kind: 'fileUrl', url: `${base}/get?sig=abc` }, { workDir });
    expect(src.title).toBe('Quarterly All Hands');
  });

  it('titles an untagged download from the decoded last path segment', async () => {
    const src = await fetchSource({ kind: 'fileUrl', url: `${base}/raw/My%20Talk.mp4` }, { workDir });
    expect(src.title).toBe('My Talk');
  });

  it('rejects an HTML page with invalid_file_url naming the type', async () => {
    const e = await rejection(fetchSource({ kind: 'fileUrl', url: `${base}/page.html` }, { workDir }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_file_url', message: expect.stringContaining('text/html is not a video') });
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('rejects a 404 with invalid_file_url naming the status', async () => {
    const e = await rejection(fetchSource({ kind: 'fileUrl', url: `${base}/gone.mp4` }, { workDir }));
    expect(e).toMatchObject({ code: 'invalid_file_url', message: expect.stringContaining('HTTP 404') });
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('rejects non-http schemes', async () => {
    for (const url of ['ftp://example.com/a.mp4', 'file:///etc/passwd']) {
      await expect(fetchSource({ kind: 'fileUrl', url }, { workDir })).rejects.toMatchObject({ code: 'invalid_file_url', message: expect.stringMatching(/only http and https/) });
    }
  });

  it('rejects a Content-Length over maxBytes with file_too_large before downloading', async () => {
    const e = await rejection(fetchSource({ kind: 'fileUrl', url: `${base}/big.mp4` }, { workDir, maxBytes: 100_000 }));
    expect(e).toMatchObject({ code: 'file_too_large', message: 'the file is 5 MB, above the 100 KB limit' });
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('aborts a chunked download once it passes maxBytes and removes the partial file', async () => {
    const e = await rejection(fetchSource({ kind: 'fileUrl', url: `${base}/endless.mp4` }, { workDir, maxBytes: 200_000 }));
    expect(e).toMatchObject({ code: 'file_too_large' });
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('stops on abort and removes the partial file', async () => {
    const controller = new AbortController();
    const p = fetchSource({ kind: 'fileUrl', url: `${base}/slow.mp4` }, { workDir, signal: controller.signal, onProgress: () => controller.abort() });
    const e = await rejection(p);
    expect(e).toBeInstanceOf(AbortedError);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('retries a 503 once and then succeeds', async () => {
    flakyHits = 0;
    const src = await fetchSource({ kind: 'fileUrl', url: `${base}/flaky.mp4` }, { workDir });
    expect(flakyHits).toBe(2);
    expect(statSync(src.path).size).toBe(clipBytes.length);
  });

  it('runs the URL check before requesting and on redirects', async () => {
    const checked: string[] = [];
    const checkUrl = async (u: URL) => {
      checked.push(u.href);
      throw new ShortsError('invalid_file_url', 'blocked address');
    };
    await expect(fetchSource({ kind: 'fileUrl', url: `${base}/clip.mp4` }, { workDir, checkUrl })).rejects.toMatchObject({ message: 'blocked address' });
    expect(checked).toEqual([`${base}/clip.mp4`]);
  });

  it('runs the URL check on every redirect target', async () => {
    const checked: string[] = [];
    const checkUrl = async (u: URL) => {
      checked.push(u.pathname);
      if (u.pathname !== '/hop') throw new ShortsError('invalid_file_url', `blocked address ${u.pathname}`);
    };
    const e = await rejection(fetchSource({ kind: 'fileUrl', url: `${base}/hop` }, { workDir, checkUrl }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_file_url', message: 'blocked address /clip.mp4' });
    expect(checked).toEqual(['/hop', '/clip.mp4']);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('follows redirects to the video', async () => {
    const src = await fetchSource({ kind: 'fileUrl', url: `${base}/hop` }, { workDir });
    expect(src.contentKey).toBe(await contentKey(tagged));
  });
});

describe('headFileUrl (acceptance check without downloading)', () => {
  it('accepts a video URL and reports its type and length', async () => {
    expect(await headFileUrl(`${base}/clip.mp4`)).toEqual({ contentType: 'video/mp4', contentLength: clipBytes.length, finalUrl: `${base}/clip.mp4` });
  });

  it('rejects HTML, a 404 and an oversized file with the download errors', async () => {
    await expect(headFileUrl(`${base}/page.html`)).rejects.toMatchObject({ code: 'invalid_file_url', message: expect.stringContaining('text/html is not a video') });
    await expect(headFileUrl(`${base}/gone.mp4`)).rejects.toMatchObject({ code: 'invalid_file_url', message: expect.stringContaining('HTTP 404') });
    await expect(headFileUrl(`${base}/clip.mp4`, { maxBytes: 1000 })).rejects.toMatchObject({ code: 'file_too_large' });
  });
});

describe('Content-Disposition', () => {
  it('prefers the RFC 6266 extended name and strips folders', () => {
    expect(dispositionFileName(`attachment; filename="fallback.mp4"; filename*=UTF-8''Caf%C3%A9%20Talk.mp4`)).toBe('Café Talk.mp4');
    expect(dispositionFileName('attachment; filename=plain.mp4')).toBe('plain.mp4');
    expect(dispositionFileName('attachment; filename="../../etc/x.mp4"')).toBe('x.mp4');
    expect(dispositionFileName('inline')).toBeNull();
  });
});

describe('yt-dlp info parsing (stored fixtures)', () => {
  it('reads title, duration and the 100-point heatmap of a platform page', () => {
    const info = parseYtDlpInfo(fixture('youtube-with-heatmap.json'));
    expect(info.title).toBe('How Rivers Shape Cities — A Walking Lecture');
    expect(info.durationSec).toBe(1834);
    expect(info.heatmap).toHaveLength(100);
    expect(info.heatmap[0]).toEqual({ start: 0, end: 18.34, value: 1 });
    expect(info.heatmap.at(-1)?.end).toBe(1834);
    expect(info.heatmap.every((p) => p.value >= 0 && p.value <= 1 && p.end > p.start)).toBe(true);
  });

  it('gives an empty heatmap when the platform has none', () => {
    expect(parseYtDlpInfo(fixture('vimeo-no-heatmap.json'))).toEqual({
      title: 'Studio Session: Building a Drum Loop from Scratch', durationSec: 1207.5, heatmap: [],
    });
  });

  it('gives a null duration for a direct file seen by the generic extractor', () => {
    expect(parseYtDlpInfo(JSON.parse(fixture('generic-direct-file.json')) as unknown)).toEqual({ title: 'clip', durationSec: null, heatmap: [] });
  });

  it('drops malformed heatmap points, clamps values and sorts by time', () => {
    const info = parseYtDlpInfo({
      title: '  ', duration: 'x',
      heatmap: [{ start_time: 10, end_time: 20, value: 1.2 }, null, { start_time: 5, end_time: 5, value: 0.5 }, { start_time: 0, end_time: 10, value: -1 }, { start_time: 'a' }],
    });
    expect(info).toEqual({ title: null, durationSec: null, heatmap: [{ start: 0, end: 10, value: 0 }, { start: 10, end: 20, value: 1 }] });
  });

  it('parses progress lines and error reasons', () => {
    expect(parseYtDlpProgress('[download]  42.0% of   55.27KiB at  Unknown B/s ETA Unknown')).toBe(0.42);
    expect(parseYtDlpProgress('[download] 100% of   55.27KiB in 00:00:00 at 19.33MiB/s')).toBe(1);
    expect(parseYtDlpProgress('[download] Destination: /w/source.mp4')).toBeNull();
    expect(ytDlpErrorReason('[generic] x: Requesting header\nERROR: [generic] None: Unable to download webpage: HTTP Error 404: File not found (caused by <HTTPError 404>); please report this issue on https://github.com/yt-dlp/yt-dlp/issues'))
      .toBe('Unable to download webpage: HTTP Error 404: File not found');
    expect(ytDlpErrorReason('ERROR: [youtube] abc: Video unavailable. This video is private')).toBe('Video unavailable. This video is private');
  });
});

describe('fetchSource: page URL', () => {
  it('rejects short-form /shorts/ URLs', async () => {
    expect(isShortFormUrl(new URL('https://www.youtube.com/shorts/abc123'))).toBe(true);
    expect(isShortFormUrl(new URL('https://www.youtube.com/watch?v=abc123'))).toBe(false);
    const e = await rejection(fetchSource({ kind: 'pageUrl', url: 'https://www.youtube.com/shorts/abc123' }, { workDir }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_video_site_url', message: expect.stringContaining('/shorts/') });
  });

  describe('yt-dlp resolution', () => {
    const saved = { ytdlp: process.env.SHORTS_YTDLP, path: process.env.PATH };
    afterEach(() => {
      if (saved.ytdlp === undefined) delete process.env.SHORTS_YTDLP;
      else process.env.SHORTS_YTDLP = saved.ytdlp;
      process.env.PATH = saved.path;
    });

    it('fails clearly when SHORTS_YTDLP points at nothing', async () => {
      process.env.SHORTS_YTDLP = '/nonexistent';
      const e = await rejection(fetchSource({ kind: 'pageUrl', url: `${base}/clip.mp4` }, { workDir }));
      expect(e).toBeInstanceOf(PipelineError);
      expect(e).toMatchObject({ stage: 'fetching_video', message: 'SHORTS_YTDLP=/nonexistent is not a working yt-dlp executable' });
    });

    it('explains how to install yt-dlp when it is not on PATH', async () => {
      delete process.env.SHORTS_YTDLP;
      const empty = mkdtempSync(path.join(os.tmpdir(), 'shorts-nopath-'));
      chmodSync(empty, 0o755);
      process.env.PATH = empty;
      const e = await rejection(fetchSource({ kind: 'pageUrl', url: `${base}/clip.mp4` }, { workDir }));
      rmSync(empty, { recursive: true });
      expect(e).toMatchObject({ stage: 'fetching_video', message: expect.stringMatching(/^yt-dlp is not installed: install it .* or set SHORTS_YTDLP$/) });
    });
  });

  // yt-dlp's generic extractor accepts a direct .mp4 URL, loopback included: the real tool end to end.
  it('downloads through yt-dlp with progress, and the same content key as the original', async () => {
    const progress: number[] = [];
    const src = await fetchSource({ kind: 'pageUrl', url: `${base}/clip.mp4` }, { workDir, onProgress: (f) => progress.push(f) });
    expect(src).toMatchObject({ title: 'clip', url: `${base}/clip.mp4`, heatmap: [], downloaded: true });
    expect(src.path).toBe(path.join(workDir, 'source.mp4'));
    expect(src.contentKey).toBe(await contentKey(tagged));
    expect(progress.at(-1)).toBe(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    // Only the video is left behind: no info JSON, no .part, no path file.
    expect(readdirSync(workDir)).toEqual(['source.mp4']);
  });

  it('kills yt-dlp on abort and removes its partial file', async () => {
    const controller = new AbortController();
    const p = fetchSource({ kind: 'pageUrl', url: `${base}/slow.mp4` }, { workDir, signal: controller.signal, onProgress: () => controller.abort() });
    const e = await rejection(p);
    expect(e).toBeInstanceOf(AbortedError);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('maps a yt-dlp failure to invalid_video_site_url with the readable reason', async () => {
    const e = await rejection(fetchSource({ kind: 'pageUrl', url: `${base}/gone.mp4` }, { workDir }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_video_site_url', message: expect.stringContaining('HTTP Error 404') });
    expect((e as Error).message).not.toMatch(/please report|github/);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('reports file_too_large when yt-dlp refuses a file over maxBytes', async () => {
    const e = await rejection(fetchSource({ kind: 'pageUrl', url: `${base}/clip.mp4` }, { workDir, maxBytes: 1000 }));
    expect(e).toMatchObject({ code: 'file_too_large' });
    expect(existsSync(path.join(workDir, 'source.mp4'))).toBe(false);
    expect(readdirSync(workDir)).toEqual([]);
  });
});
