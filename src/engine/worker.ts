// Workers inside `shorts serve`: take jobs from the job queue (src/ports/job-queue.ts, queues of
// src/engine/jobs.ts) a bounded number at a time, run requests through the orchestrator, refund the credit of a
// failed request and send its webhook; the same slots run clip re-renders (issue 14: no webhook, no credit).
// A job enqueued in this process wakes the workers at once; one enqueued by another process on the same data
// dir is found at the next poll (the loop: job-loop.ts). While a job runs, its lock is extended every second at most: the answer says
// when a DELETE made anywhere cancelled it (the job stops within that second) or another process took it over.
// Under the job, the request or clip is held under its lease (issue 22) that the process's LeaseKeeper renews
// and that fences the store's finishing writes. A killed process stops extending its locks: another worker (or
// this one after a restart) takes the job again with one more attempt, and fails it past its attempts. A stop
// hands the jobs and leases back so another process resumes the work at once.
import type { RequestStore, RequestRecord } from '../ports/request-store.js';
import { TERMINAL } from '../ports/request-store.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import { Orchestrator, ShutdownSignal } from './orchestrator.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { JobLoop, type JobOutcome } from './job-loop.js';
import { LeaseLost, type LeaseKey } from '../ports/leases.js';
import { REQUEST_QUEUE, WORKER_QUEUES, type RequestJobData, type RerenderJobData } from './jobs.js';

/** How long a job whose lease another process still holds (its lock ran out first) waits before it is tried again. */
const LEASE_BUSY_RETRY_MS = 1000;

export interface WorkerOptions {
  store: RequestStore;
  orchestrator: Orchestrator;
  /** The queue the jobs are taken from. */
  queue: JobQueue;
  /** This process's leases: every request and re-render run here is held under one; the job locks last as long. */
  leases: LeaseKeeper;
  concurrency: number;
  /** Refunds the credit of a failed request (spec 6: failed requests are refunded). */
  refund: (requestId: string) => void;
  /** Called once a request reaches completed or failed (webhooks). Never awaited by the worker slot. */
  onFinished?: (request: RequestRecord) => Promise<void>;
  /** Registers the job's AbortController so DELETE kills it at once; returns the unregister function. */
  track: (requestId: string, controller: AbortController) => () => void;
  pollMs?: number;
  log?: (line: string) => void;
}

export class Worker {
  private readonly loop: JobLoop;
  private readonly followUps = new Set<Promise<void>>();
  /** Until the queue is first found empty, jobs other processes left are the backlog of this start ("resuming"). */
  private startBacklog = true;

  constructor(private readonly opts: WorkerOptions) {
    const log = (line: string) => opts.log?.(line);
    this.loop = new JobLoop({
      queue: opts.queue, queues: WORKER_QUEUES, leases: opts.leases, concurrency: opts.concurrency, pollMs: opts.pollMs, log,
      run: (job, controller) => (job.queue === REQUEST_QUEUE ? this.runRequest(job as Job<RequestJobData>, controller) : this.runRerender(job as Job<RerenderJobData>, controller)),
      // A cancel asked anywhere stops the job as a DELETE here would; a lock another take has now stops it like a
      // lost lease (the new holder finishes it, nothing is written here).
      onLock: (job, state, controller) => controller.abort(state === 'lost' ? new LeaseLost(leaseKeyOf(job)) : undefined),
      onError: (job, e) => {
        log(`worker error on job ${job.queue}:${job.id}: ${e instanceof Error ? e.message : String(e)}`);
        return { end: 'fail', reason: e instanceof Error ? e.message : String(e) };
      },
      stopReason: () => new ShutdownSignal(),
      onIdle: () => { this.startBacklog = false; },
    });
  }

  /** Takes due jobs now, then at every poll, and at once when this process enqueues one. */
  start(): void {
    this.startBacklog = true;
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  /**
   * Stops taking work. Running jobs are interrupted with a ShutdownSignal and handed back: they stay
   * `processing` with their checkpoints and resume on the next start (they are not cancelled, not failed).
   */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.all(this.followUps);
  }

