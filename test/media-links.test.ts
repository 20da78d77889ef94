// Signed media links and ranged file serving, over real HTTP on loopback with a real MP4 made by ffmpeg.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEDIA_TTL_SEC, MediaLinks, loadOrCreateSecret, parseMediaTtl } from '../src/server/media-links.js';
import { parseRange, serveFile } from '../src/server/serve-file.js';
import { video } from './helpers/media.js';

const RID = '65f0c2a1b2c3d4e5f6a7b8c9';
const SID = '0f8fad5b-d9cb-469f-a165-70867728950e';

function linkParts(u: string): { pathname: string; expires: string | undefined; sig: string | undefined } {
  const url = new URL(u);
  return { pathname: url.pathname, expires: url.searchParams.get('expires') ?? undefined, sig: url.searchParams.get('sig') ?? undefined };
}

describe('MediaLinks', () => {
  const start = Date.parse('2026-03-01T12:00:00Z');
  let clock = start;
  const links = new MediaLinks({ secret: Buffer.alloc(32, 9), publicBaseUrl: 'http://127.0.0.1:8080/', now: () => clock });

  it('builds /media/<requestId>/<shortId>.mp4 with a unix expiry 24 hours ahead and a base64url signature', () => {
    clock = start;
    const u = links.url(RID, SID);
    expect(u.startsWith(`http://127.0.0.1:8080/media/${RID}/${SID}.mp4?`)).toBe(true);
    const { expires, sig } = linkParts(u);
    expect(Number(expires)).toBe(start / 1000 + DEFAULT_MEDIA_TTL_SEC);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(links.verify(RID, SID, expires, sig)).toBe('ok');
  });

  it('keeps a path prefix of the public base URL', () => {
    const behindProxy = new MediaLinks({ secret: Buffer.alloc(32, 9), publicBaseUrl: 'https://media.example.org/shorts/', now: () => start });
    expect(linkParts(behindProxy.url(RID, SID)).pathname).toBe(`/shorts/media/${RID}/${SID}.mp4`);
  });

  it('says ok up to the expiry second and expired after it (fake clock)', () => {
    clock = start;
    const short = new MediaLinks({ secret: Buffer.alloc(32, 9), publicBaseUrl: 'http://127.0.0.1:8080', ttlSec: 60, now: () => clock });
    const { expires, sig } = linkParts(short.url(RID, SID));
    clock = start + 60_000;
    expect(short.verify(RID, SID, expires, sig)).toBe('ok');
    clock = start + 61_000;
    expect(short.verify(RID, SID, expires, sig)).toBe('expired');
  });

  it('says invalid when any part of the link was changed', () => {
    clock = start;
    const { expires, sig } = linkParts(links.url(RID, SID));
    expect(links.verify(`${RID.slice(0, -1)}0`, SID, expires, sig)).toBe('invalid'); // another request
    expect(links.verify(RID, SID.replace('0f8f', '1f8f'), expires, sig)).toBe('invalid'); // another clip
    expect(links.verify(RID, SID, String(Number(expires) + 86_400), sig)).toBe('invalid'); // extended expiry
    expect(links.verify(RID, SID, `0${expires}`, sig)).toBe('invalid'); // same number, other text
    const flipped = `${sig!.slice(0, 10)}${sig![10] === 'A' ? 'B' : 'A'}${sig!.slice(11)}`;
    expect(links.verify(RID, SID, expires, flipped)).toBe('invalid'); // signature changed
    expect(links.verify(RID, SID, expires, sig!.slice(0, -1))).toBe('invalid'); // signature cut short
    const otherSecret = new MediaLinks({ secret: Buffer.alloc(32, 1), publicBaseUrl: 'http://x', now: () => clock });
    expect(otherSecret.verify(RID, SID, expires, sig)).toBe('invalid'); // signed by someone else
  });

  it('says invalid for missing or malformed parameters, and never "expired" for a forged link', () => {
    clock = start;
    const { expires, sig } = linkParts(links.url(RID, SID));
    expect(links.verify(RID, SID, undefined, sig)).toBe('invalid');
    expect(links.verify(RID, SID, expires, undefined)).toBe('invalid');
    expect(links.verify(RID, SID, '', '')).toBe('invalid');
    expect(links.verify(RID, SID, '-1', sig)).toBe('invalid');
    expect(links.verify(RID, SID, '1e12', sig)).toBe('invalid');
    clock = start + 2 * DEFAULT_MEDIA_TTL_SEC * 1000;
    expect(links.verify(RID, SID, expires, 'A'.repeat(43))).toBe('invalid');
    expect(links.verify(RID, SID, expires, sig)).toBe('expired');
  });

  it('refuses ids that would make the signed text ambiguous, short secrets and bad lifetimes', () => {
    expect(() => links.url('a/b', SID)).toThrow(RangeError);
    expect(links.verify('a/b', SID, '1', 'x')).toBe('invalid');
    expect(() => new MediaLinks({ secret: Buffer.alloc(8), publicBaseUrl: 'http://x' })).toThrow(/at least 16 bytes/);
    expect(() => new MediaLinks({ secret: Buffer.alloc(32), publicBaseUrl: 'http://x', ttlSec: 0 })).toThrow(RangeError);
    expect(() => new MediaLinks({ secret: Buffer.alloc(32), publicBaseUrl: 'http://x', ttlSec: 1.5 })).toThrow(RangeError);
  });

  it('reads SHORTS_MEDIA_TTL as whole seconds, defaulting to 24 hours', () => {
    expect(parseMediaTtl(undefined)).toBe(86_400);
    expect(parseMediaTtl('')).toBe(86_400);
    expect(parseMediaTtl('3600')).toBe(3600);
    for (const bad of ['0', '-5', '1.5', '1h', 'abc']) expect(() => parseMediaTtl(bad), bad).toThrow(/SHORTS_MEDIA_TTL/);
  });
});

