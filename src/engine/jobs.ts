// The engine's queues and their jobs (the job queue port, src/ports/job-queue.ts). Issue 24: a stage is a job,
// so an API request runs as jobs of the stage queues, each one stage from the checkpoints the previous stages
// stored (the orchestrator's runStage), on whatever worker serves that queue (`shorts worker --queues`):
//   fetch -> transcribe -> analyze -> a flow: one `render` job per planned clip (the children) and the
//   request's `finalize` job (the parent, in `render` too: finalizing is the render step's end) -> notify.
// Ids: the request's id in fetch, transcribe, analyze, notify and (its finalize) render; `clip-<shortId>` for a
// clip's render, the clip's id for a re-render (ids never hold ':', which BullMQ refuses). A job enqueues the
// next one before it completes, so a worker killed in between leaves a job that runs again from the checkpoint
// and enqueues the same id (a no-op while that one waits or runs). Notify sends the webhook of a terminal state
// and is enqueued by whoever made it terminal (finalize, or the stage that failed): one job per request, so one
// webhook; a cancel sends none. Requests made locally are not queued: `shorts create` runs every stage in its
// own process (Orchestrator.run), the same stage code without a queue.
//
// Retries stay inside the job (stages.ts's withRetry, the stage's RetryPolicy), not the queue's attempts and
// backoff: the local run needs the same policies without a queue, and a retry from the checkpoint in the same
// process keeps the files it has. A job's attempts count only the starts that died with their process (stalled
// jobs): JOB_ATTEMPTS of them and it is settled as failed (its request failed and refunded, a clip errored).
//
// `requests` and `rerenders` are the queues before issue 24: jobs a data dir of an earlier version still holds
// are run as they were (a request whole, through Orchestrator.run), never enqueued any more.
import type { NewJob } from '../ports/job-queue.js';
import type { RequestStageName } from './stages.js';

export const FETCH_QUEUE = 'fetch';
export const TRANSCRIBE_QUEUE = 'transcribe';
export const ANALYZE_QUEUE = 'analyze';
export const RENDER_QUEUE = 'render';
export const NOTIFY_QUEUE = 'notify';
/** Every queue `shorts worker --queues` may name (default all). */
export const STAGE_QUEUES = [FETCH_QUEUE, TRANSCRIBE_QUEUE, ANALYZE_QUEUE, RENDER_QUEUE, NOTIFY_QUEUE, 'publish'] as const;
export type StageQueue = typeof STAGE_QUEUES[number];
/** The queues a request's jobs may be in: a cancel cancels its job in each. */
export const REQUEST_QUEUES = [FETCH_QUEUE, TRANSCRIBE_QUEUE, ANALYZE_QUEUE, RENDER_QUEUE, NOTIFY_QUEUE] as const;

/** Before issue 24: one job per request, one per re-render (still run when an upgraded data dir has some). */
export const REQUEST_QUEUE = 'requests';
export const RERENDER_QUEUE = 'rerenders';
export const LEGACY_QUEUES = [REQUEST_QUEUE, RERENDER_QUEUE] as const;

/**
 * Starts of a job after which one that keeps dying with its process is failed instead of run again. Nothing is
 * retried on a failure (a stage retries inside its job, from its checkpoint): attempts count stalls.
 */
export const JOB_ATTEMPTS = 3;

export interface RequestJobData { requestId: string }
export interface RerenderJobData { requestId: string; shortId: string }
/** What a `render` job does: one planned clip of a running request, the request's end once its clips ended, or a re-render. */
export type RenderJobData =
  | { kind: 'clip'; requestId: string; shortId: string }
  | { kind: 'finalize'; requestId: string }
  | ({ kind: 'rerender' } & RerenderJobData);

const options = { attempts: JOB_ATTEMPTS };

/** A request's job in the queue of one of its stages before render (fetch is the first: an API create enqueues it). */
export function stageJob(stage: Exclude<RequestStageName, 'render'>, requestId: string): NewJob<RequestJobData> {
  return { queue: stage, id: requestId, data: { requestId }, options };
}

/** The flow analyze ends with: one render job per clip, and the request's finalize once they all ended. */
export function renderFlow(requestId: string, shortIds: readonly string[]): { parent: NewJob<RenderJobData>; children: NewJob<RenderJobData>[] } {
  return {
    parent: { queue: RENDER_QUEUE, id: requestId, data: { kind: 'finalize', requestId }, options },
    children: shortIds.map((shortId) => ({ queue: RENDER_QUEUE, id: `clip-${shortId}`, data: { kind: 'clip', requestId, shortId }, options })),
  };
}

/** The webhook of a request's terminal state. */
export function notifyJob(requestId: string): NewJob<RequestJobData> {
  return { queue: NOTIFY_QUEUE, id: requestId, data: { requestId }, options };
}

export function rerenderJob(requestId: string, shortId: string): NewJob<RenderJobData> {
  return { queue: RENDER_QUEUE, id: shortId, data: { kind: 'rerender', requestId, shortId }, options };
}

/** The legacy shape (test/job-queue-migration.test.ts reads what migration v11 enqueued). */
export function requestJob(requestId: string): NewJob<RequestJobData> {
  return { queue: REQUEST_QUEUE, id: requestId, data: { requestId }, options };
}

/** Parses `--queues LIST`: names of STAGE_QUEUES, comma-separated; undefined when one is unknown. */
export function parseQueues(list: string): StageQueue[] | undefined {
  const names = list.split(',').map((q) => q.trim()).filter(Boolean);
  if (names.length === 0 || names.some((q) => !(STAGE_QUEUES as readonly string[]).includes(q))) return undefined;
  return [...new Set(names)] as StageQueue[];
}

// ---- The `publish` queue (posts; issue 24) -------------------------------------------------------------------
// One job per post an API account scheduled, its id the post's (24 hex characters, no ':'), due at the post's time;
// whichever process serves `publish` takes it (src/posts/publish-worker.ts). A post's retries (STAGES.publish) are
// that job handed back until the retry's time, not the job's own attempts: the post store counts the attempts at
// the platform (they are the post's `attempts`) and the retry's wait is known only when it fails (a platform's
// Retry-After). The job's attempts count the starts that died with their process, as a request's do.
// Posts of local mode are not queued: `shorts posts run` publishes them in the foreground, as local requests are.

export const PUBLISH_QUEUE = 'publish';

export interface PublishJobData { postId: string }

/** The publish job of a post, due at `dueAt` (ISO: its scheduledAt, or the time of its next retry). */
export function publishJob(postId: string, dueAt: string, now = Date.now()): NewJob<PublishJobData> {
  return { queue: PUBLISH_QUEUE, id: postId, data: { postId }, options: { attempts: JOB_ATTEMPTS, delayMs: Math.max(0, Date.parse(dueAt) - now) } };
}
