// The web studio's sign-in and files (issue 25) against a real `shorts serve` (no workers: nothing here needs a
// request to run) and a real `shorts studio`, over loopback HTTP: the cookie's flags, sessions ended on the server,
// the CSRF rule, where a request was made, the static files, and the local studio's one-time link.
import { readdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { AccountStore } from '../src/service/accounts.js';
import { ROOT, SAMPLE, cliEnv, runCli, startCli } from './helpers/cli.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, type Loopback, type ServeProcess } from './helpers/serve.js';

let serve: ServeProcess;
let cdn: Loopback;
let key: string;

beforeAll(async () => {
  const env = serveEnv();
  ({ key } = await createKey(env));
  serve = await startServe(env, ['--workers', '0']);
  cdn = await loopback(fileHandler(SAMPLE));
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await cdn?.close();
});

/** A request with exact headers (fetch would add its own Accept-Encoding and decode the body). */
function raw(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function signIn(apiKey: string) {
  const res = await fetch(`${serve.url}/studio/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey }) });
  return { res, json: await res.json() as any, cookies: res.headers.getSetCookie() };
}

const cookieOf = (setCookie: string[]) => setCookie[0]!.split(';')[0]!;

/** An /api/v1 call with the session cookie; `origin` as a browser on the studio's page would send it. */
async function withCookie(cookie: string, method: string, p: string, body?: unknown, origin: string | null = serve.url) {
  const res = await fetch(`${serve.api}${p}`, {
    method,
    headers: { cookie, ...(origin ? { origin } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() as any };
}

describe('studio sign-in with an API key', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie and answers the session; a wrong key is 401 and sets none', async () => {
    const { res, json, cookies } = await signIn(key);
    expect(res.status).toBe(200);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^shorts_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=1209600$/);
    expect(json.data).toMatchObject({ accountId: expect.any(String), email: expect.stringContaining('@example.com'), credits: 5, local: false });
    expect(Date.parse(json.data.expiresAt) - Date.now()).toBeGreaterThan(13.9 * 86_400_000);
    const session = await fetch(`${serve.url}/studio/session`, { headers: { cookie: cookieOf(cookies) } });
    expect((await session.json() as any).data).toEqual(json.data);

    const wrong = await signIn(key.slice(0, -4) + 'AAAA');
    expect([wrong.res.status, wrong.json.error.code, wrong.cookies]).toEqual([401, 'invalid_api_key', []]);
    expect((await fetch(`${serve.url}/studio/session`)).status).toBe(401);
  });

  it('the cookie works on /api/v1 routes; a cookie POST from another origin (or none) is 403 forbidden; signing out ends the session on the server', async () => {
    const cookie = cookieOf((await signIn(key)).cookies);
    expect((await withCookie(cookie, 'GET', '/templates')).status).toBe(200);
    const cross = await withCookie(cookie, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 30 }, 'http://evil.example');
    expect([cross.status, cross.json.error.code]).toEqual([403, 'forbidden']);
    expect((await withCookie(cookie, 'POST', '/shorts/create', {}, null)).status).toBe(403);

    const out = await fetch(`${serve.url}/studio/session`, { method: 'DELETE', headers: { cookie, origin: serve.url } });
    expect(await out.json()).toEqual({ data: { signedOut: true } });
    expect(out.headers.getSetCookie()[0]).toMatch(/^shorts_session=; .*Max-Age=0/);
    // The same cookie sent again (a copy kept elsewhere) is refused: the session is gone from the server.
    const after = await withCookie(cookie, 'GET', '/templates');
    expect([after.status, after.json.error.code]).toEqual([401, 'invalid_api_key']);
  });

  it('a request made in the studio is readable with the key, absent from the key\'s list, and in the session\'s list with createdIn and title', async () => {
    const cookie = cookieOf((await signIn(key)).cookies);
    const viaKey = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80 });
    expect(viaKey.status).toBe(202);
    const viaStudio = await withCookie(cookie, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80 });
    expect(viaStudio.status).toBe(202);
    const studioId = viaStudio.json.data.requestId as string;
    expect((await api(serve.api, key, 'GET', `/shorts/${studioId}`)).json.data._id).toBe(studioId);

    const keyList = (await api(serve.api, key, 'GET', '/shorts')).json.data.requests as Record<string, unknown>[];
    expect(keyList.map((r) => r.requestId)).toEqual([viaKey.json.data.requestId]);
    expect(Object.keys(keyList[0]!)).toEqual(['requestId', 'status', 'progress', 'createdAt', 'updatedAt', 'url', 'duration']);

    const studioList = (await withCookie(cookie, 'GET', '/shorts')).json.data.requests as Record<string, unknown>[];
    expect(studioList.map((r) => [r.requestId, r.createdIn, r.title])).toEqual([[studioId, 'studio', ''], [viaKey.json.data.requestId, 'api', '']]);
  });

  it('revoking the key the session was opened with ends the session', async () => {
    // As `shorts keys create` and `keys revoke` do, on the server's store (a CLI start costs seconds).
    const store = new SqliteRequestStore(path.join(serve.env.SHORTS_DATA_DIR!, 'shorts.db'));
    const accounts = new AccountStore(new SqliteAccounts(store.db));
    const other = await accounts.createKey((await accounts.createAccount({ email: 'revoked@example.com' })).id);
    const cookie = cookieOf((await signIn(other.key)).cookies);
    expect((await withCookie(cookie, 'GET', '/templates')).status).toBe(200);
    await accounts.revokeKey(other.key);
    await store.close();
    expect((await withCookie(cookie, 'GET', '/templates')).status).toBe(401);
  });
  it('studio page loads do not spend the account\'s hourly API limit (the key still has it all)', async () => {
    const store = new SqliteRequestStore(path.join(serve.env.SHORTS_DATA_DIR!, 'shorts.db'));
    const accounts = new AccountStore(new SqliteAccounts(store.db));
    const tight = await accounts.createKey((await accounts.createAccount({ email: 'tight@example.com', hourlyLimit: 1 })).id);
    await store.close();
    const cookie = cookieOf((await signIn(tight.key)).cookies);
    for (let i = 0; i < 4; i++) expect((await withCookie(cookie, 'GET', '/templates')).status).toBe(200);
    expect((await api(serve.api, tight.key, 'GET', '/templates')).status).toBe(200);
    expect((await api(serve.api, tight.key, 'GET', '/templates')).status).toBe(429);
  });
});

describe('the studio\'s files', () => {
  const assets = path.join(ROOT, 'dist', 'studio', 'studio-assets');
  const js = readdirSync(assets).find((f) => f.endsWith('.js'))!;

  it('answers index.html for / and SPA routes that ask for HTML, with the CSP, never cached; the API keeps its JSON 404', async () => {
    for (const p of ['/', '/requests/x', '/requests/abc/clips/def']) {
      const r = await raw(`${serve.url}${p}`, 'GET', { accept: 'text/html,application/xhtml+xml' });
      expect([p, r.status, r.headers['content-type'], r.headers['cache-control']]).toEqual([p, 200, 'text/html; charset=utf-8', 'no-cache']);
      expect(r.body.toString()).toContain('<div id="app"');
      expect(r.headers['content-security-policy']).toContain("script-src 'self'");
      expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect([r.headers['x-content-type-options'], r.headers['referrer-policy']]).toEqual(['nosniff', 'same-origin']);
    }
    const nope = await raw(`${serve.api}/nope`, 'GET', { accept: 'text/html' });
    expect([nope.status, JSON.parse(nope.body.toString()).error.code]).toEqual([404, 'resource_not_found']);
    expect((await raw(`${serve.url}/requests/x`, 'GET', { accept: 'application/json' })).status).toBe(404);
  });

  it('serves a hashed asset precompressed as the client accepts, cached for a year', async () => {
    const plain = await raw(`${serve.url}/studio-assets/${js}`, 'GET');
    expect([plain.status, plain.headers['content-encoding'], plain.headers['cache-control'], plain.headers.vary])
      .toEqual([200, undefined, 'public, max-age=31536000, immutable', 'Accept-Encoding']);
    const br = await raw(`${serve.url}/studio-assets/${js}`, 'GET', { 'accept-encoding': 'gzip, br' });
    expect([br.headers['content-encoding'], br.headers['content-type']]).toEqual(['br', 'text/javascript; charset=utf-8']);
    expect(br.body.length).toBeLessThan(plain.body.length);
    const gz = await raw(`${serve.url}/studio-assets/${js}`, 'GET', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect((await raw(`${serve.url}/studio-assets/nothing-1234.js`, 'GET')).status).toBe(404);
    expect((await raw(`${serve.url}/studio-assets/..%2Findex.html`, 'GET')).status).toBe(404);
  });
});

describe('shorts studio', () => {
  it('listens on 127.0.0.1 only; its printed link signs in once, as the local account with no credits; the CLI\'s local requests are listed', async () => {
    const env = cliEnv();
    // A request the CLI made here (origin local), written to the data dir's store as the local client writes it.
    const store = new SqliteRequestStore(path.join(env.SHORTS_DATA_DIR!, 'shorts.db'));
    await store.insertRequest({ id: 'c'.repeat(24), accountId: 'local', origin: 'local', userEmail: 'me@localhost', options: {} as never, url: '/tmp/talk.mp4', start: 0, end: 30 });
    await store.close();
    expect((await runCli(['studio', '--no-open', '--host', '0.0.0.0'], env)).code).toBe(2);

    const studio = startCli(['studio', '--no-open', '--port', '0'], env);
    try {
      let link = '';
      for (let i = 0; i < 300 && !link; i++) {
        link = /sign in: (http:\/\/\S+)/.exec(studio.stderrSoFar())?.[1] ?? '';
        if (!link) await new Promise((r) => setTimeout(r, 100));
      }
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/studio\/sign-in\/[A-Za-z0-9_-]{43}$/);
      const base = new URL(link).origin;
      const first = await raw(link, 'GET');
      expect([first.status, first.headers.location]).toEqual([303, '/']);
      const cookie = (first.headers['set-cookie'] as string[])[0]!.split(';')[0]!;
      expect((await raw(link, 'GET')).status).toBe(401);
      const session = JSON.parse((await raw(`${base}/studio/session`, 'GET', { cookie })).body.toString());
      expect(session.data).toMatchObject({ accountId: 'local', credits: null, local: true });
      const list = JSON.parse((await raw(`${base}/api/v1/shorts`, 'GET', { cookie })).body.toString());
      expect(list.data.requests.map((r: any) => [r.requestId, r.createdIn])).toEqual([['c'.repeat(24), 'local']]);
    } finally {
      studio.child.kill('SIGTERM');
      await studio.done;
    }
  });
});