describe('loadOrCreateSecret', () => {
  it('creates 32 random bytes with mode 0600 and reuses them, so links survive a restart', () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'media-secret-')), 'nested', 'data');
    const first = loadOrCreateSecret(dir);
    expect(first.length).toBe(32);
    const file = path.join(dir, 'media-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['media-secret']); // no temp file left behind

    const before = new MediaLinks({ secret: first, publicBaseUrl: 'http://127.0.0.1:1' });
    const { expires, sig } = linkParts(before.url(RID, SID));
    const again = loadOrCreateSecret(dir); // "the next start"
    expect(again.equals(first)).toBe(true);
    expect(new MediaLinks({ secret: again, publicBaseUrl: 'http://127.0.0.1:2' }).verify(RID, SID, expires, sig)).toBe('ok');

    const other = loadOrCreateSecret(mkdtempSync(path.join(os.tmpdir(), 'media-secret-')));
    expect(other.equals(first)).toBe(false);
  });

  it('refuses a damaged secret file instead of signing with a weak key', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'media-secret-'));
    writeFileSync(path.join(dir, 'media-secret'), 'c2hvcnQ=\n', { mode: 0o600 });
    expect(() => loadOrCreateSecret(dir)).toThrow(/does not hold a valid media link secret/);
  });
});

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', [0, 9]], ['bytes=10-', [10, 99]], ['bytes=-10', [90, 99]], ['bytes=-500', [0, 99]],
    ['bytes=95-500', [95, 99]], ['bytes=99-99', [99, 99]], [' bytes = 3 - 4 ', [3, 4]],
  ] as const)('%s of 100 bytes -> %j', (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });

  it.each([['bytes=100-'], ['bytes=100-200'], ['bytes=-0'], ['bytes=5-2']])('%s of 100 bytes is unsatisfiable', (header) => {
    expect(parseRange(header, 100)).toBe('unsatisfiable');
  });

  it('asks for the whole file on several ranges, other units and broken syntax', () => {
    for (const h of [undefined, '', 'bytes=0-1,5-6', 'items=0-1', 'bytes=a-b', 'bytes=-', 'bytes 0-1']) expect(parseRange(h, 100), String(h)).toBeNull();
  });

  it('finds nothing satisfiable in an empty file', () => {
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
    expect(parseRange('bytes=-5', 0)).toBe('unsatisfiable');
  });
});

