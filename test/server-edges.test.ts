// What a hostile or sloppy client sends at `shorts serve`, and what it must get back: malformed request
// targets are 400 `invalid_request` (never a 500, never a key lookup), a method a path does not have is
// 405 with `Allow`, and both keys headers (X-API-Key, Authorization: Bearer) work. Against a real
// `shorts serve` on loopback, with requests written by hand (raw sockets where fetch would fix them up).
// The `/mcp` hook of the HTTP server is checked in process, with a real store and limiter.
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { AccountStore } from '../src/service/accounts.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { Service } from '../src/service/service.js';
import { createApiServer } from '../src/server/http-server.js';
import { MediaLinks } from '../src/server/media-links.js';
import { RateLimiter } from '../src/server/rate-limit.js';
import { SqliteRateLimits } from '../src/adapters/sqlite/rate-limits.js';
import { createKey, serveEnv, startServe, type ServeProcess } from './helpers/serve.js';
import { IdempotentRequests } from '../src/server/idempotency.js';
import { SqliteIdempotencyStore } from '../src/adapters/sqlite/idempotency.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

interface Raw { status: number; headers: http.IncomingHttpHeaders; text: string; json: any }

/** One request exactly as given: any method (TRACE included), the path not normalised. */
function raw(base: string, method: string, target: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: target, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => {
        let json: unknown = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A request line written on a socket by hand: targets http.request and fetch would refuse to send. */
function rawSocket(base: string, requestLine: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`${requestLine}\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (c: Buffer) => { text += c.toString(); });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

function errorEnvelope(r: Raw, status: number, code: string): void {
  expect([r.status, r.json?.error?.code], r.text).toEqual([status, code]);
  expect(typeof r.json.error.message).toBe('string');
  expect(r.headers['content-type']).toMatch(/^application\/json/);
}

let serve: ServeProcess;
let key: string;

beforeAll(async () => {
  const env = serveEnv();
  ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
  serve = await startServe(env);
}, 60_000);

afterAll(async () => {
  await serve?.kill();
});

describe('malformed request targets: 400 invalid_request, before the key', () => {
  it.each([
    ['GET', '/api/v1/shorts/%E0%A4%A'],
    ['GET', '/api/v1/shorts/%/status'],
    ['DELETE', '/api/v1/shorts/%FF'],
    ['GET', '/api/v1/shorts/%C0%AF/status'],
    ['GET', '/media/%FF/x.mp4'],
    ['GET', '/assets/catalog/music/%E0%A4%A/preview'],
  ])('%s %s', async (method, target) => {
    // Without a key it would be 401 if the key were looked at first; with one, the limiter is not touched.
    const anonymous = await raw(serve.url, method, target);
    errorEnvelope(anonymous, 400, 'invalid_request');
    expect(anonymous.json.error.message).toMatch(/percent-encoding/);
    const keyed = await raw(serve.url, method, target, { 'x-api-key': key });
    errorEnvelope(keyed, 400, 'invalid_request');
    expect(keyed.headers['x-ratelimit-remaining-hour']).toBeUndefined();
  });

  it('an absolute-form target that does not parse (GET http://[::1/…)', async () => {
    for (const target of ['http://[::1/api/v1/shorts', 'http://[::1/healthz', 'http://exa mple/']) {
      const text = await rawSocket(serve.url, `GET ${target} HTTP/1.1`);
      const [head, body] = text.split('\r\n\r\n') as [string, string];
      expect(head, target).toMatch(/^HTTP\/1\.1 400 /);
      // Node's own parser refuses some targets (a space) before the server sees them: no envelope then.
      if (/content-type: application\/json/i.test(head)) expect(JSON.parse(body).error.code).toBe('invalid_request');
    }
    const text = await rawSocket(serve.url, 'GET http://[::1/api/v1/shorts HTTP/1.1');
    expect(JSON.parse(text.split('\r\n\r\n')[1]!)).toEqual({ error: { code: 'invalid_request', message: 'the request target is not a valid URL' } });
  });

  it('a well-formed absolute-form target is served like its path', async () => {
    const text = await rawSocket(serve.url, `GET ${serve.url}/healthz HTTP/1.1`);
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(text.split('\r\n\r\n')[1]!)).toEqual({ status: 'ok' });
  });

  it('none of them was an internal error', () => {
    expect(serve.log()).not.toMatch(/internal error/);
  });
});

describe('405 with Allow for a method a path does not have', () => {
  it.each(['/healthz', '/readyz', '/api/v1/openapi.json'])('%s answers GET and HEAD only', async (p) => {
    expect((await raw(serve.url, 'GET', p)).status).toBe(200);
    const head = await raw(serve.url, 'HEAD', p);
    expect([head.status, head.text]).toEqual([200, '']);
    for (const method of ['PUT', 'DELETE', 'TRACE', 'POST', 'PATCH', 'OPTIONS']) {
      const r = await raw(serve.url, method, p);
      errorEnvelope(r, 405, 'method_not_allowed');
      expect(r.headers.allow, `${method} ${p}`).toBe('GET, HEAD');
      expect(r.json.error.details).toEqual({ allow: ['GET', 'HEAD'] });
    }
  });

  it('API paths name their own methods, with or without a key; unknown paths stay 404', async () => {
    const id = 'a'.repeat(24);
    for (const [method, p, allow] of [
      ['PUT', '/api/v1/shorts', 'GET'],
      ['POST', `/api/v1/shorts/${id}`, 'GET, DELETE'],
      ['PATCH', `/api/v1/shorts/${id}/`, 'GET, DELETE'],
      // `create` also fits /shorts/:id (where GET and DELETE answer 400 for the id): the truth, listed.
      ['PUT', '/api/v1/shorts/create', 'POST, GET, DELETE'],
      ['DELETE', '/api/v1/templates', 'GET'],
      ['HEAD', '/api/v1/music', 'GET'],
    ] as const) {
      for (const headers of [{}, { 'x-api-key': key }]) {
        const r = await raw(serve.url, method, p, headers);
        expect([r.status, r.headers.allow], `${method} ${p}`).toEqual([405, allow]);
        if (method !== 'HEAD') expect(r.json.error.code).toBe('method_not_allowed');
      }
    }
    errorEnvelope(await raw(serve.url, 'GET', '/api/v1/nothing-here'), 404, 'resource_not_found');
    errorEnvelope(await raw(serve.url, 'PUT', '/api/v1/nothing-here'), 404, 'resource_not_found');
  });
});

describe('the key in X-API-Key or Authorization: Bearer', () => {
  it('either header authenticates; both must name the same key', async () => {
    const viaHeader = await raw(serve.url, 'GET', '/api/v1/templates', { 'x-api-key': key });
    const viaBearer = await raw(serve.url, 'GET', '/api/v1/templates', { authorization: `Bearer ${key}` });
    expect([viaHeader.status, viaBearer.status]).toEqual([200, 200]);
    expect(viaBearer.json).toEqual(viaHeader.json);
    expect(viaBearer.headers['x-ratelimit-limit-hour']).toBe('2000');
    expect((await raw(serve.url, 'GET', '/api/v1/templates', { 'x-api-key': key, authorization: `Bearer ${key}` })).status).toBe(200);
    const other = await createKey(serve.env);
    errorEnvelope(await raw(serve.url, 'GET', '/api/v1/templates', { 'x-api-key': key, authorization: `Bearer ${other.key}` }), 401, 'invalid_api_key');
    errorEnvelope(await raw(serve.url, 'GET', '/api/v1/templates', { authorization: 'Bearer sk_live_nope' }), 401, 'invalid_api_key');
    errorEnvelope(await raw(serve.url, 'GET', '/api/v1/templates', { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'missing_api_key');
  });
});

describe('the /mcp hook', () => {
  let server: http.Server;
  let base: string;
  let accounts: AccountStore;
  const calls: { method: string; email: string; rateHeader: unknown }[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-hook-'));
    const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
    accounts = new AccountStore(new SqliteAccounts(store.db));
    server = createApiServer({
      service: new Service(store, { blobs: new FsBlobStore(store.dataDir) }), store, accounts, limiter: new RateLimiter(new SqliteRateLimits(store.db)),
      mediaLinks: new MediaLinks({ secret: Buffer.alloc(32, 1), publicBaseUrl: 'http://127.0.0.1:1' }),
      openapi: () => ({}), readiness: async () => ({ ready: true, checks: {} }), idempotency: new IdempotentRequests(new SqliteIdempotencyStore(store.db)), log: () => {},
      mcp: async (req, res, auth) => {
        calls.push({ method: req.method ?? '', email: auth.account.email, rateHeader: res.getHeader('x-ratelimit-remaining-hour') });
        if (req.method === 'DELETE') throw new Error('the handler failed');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  });

  it('runs after authentication with the account, counted by the limiter per HTTP request', async () => {
    const account = await accounts.createAccount({ email: 'mcp@example.com', hourlyLimit: 2 });
    const { key: k } = await accounts.createKey(account.id);
    errorEnvelope(await raw(base, 'POST', '/mcp'), 401, 'missing_api_key');
    errorEnvelope(await raw(base, 'POST', '/mcp', { authorization: 'Bearer sk_live_nope' }), 401, 'invalid_api_key');
    expect(calls).toEqual([]);
    const first = await raw(base, 'POST', '/mcp', { authorization: `Bearer ${k}` });
    const second = await raw(base, 'GET', '/mcp/', { 'x-api-key': k });
    expect([first.status, first.json.result, second.status]).toEqual([200, {}, 200]);
    expect([first.headers['x-ratelimit-remaining-hour'], second.headers['x-ratelimit-remaining-hour']]).toEqual(['1', '0']);
    expect(calls).toEqual([{ method: 'POST', email: 'mcp@example.com', rateHeader: '1' }, { method: 'GET', email: 'mcp@example.com', rateHeader: '0' }]);
    const limited = await raw(base, 'POST', '/mcp', { 'x-api-key': k });
    errorEnvelope(limited, 429, 'rate_limit_exceeded');
    expect(calls).toHaveLength(2);
  });

  it('a handler that throws is a 500 envelope, not a hung connection', async () => {
    const account = await accounts.createAccount({ email: 'mcp2@example.com' });
    const { key: k } = await accounts.createKey(account.id);
    errorEnvelope(await raw(base, 'DELETE', '/mcp', { 'x-api-key': k }), 500, 'internal_error');
  });
});
