#!/usr/bin/env node
// How long a job another process enqueued waits before a worker takes it (the hand-off between the stages of a
// request in distributed mode): on BullMQ over Redis and over PostgreSQL (started by the script on loopback),
// one adapter instance enqueues (as an API process or another worker would) and another instance's JobLoop,
// polling every second as `shorts worker` does, takes; jobs come 200-500 ms apart, alternating two queues.
// Run: `npm run build && node scripts/bench-handoff.mjs [N] [ROOT]` (N jobs per backend, default 20; ROOT: the
// checkout whose dist/ is measured, default this one: another worktree's for an A/B).
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startPostgres, startRedis } from './engines.mjs';
import { percentile } from './bench-serve.mjs';

const N = Number(process.argv[2] ?? 20);
const ROOT = path.resolve(process.argv[3] ?? path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const dist = (p) => import(pathToFileURL(path.join(ROOT, 'dist', p)).href);
const { createBullmqJobQueue } = await dist('adapters/bullmq/job-queue.js');
const { JobLoop } = await dist('engine/job-loop.js');

const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
try {
  console.log(`${ROOT}: ${N} jobs per backend`);
  console.log('| backend | enqueued -> taken, median ms | p90 | max |\n|---|---|---|---|');
  for (const [name, connection] of [['redis', { redisUrl: redis.url }], ['postgres', { postgresUrl: await pg.createDatabase('handoff') }]]) {
    const producer = await createBullmqJobQueue(connection);
    const taker = await createBullmqJobQueue(connection);
    const waited = [];
    const loop = new JobLoop({
      queue: taker, queues: ['a', 'b'], leases: { owner: 'bench', ttlMs: 30_000 }, concurrency: 1,
      run: async (job) => { waited.push(Date.now() - job.data.at); return { end: 'complete' }; },
      onLock: () => {}, onError: () => ({ end: 'complete' }), log: () => {},
    });
    loop.start();
    await sleep(1500); // its first takes (and whatever they open) are done
    for (let i = 0; i < N; i++) {
      await producer.enqueue({ queue: i % 2 ? 'a' : 'b', id: `j${i}`, data: { at: Date.now() } });
      await sleep(200 + Math.random() * 300);
    }
    await sleep(1500);
    await loop.stop();
    await Promise.all([producer.close(), taker.close()]);
    console.log(`| ${name} | ${percentile(waited, 50)} | ${percentile(waited, 90)} | ${Math.max(...waited)} |`);
  }
} finally {
  await Promise.all([pg.close(), redis.close()]);
}
