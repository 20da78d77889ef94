// Connected accounts (issue 16): the secret key, tokens encrypted at rest, refresh before expiry against the
// fake platforms' token endpoints, auth_expired when the platform refuses, and `shorts accounts` end to end
// (the consent caught on a loopback port, add/list/remove locally and against a live `shorts serve`).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { ConnectedAccounts } from '../src/posts/connected-accounts.js';
import { SqliteConnectedAccountsStore } from '../src/adapters/sqlite/connected-accounts-store.js';
import { SqlitePostStore } from '../src/adapters/sqlite/post-store.js';
import { checkSecretKeySetting, loadSecretKey, SECRET_KEY_FILE } from '../src/posts/secret-key.js';
import { PublishError } from '../src/publish/types.js';
import { exchangeCode, OAuthError } from '../src/publish/oauth-endpoints.js';
import { Service } from '../src/service/service.js';
import { ROOT, cliEnv, runCli, startCli } from './helpers/cli.js';
import { serveEnv, startServe, type ServeProcess } from './helpers/serve.js';
import { AccountStore } from '../src/service/accounts.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { fakePlatformEnv, startFakePlatform, type FakePhotoSite, type FakeShortVideoSite, type FakeVideoSite } from './helpers/fake-platforms/index.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

const run = promisify(execFile);
const tmp = (name: string) => mkdtempSync(path.join(os.tmpdir(), `ca-${name}-`));
const LOCAL = { id: 'local', email: 'me@localhost' };

let video: FakeVideoSite;
let tiktok: FakeShortVideoSite;
let photo: FakePhotoSite;
let fakeEnv: Record<string, string>;

beforeAll(async () => {
  [video, tiktok, photo] = await Promise.all([startFakePlatform('video_site'), startFakePlatform('short_video_site'), startFakePlatform('photo_site')]);
  fakeEnv = fakePlatformEnv(video, tiktok, photo);
});
afterAll(async () => {
  await Promise.all([video.close(), tiktok.close(), photo.close()]);
});

/** A store in a fresh data dir and the accounts over it, reading settings from `env` only. */
function open(extra: Record<string, string> = {}, dir = tmp('store')) {
  const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  const env = { ...fakeEnv, ...extra };
  return { dir, store, env, accounts: new ConnectedAccounts(new SqliteConnectedAccountsStore(store.db), { dataDir: dir, env, refreshGraceMs: 200 }) };
}

/** A post row as the scheduler keeps it (P3's post store writes the same columns). */
function insertPost(store: SqliteRequestStore, id: string, connectedAccountId: string, status: string, platform = 'video_site'): void {
  const now = new Date().toISOString();
  store.db.prepare(`INSERT INTO posts (id, account_id, platform, status, scheduled_at, short_id, request_id, title, account_handle, source,
    created_at, connected_account_id, updated_at) VALUES (?, 'local', ?, ?, ?, 'short-1', 'req-1', 'A clip', 'someone', 'manual', ?, ?, ?)`)
    .run(id, platform, status, now, now, connectedAccountId, now);
}

async function postsOf(store: SqliteRequestStore) {
  return Object.fromEntries((await new Service(store, { blobs: new FsBlobStore(store.dataDir), posts: new SqlitePostStore(store.db) }).posts(LOCAL, {})).posts.map((p) => [p.id, p]));
}

