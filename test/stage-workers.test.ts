// Issue 24: a request runs as stage jobs that separate processes take by queue. A real `shorts serve --workers 0`
// (an API process that runs nothing), a `shorts worker --queues fetch,transcribe,analyze,notify` and a `shorts
// worker --queues render` complete a real request: each worker's log shows only its own queues' jobs. Run on
// one data dir with the state and queues in SQLite, then in PostgreSQL (BullMQ's PostgreSQL backend; the blobs
// stay in the shared data dir: PostgreSQL beside a shared volume). Redis, S3 and a data dir per process are
// test/distributed.test.ts's. The render worker is
// killed -9 mid-render and a fresh one finishes the request, which completes once (one webhook). A DELETE
// through the API process stops the stage a worker runs within seconds. The transcript of the range comes from
// the seeded cache: what is checked is who runs what, not transcription.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, runCli } from './helpers/cli.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';
import { seed, warmCache } from './helpers/seeded-cache.js';
import { startPostgres } from './helpers/engines.js';
import { queuesRun, startWorkerProcess, type WorkerProcess } from './helpers/workers.js';

/** The settings that put the state and the queues on an engine (started here, stopped with the suite). */
type Engines = (stops: (() => Promise<void>)[]) => Promise<Record<string, string>>;

const ENGINES: [string, Engines][] = [
  ['SQLite', async () => ({})],
  ['PostgreSQL', async (stops) => {
    const pg = await startPostgres();
    stops.push(() => pg.close());
    return { SHORTS_DATABASE_URL: await pg.createDatabase('stages'), SHORTS_SECRET_KEY: 'a'.repeat(64) };
  }],
];

