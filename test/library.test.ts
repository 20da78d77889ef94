// The library (src/index.ts) used the way a program would: createClient on a real SQLite data dir, and
// against a real `shorts serve` on loopback (paginators across pages, ShortsError's code on a wrong key,
// wait() on real requests, verifyWebhook on the deliveries serve really sent), plus wait() honouring a
// 429's retryAfter from a loopback server speaking the API's rate-limit contract (serve's own limiters
// reset on the minute, too slow to wait for in a test).
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient, LocalClient, paginate, pages, RemoteClient, ShortsError, verifyWebhook, type Query, type WebhookEvent,
} from '../src/index.js';
import { runCli, SAMPLE } from './helpers/cli.js';
import { loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('createClient without a remote: the local engine on a real data dir', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-library-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists templates, stores a request in SQLite, pages it back and cancels it; a second client sees the same store', async () => {
    const client = createClient({ dataDir: dir });
    expect(client).toBeInstanceOf(LocalClient);
    expect(client.mode).toBe('local');
    const templates = await client.templates();
    expect(templates.templates.map((t) => t.templateId)).toContain(templates.defaultTemplateId);

    const created = await client.create({ file: SAMPLE, start: 0, end: 60, language: 'en' });
    expect(created).toMatchObject({ status: 'processing', creditsUsed: 1, requestId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect((await client.cancel(created.requestId)).status).toBe('cancelled');
    client.close();

    const again = createClient({ dataDir: dir });
    const listed = await collect(paginate(again, 'list', { status: 'cancelled' }));
    expect(listed.map((r) => [r.requestId, r.status])).toEqual([[created.requestId, 'cancelled']]);
    expect((await again.status(created.requestId)).status).toBe('cancelled');
    // Errors from the engine are the same class as from a server, with the spec's code.
    const missing = await again.get('f'.repeat(24)).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ShortsError);
    expect(missing).toMatchObject({ code: 'resource_not_found', httpStatus: 404 });
    again.close();
  });
});

describe('createClient with a remote: a real serve on loopback', () => {
  let serve: ServeProcess;
  let key: string;
  let secret: string;
  let source: Loopback;
  let hooks: Loopback;

  beforeAll(async () => {
    const env = serveEnv();
    const made = await runCli(['keys', 'create', '--email', 'library@example.com', '--credits', '5',
      '--hourly-limit', '2000', '--daily-limit', '20000', '--json'], env);
    expect(made.code, made.stderr).toBe(0);
    key = (JSON.parse(made.stdout) as { key: string }).key;
    // keys create prints the account's webhook signing secret on stderr (--json keeps stdout's shape).
    secret = /whsec_[A-Za-z0-9+/=]+/.exec(made.stderr)![0];
    serve = await startServe(env);
    // A "video" that is not one: each request fails fast at probing, is refunded, and sends shorts.failed.
    const junk = Buffer.alloc(64 * 1024, 7);
    source = await loopback((req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': junk.length });
      res.end(req.method === 'HEAD' ? undefined : junk);
    });
    hooks = await loopback((_req, res) => { res.writeHead(204).end(); });
  }, 60_000);

  afterAll(async () => {
    await serve?.kill();
    await source?.close();
    await hooks?.close();
  });

  it('pages requests across pages, waits for them, and each webhook delivery verifies with the account secret', async () => {
    // The server root, not the /api/v1 base: createClient finds the API under it.
    const client = createClient({ baseUrl: serve.url, apiKey: key, pollIntervalMs: 100 });
    expect(client).toBeInstanceOf(RemoteClient);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await client.create({ fileUrl: `${source.url}/clip-${i}.mp4`, start: 0, end: 60, webhookUrl: `${hooks.url}/hook` });
      ids.push(created.requestId);
    }
    for (const id of ids) {
      const done = await client.wait(id);
      expect(done.status, JSON.stringify(done)).toBe('failed');
    }

    const seenPages = await collect(pages(client, 'list', { limit: 2 }));
    expect(seenPages.map((p) => [p.pagination.page, p.requests.length])).toEqual([[1, 2], [2, 1]]);
    const listed = await collect(paginate(client, 'list', { limit: 2, sortOrder: 'asc' }));
    expect(listed.map((r) => r.requestId)).toEqual(ids);
    // Breaking out of the loop stops fetching: one page asked for, not two.
    let calls = 0;
    const counted = Object.assign(Object.create(client) as RemoteClient, {
      list: (q: Query) => { calls++; return client.list(q); },
    });
    for await (const r of paginate(counted, 'list', { limit: 2 })) { expect(ids).toContain(r.requestId); break; }
    expect(calls).toBe(1);

    // The catalogs page the same way, and the pages add up to the whole catalog.
    const whole = await client.music({ limit: '100' });
    const paged = await collect(paginate(client, 'music', { limit: 5 }));
    expect(paged.map((m) => m.name)).toEqual(whole.items.map((m) => m.name));
    expect(whole.items.length).toBeGreaterThan(5);

    const deliveries = await until(async () => hooks.requests, (r) => r.length >= 3, 30_000, 100);
    const events = deliveries.map((d) => {
      expect(verifyWebhook(secret, d.headers, d.body), d.body).toBe(true);
      expect(verifyWebhook(secret, d.headers, d.body.replace('"failed"', '"completed"'))).toBe(false);
      expect(verifyWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, d.headers, d.body)).toBe(false);
      return JSON.parse(d.body) as WebhookEvent;
    });
    expect(events.map((e) => [e.event, e.status]).every(([ev, st]) => ev === 'shorts.failed' && st === 'failed')).toBe(true);
    expect(events.map((e) => e.requestId).sort()).toEqual([...ids].sort());
    client.close();
  });

  it('a wrong key is a ShortsError with the spec code; a remote without a key is refused before any call', async () => {
    const wrong = createClient({ baseUrl: serve.api, apiKey: `sk_live_${'0'.repeat(48)}` });
    const err = await wrong.templates().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShortsError);
    expect(err).toMatchObject({ code: 'invalid_api_key', httpStatus: 401 });
    wrong.close();
    expect(() => createClient({ baseUrl: serve.api, apiKey: ' ' })).toThrow(expect.objectContaining({ code: 'missing_api_key' }));
  });
});

describe('wait() and a 429', () => {
  let server: http.Server;
  let base: string;
  const polls: number[] = [];

  beforeAll(async () => {
    // Answers as docs/api.md says: the first status check is over the limit (429, Retry-After and
    // details.retryAfter in whole seconds), the next one finds the request completed.
    server = http.createServer((req, res) => {
      polls.push(performance.now());
      if (polls.length === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'the Status check limiter allows 500 requests per minute', details: { retryAfter: 1, reset: new Date(Date.now() + 1000).toISOString(), limit: 'statusCheck' } } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { _id: 'a'.repeat(24), status: 'completed', step: 'completed', stepMessage: 'Task complete!', progress: 100, userEmail: 'a@example.com', isDemo: false } }));
      void req;
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

  it('waits retryAfter seconds, not the poll interval, then resolves with the terminal status', async () => {
    const notes: string[] = [];
    const client = createClient({ baseUrl: base, apiKey: 'sk_live_x', pollIntervalMs: 10, log: (l) => notes.push(l) });
    const done = await client.wait('a'.repeat(24));
    client.close();
    expect(done.status).toBe('completed');
    expect(polls).toHaveLength(2);
    const gap = polls[1]! - polls[0]!;
    expect(gap).toBeGreaterThanOrEqual(990);
    expect(gap).toBeLessThan(3000);
    expect(notes.join('\n')).toMatch(/rate limited.*again in 1 s/);
  });
});
