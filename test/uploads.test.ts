// Issue 25: resumable uploads (tus 1.0) into a real `shorts serve` on loopback, a request made from the upload,
// the source it keeps (a signed, Range-capable link), its transcript's words, and a re-render from the kept
// source. tus-js-client (the studio's client) uploads in chunks, is interrupted and resumes from the offset HEAD gives.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tus from 'tus-js-client';
import { SAMPLE } from './helpers/cli.js';
import { api, createKey, serveEnv, startServe, until, type ServeProcess } from './helpers/serve.js';

const CHUNK = 256 * 1024;
const FILE = readFileSync(SAMPLE);
const SCRIPT = readFileSync(SAMPLE.replace(/\.mp4$/, '.txt'), 'utf8').toLowerCase();

let serve: ServeProcess | undefined;
let key = '';
let other = '';
const env = serveEnv();

afterAll(async () => {
  await serve?.kill('SIGKILL');
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tusHeaders = (k: string) => ({ 'x-api-key': k, 'tus-resumable': '1.0.0' });

/** Uploads `data` with tus-js-client from `uploadUrl` (resuming) or anew; stops after `stopAfter` chunks when given. */
function upload(data: Buffer, opts: { uploadUrl?: string; stopAfter?: number; onStart?: (offset: number) => void } = {}): Promise<{ url: string; finished: boolean }> {
  return new Promise((resolve, reject) => {
    let chunks = 0;
    let first = true;
    const u = new tus.Upload(data, {
      endpoint: `${serve!.api}/uploads`, uploadUrl: opts.uploadUrl, chunkSize: CHUNK, retryDelays: [],
      headers: { 'x-api-key': key }, metadata: { filename: 'My talk.final.mp4', filetype: 'video/mp4' },
      onProgress: (sent) => {
        if (first) opts.onStart?.(sent);
        first = false;
      },
      onChunkComplete: () => {
        if (opts.stopAfter !== undefined && ++chunks === opts.stopAfter) {
          void u.abort().then(() => resolve({ url: u.url!, finished: false }));
        }
      },
      onSuccess: () => resolve({ url: u.url!, finished: true }),
      onError: reject,
    });
    u.start();
  });
}

describe('uploads, the kept source and the transcript (issue 25)', () => {
  let uploadUrl = '';
  let uploadId = '';
  let requestId = '';

  beforeAll(async () => {
    ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
    ({ key: other } = await createKey(env));
    serve = await startServe(env);
  }, 60_000);

  it('uploads in chunks, is interrupted, and resumes from the offset HEAD gives', async () => {
    const partial = await upload(FILE, { stopAfter: 2 });
    expect(partial.finished).toBe(false);
    uploadUrl = partial.url;
    uploadId = uploadUrl.split('/').pop()!;
    expect(uploadId).toMatch(/^[0-9a-f]{32}$/);
    const head = await fetch(uploadUrl, { method: 'HEAD', headers: tusHeaders(key) });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('upload-offset'))).toBe(2 * CHUNK);
    expect(Number(head.headers.get('upload-length'))).toBe(FILE.length);
    // Another account does not see it.
    expect((await fetch(uploadUrl, { method: 'HEAD', headers: tusHeaders(other) })).status).toBe(404);
    // Unfinished, it is no source yet.
    const early = await api(serve!.api, key, 'POST', '/shorts/create', { uploadId, start: 0, end: 60 });
    expect([early.status, early.json.error.details]).toEqual([400, { field: 'uploadId' }]);
    let resumedAt = -1;
    const done = await upload(FILE, { uploadUrl, onStart: (offset) => { resumedAt = offset; } });
    expect(done).toEqual({ url: uploadUrl, finished: true });
    // The resume sent only what was missing.
    expect(resumedAt).toBeGreaterThanOrEqual(2 * CHUNK);
  });

  it('refuses uploads over 10 GB, without a length, of another type, and without a key', async () => {
    const post = (headers: Record<string, string>, k: string | null = key) =>
      fetch(`${serve!.api}/uploads`, { method: 'POST', headers: { ...(k ? { 'x-api-key': k } : {}), 'tus-resumable': '1.0.0', ...headers } });
    const big = await post({ 'upload-length': String(10 * 1024 ** 3 + 1) });
    expect(big.status).toBe(413);
    expect((await big.json() as { error: { code: string } }).error.code).toBe('file_too_large');
    expect((await post({ 'upload-defer-length': '1' })).status).toBe(400);
    expect((await post({ 'upload-length': '10', 'upload-metadata': `filename ${b64('a.txt')},filetype ${b64('text/plain')}` })).status).toBe(415);
    expect((await post({ 'upload-length': '10' }, null)).status).toBe(401);
  });

  it('creates a request from the upload: exactly one source, the account\'s own, titled after the file', async () => {
    const both = await api(serve!.api, key, 'POST', '/shorts/create', { uploadId, url: 'https://www.youtube.com/watch?v=x', start: 0, end: 60 });
    expect(both.status).toBe(400);
    expect(both.json.error.message).toMatch(/exactly one source \(url, fileUrl or uploadId\)/);
    const foreign = await api(serve!.api, other, 'POST', '/shorts/create', { uploadId, start: 0, end: 60 });
    expect([foreign.status, foreign.json.error.details]).toEqual([400, { field: 'uploadId' }]);
    const created = await api(serve!.api, key, 'POST', '/shorts/create', { uploadId, start: 0, end: 60, maxShorts: 1, preferredLength: 'under30sec', layout: 'fit' });
    expect(created.status, created.text).toBe(202);
    requestId = created.json.data.requestId;
    const done = await until(() => api(serve!.api, key, 'GET', `/shorts/${requestId}/status`), (r) => ['completed', 'failed'].includes(r.json.data.status), 240_000, 250);
    expect(done.json.data.status, JSON.stringify(done.json)).toBe('completed');
    const detail = (await api(serve!.api, key, 'GET', `/shorts/${requestId}`)).json.data;
    expect(detail.title).toBe('My talk.final');
    expect(detail.shorts.filter((s: { error: boolean }) => !s.error).length).toBeGreaterThan(0);
  }, 240_000);

  it('keeps the source after completion: source_video_url answers a Range request with the uploaded bytes', async () => {
    const detail = (await api(serve!.api, key, 'GET', `/shorts/${requestId}`)).json.data;
    expect(detail.source_video_url).toMatch(new RegExp(`^${serve!.url}/media/${requestId}/source\\?expires=`));
    const res = await fetch(detail.source_video_url, { headers: { range: 'bytes=100-1099' } });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-range')).toBe(`bytes 100-1099/${FILE.length}`);
    expect(Buffer.from(await res.arrayBuffer()).equals(FILE.subarray(100, 1100))).toBe(true);
    // An altered link is refused.
    expect((await fetch(detail.source_video_url.replace(/sig=./, 'sig=A'))).status).toBe(403);
  });

  it('gives the transcript\'s words inside the asked range, as said', async () => {
    const got = await api(serve!.api, key, 'GET', `/shorts/${requestId}/transcript?start=20&end=40`);
    expect(got.status, got.text).toBe(200);
    const { language, words } = got.json.data as { language: string; words: { text: string; start: number; end: number }[] };
    expect(language).toBe('en');
    expect(words.length).toBeGreaterThan(20);
    for (const w of words) expect(w.start >= 20 && w.end <= 40 && w.start <= w.end, JSON.stringify(w)).toBe(true);
    // Most words are the script's (the tiny model mishears a few).
    const said = words.map((w) => w.text.toLowerCase().replace(/[^a-z']/g, '')).filter(Boolean);
    expect(said.filter((w) => SCRIPT.includes(w)).length / said.length).toBeGreaterThan(0.8);
    const all = (await api(serve!.api, key, 'GET', `/shorts/${requestId}/transcript`)).json.data.words;
    expect(all.length).toBeGreaterThan(words.length);
    expect((await api(serve!.api, key, 'GET', `/shorts/${requestId}/transcript?start=0&end=601`)).status).toBe(400);
    expect((await api(serve!.api, other, 'GET', `/shorts/${requestId}/transcript`)).status).toBe(404);
  });

  it('re-renders a clip from the kept source (no fetch)', async () => {
    const clip = (await api(serve!.api, key, 'GET', `/shorts/${requestId}`)).json.data.shorts.find((s: { error: boolean }) => !s.error);
    const end = Math.min(clip.endTimestamp + 3, 80);
    const accepted = await api(serve!.api, key, 'POST', `/shorts/${requestId}/shorts/${clip.id}/render`, { end });
    expect(accepted.status, accepted.text).toBe(202);
    const after = await until(async () => (await api(serve!.api, key, 'GET', `/shorts/${requestId}`)).json.data.shorts.find((s: { id: string }) => s.id === clip.id),
      (s) => s.recompiling === false, 120_000, 250);
    expect(after.editError, JSON.stringify(after)).toBeUndefined();
    expect(after.endTimestamp).toBeCloseTo(end, 2);
    // Still kept.
    const detail = (await api(serve!.api, key, 'GET', `/shorts/${requestId}`)).json.data;
    expect((await fetch(detail.source_video_url, { method: 'HEAD' })).status).toBe(200);
  }, 120_000);
});