describe('the secret key', () => {
  it('is generated once into the data dir with mode 0600; processes starting at once all end with that one key', async () => {
    const dir = tmp('key');
    const script = `import(${JSON.stringify(path.join(ROOT, 'dist', 'posts', 'secret-key.js'))}).then((m) => process.stdout.write(m.loadSecretKey({ dataDir: process.argv[1] }).key.toString('hex')))`;
    const env = { ...process.env, SHORTS_SECRET_KEY: '' };
    const keys = await Promise.all(Array.from({ length: 6 }, () => run(process.execPath, ['-e', script, dir], { env }).then((r) => r.stdout)));
    expect(new Set(keys).size).toBe(1);
    const file = path.join(dir, SECRET_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(keys[0]);
    expect(readdirSync(dir)).toEqual([SECRET_KEY_FILE]); // no temp file left behind
    expect(loadSecretKey({ dataDir: dir, env: {} }).key.toString('hex')).toBe(keys[0]);
  });

  it('takes SHORTS_SECRET_KEY as 64 hex digits or base64, refuses anything else, and never replaces a damaged key file', () => {
    const key = Buffer.alloc(32, 7);
    expect(loadSecretKey({ dataDir: tmp('k'), env: { SHORTS_SECRET_KEY: key.toString('hex') } }).key).toEqual(key);
    expect(loadSecretKey({ dataDir: tmp('k'), env: { SHORTS_SECRET_KEY: key.toString('base64') } }).key).toEqual(key);
    expect(() => loadSecretKey({ dataDir: tmp('k'), env: { SHORTS_SECRET_KEY: 'correct horse battery staple' } })).toThrow(/SHORTS_SECRET_KEY must be 32 bytes/);
    expect(() => loadSecretKey({ dataDir: tmp('k'), env: { SHORTS_SECRET_KEY: Buffer.alloc(16).toString('hex') } })).toThrow(/64 hex digits or as base64/);
    expect(() => checkSecretKeySetting({ SHORTS_SECRET_KEY: 'short' })).toThrow(/SHORTS_SECRET_KEY must be 32 bytes/);
    expect(() => checkSecretKeySetting({})).not.toThrow();
    const dir = tmp('k');
    writeFileSync(path.join(dir, SECRET_KEY_FILE), 'not a key\n');
    expect(() => loadSecretKey({ dataDir: dir, env: {} })).toThrow(/restore it from your backup/);
    expect(readFileSync(path.join(dir, SECRET_KEY_FILE), 'utf8')).toBe('not a key\n');
  });
});

describe('tokens at rest', () => {
  it('are never in the database files; the account lists without them; another key cannot open them', async () => {
    const { dir, store, accounts } = open();
    const t = video.issueTokens();
    const added = await accounts.add('local', { platform: 'video_site', handle: '@fakechannel', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 3600 });
    expect(added).toMatchObject({ platform: 'video_site', handle: 'fakechannel', status: 'active' });
    expect(JSON.stringify(await accounts.list('local'))).not.toContain(t.accessToken);
    expect(await accounts.freshAccessToken(added.id)).toBe(t.accessToken);
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = readdirSync(dir).filter((f) => f.startsWith('shorts.db')).map((f) => readFileSync(path.join(dir, f)).toString('latin1')).join('');
    expect(bytes).toContain('fakechannel');
    expect(bytes).not.toContain(t.accessToken);
    expect(bytes).not.toContain(t.refreshToken!);
    // The same store read with another key: the token does not open, and that is retryable (fix the key), not an expiry.
    const other = new ConnectedAccounts(new SqliteConnectedAccountsStore(store.db), { dataDir: dir, env: { ...fakeEnv, SHORTS_SECRET_KEY: 'ab'.repeat(32) } });
    const e = await other.freshAccessToken(added.id).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PublishError);
    expect(e).toMatchObject({ errorCode: 'unknown', retryable: true, message: expect.stringMatching(/SHORTS_SECRET_KEY/) });
    expect((await accounts.get('local', added.id))!.status).toBe('active');
    // Another API account does not see it.
    expect(await accounts.get('acct_other', added.id)).toBeUndefined();
    expect(await accounts.list('acct_other')).toEqual([]);
    store.close();
  });
});

