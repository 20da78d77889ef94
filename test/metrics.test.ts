// The engine's metrics on their own: one registry per engine (two engines in one process keep their numbers
// apart), queue depths read from a real SQLite job queue at each scrape, and the /metrics listener a process
// without the API (`shorts worker`) serves them with: loopback only, or the bearer token.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteJobQueue } from '../src/adapters/sqlite/job-queue.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { EngineMetrics, timedStage } from '../src/engine/metrics.js';
import { startMetricsServer } from '../src/server/metrics-endpoint.js';

const store = new SqliteRequestStore(path.join(mkdtempSync(path.join(os.tmpdir(), 'metrics-')), 'shorts.db'));
afterAll(() => store.close());

const line = (text: string, start: string) => text.split('\n').find((l) => l.startsWith(start));

describe('engine metrics', () => {
  it('two engines in one process count apart; queue depths are read when scraped', async () => {
    const [a, b] = [new EngineMetrics(), new EngineMetrics()];
    const queue = new SqliteJobQueue(store.db);
    a.watchQueues(queue, ['requests']);
    await timedStage(a, 'transcribe', new AbortController().signal, async () => 'done');
    await expect(timedStage(a, 'fetch', new AbortController().signal, async () => { throw new Error('404'); })).rejects.toThrow('404');
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(timedStage(a, 'render', cancelled.signal, async () => { throw new Error('aborted'); })).rejects.toThrow();
    a.creditCharged();
    b.creditRefunded();

    await queue.enqueue({ queue: 'requests', id: 'r1', data: {} });
    await queue.enqueue({ queue: 'requests', id: 'r2', data: {} });
    const text = await a.text();
    expect(line(text, 'shorts_stage_duration_seconds_count{stage="transcribe",outcome="ok"}')).toMatch(/ 1$/);
    expect(line(text, 'shorts_stage_duration_seconds_count{stage="fetch",outcome="failed"}')).toMatch(/ 1$/);
    expect(line(text, 'shorts_stage_duration_seconds_count{stage="render",outcome="aborted"}')).toMatch(/ 1$/);
    expect(line(text, 'shorts_stage_failures_total{stage="fetch"}')).toMatch(/ 1$/);
    expect(line(text, 'shorts_stage_failures_total{stage="render"}')).toBeUndefined(); // a cancel is no failure
    expect(line(text, 'shorts_credits_total{change="charged"}')).toMatch(/ 1$/);
    expect(line(text, 'shorts_credits_total{change="refunded"}')).toBeUndefined();
    expect(line(text, 'shorts_queue_jobs{queue="requests",state="waiting"}')).toMatch(/ 2$/);

    const job = await queue.take(['requests'], 'owner', 30_000);
    await queue.complete(job!);
    const later = await a.text();
    expect(line(later, 'shorts_queue_jobs{queue="requests",state="waiting"}')).toMatch(/ 1$/);
    expect(line(await b.text(), 'shorts_credits_total{change="refunded"}')).toMatch(/ 1$/);
    expect(await b.text()).not.toContain('shorts_queue_jobs{');
  });

  it('a worker\'s own listener: GET /metrics on loopback; with a token, only with it', async () => {
    const metrics = new EngineMetrics();
    metrics.stageDone('render', 2.5, 'ok');
    const open = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0 });
    const locked = await startMetricsServer({ metrics, host: '127.0.0.1', port: 0, token: 's3cret' });
    try {
      const res = await fetch(open.url);
      expect(res.status).toBe(200);
      expect(line(await res.text(), 'shorts_stage_duration_seconds_sum{stage="render",outcome="ok"}')).toMatch(/ 2\.5$/);
      expect((await fetch(open.url, { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(401);
      expect((await fetch(open.url.replace(/metrics$/, 'other'))).status).toBe(404);
      expect((await fetch(open.url, { method: 'POST' })).status).toBe(405);
      expect((await fetch(locked.url)).status).toBe(401);
      expect((await fetch(locked.url, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      expect((await fetch(locked.url, { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    } finally {
      await Promise.all([open.close(), locked.close()]);
    }
  });
});
