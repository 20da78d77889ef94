#!/usr/bin/env node
// Issue 22 benchmark: how long a created request waits before a worker starts on it. Starts `shorts serve`
// on a fresh data dir, creates N requests through the API one after another (the sample served by a
// loopback file server), and for each measures the time from the 202 of POST /shorts/create to the first
// status whose step is no longer `queued` (read every 5 ms), then cancels it so the next one finds an idle
// worker. Run: `npm run build && node scripts/bench-first-step.mjs [N]`.
import { startBenchServe, percentile } from './bench-serve.mjs';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BIN = path.join(ROOT, 'bin', 'shorts');
const SAMPLE = path.join(ROOT, 'assets', 'sample', 'talk.mp4');
const N = Number(process.argv[2] ?? 20);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-first-step-'));
const env = { ...process.env, SHORTS_DATA_DIR: dataDir, SHORTS_ALLOW_PRIVATE_URLS: '1' };

const pct = percentile;

const files = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': statSync(SAMPLE).size });
  createReadStream(SAMPLE).pipe(res);
});
await new Promise((r) => files.listen(0, '127.0.0.1', r));
const fileUrl = `http://127.0.0.1:${files.address().port}/talk.mp4`;

const { key, base, stop } = await startBenchServe(BIN, env, { credits: N + 5 });
const headers = { 'x-api-key': key, 'content-type': 'application/json' };
const api = async (method, p, body) => {
  const r = await fetch(`${base}/api/v1${p}`, { method, headers, body: body && JSON.stringify(body) });
  const json = await r.json();
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
  return json.data;
};
try {
  const waits = [];
  for (let i = 0; i < N; i++) {
    const created = await api('POST', '/shorts/create', { fileUrl, start: 0, end: 60, language: 'en' });
    const t0 = performance.now();
    for (;;) {
      const s = await api('GET', `/shorts/${created.requestId}/status`);
      if (s.step !== 'queued') break;
      await sleep(5);
    }
    waits.push(performance.now() - t0);
    await api('DELETE', `/shorts/${created.requestId}`);
    // Let the cancelled job's children go before the next create.
    for (;;) {
      const s = await api('GET', `/shorts/${created.requestId}/status`);
      if (s.status === 'cancelled') break;
      await sleep(20);
    }
    await sleep(200);
  }
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}`);
  console.log(`create -> first step, ${N} requests (ms): p50 ${pct(waits, 50).toFixed(1)}, p99 ${pct(waits, 99).toFixed(1)}, max ${Math.max(...waits).toFixed(1)}`);
} finally {
  files.close();
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
}
