// HTTP tests against a real `shorts serve` on loopback: every endpoint, the error codes of spec 7.2 with
// what triggers them, limits and headers, credits, the full create -> poll -> detail -> download ->
// webhook round trip on a real video, cancellation and signed-link expiry.
import { createHmac } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, runCli } from './helpers/cli.js';
import { issueKey } from './helpers/issue-key.js';
import { keepTranscripts, shareTranscripts } from './helpers/transcript-pool.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

let serve: ServeProcess;
let key: string;
let cdn: Loopback;
let hooks: Loopback;

beforeAll(async () => {
  const env = serveEnv({ SHORTS_MEDIA_TTL: '3600' });
  // The round trip checks the API, not recognition: the sample's 0-80 s transcript, once a test file on this
  // machine has made it with real whisper.cpp, is shared through the pool (transcript-pool.ts).
  shareTranscripts(env.SHORTS_DATA_DIR!);
  // Tests poll several times a second: the top tier's limits keep the account layer out of the way.
  ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
  serve = await startServe(env);
  cdn = await loopback(fileHandler(SAMPLE));
  hooks = await loopback((_req, res) => { res.writeHead(204).end(); });
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await cdn?.close();
  await hooks?.close();
});

const body = (extra: Record<string, unknown> = {}) => ({ fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80, maxShorts: 1, ...extra });

describe('health, readiness and the OpenAPI document', () => {
  it('answers /healthz, /readyz and /api/v1/openapi.json without a key', async () => {
    expect((await api(serve.url, null, 'GET', '/healthz')).json).toEqual({ status: 'ok' });
    const ready = await api(serve.url, null, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.json.checks).sort()).toEqual(['disk', 'ffmpeg', 'model', 'store', 'whisper']);
    const doc = await api(serve.api, null, 'GET', '/openapi.json');
    expect(doc.json.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.json.paths)).toEqual(expect.arrayContaining(['/shorts', '/shorts/create', '/shorts/{id}/status', '/shorts/{id}']));
  });
});

describe('authentication (spec 5)', () => {
  it('401 missing_api_key without the header, invalid_api_key for a bad one', async () => {
    const missing = await api(serve.api, null, 'GET', '/shorts');
    expect([missing.status, missing.json.error.code]).toEqual([401, 'missing_api_key']);
    const bad = await api(serve.api, 'sk_live_nope', 'GET', '/shorts');
    expect([bad.status, bad.json.error.code]).toEqual([401, 'invalid_api_key']);
  });

  it('403 subscription_required on create and posts without a subscription', async () => {
    const { key: noSub } = await issueKey(serve.env, { subscription: false });
    expect((await api(serve.api, noSub, 'POST', '/shorts/create', body())).json.error.code).toBe('subscription_required');
    expect((await api(serve.api, noSub, 'GET', '/posts')).json.error.code).toBe('subscription_required');
    expect((await api(serve.api, noSub, 'GET', '/templates')).status).toBe(200);
  });
});

