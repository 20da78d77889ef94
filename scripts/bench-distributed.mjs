#!/usr/bin/env node
// Issue 24 benchmark: what distributed mode costs one request, how long each stage takes (to size worker
// pools), and N requests through one worker vs two. Starts its own PostgreSQL, Redis and s3rver on loopback
// (scripts/engines.mjs), the sample talk served by a loopback file server, and for each mode a `shorts serve`
// plus `shorts worker` processes, each with its own empty data dir:
//   sqlite       one `shorts serve` (its in-process worker), the embedded default
//   pg+s3        `serve --workers 0` + one `shorts worker`, state and queues in PostgreSQL (BullMQ's backend)
//   pg+redis+s3  the same with the queues (and rate limits) on Redis
// Per stage: the time a request spends in each spec step, read from its status every 150 ms (the status
// limiter allows 500 a minute; a burst's requests are read every 1.5 s).
// Renders are 270x480 with x264 ultrafast (as the tests), 2 clips of the sample's first minute per request.
// Run: `npm run build && node scripts/bench-distributed.mjs [ROUNDS] [N]` (defaults 1 round, N = 8).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startPostgres, startRedis, startS3 } from './engines.mjs';
import { percentile, serveFile } from './bench-serve.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BIN = path.join(ROOT, 'bin', 'shorts');
const SAMPLE = path.join(ROOT, 'assets', 'sample', 'talk.mp4');
const ROUNDS = Number(process.argv[2] ?? 1);
const N = Number(process.argv[3] ?? 8);
const STEPS = ['queued', 'fetching_video', 'transcribing_audio', 'finding_highlights', 'finalizing'];

const files = await serveFile(SAMPLE);
const fileUrl = files.url;

const [pg, redis, s3] = await Promise.all([startPostgres(), startRedis(), startS3()]);
const children = new Set();
const tmp = [];
const dir = (name) => { const d = mkdtempSync(path.join(os.tmpdir(), `bench-dist-${name}-`)); tmp.push(d); return d; };

