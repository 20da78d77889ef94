// The envelope contract of every /api/v1 endpoint against a real `shorts serve` on loopback: each 2xx
// body is exactly `{ "data": <resource> }` (integrations of the hosted API read `result.data.<field>` on
// every endpoint), each error exactly `{ "error": {code, message, details?} }`, and the endpoints outside
// the API (health, readiness, the OpenAPI document) stay bare. RemoteClient reads the same server and
// hands back the inner shapes. Keys issued under SHORTS_API_KEY_PREFIX=sk_ssemble_ authenticate with
// X-API-Key and with Authorization: Bearer, beside an older sk_live_ key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteClient } from '../src/client/remote-client.js';
import { SAMPLE, runCli } from './helpers/cli.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

let serve: ServeProcess;
let cdn: Loopback;
let key: string;
let client: RemoteClient;

beforeAll(async () => {
  const env = serveEnv();
  ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
  serve = await startServe(env);
  cdn = await loopback(fileHandler(SAMPLE));
  client = new RemoteClient({ baseUrl: serve.url, apiKey: key });
}, 60_000);

afterAll(async () => {
  client?.close();
  await serve?.kill();
  await cdn?.close();
});

/** A success: status as given, and a body with `data` and nothing else; returns `data`. */
function data(r: Awaited<ReturnType<typeof api>>, status = 200): any {
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(r.json), r.text).toEqual(['data']);
  expect(typeof r.json.data).toBe('object');
  expect(r.json.data).not.toBeNull();
  return r.json.data;
}

function error(r: Awaited<ReturnType<typeof api>>, status: number, code: string): void {
  expect(r.status, r.text).toBe(status);
  expect(Object.keys(r.json)).toEqual(['error']);
  expect(r.json.error).toMatchObject({ code, message: expect.any(String) });
  expect(Object.keys(r.json.error).every((k) => ['code', 'message', 'details'].includes(k))).toBe(true);
}

const PAGINATION = { page: expect.any(Number), limit: expect.any(Number), totalPages: expect.any(Number), totalCount: expect.any(Number) };

describe('every /api/v1 success is {data: …}', () => {
  it('a request through its life: create (202), status, detail, list, cancel', async () => {
    const created = data(await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80, maxShorts: 1 }), 202);
    expect(created).toMatchObject({ requestId: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'processing', creditsUsed: 1, estimatedCompletionTime: expect.any(String), queuePosition: expect.any(Number) });
    const id = created.requestId as string;

    const status = data(await api(serve.api, key, 'GET', `/shorts/${id}/status`));
    expect(status).toMatchObject({ _id: id, status: expect.stringMatching(/^(queued|processing)$/), step: expect.any(String), progress: expect.any(Number), isDemo: false });

    const detail = data(await api(serve.api, key, 'GET', `/shorts/${id}`));
    expect(detail).toMatchObject({ _id: id, url: `${cdn.url}/talk.mp4`, start: 0, end: 80, shorts: expect.any(Array) });

    const list = data(await api(serve.api, key, 'GET', '/shorts?limit=5'));
    expect(Object.keys(list).sort()).toEqual(['pagination', 'requests']);
    expect(list.pagination).toEqual({ ...PAGINATION, page: 1, limit: 5 });
    expect(list.requests.map((r: { requestId: string }) => r.requestId)).toContain(id);

    const cancelled = data(await api(serve.api, key, 'DELETE', `/shorts/${id}`));
    expect(cancelled).toEqual({ _id: id, status: 'cancelled' });
    error(await api(serve.api, key, 'DELETE', `/shorts/${id}`), 409, 'request_not_cancellable');

    // RemoteClient unwraps the same answers into the inner shapes.
    expect(await client.cancel(id).catch((e: unknown) => e)).toMatchObject({ code: 'request_not_cancellable' });
    const viaClient = await client.status(id);
    const viaHttp = data(await api(serve.api, key, 'GET', `/shorts/${id}/status`));
    expect(viaClient).toEqual(viaHttp);
    expect(viaClient.status).toBe('cancelled');
    expect((await client.get(id))._id).toBe(id);
    expect((await client.list({ limit: '5' })).requests.map((r) => r.requestId)).toContain(id);
  }, 60_000);

  it('templates, posts and the three catalogs keep their inner shapes', async () => {
    const templates = data(await api(serve.api, key, 'GET', '/templates'));
    expect(Object.keys(templates).sort()).toEqual(['defaultTemplateId', 'defaultTemplateName', 'templates']);
    expect(templates.templates.length).toBeGreaterThan(0);
    expect(await client.templates()).toEqual(templates);

    const posts = data(await api(serve.api, key, 'GET', '/posts'));
    expect(posts).toEqual({ posts: [], pagination: { page: 1, limit: 50, totalPages: 0, totalCount: 0 } });

    for (const [path, kind] of [['/music', 'music'], ['/meme-hooks', 'memeHooks'], ['/game-videos', 'gameVideos']] as const) {
      const page = data(await api(serve.api, key, 'GET', `${path}?limit=2`));
      expect(Object.keys(page).sort(), path).toEqual(['pagination', kind].sort());
      expect(page.pagination).toEqual({ ...PAGINATION, page: 1, limit: 2 });
      expect(page[kind].length).toBeGreaterThan(0);
      expect(page[kind][0]).toMatchObject({ name: expect.any(String) });
    }
    const music = await client.music({ limit: '2' });
    expect(music.items.map((m) => m.name)).toEqual(data(await api(serve.api, key, 'GET', '/music?limit=2')).music.map((m: { name: string }) => m.name));
  });
});

