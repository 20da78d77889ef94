import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaLinks, loadOrCreateSecret } from '../src/server/media-links.js';
import { parseRange, serveFile } from '../src/server/serve-file.js';

describe('signed media links', () => {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const links = new MediaLinks({ secret: Buffer.alloc(32, 7), publicBaseUrl: 'http://127.0.0.1:9/', ttlSec: 60, now: () => clock });
  const rid = 'a'.repeat(24), sid = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const parts = (u: string) => {
    const url = new URL(u);
    return { expires: url.searchParams.get('expires') ?? undefined, sig: url.searchParams.get('sig') ?? undefined, path: url.pathname };
  };

  it('verifies until the expiry, then says expired', () => {
    const { expires, sig, path: p } = parts(links.url(rid, sid));
    expect(p).toBe(`/media/${rid}/${sid}.mp4`);
    expect(links.verify(rid, sid, expires, sig)).toBe('ok');
    clock += 61_000;
    expect(links.verify(rid, sid, expires, sig)).toBe('expired');
  });

  it('rejects a tampered id, expiry or signature, and missing parameters', () => {
    const { expires, sig } = parts(links.url(rid, sid));
    expect(links.verify('b'.repeat(24), sid, expires, sig)).toBe('invalid');
    expect(links.verify(rid, sid.replace('0f', '1f'), expires, sig)).toBe('invalid');
    expect(links.verify(rid, sid, String(Number(expires) + 3600), sig)).toBe('invalid');
    expect(links.verify(rid, sid, expires, `${sig!.slice(0, -1)}A`)).toBe('invalid');
    expect(links.verify(rid, sid, undefined, sig)).toBe('invalid');
    expect(links.verify(rid, sid, expires, undefined)).toBe('invalid');
  });

  it('keeps its secret across restarts (links survive), with mode 0600', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'secret-'));
    const a = loadOrCreateSecret(dir);
    expect(loadOrCreateSecret(dir).equals(a)).toBe(true);
    expect(statSync(path.join(dir, 'media-secret')).mode & 0o777).toBe(0o600);
  });
});

describe('serveFile with ranges (real HTTP on loopback)', () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'range-')), 'clip.mp4');
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    writeFileSync(file, bytes);
    server = http.createServer((req, res) => void serveFile(req, res, req.url === '/gone' ? `${file}.gone` : file, 'video/mp4'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each([
    ['bytes=0-99', 0, 99], ['bytes=500-599', 500, 599], ['bytes=-100', 900, 999], ['bytes=900-', 900, 999], ['bytes=990-5000', 990, 999],
  ])('%s -> 206 with the exact slice', async (range, start, end) => {
    const res = await fetch(base, { headers: { range } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/1000`);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it('serves the whole file, answers HEAD, 416 when unsatisfiable, 404 when gone', async () => {
    const full = await fetch(base);
    expect([full.status, full.headers.get('accept-ranges')]).toEqual([200, 'bytes']);
    expect(Buffer.from(await full.arrayBuffer()).equals(bytes)).toBe(true);
    const head = await fetch(base, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('1000');
    const bad = await fetch(base, { headers: { range: 'bytes=1000-' } });
    expect([bad.status, bad.headers.get('content-range')]).toEqual([416, 'bytes */1000']);
    expect((await fetch(`${base}/gone`)).status).toBe(404);
  });

  it('parses ranges as RFC 9110 says', () => {
    expect(parseRange(undefined, 10)).toBeNull();
    expect(parseRange('bytes=0-1,5-6', 10)).toBeNull(); // several ranges: the whole file
    expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=5-2', 10)).toBe('unsatisfiable');
  });
});