describe('refresh', () => {
  it('happens when less than five minutes are left, once, and the refreshed token is the one the platform accepts', async () => {
    const { store, accounts } = open();
    const soon = video.issueTokens({ ttlSec: 120 });
    const a = await accounts.add('local', { platform: 'video_site', handle: 'soon', accessToken: soon.accessToken, refreshToken: soon.refreshToken, expiresInSec: 120 });
    const later = video.issueTokens();
    const b = await accounts.add('local', { platform: 'video_site', handle: 'later', accessToken: later.accessToken, refreshToken: later.refreshToken, expiresInSec: 3600 });
    const before = video.count('token');
    const [t1, t2] = await Promise.all([accounts.freshAccessToken(a.id), accounts.freshAccessToken(a.id)]);
    expect(video.count('token') - before).toBe(1); // two callers, one refresh
    expect(t1).toBe(t2);
    expect(t1).not.toBe(soon.accessToken);
    expect(video.tokens.get(t1)!.expiresAt).toBeGreaterThan(Date.now() + 3000_000);
    expect(Date.parse((await accounts.get('local', a.id))!.expiresAt!)).toBeGreaterThan(Date.now() + 3000_000);
    expect(await accounts.freshAccessToken(a.id)).toBe(t1);
    expect(await accounts.freshAccessToken(b.id)).toBe(later.accessToken);
    expect(video.count('token') - before).toBe(1);
    // The scheduler's tick refreshes what is about to end and leaves the rest.
    const soon2 = video.issueTokens({ ttlSec: 60 });
    const c = await accounts.add('local', { platform: 'video_site', handle: 'soon2', accessToken: soon2.accessToken, refreshToken: soon2.refreshToken, expiresInSec: 60 });
    expect(await accounts.refreshExpiring()).toEqual({ refreshed: 1, expired: 0, failed: 0 });
    expect(await accounts.freshAccessToken(c.id)).not.toBe(soon2.accessToken);
    store.close();
  });

  it('keeps short_video_site\'s rotated refresh token, even when two processes refresh at once', async () => {
    const { dir, store, env, accounts } = open();
    const t = tiktok.issueTokens({ ttlSec: 60 });
    const a = await accounts.add('local', { platform: 'short_video_site', handle: 'fake.shorts', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 60 });
    const first = await accounts.freshAccessToken(a.id);
    expect(first).not.toBe(t.accessToken);
    // The old refresh token is dead at the platform now: a second refresh only works with the rotated one we saved.
    const second = await accounts.freshAccessToken(a.id, { force: true });
    expect(second).not.toBe(first);
    // Two processes on one store (two instances): one spends the refresh token, the other's refresh is
    // refused with invalid_grant, and it must take the winner's token instead of expiring the account.
    const otherProcess = new ConnectedAccounts(new SqliteConnectedAccountsStore(store.db), { dataDir: dir, env });
    const [x, y] = await Promise.all([accounts.freshAccessToken(a.id, { force: true }), otherProcess.freshAccessToken(a.id, { force: true })]);
    expect(x).toBe(y);
    expect(tiktok.tokens.get(x)!.revoked).toBe(false);
    expect((await accounts.get('local', a.id))!.status).toBe('active');
    store.close();
  });

  it('refused by the platform: the account is expired and its scheduled and processing posts fail with auth_expired, not retryable', async () => {
    const { store, accounts } = open();
    const t = video.issueTokens({ ttlSec: 60 });
    const a = await accounts.add('local', { platform: 'video_site', handle: 'revoked', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 60 });
    const other = video.issueTokens();
    const b = await accounts.add('local', { platform: 'video_site', handle: 'fine', accessToken: other.accessToken, refreshToken: other.refreshToken, expiresInSec: 3600 });
    insertPost(store, 'p-scheduled', a.id, 'scheduled');
    insertPost(store, 'p-processing', a.id, 'processing');
    insertPost(store, 'p-published', a.id, 'published');
    insertPost(store, 'p-other', b.id, 'scheduled');
    video.revoke(t.refreshToken!);
    const e = await accounts.freshAccessToken(a.id).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PublishError);
    expect(e).toMatchObject({ errorCode: 'auth_expired', retryable: false, message: expect.stringMatching(/invalid_grant.*connect it again/s) });
    expect((await accounts.get('local', a.id))!.status).toBe('expired');
    const posts = await postsOf(store);
    for (const id of ['p-scheduled', 'p-processing']) {
      expect(posts[id]).toMatchObject({ status: 'failed', errorCode: 'auth_expired', retryable: false, error: expect.stringMatching(/@revoked/) });
    }
    expect(posts['p-published']!.status).toBe('published');
    expect(posts['p-other']!.status).toBe('scheduled');
    // An expired account stays refused without asking the platform again, until it is connected again.
    const calls = video.count('token');
    await expect(accounts.publishAccount(a.id)).rejects.toMatchObject({ errorCode: 'auth_expired' });
    expect(video.count('token')).toBe(calls);
    const fresh = video.issueTokens();
    expect(await accounts.add('local', { platform: 'video_site', handle: 'revoked', accessToken: fresh.accessToken, refreshToken: fresh.refreshToken, expiresInSec: 3600 }))
      .toMatchObject({ id: a.id, status: 'active' });
    expect(await accounts.publishAccount(a.id)).toEqual({ handle: 'revoked', platformUserId: null, accessToken: fresh.accessToken });
    store.close();
  });

  it('that cannot reach the platform leaves the account active: the current token while it lasts, then a retryable failure', async () => {
    const { dir: dataDir, store, env, accounts } = open();
    const t = video.issueTokens({ ttlSec: 120 });
    const a = await accounts.add('local', { platform: 'video_site', handle: 'flaky', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 120 });
    insertPost(store, 'p-flaky', a.id, 'scheduled');
    video.fail('token', { status: 503, body: { error: 'backend_error' } }, { times: 3 });
    expect(await accounts.freshAccessToken(a.id)).toBe(t.accessToken); // 2 minutes left: still usable
    const dead = video.issueTokens({ ttlSec: 1 });
    const b = await accounts.add('local', { platform: 'video_site', handle: 'flaky2', accessToken: dead.accessToken, refreshToken: dead.refreshToken, expiresInSec: 1 });
    // Ten seconds later (a clock option rather than a wait): the token has run out.
    const later = new ConnectedAccounts(new SqliteConnectedAccountsStore(store.db), { dataDir, env, now: () => Date.now() + 10_000 });
    await expect(later.freshAccessToken(b.id)).rejects.toMatchObject({ errorCode: 'unknown', retryable: true });
    expect((await accounts.list('local')).map((x) => x.status)).toEqual(['active', 'active']);
    expect((await postsOf(store))['p-flaky']!.status).toBe('scheduled');
    // The scheduler's tick does not ask a failing token endpoint again at every tick.
    const calls = video.count('token');
    expect(await accounts.refreshExpiring()).toEqual({ refreshed: 0, expired: 0, failed: 1 }); // flaky: skipped, it failed a moment ago
    expect(video.count('token')).toBe(calls + 1);
    expect(await accounts.refreshExpiring()).toEqual({ refreshed: 0, expired: 0, failed: 0 }); // both skipped now
    expect(video.count('token')).toBe(calls + 1);
    // Without a refresh token, an access token that ran out is the end of the grant.
    const norefresh = video.issueTokens({ ttlSec: 1, refresh: false });
    const c = await accounts.add('local', { platform: 'video_site', handle: 'bare', accessToken: norefresh.accessToken, expiresInSec: 1 });
    await expect(later.freshAccessToken(c.id)).rejects.toMatchObject({ errorCode: 'auth_expired' });
    expect((await accounts.get('local', c.id))!.status).toBe('expired');
    store.close();
  });

  it('renews photo_site\'s long-lived token by exchanging itself (it has no refresh token)', async () => {
    const { store, accounts } = open();
    const t = photo.issueTokens({ ttlSec: 200, refresh: false });
    const a = await accounts.add('local', { platform: 'photo_site', handle: 'fake.reels', accessToken: t.accessToken, expiresInSec: 200 });
    const renewed = await accounts.freshAccessToken(a.id);
    expect(renewed).not.toBe(t.accessToken);
    expect(photo.tokens.get(renewed)!.expiresAt).toBeGreaterThan(Date.now() + 3000_000);
    store.close();
  });
});

