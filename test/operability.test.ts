// Issue 24 point 6 against a real `shorts serve` whose rate limits live on a real Redis (SHORTS_REDIS_URL):
// /metrics in Prometheus text behind SHORTS_METRICS_TOKEN (stage durations, failures, credits charged and
// refunded, queue depths, HTTP answers) after a request completes and another fails; /readyz naming redis
// when its server goes away, and ready again once it is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from './helpers/cli.js';
import { startRedis, type Redis } from './helpers/engines.js';
import { keepTranscripts, shareTranscripts } from './helpers/transcript-pool.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

const TOKEN = 'metrics-token-for-tests';
let redis: Redis;
let serve: ServeProcess;
let cdn: Loopback;
let key: string;

beforeAll(async () => {
  redis = await startRedis();
  const env = serveEnv({ SHORTS_REDIS_URL: redis.database(2), SHORTS_METRICS_TOKEN: TOKEN });
  shareTranscripts(env.SHORTS_DATA_DIR!);
  ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
  serve = await startServe(env);
  // gone.mp4: HEAD says video, GET fails: accepted at creation, fails while fetching (its credit refunded).
  cdn = await loopback((req, res) => {
    if (req.url === '/talk.mp4') return fileHandler(SAMPLE)(req, res);
    if (req.method === 'HEAD') return res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '1000' }).end();
    res.writeHead(404).end();
  });
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await cdn?.close();
  await redis?.close();
});

interface Sample { name: string; labels: Record<string, string>; value: number }

/**
 * Parses the Prometheus text exposition format (0.0.4) strictly: HELP and TYPE lines, then samples
 * `name{label="value",...} number`, each sample's family declared by a TYPE line before it. Throws on any other line.
 */
function parsePrometheus(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) { types.set(type[1]!, type[2]!); continue; }
    if (new RegExp(`^# HELP ${NAME} .*$`).test(line)) continue;
    const m = new RegExp(`^(${NAME})(?:\\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*",?)*)\\})? (\\S+)$`).exec(line);
    if (!m) throw new Error(`not a Prometheus text line: ${line}`);
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    if (Number.isNaN(value) && m[3] !== 'NaN') throw new Error(`not a sample value: ${line}`);
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    const family = m[1]!.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(m[1]!) && !types.has(family)) throw new Error(`sample before its TYPE: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { types, samples };
}

const value = (samples: Sample[], name: string, labels: Record<string, string>) =>
  samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

async function metrics(headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  const res = await fetch(`${serve.url}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe('/metrics', () => {
  it('needs the token when one is set, from loopback too', async () => {
    const none = await metrics({});
    expect([none.status, JSON.parse(none.text).error.code]).toEqual([401, 'missing_api_key']);
    const wrong = await metrics({ authorization: 'Bearer not-the-token' });
    expect([wrong.status, JSON.parse(wrong.text).error.code]).toEqual([401, 'invalid_api_key']);
  });

  it('after one request completes and one fails: stage histograms, a failure, credits charged and refunded, queue depths, HTTP answers', async () => {
    const create = (fileUrl: string) => api(serve.api, key, 'POST', '/shorts/create', { fileUrl, start: 0, end: 80, maxShorts: 1, layout: 'fit', blurBackground: false });
    const ok = await create(`${cdn.url}/talk.mp4`);
    expect(ok.status, ok.text).toBe(202);
    const gone = await create(`${cdn.url}/gone.mp4`);
    expect(gone.status, gone.text).toBe(202);
    for (const [id, status] of [[ok.json.data.requestId, 'completed'], [gone.json.data.requestId, 'failed']] as const) {
      const final = await until(() => api(serve.api, key, 'GET', `/shorts/${id}/status`), (r) => ['completed', 'failed', 'cancelled'].includes(r.json.data.status), 240_000, 500);
      expect(final.json.data.status, final.text).toBe(status);
    }
    keepTranscripts(serve.env.SHORTS_DATA_DIR!);

    const got = await metrics();
    expect(got.status).toBe(200);
    expect(got.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const { types, samples } = parsePrometheus(got.text);
    expect(types.get('shorts_stage_duration_seconds')).toBe('histogram');
    for (const stage of ['fetch', 'transcribe', 'analyze', 'render']) {
      expect(value(samples, 'shorts_stage_duration_seconds_count', { stage, outcome: 'ok' }), stage).toBe(1);
      expect(value(samples, 'shorts_stage_duration_seconds_bucket', { stage, outcome: 'ok', le: '+Inf' }), stage).toBe(1);
      expect(value(samples, 'shorts_stage_duration_seconds_sum', { stage, outcome: 'ok' }), stage).toBeGreaterThan(0);
    }
    expect(value(samples, 'shorts_stage_duration_seconds_count', { stage: 'fetch', outcome: 'failed' })).toBe(1);
    expect(value(samples, 'shorts_stage_failures_total', { stage: 'fetch' })).toBe(1);
    expect(value(samples, 'shorts_credits_total', { change: 'charged' })).toBe(2);
    expect(value(samples, 'shorts_credits_total', { change: 'refunded' })).toBe(1);
    // Both requests ran and ended: their jobs are completed (a failed request's job ended too), none waits.
    expect(types.get('shorts_queue_jobs')).toBe('gauge');
    expect(value(samples, 'shorts_queue_jobs', { queue: 'requests', state: 'waiting' })).toBe(0);
    expect(value(samples, 'shorts_queue_jobs', { queue: 'requests', state: 'active' })).toBe(0);
    expect(value(samples, 'shorts_queue_jobs', { queue: 'rerenders', state: 'waiting' })).toBe(0);
    expect(value(samples, 'shorts_http_requests_total', { route: 'createShorts', method: 'POST', status: '202' })).toBe(2);
    expect(value(samples, 'shorts_http_requests_total', { route: 'getMetrics', method: 'GET', status: '401' })).toBe(2);
    expect(value(samples, 'shorts_http_requests_total', { route: 'getShortsStatus', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(2);
  }, 300_000);
});

describe('/readyz with Redis', () => {
  it('checks redis beside the store; 503 naming redis while its server is down, 200 again once it is back', async () => {
    const ready = await api(serve.url, null, 'GET', '/readyz');
    expect(ready.status, ready.text).toBe(200);
    expect(ready.json.checks.redis).toMatchObject({ ok: true });
    expect(ready.json.checks.store).toMatchObject({ ok: true });

    await redis.stop();
    const down = await until(() => api(serve.url, null, 'GET', '/readyz'), (r) => r.status === 503, 20_000, 200);
    expect(down.json.ready).toBe(false);
    expect(Object.entries(down.json.checks as Record<string, { ok: boolean }>).filter(([, c]) => !c.ok).map(([name]) => name)).toEqual(['redis']);
    expect(down.json.checks.redis.detail).toMatch(/not connected|no answer|ECONNREFUSED/);

    await redis.start();
    const back = await until(() => api(serve.url, null, 'GET', '/readyz'), (r) => r.status === 200, 30_000, 250);
    expect(back.json.checks.redis).toMatchObject({ ok: true });
    // And the API counts on it again.
    expect((await api(serve.api, key, 'GET', '/templates')).status).toBe(200);
  }, 60_000);
});
