// The engine's queues and their jobs (the job queue port, src/ports/job-queue.ts): one job per API request
// (its id the request's) and one per re-render of an API request's clip (its id the clip's). Requests made
// locally are not queued: the `shorts` process that makes one runs it in the foreground under its lease.
// Issue 24 splits the request queue per stage; the shapes here are what migration v11 enqueued at upgrade.
import type { NewJob } from '../ports/job-queue.js';

export const REQUEST_QUEUE = 'requests';
export const RERENDER_QUEUE = 'rerenders';
export const WORKER_QUEUES = [REQUEST_QUEUE, RERENDER_QUEUE] as const;

/**
 * Starts of a job after which one that keeps dying with its process is failed instead of run again. Nothing is
 * retried on a failure (a request's stages retry inside it, from their checkpoints): attempts count stalls.
 */
export const JOB_ATTEMPTS = 3;

export interface RequestJobData { requestId: string }
export interface RerenderJobData { requestId: string; shortId: string }

export function requestJob(requestId: string): NewJob<RequestJobData> {
  return { queue: REQUEST_QUEUE, id: requestId, data: { requestId }, options: { attempts: JOB_ATTEMPTS } };
}

export function rerenderJob(requestId: string, shortId: string): NewJob<RerenderJobData> {
  return { queue: RERENDER_QUEUE, id: shortId, data: { requestId, shortId }, options: { attempts: JOB_ATTEMPTS } };
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
