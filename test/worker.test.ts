// Worker recovery rules on a real SQLite store: a request left `processing` by a dead process is taken
// over; one that has already been started too many times fails with a reason and is refunded.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { LeaseKeeper } from '../src/engine/lease-keeper.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { Orchestrator } from '../src/engine/orchestrator.js';
import { renderSettingsFromEnv } from '../src/engine/render-settings.js';
import { Worker } from '../src/engine/worker.js';
import { createTranscriber } from '../src/pipeline/transcribe/transcribe.js';
import { validateCreateRequest } from '../src/service/create-request.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';

const options = validateCreateRequest({ fileUrl: 'http://127.0.0.1:9/never.mp4', start: 0, end: 120 }, {
  allowLocalFile: false, templateExists: () => true, defaultTemplateId: DEFAULT_TEMPLATE.templateId, supportedFeatures: new Set(),
});

function setup() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'worker-'));
  const store = new SqliteRequestStore(path.join(dataDir, 'shorts.db'));
  const orchestrator = new Orchestrator({ store, transcriber: createTranscriber({ dataDir }), dataDir, render: renderSettingsFromEnv() });
  const refunds: string[] = [];
  const finished: string[] = [];
  const leases = new LeaseKeeper(new SqliteLeaseStore(store.db));
  const worker = new Worker({
    store, orchestrator, leases, concurrency: 1, refund: (id) => { refunds.push(id); }, onFinished: async (r) => { finished.push(`${r.id}:${r.status}`); },
    track: () => () => {}, pollMs: 50,
  });
  return { store, worker, refunds, finished, leases };
}

describe('Worker recovery', () => {
  it('fails a request that keeps dying with its process, with a reason, a refund and a webhook', async () => {
    const { store, worker, refunds, finished } = setup();
    const id = 'd'.repeat(24);
    await store.insertRequest({ id, accountId: 'acc', origin: 'api', userEmail: 'a@b.c', options, url: options.source.kind === 'fileUrl' ? options.source.url : '', start: 0, end: 120 });
    store.db.prepare(`UPDATE requests SET status = 'processing', step = 'transcribing_audio', progress = 45, attempts = 3 WHERE id = ?`).run(id);
    worker.start();
    await new Promise((r) => setTimeout(r, 300));
    await worker.stop();
    expect(await store.getRequest(id)).toMatchObject({ status: 'failed', failureReason: 'internal error: processing stopped unexpectedly 3 times', progress: 45 });
    expect(refunds).toEqual([id]);
    expect(finished).toEqual([`${id}:failed`]);
  });

  it('takes queued API requests in creation order and leaves local ones alone', async () => {
    const { store, worker, leases } = setup();
    for (const [i, origin] of (['api', 'local', 'api'] as const).entries())
      await store.insertRequest({ id: String(i).repeat(24), accountId: 'acc', origin, userEmail: 'a@b.c', options, url: 'x', start: 0, end: 120 });
    // What a worker slot does: the oldest queued request whose lease is free, leased, then started.
    const claimNextQueued = async () => {
      for (const id of await store.queuedUnleased(1)) {
        const lease = await leases.acquire({ kind: 'request', id });
        if (lease) return store.startQueued(id, lease);
      }
      return undefined;
    };
    expect((await claimNextQueued())?.id).toBe('0'.repeat(24));
    expect((await claimNextQueued())?.id).toBe('2'.repeat(24));
    expect(await claimNextQueued()).toBeUndefined();
    expect((await store.getRequest('1'.repeat(24)))!.status).toBe('queued');
    void worker;
  });
});
