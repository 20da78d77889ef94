// RemoteClient against a small loopback server that answers as docs/api.md says: every success in
// `{ data: … }` (lists and catalogs keep their inner `{<items>, pagination}`), 202 on create,
// `{ error: { code, message, details } }` on failure, 429 with details.retryAfter, signed media links
// that can expire (403).
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RemoteClient, apiBaseUrl } from '../src/client/remote-client.js';
import { ShortsError } from '../src/errors.js';
import type { StatusResponse } from '../src/api/types.js';
import { rejection } from './helpers/rejection.js';

const KEY = 'sk_live_testkey0000000000000000000000000000000000000';
const CLIP = Buffer.from('not really an mp4, but bytes all the same '.repeat(2000));

interface Seen { method: string; path: string; key: string | undefined; body: unknown; idempotencyKey?: string }

interface FakeApi { url: string; seen: Seen[]; close(): Promise<void> }

function statusOf(id: string, status: StatusResponse['status'], progress: number): StatusResponse {
  const step = status === 'completed' ? 'completed' : status === 'queued' ? 'queued' : 'transcribing';
  return { _id: id, status, step, stepMessage: `${step}...`, progress, userEmail: 'a@example.com', isDemo: false } as StatusResponse;
}

const pagination = (q: URLSearchParams, totalCount: number) => ({
  page: Number(q.get('page') ?? 1), limit: Number(q.get('limit') ?? 20), totalPages: totalCount ? 1 : 0, totalCount,
});

/** One request id per scenario; each poll of /status advances that id's script by one. */
function startFakeApi(): Promise<FakeApi> {
  const seen: Seen[] = [];
  const polls = new Map<string, number>();
  const cancelled = new Set<string>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString(); });
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const key = req.headers['x-api-key'] as string | undefined;
      const body = raw ? JSON.parse(raw) as Record<string, unknown> : undefined;
      seen.push({ method: req.method ?? '', path: u.pathname, key, body, idempotencyKey: req.headers['idempotency-key'] as string | undefined });
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
      };
      // Every API success is enveloped; a few paths answer bare on purpose, to test the client's check.
      const ok = (status: number, inner: unknown) => send(status, { data: inner });
      const fail = (status: number, code: string, message: string, details?: Record<string, unknown>) =>
        send(status, { error: { code, message, ...(details ? { details } : {}) } });

      if (u.pathname.startsWith('/media/')) {
        if (u.pathname === '/media/expired.mp4') return fail(403, 'invalid_media_link', 'this link has expired');
        return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': CLIP.length }).end(CLIP);
      }
      if (u.pathname === '/bare/api/v1/templates') return send(200, { templates: [], defaultTemplateId: 'f'.repeat(24), defaultTemplateName: 'Karaoke' });
      if (u.pathname === '/not-an-api/api/v1/templates') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hi</html>');
      if (!u.pathname.startsWith('/api/v1/')) return fail(404, 'resource_not_found', 'no such route');
      const route = u.pathname.slice('/api/v1'.length);
      if (!key) return fail(401, 'missing_api_key', 'send your key in X-API-Key');
      if (key !== KEY && key !== 'sk_broke') return fail(401, 'invalid_api_key', 'the API key is not valid');

      if (req.method === 'POST' && route === '/shorts/create') {
        if (key === 'sk_broke') return fail(403, 'insufficient_credits', 'no credits left');
        if (body?.url === 'https://video.example/crash') return fail(500, 'internal_error', 'something broke');
        if (body?.url === 'https://video.example/hangup') return req.socket.destroy();
        if (body?.url === 'https://video.example/teapot') return fail(418, 'teapot_error', 'short and stout', { spout: true });
        if (typeof body?.end === 'number' && typeof body.start === 'number' && body.end - body.start < 60) {
          return fail(400, 'invalid_request', 'the window end - start must be 60 to 1200 seconds');
        }
        return ok(202, { requestId: 'a'.repeat(24), status: 'processing', creditsUsed: 1, estimatedCompletionTime: '2030-01-01T00:00:00.000Z', queuePosition: 1 });
      }
      const status = /^\/shorts\/([^/]+)\/status$/.exec(route);
      if (req.method === 'GET' && status) {
        const id = status[1]!;
        const n = (polls.get(id) ?? 0) + 1;
        polls.set(id, n);
        if (cancelled.has(id)) return ok(200, { ...statusOf(id, 'cancelled', 40), step: 'cancelled' });
        if (id === 'flaky'.padEnd(24, '0')) return req.socket.destroy();
        if (id.startsWith('c')) return ok(200, statusOf(id, ['queued', 'processing', 'completed'][Math.min(n, 3) - 1] as 'queued', n === 3 ? 100 : 30 * n));
        if (id.startsWith('d')) {
          if (n === 1) return fail(429, 'rate_limit_exceeded', 'status checks: 500 a minute', { retryAfter: 1, reset: new Date().toISOString() });
          return ok(200, statusOf(id, 'completed', 100));
        }
        if (id.startsWith('e')) return ok(200, statusOf(id, 'processing', 50));
        return fail(404, 'resource_not_found', `no request ${id}`);
      }
      const one = /^\/shorts\/([^/]+)$/.exec(route);
      if (req.method === 'DELETE' && one) {
        cancelled.add(one[1]!);
        return ok(200, { _id: one[1], status: 'cancelled' });
      }
      if (req.method === 'GET' && one) {
        if (one[1] === 'nope') return fail(400, 'invalid_request', 'id must be a 24-character hex string');
        return ok(200, { _id: one[1], status: 'completed', shorts: [] });
      }
      const q = u.searchParams;
      if (req.method === 'GET' && route === '/shorts') {
        return ok(200, { requests: [{ requestId: 'c'.repeat(24), status: q.get('status') ?? 'completed' }], pagination: pagination(q, 1) });
      }
      if (req.method === 'GET' && route === '/templates') {
        return ok(200, { templates: [], defaultTemplateId: 'f'.repeat(24), defaultTemplateName: 'Karaoke' });
      }
      if (req.method === 'GET' && route === '/music') return ok(200, { music: [{ name: 'Lofi', duration: 120 }], pagination: pagination(q, 1) });
      if (req.method === 'GET' && route === '/meme-hooks') return ok(200, { memeHooks: [{ name: 'Oops' }], pagination: pagination(q, 1) });
      if (req.method === 'GET' && route === '/game-videos') return ok(200, { gameVideos: [], pagination: pagination(q, 0) });
      if (req.method === 'GET' && route === '/posts') {
        if (q.get('platform') === 'fax') return fail(400, 'invalid_request', 'platform must be video_site, photo_site or short_video_site');
        return ok(200, { posts: [], pagination: { ...pagination(q, 0), limit: Number(q.get('limit') ?? 50) } });
      }
      return fail(404, 'resource_not_found', 'no such route');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) });
    });
  });
}