/** The environment of one mode (each process adds its own data dir). */
async function modeEnv(mode) {
  // Small, fast renders (as the tests make): what is measured is the engine's overhead and how work spreads.
  const base = {
    ...process.env, SHORTS_ALLOW_PRIVATE_URLS: '1', SHORTS_SECRET_KEY: 'a'.repeat(64), SHORTS_RENDER_SIZE: '270x480', SHORTS_X264_PRESET: 'ultrafast',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  if (mode === 'sqlite') return { ...base, SHORTS_DATA_DIR: dir('sqlite') };
  const bucket = await s3.createBucket();
  const env = {
    ...base, ...s3.env, SHORTS_DATABASE_URL: await pg.createDatabase('bench'), SHORTS_STORAGE_URL: `s3://${bucket}/shorts`,
    SHORTS_S3_ENDPOINT: s3.endpoint, SHORTS_S3_FORCE_PATH_STYLE: '1',
  };
  if (mode === 'pg+redis+s3') env.SHORTS_REDIS_URL = redis.database(Math.floor(Math.random() * 15) + 1);
  return env;
}

function start(args, env, ready) {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let log = '';
  return new Promise((resolve, reject) => {
    const on = (b) => {
      log += b;
      const m = ready.exec(log);
      if (m) resolve({ child, match: m });
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.on('exit', (c) => reject(new Error(`shorts ${args.join(' ')} exited ${c}: ${log}`)));
  });
}

async function stopAll() {
  for (const c of children) c.kill('SIGTERM');
  while (children.size) await sleep(50);
}

/** serve (+ `workers` worker processes in distributed modes); the API's base URL and a key. */
async function deployment(mode, workers) {
  const env = await modeEnv(mode);
  const own = (e) => ({ ...e, SHORTS_DATA_DIR: mode === 'sqlite' ? e.SHORTS_DATA_DIR : dir('proc') });
  if (mode !== 'sqlite') execFileSync(process.execPath, [BIN, 'db', 'migrate'], { env: own(env) });
  const key = JSON.parse(execFileSync(process.execPath, [BIN, 'keys', 'create', '--email', 'bench@example.com', '--credits', '1000',
    '--hourly-limit', '2000', '--daily-limit', '20000', '--json'], { env: own(env) })).key;
  const serveArgs = ['serve', '--port', '0', ...(mode === 'sqlite' ? [] : ['--workers', '0'])];
  const { match } = await start(serveArgs, own({ ...env, SHORTS_WORKERS: String(workers) }), /listening on (http:\/\/\S+)/);
  if (mode !== 'sqlite') for (let i = 0; i < workers; i++) await start(['worker'], own(env), /worker|queues/i);
  return { base: match[1], key };
}

async function api(d, method, p, body) {
  const r = await fetch(`${d.base}/api/v1${p}`, { method, headers: { 'x-api-key': d.key, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const json = await r.json();
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Creates one request and follows it to its end: total seconds and seconds per step. */
async function oneRequest(d, everyMs = 150, start = 0) {
  const t0 = performance.now();
  const { requestId } = await api(d, 'POST', '/shorts/create', { fileUrl, start, end: start + 60, language: 'en', maxShorts: 2, preferredLength: 'under30sec' });
  const perStep = Object.fromEntries(STEPS.map((s) => [s, 0]));
  let last = performance.now(), step = 'queued';
  for (;;) {
    const s = await api(d, 'GET', `/shorts/${requestId}/status`);
    const now = performance.now();
    perStep[step] += (now - last) / 1000;
    last = now;
    step = s.step;
    if (['completed', 'failed', 'cancelled'].includes(s.status)) {
      if (s.status !== 'completed') throw new Error(`request ${requestId} ${s.status}: ${s.failureReason ?? ''}`);
      return { total: (now - t0) / 1000, perStep };
    }
    await sleep(everyMs);
  }
}

async function burst(d, n) {
  const t0 = performance.now();
  // A range of its own per request: no transcript is reused from a worker's cache.
  await Promise.all(Array.from({ length: n }, (_, i) => oneRequest(d, 1500, i * 2)));
  return (performance.now() - t0) / 1000;
}

const fmt = (x) => x.toFixed(1);
try {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`);
  const singles = { sqlite: [], 'pg+s3': [], 'pg+redis+s3': [] };
  const stages = { sqlite: [], 'pg+s3': [], 'pg+redis+s3': [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of Object.keys(singles)) {
      const d = await deployment(mode, 1);
      const one = await oneRequest(d);
      singles[mode].push(one.total);
      stages[mode].push(one.perStep);
      await stopAll();
    }
  }
  console.log('\n| mode | one request, s (each round) | median |');
  console.log('|---|---|---|');
  for (const [mode, xs] of Object.entries(singles)) console.log(`| ${mode} | ${xs.map(fmt).join(', ')} | ${fmt(percentile(xs, 50))} |`);
  console.log('\n| mode | ' + STEPS.join(' | ') + ' |');
  console.log('|---|' + STEPS.map(() => '---').join('|') + '|');
  for (const [mode, runs] of Object.entries(stages)) {
    console.log(`| ${mode} | ${STEPS.map((s) => fmt(percentile(runs.map((x) => x[s]), 50))).join(' | ')} |`);
  }
  const bursts = [];
  for (const workers of [1, 2]) {
    const d = await deployment('pg+redis+s3', workers);
    bursts.push([workers, await burst(d, N)]);
    await stopAll();
  }
  console.log(`\n| ${N} requests at once (pg+redis+s3) | wall s |\n|---|---|`);
  for (const [w, s] of bursts) console.log(`| ${w} worker process${w > 1 ? 'es' : ''} | ${fmt(s)} |`);
} finally {
  await stopAll();
  files.close();
  await Promise.all([pg.close(), redis.close(), s3.close()]);
  for (const d of tmp) rmSync(d, { recursive: true, force: true });
}