describe.each(ENGINES)('stage workers on %s', (_name, engines) => {
  const servers: Loopback[] = [];
  const stops: (() => Promise<void>)[] = [];
  const workers: WorkerProcess[] = [];
  let serve: ServeProcess | undefined;
  let env: NodeJS.ProcessEnv;
  let key: string;
  let hooks: Loopback;
  let cdn: Loopback;

  function startWorker(queues: string): WorkerProcess {
    const w = startWorkerProcess(queues, { ...env, SHORTS_PUBLIC_URL: serve!.url });
    workers.push(w);
    return w;
  }

  beforeAll(async () => {
    const warm = await warmCache();
    // A 1 s lease: the killed worker's clip job is taken again a second after the kill.
    env = serveEnv({ SHORTS_LEASE_TTL: '1', ...await engines(stops) });
    seed(env.SHORTS_DATA_DIR!, warm);
    if (env.SHORTS_DATABASE_URL) {
      const migrated = await runCli(['db', 'migrate'], env);
      if (migrated.code !== 0) throw new Error(migrated.stderr);
    }
    ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
    cdn = await loopback(fileHandler(SAMPLE));
    hooks = await loopback((_req, res) => res.end('ok'));
    servers.push(cdn, hooks);
    serve = await startServe(env, ['--workers', '0']);
  }, 300_000);

  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await serve?.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(stops.map((stop) => stop()));
  });

    it('an API process and two workers split by queue complete a request; a render worker killed mid-render is replaced and the request completes once', async () => {
      const early = startWorker('fetch,transcribe,analyze,notify');
      let render = startWorker('render');
      const created = await api(serve!.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60, language: 'en', maxShorts: 2,
        preferredLength: 'under30sec', layout: 'fit', blurBackground: false, webhookUrl: `${hooks.url}/hook` });
      expect(created.status, created.text).toBe(202);
      const id = created.json.data.requestId as string;

      // Killed while it renders the first clip (its ffmpeg running): nothing of it is finished.
      await until(async () => render.log() + early.log(), (log) => / render\/clip-\S+ started/.test(log) || / ended: failed/.test(log), 240_000, 50);
      expect(render.log(), early.log()).toMatch(/ render\/clip-\S+ started/);
      await new Promise((r) => setTimeout(r, 300));
      render.kill('SIGKILL');
      expect((await render.exited).signal).toBe('SIGKILL');
      const killedLog = render.log();
      expect((await api(serve!.api, key, 'GET', `/shorts/${id}/status`)).json.data.status).toBe('processing');

      render = startWorker('render');
      const final = await until(() => api(serve!.api, key, 'GET', `/shorts/${id}/status`),
        (r) => ['completed', 'failed', 'cancelled'].includes(r.json.data.status), 300_000, 250);
      expect(final.json.data.status, JSON.stringify(final.json)).toBe('completed');
      const detail = await api(serve!.api, key, 'GET', `/shorts/${id}`);
      expect(detail.json.data.shorts.length).toBeGreaterThanOrEqual(1);
      for (const s of detail.json.data.shorts) {
        expect(s.error ?? false, JSON.stringify(s)).toBe(false);
        expect((await fetch(s.video_url)).status).toBe(200);
      }

      // One webhook, for the completed request, whatever the kill left behind.
      await until(async () => hooks.requests.length, (n) => n >= 1, 30_000, 100);
      await new Promise((r) => setTimeout(r, 3000));
      expect(hooks.requests).toHaveLength(1);
      expect(JSON.parse(hooks.requests[0]!.body)).toMatchObject({ requestId: id, event: 'shorts.completed', status: 'completed' });

      // Each worker ran only its own stages; the fresh render worker took over the killed one's clip.
      expect(queuesRun(early.log())).toEqual(['analyze', 'fetch', 'notify', 'transcribe']);
      expect(queuesRun(killedLog)).toEqual(['render']);
      expect(queuesRun(render.log())).toEqual(['render']);
      expect(render.log()).toMatch(/resuming 1 interrupted request/);
      expect(render.log()).toMatch(new RegExp(` render/${id} ended: done`)); // the request's finalize
      expect(serve!.log()).not.toMatch(/ (fetch|transcribe|analyze|render|notify)\/\S+ started/);
      for (const w of [early, render]) expect(w.log()).not.toMatch(/worker error/);

      // SIGTERM: each worker hands back what it runs (nothing now) and exits 0.
      early.kill('SIGTERM');
      render.kill('SIGTERM');
      expect((await early.exited).code).toBe(0);
      expect((await render.exited).code).toBe(0);
    }, 600_000);

    it('a DELETE through the API process stops the stage a worker runs within seconds, with no webhook', async () => {
      // The source's download is held open: the request stays in its fetch stage on the worker.
      let downloadClosedAt = 0;
      const slow = await loopback((req, res) => {
        const size = readFileSync(SAMPLE).length;
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
        if (req.method === 'HEAD') return res.end();
        res.write(readFileSync(SAMPLE).subarray(0, 1024));
        res.on('close', () => { downloadClosedAt = Date.now(); });
      });
      servers.push(slow);
      const before = hooks.requests.length;
      const worker = startWorker('fetch,transcribe,analyze,notify');
      const created = await api(serve!.api, key, 'POST', '/shorts/create', { fileUrl: `${slow.url}/talk.mp4`, start: 0, end: 60, webhookUrl: `${hooks.url}/hook` });
      expect(created.status, created.text).toBe(202);
      const id = created.json.data.requestId as string;
      await until(async () => slow.requests.filter((r) => r.method === 'GET').length, (n) => n > 0, 60_000, 100);
      expect(worker.log()).toMatch(new RegExp(` fetch/${id} started`));

      const deleted = await api(serve!.api, key, 'DELETE', `/shorts/${id}`);
      expect(deleted.status, deleted.text).toBe(200);
      const cancelledAt = Date.now();
      await until(async () => downloadClosedAt, (t) => t > 0, 15_000, 50);
      expect(downloadClosedAt - cancelledAt).toBeLessThan(5_000);
      await until(async () => worker.log(), (log) => new RegExp(` fetch/${id} ended`).test(log), 15_000, 100);
      expect((await api(serve!.api, key, 'GET', `/shorts/${id}/status`)).json.data.status).toBe('cancelled');
      await new Promise((r) => setTimeout(r, 1500));
      expect(hooks.requests.length).toBe(before);
      expect(worker.log()).not.toMatch(/transcribe\//);
      worker.kill('SIGTERM');
      expect((await worker.exited).code).toBe(0);
    }, 200_000);
  });