describe('signed clip links served with ranges (real HTTP on 127.0.0.1)', () => {
  let clock = Date.parse('2026-03-01T12:00:00Z');
  let server: http.Server;
  let base: string;
  let links: MediaLinks;
  let mp4: string;
  let bytes: Buffer;
  let big: string;
  const serving: Promise<void>[] = [];

  // The media route as a server would mount it: verify the link, then serve the clip's file.
  function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const m = /^\/media\/([0-9a-f]{24})\/([0-9a-f-]{36})\.mp4$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const [, rid, sid] = m as unknown as [string, string, string];
    const verdict = links.verify(rid, sid, url.searchParams.get('expires') ?? undefined, url.searchParams.get('sig') ?? undefined);
    if (verdict !== 'ok') {
      const body = JSON.stringify({ error: { code: 'invalid_media_link', message: verdict } });
      res.writeHead(403, { 'content-type': 'application/json' }).end(body);
      return;
    }
    const file = sid === SID ? mp4 : sid.startsWith('b') ? big : path.join(os.tmpdir(), 'no-such-clip.mp4');
    serving.push(serveFile(req, res, file, 'video/mp4'));
  }

  beforeAll(async () => {
    mp4 = video({ duration: 2, width: 320, height: 180 });
    bytes = readFileSync(mp4);
    // Large enough that the socket buffers cannot take it all before the client hangs up.
    big = path.join(mkdtempSync(path.join(os.tmpdir(), 'big-clip-')), 'big.mp4');
    writeFileSync(big, randomBytes(48 * 1024 * 1024));
    const dir = mkdtempSync(path.join(os.tmpdir(), 'links-'));
    server = http.createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    links = new MediaLinks({ secret: loadOrCreateSecret(dir), publicBaseUrl: base, ttlSec: 3600, now: () => clock });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const link = (sid = SID) => links.url(RID, sid);

  it('is a real MP4 of a few kilobytes', () => {
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(bytes.length).toBeGreaterThan(2000);
  });

  it('GET returns the whole file with its headers', async () => {
    const res = await fetch(link());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(res.headers.get('last-modified')).toBe(new Date(statSync(mp4).mtimeMs).toUTCString());
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('answers a range at the start, in the middle, a suffix and an open end with the exact slice', async () => {
    const size = bytes.length;
    const mid = Math.floor(size / 2);
    const cases: [string, number, number][] = [
      ['bytes=0-1023', 0, 1023],
      [`bytes=${mid}-${mid + 99}`, mid, mid + 99],
      ['bytes=-700', size - 700, size - 1],
      [`bytes=${size - 300}-`, size - 300, size - 1],
      [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
    ];
    for (const [range, from, to] of cases) {
      const res = await fetch(link(), { headers: { range } });
      expect(res.status, range).toBe(206);
      expect(res.headers.get('content-range'), range).toBe(`bytes ${from}-${to}/${size}`);
      expect(res.headers.get('content-length'), range).toBe(String(to - from + 1));
      expect(res.headers.get('content-type'), range).toBe('video/mp4');
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(from, to + 1)), range).toBe(true);
    }
  });

  it('answers 416 with bytes */size when no byte of the range exists', async () => {
    for (const range of [`bytes=${bytes.length}-`, `bytes=${bytes.length + 5}-${bytes.length + 10}`, 'bytes=-0']) {
      const res = await fetch(link(), { headers: { range } });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range'), range).toBe(`bytes */${bytes.length}`);
      expect((await res.arrayBuffer()).byteLength).toBe(0);
    }
  });

  it('serves the whole file for several ranges (documented choice)', async () => {
    const res = await fetch(link(), { headers: { range: 'bytes=0-9,20-29' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-range')).toBeNull();
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('answers HEAD with the headers of GET and no body, ranged or not', async () => {
    const head = await fetch(link(), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const ranged = await fetch(link(), { method: 'HEAD', headers: { range: 'bytes=100-199' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(ranged.headers.get('content-length')).toBe('100');
  });

  it('honours If-Range and If-None-Match with the ETag', async () => {
    const etag = (await fetch(link(), { method: 'HEAD' })).headers.get('etag')!;
    const current = await fetch(link(), { headers: { range: 'bytes=0-9', 'if-range': etag } });
    expect(current.status).toBe(206);
    await current.arrayBuffer();
    const stale = await fetch(link(), { headers: { range: 'bytes=0-9', 'if-range': '"0-0"' } });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer()).equals(bytes)).toBe(true);
    const cached = await fetch(link(), { headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
  });

  it('answers 404 with the JSON error envelope when the file is gone', async () => {
    const res = await fetch(link('c0000000-0000-4000-8000-000000000000'));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('resource_not_found');
    expect(typeof body.error.message).toBe('string');
  });

  it('answers 403 for an expired link, and 200 again for a fresh one', async () => {
    const old = link();
    clock += 3601_000;
    const res = await fetch(old);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('expired');
    expect((await fetch(link(), { method: 'HEAD' })).status).toBe(200);
  });

  it('answers 403 for a link with a changed id, expiry or signature, or without its parameters', async () => {
    const good = new URL(link());
    const variants: URL[] = [];
    const withPath = new URL(good);
    withPath.pathname = good.pathname.replace(SID, 'a'.repeat(8) + SID.slice(8));
    variants.push(withPath);
    const withRequest = new URL(good);
    withRequest.pathname = good.pathname.replace(RID, 'f'.repeat(24));
    variants.push(withRequest);
    const later = new URL(good);
    later.searchParams.set('expires', String(Number(good.searchParams.get('expires')) + 1));
    variants.push(later);
    const forged = new URL(good);
    forged.searchParams.set('sig', 'A'.repeat(43));
    variants.push(forged);
    for (const drop of ['sig', 'expires']) {
      const missing = new URL(good);
      missing.searchParams.delete(drop);
      variants.push(missing);
    }
    for (const v of variants) {
      const res = await fetch(v);
      expect(res.status, v.href).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_media_link');
    }
  });

  it('closes the file when the client hangs up mid-download', async () => {
    const openOnBig = () => readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === big;
      } catch {
        return false; // closed while listing
      }
    }).length;
    expect(openOnBig()).toBe(0);
    serving.length = 0;
    const got = await new Promise<number>((resolve, reject) => {
      const req = http.get(links.url(RID, 'b0000000-0000-4000-8000-000000000000'), (res) => {
        expect(res.statusCode).toBe(200);
        res.once('data', (chunk: Buffer) => {
          expect(openOnBig()).toBe(1); // the check sees the descriptor while it is open
          req.destroy(); // hang up after the first chunk
          resolve(chunk.length);
        });
      });
      req.on('error', (e) => { if (!req.destroyed) reject(e); });
    });
    expect(got).toBeGreaterThan(0);
    // serveFile settles once the server notices the hang-up, and the descriptor is closed by then.
    await Promise.all(serving);
    for (let i = 0; i < 50 && openOnBig() > 0; i++) await sleep(100);
    expect(openOnBig()).toBe(0);
  });
});
