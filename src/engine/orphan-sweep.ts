// Requests a queue of its own (BullMQ, distributed mode) holds no job for, found by the workers serving `fetch`
// every minute and enqueued again:
//  - queued API requests a create left without their first job: it died between its commit and its enqueue
//    (once old enough that the create is over: an id's enqueue is a no-op while its job lives, but one that
//    already ran and ended would run again);
//  - processing API requests whose jobs are gone: Redis lost its data (run without persistence, flushed,
//    evicted under a maxmemory policy other than noeviction, or a crash losing its last second), or a stage's
//    job ended without ending its request. Only once no process holds the request's lease and no job of it
//    lives in any queue (a stage's, the render flow's parent or one of its clips'), and enqueued at the stage
//    its checkpoints say: fetch without a source, transcribe without a transcript, analyze without a plan, else
//    the render flow with the clips that have no saved outcome (none left: the finalize alone).
// A job enqueues its successor before it completes, so reading the queues in the stages' order cannot miss a
// request that moves on meanwhile: a stage found ended had its successor enqueued before it ended.
import type { BlobStore } from '../ports/blob-store.js';
import type { JobQueue, JobState } from '../ports/job-queue.js';
import type { RequestStore } from '../ports/request-store.js';
import { JobArtifacts } from './artifacts.js';
import { ANALYZE_QUEUE, FETCH_QUEUE, RENDER_QUEUE, REQUEST_QUEUE, TRANSCRIBE_QUEUE, renderFlow, stageJob } from './jobs.js';

/** Queued API requests older than this with no job are enqueued (a create that died before it enqueued). */
const ORPHAN_AGE_MS = 60_000;

/** The states of a job that will still run (or is running). */
const LIVE: ReadonlySet<JobState> = new Set(['waiting', 'delayed', 'active', 'waiting-children']);

export interface OrphanSweepDeps {
  store: RequestStore;
  queue: JobQueue;
  blobs: BlobStore;
  /** The clips the analyze stage planned (the orchestrator reads its plan checkpoint). */
  plannedClips: (requestId: string) => Promise<string[]>;
  log?: (line: string) => void;
}

export async function sweepOrphans(deps: OrphanSweepDeps): Promise<void> {
  await enqueueQueued(deps);
  await resumeProcessing(deps);
}

async function enqueueQueued({ store, queue, log }: OrphanSweepDeps): Promise<void> {
  const before = Date.now() - ORPHAN_AGE_MS;
  for (const r of await store.listLive()) {
    if (r.origin !== 'api' || r.status !== 'queued' || Date.parse(r.createdAt) > before) continue;
    if (await queue.get(FETCH_QUEUE, r.id) || await queue.get(REQUEST_QUEUE, r.id)) continue;
    if (await queue.enqueue(stageJob('fetch', r.id))) log?.(`queued ${r.id}: its create stopped before it enqueued it`);
  }
}

async function resumeProcessing(deps: OrphanSweepDeps): Promise<void> {
  const { store, queue, blobs, plannedClips, log } = deps;
  // Processing API requests no live lease holds: no stage of theirs runs now.
  for (const id of await store.listOrphaned('api')) {
    // The plan's clips (none before analyze): read once, for the clip jobs to look for and those to enqueue.
    const clips = await plannedClips(id);
    if (await hasLiveJob(queue, id, clips)) continue;
    // Ended meanwhile (its finalize was the job just missed).
    if (await store.requestStatus(id) !== 'processing') continue;
    const art = new JobArtifacts(blobs, id);
    const stage = !await art.has('source') ? 'fetch' : !await art.has('transcript') ? 'transcribe' : !await art.has('plan') ? 'analyze' : 'render';
    let enqueued: boolean;
    if (stage === 'render') {
      const pending: string[] = [];
      for (const c of clips) if (!await art.has(JobArtifacts.clipOutcomeName(c))) pending.push(c);
      const { parent, children } = renderFlow(id, pending);
      enqueued = await queue.enqueueFlow(parent, children);
    } else {
      enqueued = await queue.enqueue(stageJob(stage, id));
    }
    if (enqueued) log?.(`queued ${id} again at its ${stage} stage: no job of it was left in the queues (lost by the queue's store?)`);
  }
}

/** Whether a job of the request will still run: read in the stages' order (see the header). */
async function hasLiveJob(queue: JobQueue, id: string, clips: readonly string[]): Promise<boolean> {
  const live = async (q: string, jobId: string) => LIVE.has((await queue.get(q, jobId))?.state as JobState);
  for (const q of [REQUEST_QUEUE, FETCH_QUEUE, TRANSCRIBE_QUEUE, ANALYZE_QUEUE]) if (await live(q, id)) return true;
  // The render flow: its parent (the finalize) outlives its clips; a clip alone is left only by a partial loss.
  if (await live(RENDER_QUEUE, id)) return true;
  for (const clip of renderFlow(id, clips).children) if (await live(clip.queue, clip.id)) return true;
  return false;
}
