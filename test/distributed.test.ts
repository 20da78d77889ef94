// Issue 24, end to end on real engines: PostgreSQL, Redis and an S3-compatible server (s3rver) started by the
// test on loopback, and real `shorts` processes, each with its own empty data dir (a scratch cache it could
// lose at any time): two API processes (`serve --workers 0`), a worker with `--queues
// fetch,transcribe,analyze,notify,publish` and one with `--queues render`. Run twice: queues and rate-limit
// counters on Redis, and on PostgreSQL alone (BullMQ's PostgreSQL backend, SQL counters).
//  - a real request completes: whisper runs only under the first worker (its transcribe job), the render
//    ffmpeg only under the second (its clip jobs); PostgreSQL restarts while it is transcribed (and Redis too,
//    persistent as BullMQ needs it): reads answer 503 while PostgreSQL is down and work again through either API
//    process within seconds, and the processes carry on; killed -9 mid-render, a fresh render worker with
//    another empty data dir finishes it; it completes once (one webhook) and its clips download from the bucket;
//  - the last credit under concurrent creates split across the two API processes: exactly one accepted, and
//    a DELETE through the other API process stops the stage a worker runs within seconds;
//  - an hourly limit is exact across the two API processes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, runCli } from './helpers/cli.js';
import { startPostgres, startRedis, startS3, type Postgres, type Redis, type S3 } from './helpers/engines.js';
import { queuesRun, startWorkerProcess, type WorkerProcess } from './helpers/workers.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

let pg: Postgres;
let redis: Redis;
let s3: S3;
let cdn: Loopback;
let hooks: Loopback;
const dirs: string[] = [];

beforeAll(async () => {
  // Redis as a deployment runs it for BullMQ (an append-only file, no eviction): a restart keeps the queues.
  [pg, redis, s3] = await Promise.all([startPostgres(), startRedis({ persistent: true }), startS3()]);
  cdn = await loopback(fileHandler(SAMPLE));
  hooks = await loopback((_req, res) => res.end('ok'));
}, 120_000);