describe('errors and the endpoints outside the API are not wrapped', () => {
  it('errors are {error: …} on every kind of failure', async () => {
    error(await api(serve.api, null, 'GET', '/shorts'), 401, 'missing_api_key');
    error(await api(serve.api, key, 'GET', '/shorts/xyz/status'), 400, 'invalid_request');
    error(await api(serve.api, key, 'GET', `/shorts/${'b'.repeat(24)}`), 404, 'resource_not_found');
    error(await api(serve.api, key, 'POST', '/shorts/create', { start: 0, end: 30 }), 400, 'invalid_request');
    error(await api(serve.api, key, 'GET', '/music?limit=101'), 400, 'invalid_request');
    error(await api(serve.api, key, 'PUT', '/templates'), 405, 'method_not_allowed');
  });

  it('/healthz, /readyz and /api/v1/openapi.json answer their own documents', async () => {
    expect((await api(serve.url, null, 'GET', '/healthz')).json).toEqual({ status: 'ok' });
    expect((await api(serve.url, null, 'GET', '/readyz')).json).toMatchObject({ ready: true, checks: expect.any(Object) });
    expect((await api(serve.api, null, 'GET', '/openapi.json')).json).toMatchObject({ openapi: expect.stringMatching(/^3\./), paths: expect.any(Object) });
  });
});

describe('keys under SHORTS_API_KEY_PREFIX', () => {
  it('`SHORTS_API_KEY_PREFIX=sk_ssemble_ shorts keys create` issues a key that works with X-API-Key and Bearer', async () => {
    const r = await runCli(['keys', 'create', '--email', 'migrated@example.com', '--credits', '1'], { ...serve.env, SHORTS_API_KEY_PREFIX: 'sk_ssemble_' });
    expect(r.code, r.stderr).toBe(0);
    const migrated = r.stdout.trim();
    expect(migrated).toMatch(/^sk_ssemble_[0-9A-Za-z]{43}$/);

    const viaHeader = data(await api(serve.api, migrated, 'GET', '/templates'));
    const bearer = await fetch(`${serve.api}/templates`, { headers: { authorization: `Bearer ${migrated}` } });
    expect(bearer.status).toBe(200);
    expect(await bearer.json()).toEqual({ data: viaHeader });
    // The key the server was started with (sk_live_) still works beside it.
    expect(key).toMatch(/^sk_live_/);
    data(await api(serve.api, key, 'GET', '/templates'));

    const list = await runCli(['keys', 'list'], serve.env);
    expect(list.stdout).toContain(`${migrated.slice(0, 'sk_ssemble_'.length + 4)}…`);
    expect(list.stdout).not.toContain(migrated.slice('sk_ssemble_'.length + 4));

    const bad = await runCli(['keys', 'create', '--email', 'other@example.com'], { ...serve.env, SHORTS_API_KEY_PREFIX: 'sk ssemble' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/SHORTS_API_KEY_PREFIX must be 1-32 characters of A-Z, a-z, 0-9, _ and -/);
  });
});
