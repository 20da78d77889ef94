// Issue 24 point 5: a queue that lost its jobs (Redis run without persistence, flushed, or evicting keys) must
// not leave requests `processing` forever. The sweep of the workers serving `fetch` (src/engine/orphan-sweep.ts)
// enqueues a processing API request again once no process holds its lease and no job of it lives in any queue,
// at the stage its checkpoints say. Real engines through the composition root: the state and BullMQ's queues on
// a PostgreSQL server started here, the checkpoints in the data dir's blob store.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/app/create-engine.js';
import type { CreateRequest } from '../src/domain/request.js';
import { JobArtifacts } from '../src/engine/artifacts.js';
import { renderFlow } from '../src/engine/jobs.js';
import { sweepOrphans } from '../src/engine/orphan-sweep.js';
import { startPostgres, type Postgres } from './helpers/engines.js';

let pg: Postgres;
let engine: Engine;
let dir: string;
const saved = new Map<string, string | undefined>();

beforeAll(async () => {
  pg = await startPostgres();
  dir = mkdtempSync(path.join(os.tmpdir(), 'orphan-sweep-'));
  const env = { SHORTS_DATABASE_URL: await pg.createDatabase('sweep'), SHORTS_SECRET_KEY: 'c'.repeat(64) };
  for (const [k, v] of Object.entries(env)) {
    saved.set(k, process.env[k]);
    process.env[k] = v;
  }
  engine = createEngine({ dataDir: dir });
}, 120_000);

afterAll(async () => {
  await engine?.close();
  await pg?.close();
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A processing API request (its run started, then its runner gone) with these checkpoints. */
async function processing(checkpoints: Record<string, unknown>): Promise<string> {
  const id = randomBytes(12).toString('hex');
  const url = 'https://cdn.example.com/talk.mp4';
  await engine.store.insertRequest({ id, accountId: 'acc', origin: 'api', userEmail: 'a@example.com', url, start: 0, end: 60,
    options: { source: { kind: 'fileUrl', url }, start: 0, end: 60 } as unknown as CreateRequest });
  const lease = (await engine.leases.acquire({ kind: 'request', id }))!;
  await engine.store.startRun(id, lease);
  await engine.leases.release(lease);
  const art = new JobArtifacts(engine.blobs, id);
  for (const [name, value] of Object.entries(checkpoints)) await art.write(name, value);
  return id;
}

it('enqueues a processing request whose jobs are gone at the stage its checkpoints say, and leaves alone one with a live job or lease', async () => {
  const { queue } = engine;
  // Clip ids are unique across requests, as the analyze stage makes them.
  const plan = (...ids: string[]) => ({ clips: ids.map((id) => ({ id })) });
  const noSource = await processing({});
  const fetched = await processing({ source: {} });
  const transcribed = await processing({ source: {}, transcript: {} });
  const planned = await processing({ source: {}, transcript: {}, plan: plan('a1', 'a2'), [JobArtifacts.clipOutcomeName('a1')]: {} });
  // A clip of its render flow still waits (the parent was lost): the request is not orphaned.
  const clipLeft = await processing({ source: {}, transcript: {}, plan: plan('b1', 'b2') });
  await queue.enqueue(renderFlow(clipLeft, ['b1']).children[0]!);
  // A process still holds its lease (between two of its queue's calls): not orphaned either.
  const leased = await processing({ source: {} });
  const held = await engine.leases.acquire({ kind: 'request', id: leased });

  const lines: string[] = [];
  const sweep = () => sweepOrphans({ store: engine.store, queue, blobs: engine.blobs, plannedClips: (id) => engine.orchestrator().plannedClips(id), log: (l) => lines.push(l) });
  await sweep();

  const state = async (q: string, id: string) => (await queue.get(q, id))?.state;
  expect(await state('fetch', noSource)).toBe('waiting');
  expect(await state('transcribe', fetched)).toBe('waiting');
  expect(await state('analyze', transcribed)).toBe('waiting');
  // The render flow with the clip that has no saved outcome; its finalize waits for it.
  expect(await state('render', planned)).toBe('waiting-children');
  expect(await state('render', renderFlow(planned, ['a2']).children[0]!.id)).toBe('waiting');
  expect(await state('render', renderFlow(planned, ['a1']).children[0]!.id)).toBeUndefined();
  expect(await state('render', clipLeft)).toBeUndefined();
  expect(await state('transcribe', leased)).toBeUndefined();
  expect(lines.sort()).toEqual([
    `queued ${noSource} again at its fetch stage: no job of it was left in the queues (lost by the queue's store?)`,
    `queued ${fetched} again at its transcribe stage: no job of it was left in the queues (lost by the queue's store?)`,
    `queued ${transcribed} again at its analyze stage: no job of it was left in the queues (lost by the queue's store?)`,
    `queued ${planned} again at its render stage: no job of it was left in the queues (lost by the queue's store?)`,
  ].sort());

  // Their jobs live now: the next sweep adds nothing.
  await sweep();
  expect(lines).toHaveLength(4);
  await engine.leases.release(held!);
}, 60_000);