afterAll(async () => {
  await Promise.all([pg?.close(), redis?.close(), s3?.close(), cdn?.close(), hooks?.close()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each([
  { name: 'PostgreSQL + Redis + S3', withRedis: true, redisDb: 1 },
  { name: 'PostgreSQL + S3 (queues on BullMQ\'s PostgreSQL backend)', withRedis: false, redisDb: 0 },
])('distributed mode: $name', ({ withRedis, redisDb }) => {
  let shared: Record<string, string>;
  const workers: WorkerProcess[] = [];
  const apis: ServeProcess[] = [];

  /** The environment of one process: the deployment's settings and a data dir of its own, empty. */
  const own = (extra: Record<string, string> = {}) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dist-proc-'));
    dirs.push(dir);
    return serveEnv({ ...shared, SHORTS_DATA_DIR: dir, ...extra });
  };
  const startWorker = (queues: string): WorkerProcess => {
    const w = startWorkerProcess(queues, own());
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    const bucket = await s3.createBucket();
    shared = {
      ...s3.env,
      SHORTS_DATABASE_URL: await pg.createDatabase('dist'),
      SHORTS_STORAGE_URL: `s3://${bucket}/shorts`, SHORTS_S3_ENDPOINT: s3.endpoint, SHORTS_S3_FORCE_PATH_STYLE: '1',
      SHORTS_SECRET_KEY: 'ab'.repeat(32),
      // A killed worker's job and lease are taken over two seconds after it stopped renewing them.
      SHORTS_LEASE_TTL: '2',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...(withRedis ? { SHORTS_REDIS_URL: redis.database(redisDb) } : {}),
    };
    const migrated = await runCli(['db', 'migrate'], own());
    expect(migrated.code, migrated.stderr).toBe(0);
    apis.push(await startServe(own(), ['--workers', '0']), await startServe(own(), ['--workers', '0']));
  }, 180_000);

  // Each test starts the workers it needs: none is left to take another test's jobs.
  afterEach(async () => {
    for (const w of workers.splice(0)) {
      w.kill('SIGKILL');
      await w.exited;
    }
  });

  afterAll(async () => {
    await Promise.all(apis.map((a) => a.kill('SIGKILL')));
  });

  it('two API processes and two workers split by queue, each with an empty data dir, complete a real request; a render worker killed mid-render is replaced', async () => {
    const { key } = await createKey(own(), ['--hourly-limit', '2000', '--daily-limit', '20000']);
    const early = startWorker('fetch,transcribe,analyze,notify,publish');
    let render = startWorker('render');
    const [a, b] = apis as [ServeProcess, ServeProcess];
    const before = hooks.requests.length;
    const created = await api(a.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60, language: 'en', maxShorts: 2,
      preferredLength: 'under30sec', layout: 'fit', blurBackground: false, webhookUrl: `${hooks.url}/hook` });
    expect(created.status, created.text).toBe(202);
    const id = created.json.data.requestId as string;

    // The engines restart while the request is being transcribed (a fast shutdown of PostgreSQL; Redis ended as a
    // service manager's restart ends it, its queues kept in its append-only file).
    await until(async () => early.log(), (log) => log.includes(` transcribe/${id} started`) || / ended: failed/.test(log), 300_000, 50);
    await pg.stop('fast');
    const down = await api(b.api, key, 'GET', `/shorts/${id}/status`);
    expect(down.status, down.text).toBe(503);
    expect(down.json.error.code, down.text).toBe('service_unavailable');
    if (withRedis) await redis.stop('shutdown');
    await new Promise((r) => setTimeout(r, 1000));
    await Promise.all([pg.start(), withRedis ? redis.start() : undefined]);
    const restarted = Date.now();
    for (const p of [a, b]) await until(() => api(p.api, key, 'GET', `/shorts/${id}/status`), (r) => r.status === 200, 10_000, 100);
    expect(Date.now() - restarted).toBeLessThan(10_000);

    await until(async () => render.log() + early.log(), (log) => / render\/clip-\S+ started/.test(log) || / ended: failed/.test(log), 300_000, 50);
    expect(render.log(), early.log()).toMatch(/ render\/clip-\S+ started/);
    await new Promise((r) => setTimeout(r, 300));
    render.kill('SIGKILL');
    expect((await render.exited).signal).toBe('SIGKILL');
    const killedLog = render.log();
    // Read through the other API process: the state is shared, not the processes' own.
    expect((await api(b.api, key, 'GET', `/shorts/${id}/status`)).json.data.status).toBe('processing');

    render = startWorker('render');
    const final = await until(() => api(b.api, key, 'GET', `/shorts/${id}/status`),
      (r) => ['completed', 'failed', 'cancelled'].includes(r.json.data.status), 300_000, 250);
    expect(final.json.data.status, JSON.stringify(final.json)).toBe('completed');
    const detail = await api(a.api, key, 'GET', `/shorts/${id}`);
    expect(detail.json.data.shorts.length).toBeGreaterThanOrEqual(1);
    for (const s of detail.json.data.shorts) {
      expect(s.error ?? false, JSON.stringify(s)).toBe(false);
      // A presigned link straight to the bucket, not through an API process.
      expect(s.video_url).toContain(s3.endpoint);
      const clip = await fetch(s.video_url);
      expect(clip.status).toBe(200);
      expect((await clip.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    }

    await until(async () => hooks.requests.length - before, (n) => n >= 1, 30_000, 100);
    await new Promise((r) => setTimeout(r, 3000));
    expect(hooks.requests.length - before).toBe(1);
    expect(JSON.parse(hooks.requests.at(-1)!.body)).toMatchObject({ requestId: id, event: 'shorts.completed', status: 'completed' });

    // Whisper ran only under the first worker (its transcribe job), the render ffmpeg only under the render ones.
    expect(queuesRun(early.log())).toEqual(['analyze', 'fetch', 'notify', 'transcribe']);
    expect(queuesRun(killedLog)).toEqual(['render']);
    expect(queuesRun(render.log())).toEqual(['render']);
    for (const api of apis) expect(api.log()).not.toMatch(/ (fetch|transcribe|analyze|render|notify)\/\S+ started/);

    early.kill('SIGTERM');
    render.kill('SIGTERM');
    expect((await early.exited).code).toBe(0);
    expect((await render.exited).code).toBe(0);
  }, 600_000);

  it('the last credit under concurrent creates on two API processes goes to exactly one; a DELETE through the other stops its running stage', async () => {
    const { key } = await createKey(own(), ['--credits', '1', '--hourly-limit', '2000', '--daily-limit', '20000']);
    // The source's download is held open: the request stays in its fetch stage on the worker.
    let downloadClosedAt = 0;
    const size = readFileSync(SAMPLE).length;
    const slow = await loopback((req, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
      if (req.method === 'HEAD') return res.end();
      res.write(readFileSync(SAMPLE).subarray(0, 1024));
      res.on('close', () => { downloadClosedAt = Date.now(); });
    });
    try {
      const worker = startWorker('fetch,transcribe,analyze,notify');
      const [a, b] = apis as [ServeProcess, ServeProcess];
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
        api(i % 2 ? b.api : a.api, key, 'POST', '/shorts/create', { fileUrl: `${slow.url}/talk.mp4`, start: 0, end: 60 })));
      const accepted = answers.filter((r) => r.status === 202);
      expect(accepted, answers.map((r) => `${r.status} ${r.text}`).join('\n')).toHaveLength(1);
      for (const r of answers.filter((x) => x.status !== 202)) expect(r.json.error?.code ?? r.json.code ?? r.text).toMatch(/credit|insufficient/i);
      const id = accepted[0]!.json.data.requestId as string;

      await until(async () => worker.log(), (log) => new RegExp(` fetch/${id} started`).test(log), 60_000, 100);
      await until(async () => slow.requests.filter((r) => r.method === 'GET').length, (n) => n > 0, 60_000, 100);
      // Cancelled through whichever API process did not create it.
      const other = (await api(a.api, key, 'GET', `/shorts/${id}/status`)).status === 200 ? b : a;
      const deleted = await api(other.api, key, 'DELETE', `/shorts/${id}`);
      expect(deleted.status, deleted.text).toBe(200);
      const cancelledAt = Date.now();
      await until(async () => downloadClosedAt, (t) => t > 0, 15_000, 50);
      expect(downloadClosedAt - cancelledAt).toBeLessThan(5_000);
      await until(() => api(a.api, key, 'GET', `/shorts/${id}/status`), (r) => r.json.data.status === 'cancelled', 15_000, 100);
      worker.kill('SIGTERM');
      expect((await worker.exited).code).toBe(0);
    } finally {
      await slow.close();
    }
  }, 300_000);

  it('an hourly limit is exact across two API processes', async () => {
    const { key } = await createKey(own(), ['--credits', '100', '--hourly-limit', '5', '--daily-limit', '100']);
    // Nothing is fetched: no worker runs during this test, the requests stay queued (a DELETE would count too).
    const [a, b] = apis as [ServeProcess, ServeProcess];
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) =>
      api(i % 2 ? b.api : a.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60 })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 202), answers.map((r) => `${r.status} ${r.text}`).join('\n')).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(11);
  }, 120_000);
});
