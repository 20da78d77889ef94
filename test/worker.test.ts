// Worker recovery rules on a real SQLite store and job queue: a request left `processing` by a dead process is
// taken over; one that has already been started too many times fails with a reason and is refunded.
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteJobQueue } from '../src/adapters/sqlite/job-queue.js';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { LeaseKeeper } from '../src/engine/lease-keeper.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { Orchestrator } from '../src/engine/orchestrator.js';
import { renderSettingsFromEnv } from '../src/engine/render-settings.js';
import { Worker } from '../src/engine/worker.js';
import { FETCH_QUEUE, REQUEST_QUEUE, requestJob } from '../src/engine/jobs.js';
import { Service } from '../src/service/service.js';
import { createTranscriber } from '../src/pipeline/transcribe/transcribe.js';
import { validateCreateRequest } from '../src/service/create-request.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

const options = validateCreateRequest({ fileUrl: 'http://127.0.0.1:9/never.mp4', start: 0, end: 120 }, {
  allowLocalFile: false, templateExists: () => true, defaultTemplateId: DEFAULT_TEMPLATE.templateId, supportedFeatures: new Set(),
});

function setup() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'worker-'));
  const store = new SqliteRequestStore(path.join(dataDir, 'shorts.db'));
  const orchestrator = new Orchestrator({ store, blobs: new FsBlobStore(dataDir), media: createLocalMediaRunner(), transcriber: createTranscriber({ dataDir }), dataDir, render: renderSettingsFromEnv() });
  const refunds: string[] = [];
  const finished: string[] = [];
  const leases = new LeaseKeeper(new SqliteLeaseStore(store.db));
  const queue = new SqliteJobQueue(store.db);
  const worker = new Worker({
    store, orchestrator, leases, queue, concurrency: 1, refund: (id) => { refunds.push(id); }, onFinished: async (r) => { finished.push(`${r.id}:${r.status}`); },
    track: () => () => {}, pollMs: 50,
  });
  return { store, worker, refunds, finished, leases, queue };
}

describe('Worker recovery', () => {
  it('fails a request that keeps dying with its process, with a reason, a refund and a webhook', async () => {
    const { store, worker, refunds, finished, queue } = setup();
    const id = 'd'.repeat(24);
    await store.insertRequest({ id, accountId: 'acc', origin: 'api', userEmail: 'a@b.c', options, url: options.source.kind === 'fileUrl' ? options.source.url : '', start: 0, end: 120 });
    store.db.prepare(`UPDATE requests SET status = 'processing', step = 'transcribing_audio', progress = 45, attempts = 3 WHERE id = ?`).run(id);
    // Its job was taken three times by processes that died (their locks ran out without being extended).
    await queue.enqueue(requestJob(id));
    for (let i = 0; i < 3; i++) {
      expect(await queue.take([REQUEST_QUEUE], `dead-${i}`, 20)).toMatchObject({ id, attempt: i + 1 });
      await new Promise((r) => setTimeout(r, 40));
    }
    worker.start();
    await new Promise((r) => setTimeout(r, 300));
    await worker.stop();
    expect(await store.getRequest(id)).toMatchObject({ status: 'failed', failureReason: 'internal error: processing stopped unexpectedly 3 times', progress: 45 });
    expect(refunds).toEqual([id]);
    expect(finished).toEqual([`${id}:failed`]);
  });

  it('takes queued API requests in creation order and leaves local ones alone', async () => {
    const { store, worker, leases, queue } = setup();
    const service = new Service(store, { blobs: new FsBlobStore(store.dataDir), queue });
    const ids: string[] = [];
    for (const origin of ['api', 'local', 'api'] as const)
      ids.push((await service.create({ id: 'acc', email: 'a@b.c' }, { fileUrl: 'http://127.0.0.1:9/never.mp4', start: 0, end: 120 }, origin)).requestId);
    // What a worker slot does: the next job of the fetch queue (a request's first stage), the request's lease, then started.
    const claimNextQueued = async () => {
      const job = await queue.take([FETCH_QUEUE], leases.owner, leases.ttlMs);
      if (!job) return undefined;
      const lease = await leases.acquire({ kind: 'request', id: job.id });
      if (lease) return store.startRun(job.id, lease);
      return undefined;
    };
    expect((await claimNextQueued())?.id).toBe(ids[0]);
    expect((await claimNextQueued())?.id).toBe(ids[2]);
    expect(await claimNextQueued()).toBeUndefined();
    expect((await store.getRequest(ids[1]!))!.status).toBe('queued');
    void worker;
  });
});