let api: FakeApi;
let client: RemoteClient;
const logged: string[] = [];

beforeAll(async () => {
  api = await startFakeApi();
  client = new RemoteClient({ baseUrl: `${api.url}/api/v1`, apiKey: KEY, pollIntervalMs: 10, log: (l) => logged.push(l) });
});
afterAll(async () => {
  client.close();
  await api.close();
});
beforeEach(() => {
  api.seen.length = 0;
  logged.length = 0;
});


describe('apiBaseUrl', () => {
  it('accepts the server root or the /api/v1 base and normalises to the base', () => {
    expect(apiBaseUrl('http://host:8080')).toBe('http://host:8080/api/v1');
    expect(apiBaseUrl('http://host:8080/')).toBe('http://host:8080/api/v1');
    expect(apiBaseUrl('http://host:8080/api/v1/')).toBe('http://host:8080/api/v1');
    expect(apiBaseUrl('https://example.com/shorts')).toBe('https://example.com/shorts/api/v1');
  });
  it('refuses what is not an http(s) URL', () => {
    expect(() => apiBaseUrl('ftp://host/')).toThrow(/http or https/);
    expect(() => apiBaseUrl('host:8080')).toThrow();
    expect(() => apiBaseUrl('not a url')).toThrow(/not a URL/);
  });
});