  get running(): number {
    return this.loop.running;
  }

  private noteRetake(job: Job, what: string): void {
    if (job.attempt <= 1) return;
    this.opts.log?.(this.startBacklog ? `resuming 1 interrupted ${what}` : `taking over 1 ${what}(s) left processing by a stopped process`);
  }

  private async runRequest(job: Job<RequestJobData>, controller: AbortController): Promise<JobOutcome> {
    const { store, orchestrator, refund, leases } = this.opts;
    const id = job.data.requestId;
    // Its lock ran out before the lease of the process that had it: that lease runs out soon too.
    const lease = await leases.acquire({ kind: 'request', id }, controller);
    if (!lease) return { end: 'handBack', delayMs: LEASE_BUSY_RETRY_MS };
    const untrack = this.opts.track(id, controller);
    try {
      const record = await store.startRun(id, lease);
      if (!record) return { end: 'complete' }; // cancelled (or finished) meanwhile
      this.noteRetake(job, 'request');
      let final: RequestRecord;
      if (job.exhausted) {
        await store.finish(id, 'failed', `internal error: processing stopped unexpectedly ${job.attempt - 1} times`, lease);
        final = (await store.getRequest(id))!;
      } else {
        final = await orchestrator.run(id, controller.signal, { lease });
      }
      // Lost to another process (this one stalled past its lease): that process finishes it, refunds, notifies.
      if (controller.signal.reason instanceof LeaseLost || !(await leases.confirm(lease))) {
        this.opts.log?.(`request ${id}: another process took it over (this one stopped renewing its lease in time); stopped here`);
        return { end: 'none' };
      }
      // Still live: stopped by a shutdown, to resume from its checkpoints.
      if (!TERMINAL.has(final.status)) return { end: 'handBack' };
      if (final.status === 'failed') refund(final.id);
      if ((final.status === 'failed' || final.status === 'completed') && this.opts.onFinished) {
        const followUp = this.opts.onFinished(final).catch((e: unknown) => this.opts.log?.(`webhook for ${final.id}: ${String(e)}`));
        this.followUps.add(followUp);
        void followUp.finally(() => this.followUps.delete(followUp));
      }
      return final.status === 'failed' ? { end: 'fail', reason: final.failureReason ?? 'failed' } : { end: 'complete' };
    } finally {
      untrack();
      // Finished, or stopped by a shutdown: either way another process may take it at once.
      await leases.release(lease);
    }
  }

  private async runRerender(job: Job<RerenderJobData>, controller: AbortController): Promise<JobOutcome> {
    const { store, orchestrator, leases } = this.opts;
    const { requestId, shortId } = job.data;
    const lease = await leases.acquire({ kind: 'rerender', id: shortId }, controller);
    if (!lease) return { end: 'handBack', delayMs: LEASE_BUSY_RETRY_MS };
    try {
      if ((await store.claimRerender(shortId, lease)) === null) return { end: 'complete' }; // finished or given up meanwhile
      this.noteRetake(job, 're-render');
      if (job.exhausted) {
        const why = `internal error: the re-render stopped unexpectedly ${job.attempt - 1} times; the clip is as it was`;
        await store.abandonRerender(shortId, why, lease);
        return { end: 'fail', reason: why };
      }
      const short = await orchestrator.rerender(requestId, shortId, controller.signal, { lease });
      if (controller.signal.reason instanceof LeaseLost) {
        this.opts.log?.(`re-render of ${shortId}: another process took it over; stopped here`);
        return { end: 'none' };
      }
      return short?.recompiling ? { end: 'handBack' } : { end: 'complete' };
    } finally {
      await leases.release(lease);
    }
  }
}

function leaseKeyOf(job: Job): LeaseKey {
  const data = job.data as Partial<RerenderJobData>;
  return job.queue === REQUEST_QUEUE ? { kind: 'request', id: job.id } : { kind: 'rerender', id: data.shortId ?? job.id };
}