function runCliWithInput(args: string[], env: NodeJS.ProcessEnv, input: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [path.join(ROOT, 'bin', 'shorts'), ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }));
    child.stdin!.end(input);
  });
}

/** Starts `shorts accounts connect`, plays the browser on the consent URL it prints, returns its result. */
async function connectThroughBrowser(args: string[], env: NodeJS.ProcessEnv, consentHost: string) {
  const cli = startCli(['accounts', 'connect', ...args], env);
  let url = '';
  for (let i = 0; i < 200 && !url; i++) {
    await new Promise((r) => setTimeout(r, 50));
    url = cli.stderrSoFar().split('\n').find((l) => l.startsWith(consentHost)) ?? '';
  }
  expect(url, cli.stderrSoFar()).not.toBe('');
  const page = await fetch(url); // the fake consent page redirects to the catcher as if the user agreed
  return { page: { status: page.status, text: await page.text() }, result: await cli.done, url };
}

/** The confirmation form of serve's callback page: where it posts and its sealed consent (HTML-unescaped). */
function confirmationForm(html: string): { action: string; consent: string } {
  const unescape = (v: string) => v.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  const consent = /<input type="hidden" name="consent" value="([^"]*)">/.exec(html)?.[1];
  expect(action && consent, html).toBeTruthy();
  return { action: unescape(action!), consent: unescape(consent!) };
}

/**
 * Posts the confirmation form as the page's browser would, with `apiKey` when given: same-origin, and (the page
 * being `Referrer-Policy: no-referrer`) `Origin: null`, as the Fetch standard has browsers send then.
 */