describe('create', () => {
  it('POSTs the JSON body with the key and returns the 202 answer', async () => {
    const created = await client.create({ url: 'https://video.example/watch?v=1', start: 0, end: 90 });
    expect(created).toMatchObject({ requestId: 'a'.repeat(24), status: 'processing', creditsUsed: 1, queuePosition: 1 });
    expect(api.seen).toEqual([{ method: 'POST', path: '/api/v1/shorts/create', key: KEY, body: { url: 'https://video.example/watch?v=1', start: 0, end: 90 }, idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
  });

  it('is not retried after a 500 (a second create would spend a second credit)', async () => {
    const e = await rejection(client.create({ url: 'https://video.example/crash', start: 0, end: 90 }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'internal_error', message: 'something broke' });
    expect(api.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
  });

  it('is retried after the connection drops, every try under one Idempotency-Key (issue 23), then reported', async () => {
    const e = await rejection(client.create({ url: 'https://video.example/hangup', start: 0, end: 90 }));
    expect(String(e)).toMatch(/cannot reach the Shorts API at http:\/\/127\.0\.0\.1:\d+\/api\/v1: ECONNRESET/);
    const posts = api.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(3);
    expect(new Set(posts.map((p) => p.idempotencyKey)).size).toBe(1);
    expect(posts[0]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    // A create of its own gets a key of its own; a key given by the caller is sent as it is.
    await rejection(client.create({ url: 'https://video.example/hangup', start: 0, end: 90 }, { idempotencyKey: 'ci-job-4711' }));
    expect(api.seen.filter((s) => s.method === 'POST').slice(3).map((p) => p.idempotencyKey)).toEqual(['ci-job-4711', 'ci-job-4711', 'ci-job-4711']);
  });

  it('refuses a local file before sending anything', async () => {
    const e = await rejection(client.create({ file: '/tmp/video.mp4', start: 0, end: 90 }));
    expect(e).toMatchObject({ code: 'invalid_request', message: 'a local --file cannot be sent to a remote instance; use --file-url' });
    expect(api.seen).toHaveLength(0);
  });
});

describe('error envelopes become ShortsError', () => {
  it('400 invalid_request keeps the server message (exit 2)', async () => {
    const e = await rejection(client.create({ url: 'https://video.example/x', start: 0, end: 30 }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_request', message: 'the window end - start must be 60 to 1200 seconds', exitCode: 2 });
  });

  it('401 invalid_api_key and missing_api_key', async () => {
    const bad = new RemoteClient({ baseUrl: api.url, apiKey: 'sk_wrong' });
    expect(await rejection(bad.templates())).toMatchObject({ code: 'invalid_api_key', exitCode: 1 });
    bad.close();
    const none = new RemoteClient({ baseUrl: api.url, apiKey: '' });
    expect(await rejection(none.templates())).toMatchObject({ code: 'missing_api_key' });
    none.close();
  });

  it('403 insufficient_credits', async () => {
    const broke = new RemoteClient({ baseUrl: api.url, apiKey: 'sk_broke' });
    expect(await rejection(broke.create({ url: 'https://video.example/x', start: 0, end: 90 }))).toMatchObject({ code: 'insufficient_credits', message: 'no credits left' });
    broke.close();
  });

  it('404 resource_not_found, and a GET 4xx is not retried', async () => {
    expect(await rejection(client.status('b'.repeat(24)))).toMatchObject({ code: 'resource_not_found', message: `no request ${'b'.repeat(24)}` });
    expect(await rejection(client.get('nope'))).toMatchObject({ code: 'invalid_request' });
    expect(api.seen).toHaveLength(2);
  });

  it('an unknown code becomes internal_error with the server message and the code in details', async () => {
    const e = await rejection(client.create({ url: 'https://video.example/teapot', start: 0, end: 90 }));
    expect(e).toMatchObject({ code: 'internal_error', message: 'short and stout', details: { spout: true, code: 'teapot_error', httpStatus: 418 } });
  });

  it('a server that does not answer JSON gets a clear error', async () => {
    const html = new RemoteClient({ baseUrl: `${api.url}/not-an-api`, apiKey: KEY });
    expect(String(await rejection(html.templates()))).toMatch(/did not answer with JSON/);
    html.close();
  });

  it('a success without the data envelope (an older server) gets a clear error', async () => {
    const bare = new RemoteClient({ baseUrl: `${api.url}/bare`, apiKey: KEY });
    expect(String(await rejection(bare.templates()))).toMatch(/answered GET \/templates without a "data" object/);
    bare.close();
  });

  it('a server that is not there: "cannot reach ... ECONNREFUSED"', async () => {
    const gone = await startFakeApi();
    await gone.close();
    const c = new RemoteClient({ baseUrl: gone.url, apiKey: KEY });
    expect(String(await rejection(c.create({ url: 'https://video.example/x', start: 0, end: 90 }))))
      .toBe(`Error: cannot reach the Shorts API at ${gone.url}/api/v1: ECONNREFUSED`);
    c.close();
  });

  it('a GET is retried after the connection drops, then reported', async () => {
    const e = await rejection(client.status('flaky'.padEnd(24, '0')));
    expect(String(e)).toMatch(/cannot reach the Shorts API/);
    expect(api.seen.filter((s) => s.path.endsWith('/status'))).toHaveLength(3);
  });
});

describe('wait', () => {
  it('polls the status until it is terminal: queued -> processing -> completed', async () => {
    const id = 'c1'.padEnd(24, 'c');
    const seenStatuses: string[] = [];
    const final = await client.wait(id, { onStatus: (s) => seenStatuses.push(s.status) });
    expect(final).toMatchObject({ _id: id, status: 'completed', progress: 100 });
    expect(seenStatuses).toEqual(['queued', 'processing', 'completed']);
    expect(api.seen.map((s) => `${s.method} ${s.path}`)).toEqual(Array(3).fill(`GET /api/v1/shorts/${id}/status`));
  });

  it('waits details.retryAfter seconds after a 429 before polling again', async () => {
    const id = 'd1'.padEnd(24, 'd');
    const t0 = Date.now();
    const final = await client.wait(id);
    expect(final.status).toBe('completed');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(api.seen).toHaveLength(2);
    expect(logged.join('\n')).toMatch(/rate limited.*1 s/);
  });

  it('aborting the signal (Ctrl-C) sends DELETE and resolves with the cancelled status', async () => {
    const id = 'e1'.padEnd(24, 'e');
    const interrupt = new AbortController();
    let polls = 0;
    const final = await client.wait(id, { signal: interrupt.signal, onStatus: () => { if (++polls === 2) interrupt.abort(); } });
    expect(final).toMatchObject({ _id: id, status: 'cancelled' });
    expect(api.seen.filter((s) => s.method === 'DELETE').map((s) => s.path)).toEqual([`/api/v1/shorts/${id}`]);
  });

  it('gives up with a clear error after its timeout', async () => {
    const id = 'e2'.padEnd(24, 'e');
    const patient = new RemoteClient({ baseUrl: api.url, apiKey: KEY, pollIntervalMs: 20, timeoutMs: 100 });
    expect(String(await rejection(patient.wait(id)))).toMatch(new RegExp(`gave up waiting for request ${id}.*still processing.*shorts status ${id}`));
    patient.close();
  });
});

describe('lists and catalogs', () => {
  it('list unwraps data.requests and passes the query (undefined values left out)', async () => {
    const r = await client.list({ status: 'completed', page: '2', limit: '5', sortBy: undefined });
    expect(r.requests).toEqual([{ requestId: 'c'.repeat(24), status: 'completed' }]);
    expect(r.pagination).toEqual({ page: 2, limit: 5, totalPages: 1, totalCount: 1 });
    expect(api.seen[0]?.path).toBe('/api/v1/shorts');
  });

  it('music, meme-hooks and game-videos map data.<kind> to items', async () => {
    expect(await client.music({})).toEqual({ items: [{ name: 'Lofi', duration: 120 }], pagination: { page: 1, limit: 20, totalPages: 1, totalCount: 1 } });
    expect((await client.memeHooks({ limit: '3' })).items).toEqual([{ name: 'Oops' }]);
    expect((await client.gameVideos({})).items).toEqual([]);
    expect(api.seen.map((s) => s.path)).toEqual(['/api/v1/music', '/api/v1/meme-hooks', '/api/v1/game-videos']);
  });

  it('posts unwraps data.posts; templates and cancel unwrap data', async () => {
    expect(await client.posts({})).toEqual({ posts: [], pagination: { page: 1, limit: 50, totalPages: 0, totalCount: 0 } });
    expect(await rejection(client.posts({ platform: 'fax' }))).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/platform/) });
    expect((await client.templates()).defaultTemplateName).toBe('Karaoke');
    expect(await client.cancel('9'.repeat(24))).toEqual({ _id: '9'.repeat(24), status: 'cancelled' });
  });
});

describe('downloadClip', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'remote-dl-'));

  it('streams the clip to dest, with the key only for the API origin', async () => {
    const dest = path.join(dir, '01-clip.mp4');
    await client.downloadClip(`${api.url}/media/${'a'.repeat(24)}/s1.mp4?expires=1&sig=x`, dest);
    expect(readFileSync(dest).equals(CLIP)).toBe(true);
    expect(api.seen[0]?.key).toBe(KEY);
    // Another origin (a CDN serving signed links) never sees the key.
    const cdn = await startFakeApi();
    await client.downloadClip(`${cdn.url}/media/s2.mp4`, path.join(dir, '02-clip.mp4'));
    expect(cdn.seen[0]?.key).toBeUndefined();
    await cdn.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('an expired link (403) is a clear invalid_media_link error and leaves no file', async () => {
    const dest = path.join(dir, '03-clip.mp4');
    const e = await rejection(client.downloadClip(`${api.url}/media/expired.mp4`, dest));
    expect(e).toMatchObject({ code: 'invalid_media_link', message: expect.stringMatching(/expired.*shorts get/) });
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });
});