describe('creation rules (spec 4.2, 7.2)', () => {
  it.each([
    [{ start: 0, end: 30 }, 400, 'invalid_request'],
    [{ maxShorts: 13 }, 400, 'invalid_request'],
    [{ url: 'https://video.example.com/watch?v=1' }, 400, 'invalid_request'],
    [{ fileUrl: 'ftp://127.0.0.1/a.mp4' }, 400, 'invalid_file_url'],
    [{ fileUrl: undefined, url: 'https://video.example.com/shorts/abc' }, 400, 'invalid_video_site_url'],
    [{ webhookUrl: 'http://10.0.0.1/hook' }, 400, 'invalid_webhook_url'],
    [{ webhookUrl: 'http://169.254.169.254/latest' }, 400, 'invalid_webhook_url'],
    [{ webhookUrl: `https://hooks.example.com/${'a'.repeat(2048)}` }, 400, 'invalid_webhook_url'],
    [{ webhookUrl: 'ftp://hooks.example.com/x' }, 400, 'invalid_webhook_url'],
    [{ templateId: 'ffffffffffffffffffffffff' }, 400, 'invalid_request'],
    [{ ctaEnabled: true }, 400, 'invalid_request'],
  ])('%j -> %i %s', async (extra, status, code) => {
    const r = await api(serve.api, key, 'POST', '/shorts/create', body(extra));
    expect([r.status, r.json.error.code], r.text).toEqual([status, code]);
  });

  it('rejects a file URL that serves HTML with invalid_file_url', async () => {
    const html = await loopback((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'); });
    const r = await api(serve.api, key, 'POST', '/shorts/create', body({ fileUrl: `${html.url}/share/abc` }));
    expect([r.status, r.json.error.code]).toEqual([400, 'invalid_file_url']);
    expect(r.json.error.message).toMatch(/text\/html/);
    await html.close();
  });

  it('rejects a file above 10 GB with file_too_large, from its Content-Length', async () => {
    const huge = await loopback((_req, res) => { res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(11e9) }).end(); });
    const r = await api(serve.api, key, 'POST', '/shorts/create', body({ fileUrl: `${huge.url}/huge.mp4` }));
    expect([r.status, r.json.error.code]).toEqual([400, 'file_too_large']);
    await huge.close();
  });

  it('rejects malformed JSON with invalid_request', async () => {
    const res = await fetch(`${serve.api}/shorts/create`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"start": 0,' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });
});

describe('rate-limit headers (spec 8.3)', () => {
  it('are on every authenticated response, success or failure', async () => {
    for (const r of [await api(serve.api, key, 'GET', '/shorts'), await api(serve.api, key, 'GET', '/shorts?limit=101')]) {
      for (const h of ['x-ratelimit-limit-hour', 'x-ratelimit-remaining-hour', 'x-ratelimit-limit-day', 'x-ratelimit-remaining-day', 'x-ratelimit-reset'])
        expect(r.headers.get(h), h).toBeTruthy();
      expect(r.headers.get('x-ratelimit-limit-hour')).toBe('2000'); // the tier set with keys create --hourly-limit
      expect(Number.isNaN(Date.parse(r.headers.get('x-ratelimit-reset')!))).toBe(false);
    }
  });
});

describe('lists and catalogs', () => {
  it('validates pagination and filters with invalid_request naming the parameter', async () => {
    for (const q of ['page=0', 'limit=101', 'status=done', 'sortBy=name', 'sortOrder=up']) {
      const r = await api(serve.api, key, 'GET', `/shorts?${q}`);
      expect([r.status, r.json.error.code], q).toEqual([400, 'invalid_request']);
      expect(r.json.error.message).toContain(q.split('=')[0]);
    }
    for (const q of ['platform=fax', 'status=live', 'since=yesterday', 'date=created', 'limit=0', 'source=bot', 'requestId=xyz']) {
      const r = await api(serve.api, key, 'GET', `/posts?${q}`);
      expect([r.status, r.json.error.code], q).toEqual([400, 'invalid_request']);
      expect(r.json.error.message).toContain(q.split('=')[0]);
    }
  });

  it('answers the catalog and template envelopes', async () => {
    const t = await api(serve.api, key, 'GET', '/templates');
    expect(t.json.data.defaultTemplateName).toBe('Karaoke');
    expect(t.json.data.templates[0]).toEqual(expect.objectContaining({ templateId: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'karaoke' }));
    const music = await api(serve.api, key, 'GET', '/music?page=2&limit=10');
    expect(music.json.data.pagination).toMatchObject({ page: 2, limit: 10 });
    expect(music.json.data.pagination.totalCount).toBeGreaterThanOrEqual(10);
    const memes = await api(serve.api, key, 'GET', '/meme-hooks?limit=3');
    expect(memes.json.data.pagination).toMatchObject({ page: 1, limit: 3 });
    expect(memes.json.data.pagination.totalCount).toBeGreaterThanOrEqual(6);
    const meme = memes.json.data.memeHooks[0];
    expect(meme).toMatchObject({ name: expect.any(String), preview: `${serve.url}/assets/catalog/meme-hooks/${encodeURIComponent(meme.name)}/preview` });
    const memePng = await fetch(meme.preview);
    expect([memePng.status, memePng.headers.get('content-type')]).toEqual([200, 'image/png']);
    const games = await api(serve.api, key, 'GET', '/game-videos?limit=2');
    expect(games.json.data.pagination).toMatchObject({ page: 1, limit: 2 });
    expect(games.json.data.pagination.totalCount).toBeGreaterThanOrEqual(6);
    const game = games.json.data.gameVideos[0];
    expect(game).toMatchObject({ name: expect.any(String), preview: `${serve.url}/assets/catalog/game-videos/${encodeURIComponent(game.name)}/preview` });
    // The preview is a public PNG (no key needed, like the template images); other names are 404.
    const png = await fetch(game.preview);
    expect([png.status, png.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(Buffer.from(await png.arrayBuffer()).subarray(1, 4).toString()).toBe('PNG');
    for (const p of ['/assets/catalog/game-videos/No%20Such%20Game/preview', `/assets/catalog/game-videos/${encodeURIComponent(game.name.toUpperCase())}/preview`,
      '/assets/catalog/game-videos/..%2Fmusic/preview', '/assets/catalog/fonts/x/preview', '/assets/catalog/game-videos/manifest.json'])
      expect((await fetch(`${serve.url}${p}`)).status, p).toBe(404);
    const posts = await api(serve.api, key, 'GET', '/posts');
    expect(posts.json).toEqual({ data: { posts: [], pagination: { page: 1, limit: 50, totalPages: 0, totalCount: 0 } } });
  });

  it('404 resource_not_found and 400 for bad ids', async () => {
    expect((await api(serve.api, key, 'GET', `/shorts/${'a'.repeat(24)}/status`)).json.error.code).toBe('resource_not_found');
    expect((await api(serve.api, key, 'GET', '/shorts/xyz')).json.error.code).toBe('invalid_request');
    expect((await api(serve.api, key, 'GET', '/nothing-here')).status).toBe(404);
  });
});

describe('a full round trip on a real video', () => {
  it('create -> queued/processing -> completed -> detail -> ranged download -> signed webhook; credit spent once', async () => {
    // A fitted picture on a solid background: no face sampling; the clip's look is not what is checked here.
    const created = await api(serve.api, key, 'POST', '/shorts/create', body({ webhookUrl: `${hooks.url}/hook`, end: 300, layout: 'fit', blurBackground: false }));
    expect(created.status, created.text).toBe(202);
    expect(created.json.data).toMatchObject({ status: 'processing', creditsUsed: 1, requestId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(created.json.data.timeAdjustment).toBeUndefined(); // a file URL's length is only known after download
    expect(Date.parse(created.json.data.estimatedCompletionTime)).toBeGreaterThan(Date.now());
    const id = created.json.data.requestId as string;

    const seen = new Set<string>();
    let progress = 0;
    const final = await until(() => api(serve.api, key, 'GET', `/shorts/${id}/status`), (r) => {
      seen.add(r.json.data.step);
      expect(r.json.data.progress).toBeGreaterThanOrEqual(progress); // never backwards
      progress = r.json.data.progress;
      return ['completed', 'failed', 'cancelled'].includes(r.json.data.status);
    }, 240_000, 250);
    expect(final.json.data, final.text).toMatchObject({ _id: id, status: 'completed', step: 'completed', stepMessage: 'Task complete!', progress: 100, isDemo: false });
    expect(final.json.data.failureReason).toBeUndefined();
    keepTranscripts(serve.env.SHORTS_DATA_DIR!);
    expect([...seen].some((s) => ['fetching_video', 'transcribing_audio', 'finding_highlights', 'finalizing'].includes(s))).toBe(true);

    const detail = await api(serve.api, key, 'GET', `/shorts/${id}`);
    expect(detail.json.data).toMatchObject({ _id: id, start: 0, end: 80, url: `${cdn.url}/talk.mp4`, template: 'karaoke', projectId: null });
    expect(detail.json.data.shorts).toHaveLength(1);
    const short = detail.json.data.shorts[0];
    expect(short.video_url).toMatch(new RegExp(`^${serve.url}/media/${id}/${short.id}\\.mp4\\?expires=\\d+&sig=`));

    const ranged = await fetch(short.video_url, { headers: { range: 'bytes=0-99' } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(100);
    const full = await fetch(short.video_url);
    const bytes = Buffer.from(await full.arrayBuffer());
    expect(bytes.subarray(4, 8).toString()).toBe('ftyp');
    const tampered = await fetch(short.video_url.replace(/sig=(.)/, (_m: string, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`));
    expect(tampered.status).toBe(403);

    const list = await api(serve.api, key, 'GET', '/shorts?status=completed');
    expect(list.json.data.requests.map((r: { requestId: string }) => r.requestId)).toContain(id);


    const hook = await until(async () => hooks.requests.filter((r) => r.body.includes(id)), (h) => h.length > 0, 20_000);
    const payload = JSON.parse(hook[0]!.body);
    expect(payload).toMatchObject({ event: 'shorts.completed', requestId: id, status: 'completed' });
    expect(payload.data.shorts[0]).toMatchObject({ id: short.id, title: short.title, duration: short.duration });
    expect(payload.data.shorts[0].viral_score).toBeCloseTo(short.viral_score / 10, 5);
    const h = hook[0]!.headers;
    expect(h['webhook-id']).toBeTruthy();
    expect(String(h['webhook-signature'])).toMatch(/^v1,/);
    // Standard Webhooks: HMAC-SHA256 over "id.timestamp.body" with the account's whsec_ secret.
    const db = new Database(path.join(serve.env.SHORTS_DATA_DIR!, 'shorts.db'), { readonly: true });
    const { webhook_secret: secret } = db.prepare('SELECT webhook_secret FROM accounts a JOIN api_keys k ON k.account_id = a.id ORDER BY a.rowid LIMIT 1').get() as { webhook_secret: string };
    db.close();
    const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
      .update(`${String(h['webhook-id'])}.${String(h['webhook-timestamp'])}.${hook[0]!.body}`).digest('base64');
    expect(String(h['webhook-signature']).split(' ')).toContain(`v1,${expected}`);
  }, 300_000);
});

describe('cancellation', () => {
  it('DELETE cancels promptly, then 409 request_not_cancellable', async () => {
    const created = await api(serve.api, key, 'POST', '/shorts/create', body());
    const id = created.json.data.requestId as string;
    await until(() => api(serve.api, key, 'GET', `/shorts/${id}/status`), (r) => r.json.data.status === 'processing', 60_000, 100);
    const del = await api(serve.api, key, 'DELETE', `/shorts/${id}`);
    expect([del.status, del.json]).toEqual([200, { data: { _id: id, status: 'cancelled' } }]);
    const again = await api(serve.api, key, 'DELETE', `/shorts/${id}`);
    expect([again.status, again.json.error.code]).toEqual([409, 'request_not_cancellable']);
    const status = await api(serve.api, key, 'GET', `/shorts/${id}/status`);
    expect(status.json.data).toMatchObject({ status: 'cancelled', step: 'cancelled', stepMessage: 'Request cancelled' });
    const detail = await api(serve.api, key, 'GET', `/shorts/${id}`);
    expect(detail.json.data.shorts).toEqual([]);
  }, 120_000);
});

describe('credits', () => {
  it('403 insufficient_credits with none left; a failed request refunds its credit', async () => {
    const { key: poor } = await issueKey(serve.env);
    // HEAD says video, GET fails: accepted at creation, fails while fetching.
    const flaky = await loopback((req, res) => {
      if (req.method === 'HEAD') return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '1000' }).end();
      res.writeHead(404).end();
    });
    const created = await api(serve.api, poor, 'POST', '/shorts/create', body({ fileUrl: `${flaky.url}/gone.mp4` }));
    expect(created.status).toBe(202);
    const id = created.json.data.requestId as string;
    const final = await until(() => api(serve.api, poor, 'GET', `/shorts/${id}/status`), (r) => r.json.data.status === 'failed', 60_000, 200);
    expect(final.json.data.failureReason).toMatch(/404/);
    await flaky.close();
    // 5 credits granted, 1 spent and refunded: 5 creations are still accepted, the 6th is refused.
    const accepted = [];
    for (let i = 0; i < 6; i++) accepted.push((await api(serve.api, poor, 'POST', '/shorts/create', body())).json);
    expect(accepted.slice(0, 5).every((r) => r.data.status === 'processing')).toBe(true);
    expect(accepted[5].error.code).toBe('insufficient_credits');
    for (const r of accepted.slice(0, 5)) await api(serve.api, poor, 'DELETE', `/shorts/${r.data.requestId}`);
  }, 120_000);
});

describe('limits and credits under load', () => {
  it('the account hourly limit answers 429 rate_limit_exceeded with retryAfter, reset and headers', async () => {
    const { key: tiny } = await issueKey(serve.env, { hourlyLimit: 3 });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await api(serve.api, tiny, 'GET', '/templates'));
    expect(answers.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(answers.map((r) => r.headers.get('x-ratelimit-remaining-hour'))).toEqual(['2', '1', '0', '0']);
    const limited = answers[3]!;
    expect([limited.status, limited.json.error.code]).toEqual([429, 'rate_limit_exceeded']);
    expect(limited.json.error.details.retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.json.error.details.retryAfter).toBeLessThanOrEqual(3600);
    expect(Number.isNaN(Date.parse(limited.json.error.details.reset))).toBe(false);
    expect(limited.headers.get('x-ratelimit-limit-hour')).toBe('3');
  });

  it('two concurrent creations on the last credit: exactly one is accepted', async () => {
    const { key: last } = await createKey(serve.env, ['--credits', '1']); // the later --credits wins: one credit
    const [a, b] = await Promise.all([api(serve.api, last, 'POST', '/shorts/create', body()), api(serve.api, last, 'POST', '/shorts/create', body())]);
    expect([a.status, b.status].sort()).toEqual([202, 403]);
    expect([a, b].find((r) => r.status === 403)!.json.error.code).toBe('insufficient_credits');
    const accepted = [a, b].find((r) => r.status === 202)!;
    await api(serve.api, last, 'DELETE', `/shorts/${accepted.json.data.requestId}`);
  });
});

describe('blurBackground preference (spec 4.2)', () => {
  it('an explicit choice is saved on the account; an omitted one uses the saved preference', async () => {
    const { key: k, accountId } = await issueKey(serve.env);
    const first = await api(serve.api, k, 'POST', '/shorts/create', body({ blurBackground: false }));
    const second = await api(serve.api, k, 'POST', '/shorts/create', body());
    for (const r of [first, second]) await api(serve.api, k, 'DELETE', `/shorts/${r.json.data.requestId}`);
    const db = new Database(path.join(serve.env.SHORTS_DATA_DIR!, 'shorts.db'), { readonly: true });
    const saved = db.prepare('SELECT blur_background FROM accounts WHERE id = ?').get(accountId) as { blur_background: number };
    const options = JSON.parse((db.prepare('SELECT options FROM requests WHERE id = ?').get(second.json.data.requestId) as { options: string }).options);
    db.close();
    expect(saved.blur_background).toBe(0);
    expect(options.blurBackground).toBe(false);
  });
});