async function confirm(form: { action: string; consent: string }, apiKey: string | null, headers: Record<string, string> = {}) {
  const body = new URLSearchParams({ consent: form.consent, ...(apiKey === null ? {} : { apiKey }) });
  // A header given as '' is left out (a browser that does not send it).
  const sent = Object.entries({ 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'sec-fetch-site': 'same-origin', ...headers }).filter(([, v]) => v !== '');
  const res = await fetch(form.action, { method: 'POST', headers: Object.fromEntries(sent), body });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('shorts accounts, locally', () => {
  it('connect: the consent page, the loopback catcher, the code exchange; a forged redirect does not end it', async () => {
    const env = cliEnv({ ...fakeEnv, SHORTS_SECRET_KEY: '' });
    const cli = startCli(['accounts', 'connect', 'video_site', '--json'], env);
    let url = '';
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 50));
      url = cli.stderrSoFar().split('\n').find((l) => l.startsWith(video.url)) ?? '';
    }
    expect(url, cli.stderrSoFar()).not.toBe('');
    const redirect = new URL(new URL(url).searchParams.get('redirect_uri')!);
    expect(redirect.hostname).toBe('127.0.0.1');
    // PKCE (RFC 7636 S256): the consent carries the challenge; the fake's token endpoint checks the verifier against it.
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
    expect(new URL(url).searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const forged = await fetch(`${redirect.origin}/callback?code=stolen&state=guess`);
    expect(forged.status).toBe(400);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('@fakechannel is connected');
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(0);
    const account = JSON.parse(r.stdout);
    expect(account).toMatchObject({ platform: 'video_site', handle: 'fakechannel', platformUserId: 'UCfakeChannel0000000000', status: 'active' });
    // Saved in the data dir's store, its tokens under the key generated beside it.
    expect(statSync(path.join(env.SHORTS_DATA_DIR!, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    const saved = open({ SHORTS_SECRET_KEY: '' }, env.SHORTS_DATA_DIR!);
    expect((await saved.accounts.list('local')).map((a) => a.id)).toEqual([account.id]);
    expect(video.tokens.get(await saved.accounts.freshAccessToken(account.id))!.revoked).toBe(false);
    saved.store.close();
  });

  it('connect short_video_site on the loopback: PKCE with the hex challenge its desktop flow wants, checked by its token endpoint', async () => {
    const env = cliEnv({ ...fakeEnv });
    const { page, result, url } = await connectThroughBrowser(['short_video_site', '--json'], env, tiktok.url);
    expect(new URL(url).searchParams.get('code_challenge')).toMatch(/^[0-9a-f]{64}$/);
    expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
    expect(page.status, page.text).toBe(200);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ platform: 'short_video_site', handle: 'fake.shorts', platformUserId: tiktok.openId });
  });

  it('a fake token endpoint refuses a code without the verifier of its challenge, or with another one', async () => {
    const app = { clientId: video.clientId, clientSecret: video.clientSecret };
    const redirectUri = 'http://127.0.0.1:9/callback';
    const verifier = 'v'.repeat(43);
    const { createHash } = await import('node:crypto');
    const codeFor = async () => {
      const consent = `${video.url}/o/oauth2/v2/auth?${new URLSearchParams({ client_id: app.clientId, redirect_uri: redirectUri, response_type: 'code', state: 's',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' })}`;
      return new URL((await fetch(consent, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
    };
    const opts = { baseUrl: video.url };
    for (const codeVerifier of [null, 'w'.repeat(43)]) {
      const e = await exchangeCode('video_site', app, { code: await codeFor(), redirectUri, codeVerifier }, opts).catch((x: unknown) => x);
      expect(e, String(codeVerifier)).toBeInstanceOf(OAuthError);
      expect((e as OAuthError).code).toBe('invalid_grant');
    }
    expect((await exchangeCode('video_site', app, { code: await codeFor(), redirectUri, codeVerifier: verifier }, opts)).accessToken).toMatch(/^at-/);
  });

  it('connect refused on the consent page, or without the OAuth app: a clear error', async () => {
    const env = cliEnv({ ...fakeEnv });
    tiktok.consentDenied = true;
    try {
      const { page, result } = await connectThroughBrowser(['short_video_site'], env, tiktok.url);
      expect(page.status).toBe(400);
      expect(page.text).toContain('access_denied');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('access_denied');
    } finally {
      tiktok.consentDenied = false;
    }
    const bare = cliEnv({ SHORTS_OAUTH_PHOTO_SITE_CLIENT_ID: '', SHORTS_OAUTH_PHOTO_SITE_CLIENT_SECRET: '' });
    const r = await runCli(['accounts', 'connect', 'photo_site'], bare);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SHORTS_OAUTH_PHOTO_SITE_CLIENT_ID');
  });

  it('add (tokens as arguments or on standard input), list, remove', async () => {
    const env = cliEnv({ ...fakeEnv });
    const t = tiktok.issueTokens();
    const add = await runCli(['accounts', 'add', 'short_video_site', '--handle', '@fake.shorts', '--access-token', t.accessToken,
      '--refresh-token', t.refreshToken!, '--expires-in', '7200', '--json'], env);
    expect(add.code, add.stderr).toBe(0);
    const account = JSON.parse(add.stdout);
    expect(account).toMatchObject({ platform: 'short_video_site', handle: 'fake.shorts', status: 'active' });
    expect(add.stdout).not.toContain(t.accessToken);
    // Tokens from standard input stay out of the process list.
    const t2 = tiktok.issueTokens();
    const piped = await runCliWithInput(['accounts', 'add', 'short_video_site', '--handle', 'second', '--access-token', '-', '--refresh-token', '-'], env, `${t2.accessToken}\n${t2.refreshToken}\n`);
    expect(piped.code, piped.stderr).toBe(0);
    const secondId = piped.stdout.trim();
    const local = open({ SHORTS_SECRET_KEY: '' }, env.SHORTS_DATA_DIR!);
    expect(await local.accounts.freshAccessToken(secondId, { force: true })).not.toBe(t2.accessToken); // the refresh token read from stdin works
    local.store.close();
    const table = await runCli(['accounts'], env);
    expect(table.stdout).toContain('@fake.shorts');
    expect(table.stdout).toContain('@second');
    expect(table.stdout).not.toContain(t.accessToken);
    const rm = await runCli(['accounts', 'remove', account.id], env);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(`account ${account.id} removed`);
    const after = open({ SHORTS_SECRET_KEY: '' }, env.SHORTS_DATA_DIR!);
    expect((await after.accounts.list('local')).map((a) => a.id)).toEqual([secondId]);
    after.store.close();
  });
});

describe('shorts accounts against a live serve', () => {
  let serve: ServeProcess;
  let key: string;
  let otherKey: string;
  beforeAll(async () => {
    serve = await startServe(serveEnv({ ...fakeEnv }));
    // Keys issued the way `shorts keys create` does, on the server's store, without two more processes.
    const store = new SqliteRequestStore(path.join(serve.env.SHORTS_DATA_DIR!, 'shorts.db'));
    const issuer = new AccountStore(new SqliteAccounts(store.db));
    [key, otherKey] = await Promise.all(['one', 'two'].map(async (n) => (await issuer.createKey((await issuer.createAccount({ email: `${n}@example.com`, credits: 1 })).id)).key));
    store.close();
  });
  afterAll(async () => {
    await serve?.kill();
  });
  const remote = (k: string) => ({ ...cliEnv({ ...fakeEnv }), SHORTS_REMOTE: serve.api, SHORTS_API_KEY: k });
  const api = async (k: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${serve.api}${p}`, { method, headers: { 'x-api-key': k, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  };

  it('add, list and remove are the API key\'s account\'s own', async () => {
    const t = video.issueTokens();
    const add = await runCli(['accounts', 'add', 'video_site', '--handle', 'fakechannel', '--access-token', t.accessToken, '--refresh-token', t.refreshToken!, '--json'], remote(key));
    expect(add.code, add.stderr).toBe(0);
    const account = JSON.parse(add.stdout);
    const list = await runCli(['accounts', 'list'], remote(key));
    expect(list.stdout).toContain('@fakechannel');
    expect(list.stdout).not.toContain(t.accessToken);
    // Another API key's account sees nothing and cannot remove it.
    expect((await api(otherKey, 'GET', '/accounts')).json.data.accounts).toEqual([]);
    expect((await api(otherKey, 'DELETE', `/accounts/${account.id}`)).json.error.code).toBe('resource_not_found');
    const bad = await api(key, 'POST', '/accounts', { platform: 'video_site', handle: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_request', details: { parameter: 'accessToken' } });
    const rm = await runCli(['accounts', 'remove', account.id], remote(key));
    expect(rm.code, rm.stderr).toBe(0);
    expect((await api(key, 'GET', '/accounts')).json.data.accounts).toEqual([]);
  });

  it('add asks the platform whose the tokens are first: an account that cannot post, a refused token, a wrong id or a channel held elsewhere saves nothing', async () => {
    const accountsOf = async (k: string) => (await api(k, 'GET', '/accounts')).json.data.accounts as { platformUserId: string | null }[];
    const refused = async (k: string, body: Record<string, unknown>, status: number, code: string, text: RegExp) => {
      const r = await api(k, 'POST', '/accounts', body);
      expect(r.status, r.text).toBe(status);
      expect(r.json.error.code).toBe(code);
      expect(r.json.error.message).toMatch(text);
    };
    // photo_site without a professional account: refused now, not at the first post (was: saved, every post failing account_not_eligible).
    const ig = photo.igUser;
    photo.igUser = null;
    try {
      await refused(key, { platform: 'photo_site', handle: 'me', accessToken: photo.issueTokens().accessToken }, 400, 'invalid_request', /no professional .* account linked to a Page.*nothing was saved/);
    } finally {
      photo.igUser = ig;
    }
    await refused(key, { platform: 'video_site', handle: 'x', accessToken: 'at-never-issued' }, 400, 'invalid_request', /video_site refused the access token/);
    await refused(key, { platform: 'video_site', handle: 'x', accessToken: video.issueTokens().accessToken, platformUserId: 'UCsomeoneElse' }, 400, 'invalid_request', /belong to the video_site account UCfakeChannel0000000000/);
    expect(await accountsOf(key)).toEqual([]);
    // With the id the platform gave, once; another API account is refused the same channel.
    const mine = await api(key, 'POST', '/accounts', { platform: 'photo_site', handle: 'reels', accessToken: photo.issueTokens().accessToken });
    expect(mine.status, mine.text).toBe(201);
    expect(mine.json.data.platformUserId).toBe(photo.igUser!.id);
    await refused(otherKey, { platform: 'photo_site', handle: 'mine-now', accessToken: photo.issueTokens().accessToken }, 409, 'account_already_connected', /already connected to another shortwright API account/);
    expect(await accountsOf(otherKey)).toEqual([]);
    await api(key, 'DELETE', `/accounts/${mine.json.data.id}`);
    // A platform that cannot be reached: nothing saved, a clear retryable error (locally, pointed at a closed port).
    const local = open({ SHORTS_PLATFORM_URL_VIDEO_SITE: 'http://127.0.0.1:9' });
    await expect(local.accounts.addChecked('local', { platform: 'video_site', handle: 'x', accessToken: 'at-1' }))
      .rejects.toMatchObject({ code: 'platform_unreachable', message: expect.stringMatching(/could not ask video_site whose these tokens are.*nothing was saved/) });
    expect(await local.accounts.list('local')).toEqual([]);
    local.store.close();
  });

  it('connect: the server runs the consent and catches the redirect at /oauth/callback', async () => {
    const cli = startCli(['accounts', 'connect', 'short_video_site', '--json'], { ...remote(key), SHORTS_POLL_INTERVAL_MS: '100' });
    let url = '';
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 50));
      url = cli.stderrSoFar().split('\n').find((l) => l.startsWith(tiktok.url)) ?? '';
    }
    expect(url, cli.stderrSoFar()).not.toBe('');
    expect(cli.stderrSoFar()).toContain('asks for your API key');
    // Issue 23: the callback's page names the API account and asks for its key; the account is saved once it is posted.
    const callback = await fetch(url);
    const html = await callback.text();
    expect(callback.status, html).toBe(200);
    expect(html).toContain('one@example.com');
    expect(html).toContain('@fake.shorts');
    const page = await confirm(confirmationForm(html), key);
    expect(page.status).toBe(200);
    expect(page.text).toContain('@fake.shorts is connected');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    const account = JSON.parse(result.stdout);
    expect(account).toMatchObject({ platform: 'short_video_site', handle: 'fake.shorts', platformUserId: tiktok.openId, status: 'active' });
    expect((await api(key, 'GET', `/accounts/${account.id}`)).json.data).toEqual(account);
    expect((await api(otherKey, 'GET', '/accounts')).json.data.accounts).toEqual([]);
    // A state altered on its way through the browser is refused.
    const forged = await fetch(`${serve.url}/oauth/callback?code=x&state=${encodeURIComponent('e30.AAAA')}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('invalid state');
  });

  /** POST /accounts/connect as `k`, then the consent page (the fake agrees): the redirect back to serve, not followed. */
  async function consentRedirect(k: string, platform: string): Promise<URL> {
    const started = await api(k, 'POST', '/accounts/connect', { platform });
    expect(started.status, JSON.stringify(started.json)).toBe(200);
    return new URL((await fetch(started.json.data.authorizationUrl, { redirect: 'manual' })).headers.get('location')!);
  }

  it('a forwarded consent link saves nothing until the starting API account\'s key confirms it', async () => {
    video.channel = { id: 'UCforwarded000000000000', title: 'Someone Else', customUrl: '@someoneelse' };
    try {
      const back = await consentRedirect(key, 'video_site');
      const callback = await fetch(back);
      const html = await callback.text();
      expect(callback.status).toBe(200);
      expect(callback.headers.get('cache-control')).toBe('no-store');
      expect(callback.headers.get('referrer-policy')).toBe('no-referrer');
      expect(html).toContain('one@example.com');
      expect(html).toContain('@someoneelse');
      expect(html).toContain('UCforwarded000000000000');
      expect(html).not.toContain([...video.tokens.keys()].at(-1)!); // the tokens travel sealed, never readable in the page
      // The callback alone saved nothing.
      expect((await api(key, 'GET', '/accounts?platform=video_site')).json.data.accounts).toEqual([]);
      const form = confirmationForm(html);
      // Whoever got the link has no key, or only their own: nothing is saved, for anyone.
      const none = await confirm(form, null);
      expect(none.status).toBe(401);
      expect(none.text).toContain('nothing was saved');
      const wrong = await confirm(form, 'sk_live_' + '0'.repeat(43));
      expect(wrong.status).toBe(401);
      const theirs = await confirm(form, otherKey);
      expect(theirs.status).toBe(403);
      expect(theirs.text).toContain('not the API key of one@example.com');
      // A page elsewhere posting the form (cross-site) is refused; an altered seal does not open.
      expect((await confirm(form, key, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await confirm(form, key, { origin: 'null', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await confirm(form, key, { origin: 'https://evil.example', 'sec-fetch-site': '' })).status).toBe(403);
      expect((await confirm({ ...form, consent: form.consent.slice(0, -4) + 'AAAA' }, key)).status).toBe(400);
      expect((await api(key, 'GET', '/accounts?platform=video_site')).json.data.accounts).toEqual([]);
      expect((await api(otherKey, 'GET', '/accounts')).json.data.accounts).toEqual([]);
      // The holder of the starting account's key confirms: saved under that account.
      const ok = await confirm(form, key);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.text).toContain('@someoneelse is connected');
      const saved = (await api(key, 'GET', '/accounts?platform=video_site')).json.data.accounts;
      expect(saved).toMatchObject([{ platform: 'video_site', handle: 'someoneelse', platformUserId: 'UCforwarded000000000000', status: 'active' }]);
      expect((await api(otherKey, 'GET', '/accounts')).json.data.accounts).toEqual([]);

      // A channel another API account holds is refused, at the callback, with nothing saved.
      const again = await fetch(await consentRedirect(otherKey, 'video_site'));
      const refused = await again.text();
      expect(again.status).toBe(409);
      expect(refused).toContain('already connected to another shortwright API account');
      expect((await api(otherKey, 'GET', '/accounts')).json.data.accounts).toEqual([]);
      // Its own holder may connect it again (a reconnect refreshes the tokens).
      const reconnect = await fetch(await consentRedirect(key, 'video_site'));
      expect((await confirm(confirmationForm(await reconnect.text()), key)).status).toBe(200);
      expect((await api(key, 'GET', '/accounts?platform=video_site')).json.data.accounts).toHaveLength(1);
      await api(key, 'DELETE', `/accounts/${saved[0].id}`);
    } finally {
      video.channel = { id: 'UCfakeChannel0000000000', title: 'Fake Channel', customUrl: '@fakechannel' };
    }
  });

  it('PKCE on serve: a code taken from one consent and brought to another\'s callback is refused by the platform', async () => {
    const mine = await consentRedirect(key, 'video_site');
    expect(video.challenges.at(-1)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const theirs = await consentRedirect(otherKey, 'video_site');
    // The other consent's state with this code: serve derives that state's verifier, which does not match the code's challenge.
    const injected = new URL(theirs);
    injected.searchParams.set('code', mine.searchParams.get('code')!);
    const page = await fetch(injected);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_grant');
    expect((await api(otherKey, 'GET', '/accounts')).json.data.accounts).toEqual([]);
  });
});
