// One route table (src/api/routes.ts) makes both the server's dispatch and the OpenAPI `paths`. These
// tests fail when the two drift: a route served but missing from the document, a documented operation
// the server does not answer, or a route left out of the document without a reason. The served side is
// checked on a real server (Service, accounts, limits on a temp SQLite store, HTTP on 127.0.0.1).
import { mkdtempSync } from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullPath, ROUTES, type RouteSpec } from '../src/api/routes.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { mcpHttpHandler } from '../src/server/mcp-handler.js';
import { createApiServer } from '../src/server/http-server.js';
import { loadOrCreateSecret, MediaLinks } from '../src/server/media-links.js';
import { openApiDocument } from '../src/api/openapi.js';
import { RateLimiter } from '../src/server/rate-limit.js';
import { AccountStore } from '../src/service/accounts.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { SqliteRateLimits } from '../src/adapters/sqlite/rate-limits.js';
import { SqlitePostStore } from '../src/adapters/sqlite/post-store.js';
import { postsStack } from './helpers/posts-stack.js';
import { Service } from '../src/service/service.js';
import { IdempotentRequests } from '../src/server/idempotency.js';
import { SqliteIdempotencyStore } from '../src/adapters/sqlite/idempotency.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

const routes = ROUTES as readonly RouteSpec[];
const documented = (r: RouteSpec) => r.answer === 'envelope' || !('undocumented' in r.openapi);

/** A concrete path for a route: ids of the right shape for the parameters (nothing has them: handlers answer 404 or 400). */
function concrete(r: RouteSpec): string {
  return fullPath(r).replace(/\{([^}]+)\}/g, (_, name: string) => (/^(shortId)$/.test(name) ? '00000000-0000-4000-8000-000000000000'
    : /^(id|requestId|postId|ruleId)$/.test(name) ? 'a'.repeat(24) : 'x'));
}

describe('the OpenAPI paths are the route table', () => {
  const doc = openApiDocument({ serverUrl: 'http://127.0.0.1:1/api/v1' }) as { paths: Record<string, Record<string, { operationId?: string }>> };

  it('documents every route of the table, and nothing else, under its operationId', () => {
    const inDocument = Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).filter(([k]) => k !== 'servers')
      .map(([method, op]) => `${method.toUpperCase()} ${p} ${op.operationId}`)).sort();
    const inTable = routes.filter(documented).map((r) => `${r.method} ${r.path} ${r.operationId}`).sort();
    expect(inDocument).toEqual(inTable);
  });

  it('leaves out only the routes that say why: tus uploads, public catalog files, the MCP endpoint and the web studio\'s sign-in', () => {
    const left = routes.filter((r) => !documented(r)).map((r) => {
      expect(r.answer === 'self' && 'undocumented' in r.openapi && r.openapi.undocumented.length > 20, r.operationId).toBe(true);
      return `${r.method} ${fullPath(r)}`;
    });
    expect(left).toEqual(['ANY /api/v1/uploads', 'ANY /api/v1/uploads/{uploadId}', 'GET /assets/templates/{file}', 'GET /assets/catalog/{catalog}/{name}/{part}', 'ANY /mcp',
      'POST /studio/session', 'GET /studio/session', 'DELETE /studio/session', 'GET /studio/sign-in/{token}']);
  });

  it('gives every route its own operationId', () => {
    const ids = routes.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('every route of the table is served', () => {
  let store: SqliteRequestStore;
  let server: http.Server;
  let base = '';
  let key = '';

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'route-table-'));
    store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
    const accounts = new AccountStore(new SqliteAccounts(store.db));
    const links = new MediaLinks({ secret: loadOrCreateSecret(dir), publicBaseUrl: 'http://127.0.0.1' });
    // No URL checks and no workers: nothing leaves this machine and nothing is processed.
    const service = new Service(store, { blobs: new FsBlobStore(store.dataDir), mediaUrl: (s) => links.url(s.requestId, s.id), thumbnailUrl: (s) => links.thumbnailUrl(s.requestId, s.id), credits: accounts, posts: new SqlitePostStore(store.db) });
    const { posts, automation } = postsStack(store);
    const limiter = new RateLimiter(new SqliteRateLimits(store.db));
    server = createApiServer({
      service, store, accounts, limiter, posts, automation, publicUrl: () => base, mediaLinks: links,
      openapi: () => openApiDocument({ serverUrl: `${base}/api/v1` }),
      readiness: async () => ({ ready: true, checks: {} }),
      idempotency: new IdempotentRequests(new SqliteIdempotencyStore(store.db)),
      mcp: mcpHttpHandler({
        service, posts, log: () => {},
        limit: async (auth, name) => { const r = await limiter.check(auth.keyId, auth.account, name); if (r.error) throw r.error; },
      }),
      log: () => {},
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    key = (await accounts.createKey((await accounts.createAccount({ email: 'routes@example.com', credits: 1 })).id)).key;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    store.close();
  });

  async function call(method: string, p: string): Promise<{ status: number; allow: string | null; body: string }> {
    const res = await fetch(`${base}${p}`, {
      method, headers: { 'x-api-key': key, ...(method === 'POST' ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {}) },
      body: method === 'POST' ? '{}' : undefined,
    });
    return { status: res.status, allow: res.headers.get('allow'), body: await res.text() };
  }

  it('answers each route with its method by its handler, never with the router\'s "no endpoint" 404 or a 405', async () => {
    for (const r of routes) {
      const method = r.method === 'ANY' ? 'POST' : r.method;
      const got = await call(method, concrete(r));
      const where = `${method} ${concrete(r)} (${r.operationId})`;
      expect(got.status, where).not.toBe(405);
      // HEAD has no body to read the router's message from: its media links answer 403 for a link not signed.
      if (method === 'HEAD') expect(got.status, where).not.toBe(404);
      expect(got.body, where).not.toMatch(/no endpoint/);
      expect(got.status, where).toBeLessThan(500);
    }
  });

  it('answers a method a route does not have with 405 naming its methods, and a path the table does not have with 404', async () => {
    for (const r of routes.filter((x) => x.method !== 'ANY')) {
      const got = await call('PATCH', concrete(r));
      expect(got.status, `PATCH ${concrete(r)}`).toBe(405);
      expect(got.allow!.split(', '), `PATCH ${concrete(r)}`).toContain(r.method);
    }
    for (const p of ['/api/v1/nothing-here', '/media/x', '/assets/nothing', '/oauth']) {
      const got = await call('GET', p);
      expect([got.status, JSON.parse(got.body)], p).toEqual([404, { error: { code: 'resource_not_found', message: `no endpoint GET ${p}` } }]);
    }
  });

  it('media links and public catalog files answer GET and HEAD only', async () => {
    const media = concrete(routes.find((r) => r.operationId === 'getClipVideo')!);
    for (const p of [media, media.replace(/\.mp4$/, '.jpg'), '/assets/templates/x.png', '/assets/catalog/music/x/preview']) {
      const got = await call('DELETE', p);
      expect([got.status, got.allow, JSON.parse(got.body).error.code], p).toEqual([405, 'GET, HEAD', 'method_not_allowed']);
    }
  });
});
