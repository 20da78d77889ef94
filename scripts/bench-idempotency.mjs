#!/usr/bin/env node
// Issue 23 benchmark: what an Idempotency-Key costs a create, and what a replay costs. Starts `shorts serve`
// with no workers (only the API is measured) on a fresh data dir and times N serial POST /shorts/create
// without a key, N with a fresh key each, N replays of one key, and one burst of 50 concurrent duplicates.
// Run: `npm run build && node scripts/bench-idempotency.mjs [N]`.
import { startBenchServe, percentile } from './bench-serve.mjs';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BIN = path.join(ROOT, 'bin', 'shorts');
const N = Number(process.argv[2] ?? 100);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-idem-'));
const env = { ...process.env, SHORTS_DATA_DIR: dataDir, SHORTS_ALLOW_PRIVATE_URLS: '1', SHORTS_WORKERS: '0' };
// The create's URL check does a HEAD: answered at once by a loopback server.
const files = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': 1000 }).end());
await new Promise((r) => files.listen(0, '127.0.0.1', r));
const body = JSON.stringify({ fileUrl: `http://127.0.0.1:${files.address().port}/talk.mp4`, start: 0, end: 60, language: 'en' });

const { key, base, stop } = await startBenchServe(BIN, env, { credits: 3 * N + 100 });
const create = async (idempotencyKey) => {
  const t0 = performance.now();
  const r = await fetch(`${base}/api/v1/shorts/create`, {
    method: 'POST', body, headers: { 'x-api-key': key, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
  });
  await r.text();
  if (r.status !== 202) throw new Error(`create: ${r.status}`);
  return { ms: performance.now() - t0, replayed: r.headers.get('idempotent-replayed') === 'true' };
};
const row = (name, xs) => `| ${name} | ${xs.length} | ${percentile(xs, 50).toFixed(2)} | ${percentile(xs, 99).toFixed(2)} |`;
try {
  for (let i = 0; i < 10; i++) await create(); // warm-up
  const plain = [], keyed = [], replays = [];
  for (let i = 0; i < N; i++) plain.push((await create()).ms);
  for (let i = 0; i < N; i++) keyed.push((await create(randomUUID())).ms);
  const one = randomUUID();
  await create(one);
  for (let i = 0; i < N; i++) replays.push((await create(one)).ms);
  const t0 = performance.now();
  const burst = await Promise.all(Array.from({ length: 50 }, () => create('burst-key')));
  const burstMs = performance.now() - t0;
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`);
  console.log('| POST /shorts/create | n | p50 ms | p99 ms |\n|---|---|---|---|');
  console.log(row('no key', plain));
  console.log(row('a new Idempotency-Key each', keyed));
  console.log(row('the same key again (replay)', replays));
  console.log(`50 concurrent duplicates of one key: all answered in ${burstMs.toFixed(0)} ms, ${burst.filter((b) => !b.replayed).length} ran, ${burst.filter((b) => b.replayed).length} replayed`);
} finally {
  files.close();
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
}
