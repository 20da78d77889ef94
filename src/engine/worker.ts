// The workers of `serve` and `shorts worker`: take jobs of the queues they are given (src/engine/jobs.ts; default
// all) a bounded number at a time and run each by its queue: one stage of a request (fetch, transcribe, analyze),
// one clip's render, a request's finalize once its clips ended, a clip's re-render (issue 14: no webhook, no
// credit), or the webhook of a request that ended (notify). A stage that fails the request refunds its credit and
// enqueues its notify job. A job enqueued in this process wakes the workers at once; one enqueued by another
// process is found at the next poll. While a job runs, its lock is extended every second at most: the answer
// says when a DELETE made anywhere cancelled it (the job stops within that second, its children killed) or
// another process took it over. Under the job, the request (or clip) is held under its lease (issue 22) that the
// process's LeaseKeeper renews and that fences the store's finishing writes. A killed process stops extending its
// locks: another worker (or this one after a restart) takes the job again with one more attempt, and settles it
// as failed past its attempts. A stop hands the jobs and leases back so another process resumes the work at once.
import type { RequestStore, RequestRecord } from '../ports/request-store.js';
import { TERMINAL } from '../ports/request-store.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import { JobLoop, type JobOutcome } from './job-loop.js';
import type { Orchestrator } from './orchestrator.js';
import { ShutdownSignal } from './interruptions.js';
import { sweepOrphans } from './orphan-sweep.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { LeaseLost, type Lease, type LeaseKey } from '../ports/leases.js';
import { engineUnavailable } from '../ports/unavailable.js';
import {
  ANALYZE_QUEUE, FETCH_QUEUE, LEGACY_QUEUES, NOTIFY_QUEUE, PUBLISH_QUEUE, RENDER_QUEUE, REQUEST_QUEUE, RERENDER_QUEUE, STAGE_QUEUES, TRANSCRIBE_QUEUE,
  notifyJob, renderFlow, stageJob, type RenderJobData, type RequestJobData, type RerenderJobData,
} from './jobs.js';

/** How often a worker serving `fetch` looks for API requests the queue holds no job for (orphan-sweep.ts). */
const SWEEP_EVERY_MS = 60_000;

/** How long a job whose lease another process still holds (its lock ran out first) waits before it is tried again. */
const LEASE_BUSY_RETRY_MS = 1000;
/** How long a job stopped by the database or Redis being unreachable (a restart) waits before it runs again. */
const ENGINE_DOWN_RETRY_MS = 3000;

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
  /** The webhook (and automation) of a request that reached completed or failed: its notify job runs it. */
  onFinished?: (request: RequestRecord) => Promise<void>;
  /** The queues to take jobs from (default every stage queue and the legacy ones; `publish` is the post publisher's). */
  queues?: readonly string[];
  /** Registers the job's AbortController so DELETE kills it at once; returns the unregister function. */
  track: (requestId: string, controller: AbortController) => () => void;
  /**
   * The queue is outside the store's transactions (BullMQ): a dead create can leave a queued request with no
   * job, and a queue's store that lost its data a processing one; a worker serving `fetch` sweeps for both.
   */
  queueOutsideTransaction?: boolean;
  /** Where the requests' checkpoints are: the sweep enqueues a processing request at the stage they say. */
  blobs?: BlobStore;
  pollMs?: number;
  log?: (line: string) => void;
}

type Outcome = JobOutcome;

export class Worker {
  private readonly loop: JobLoop;
  /** Until the queue is first found empty, jobs other processes left are the backlog of this start ("resuming"). */
  private startBacklog = true;

  constructor(private readonly opts: WorkerOptions) {
    const log = (line: string) => opts.log?.(line);
    this.loop = new JobLoop({
      // `publish` is served by the posts' own worker (src/posts/publish-worker.ts).
      queue: opts.queue, queues: (opts.queues ?? [...STAGE_QUEUES, ...LEGACY_QUEUES]).filter((q) => q !== PUBLISH_QUEUE),
      leases: opts.leases, concurrency: opts.concurrency, pollMs: opts.pollMs, log,
      run: (job, controller) => this.logged(job, () => this.dispatch(job, controller)),
      // A cancel asked anywhere stops the job as a DELETE here would; a lock another take has now stops it like a
      // lost lease (the new holder finishes it, nothing is written here).
      onLock: (job, state, controller) => controller.abort(state === 'lost' ? new LeaseLost(leaseKeyOf(job)) : undefined),
      onError: (job, e) => {
        const down = engineUnavailable(e);
        if (down) {
          log(`${job.queue}/${job.id}: ${down.engine} cannot be reached (${down.message}); handed back to run again from its checkpoint`);
          return { end: 'handBack', delayMs: ENGINE_DOWN_RETRY_MS };
        }
        log(`worker error on job ${job.queue}/${job.id}: ${e instanceof Error ? e.message : String(e)}`);
        return { end: 'fail', reason: e instanceof Error ? e.message : String(e) };
      },
      stopReason: () => new ShutdownSignal(),
      onIdle: () => { this.startBacklog = false; },
    });
  }

  private sweepTimer: NodeJS.Timeout | null = null;

  /** Takes due jobs now, then at every poll, and at once when this process enqueues one. */
  start(): void {
    this.startBacklog = true;
    this.loop.start();
    const { store, queue, blobs, orchestrator, log } = this.opts;
    if (this.opts.queueOutsideTransaction && blobs && (this.opts.queues ?? [FETCH_QUEUE]).includes(FETCH_QUEUE)) {
      const deps = { store, queue, blobs, plannedClips: (id: string) => orchestrator.plannedClips(id), log };
      const sweep = () => { sweepOrphans(deps).catch((e: unknown) => log?.(`sweep: ${e instanceof Error ? e.message : String(e)}`)); };
      sweep();
      this.sweepTimer = setInterval(sweep, SWEEP_EVERY_MS);
      this.sweepTimer.unref();
    }
  }

  wake(): void {
    this.loop.wake();
  }

  /**
   * Stops taking work. Running jobs are interrupted with a ShutdownSignal and handed back: they stay
   * `processing` with their checkpoints and resume on the next start (they are not cancelled, not failed).
   */
  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    await this.loop.stop();
  }

  get running(): number {
    return this.loop.running;
  }

  /** One line when a job starts and one when it ends (`shorts worker` prints them: which process ran which stage). */
  private async logged(job: Job, run: () => Promise<Outcome>): Promise<Outcome> {
    const slot = `${job.queue}/${job.id}`;
    this.opts.log?.(`${slot} started${job.attempt > 1 ? ` (attempt ${job.attempt})` : ''}`);
    let outcome: Outcome;
    try {
      outcome = await run();
    } catch (e) {
      this.opts.log?.(`${slot} ended: error`);
      throw e;
    }
    this.opts.log?.(`${slot} ended: ${outcome.end === 'fail' ? `failed (${outcome.reason})` : outcome.end === 'complete' ? 'done' : outcome.end === 'handBack' ? 'handed back' : 'left to another process'}`);
    return outcome;
  }

  private noteRetake(job: Job, what: string): void {
    if (job.attempt <= 1) return;
    this.opts.log?.(this.startBacklog ? `resuming 1 interrupted ${what}` : `taking over 1 ${what}(s) left processing by a stopped process`);
  }

  /** Runs a job by its queue (and a render job by its kind). */
  private dispatch(job: Job, controller: AbortController): Promise<Outcome> {
    const { orchestrator } = this.opts;
    const { signal } = controller;
    const request = job as Job<RequestJobData>;
    const id = request.data.requestId;
    switch (job.queue) {
      case FETCH_QUEUE:
        return this.requestStep(request, controller, (lease) => orchestrator.runStage(id, 'fetch', signal, { lease }), () => this.enqueue(stageJob('transcribe', id)));
      case TRANSCRIBE_QUEUE:
        return this.requestStep(request, controller, (lease) => orchestrator.runStage(id, 'transcribe', signal, { lease }), () => this.enqueue(stageJob('analyze', id)));
      case ANALYZE_QUEUE:
        return this.requestStep(request, controller, (lease) => orchestrator.runStage(id, 'analyze', signal, { lease }), async () => {
          const { parent, children } = renderFlow(id, await orchestrator.plannedClips(id));
          await this.opts.queue.enqueueFlow(parent, children);
        });
      case RENDER_QUEUE: {
        const data = job.data as RenderJobData;
        if (data.kind === 'clip') return this.runClip(job as Job<Extract<RenderJobData, { kind: 'clip' }>>, controller);
        if (data.kind === 'finalize') return this.requestStep(request, controller, (lease) => orchestrator.finalize(id, signal, { lease }));
        return this.runRerender(job as Job<RerenderJobData>, controller);
      }
      case NOTIFY_QUEUE:
        return this.runNotify(request);
      case REQUEST_QUEUE:
        return this.requestStep(request, controller, (lease) => orchestrator.run(id, signal, { lease }));
      case RERENDER_QUEUE:
        return this.runRerender(job as Job<RerenderJobData>, controller);
      default:
        return Promise.resolve({ end: 'fail', reason: `no worker runs jobs of the queue "${job.queue}"` });
    }
  }

  private async enqueue(job: Parameters<JobQueue['enqueue']>[0]): Promise<void> {
    await this.opts.queue.enqueue(job);
  }

  /**
   * One job that works on a request under its lease: `work` runs it (a stage, the finalize, or a whole legacy
   * request), then `next` enqueues what follows while the request is still processing. A request that ended
   * failed is refunded; one that ended completed or failed gets its notify job (the webhook, once).
   */
  private async requestStep(job: Job<RequestJobData>, controller: AbortController, work: (lease: Lease) => Promise<RequestRecord>, next?: () => Promise<void>): Promise<Outcome> {
    const { store, refund, leases } = this.opts;
    const id = job.data.requestId;
    // Its lock ran out before the lease of the process that had it: that lease runs out soon too.
    const lease = await leases.acquire({ kind: 'request', id }, controller);
    if (!lease) return { end: 'handBack', delayMs: LEASE_BUSY_RETRY_MS };
    const untrack = this.opts.track(id, controller);
    try {
      // A start of the request is counted (its `attempts`) by its first job and by a job taken again after its
      // process died; the next stages of a run that goes on are not new starts.
      const started = job.queue === FETCH_QUEUE || job.queue === REQUEST_QUEUE || job.attempt > 1;
      const record = started ? await store.startRun(id, lease) : await store.getRequest(id);
      if (!record || TERMINAL.has(record.status)) return { end: 'complete' }; // cancelled (or finished) meanwhile
      this.noteRetake(job, 'request');
      let final: RequestRecord;
      if (job.exhausted) {
        await store.finish(id, 'failed', `internal error: processing stopped unexpectedly ${job.attempt - 1} times`, lease);
        final = (await store.getRequest(id))!;
      } else {
        final = await work(lease);
      }
      // Lost to another process (this one stalled past its lease): that process finishes it, refunds, notifies.
      if (controller.signal.reason instanceof LeaseLost || !(await leases.confirm(lease))) {
        this.opts.log?.(`request ${id}: another process took it over (this one stopped renewing its lease in time); stopped here`);
        return { end: 'none' };
      }
      if (!TERMINAL.has(final.status)) {
        // Stopped by a shutdown, to resume from its checkpoints; else this step is done and the next one is due.
        if (controller.signal.aborted) return { end: 'handBack' };
        await next?.();
        return { end: 'complete' };
      }
      if (final.status === 'failed') refund(final.id);
      if (final.status === 'failed' || final.status === 'completed') await this.enqueue(notifyJob(id));
      return final.status === 'failed' ? { end: 'fail', reason: final.failureReason ?? 'failed' } : { end: 'complete' };
    } finally {
      untrack();
      // Finished, or stopped by a shutdown: either way another process may take it at once.
      await leases.release(lease);
    }
  }

  /**
   * One planned clip of a request (a child of its render flow) under the clip's lease: rendered and its outcome
   * saved for the finalize job; errored when it died past its attempts. A cancelled request's clip just ends.
   */
  private async runClip(job: Job<Extract<RenderJobData, { kind: 'clip' }>>, controller: AbortController): Promise<Outcome> {
    const { orchestrator, leases } = this.opts;
    const { requestId, shortId } = job.data;
    const lease = await leases.acquire({ kind: 'clip', id: shortId }, controller);
    if (!lease) return { end: 'handBack', delayMs: LEASE_BUSY_RETRY_MS };
    try {
      this.noteRetake(job, 'request'); // its clip: the started line names the job
      if (job.exhausted) {
        const why = `internal error: the clip's render stopped unexpectedly ${job.attempt - 1} times`;
        await orchestrator.saveErroredClip(requestId, shortId, why);
        return { end: 'fail', reason: why };
      }
      const done = await orchestrator.renderPlannedClip(requestId, shortId, controller.signal, { lease });
      if (controller.signal.reason instanceof LeaseLost) return { end: 'none' };
      return done === 'stopped' ? { end: 'handBack' } : { end: 'complete' };
    } finally {
      await leases.release(lease);
    }
  }

  /** The webhook (and automation) of a request that ended completed or failed; nothing for any other state. */
  private async runNotify(job: Job<RequestJobData>): Promise<Outcome> {
    const record = await this.opts.store.getRequest(job.data.requestId);
    if (record && (record.status === 'completed' || record.status === 'failed')) await this.opts.onFinished?.(record);
    return { end: 'complete' };
  }

  private async runRerender(job: Job<RerenderJobData>, controller: AbortController): Promise<Outcome> {
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
  const data = job.data as Partial<RerenderJobData> & { kind?: RenderJobData['kind'] };
  if (data.kind === 'clip') return { kind: 'clip', id: data.shortId! };
  if (data.kind === 'rerender' || job.queue === RERENDER_QUEUE) return { kind: 'rerender', id: data.shortId ?? job.id };
  return { kind: 'request', id: data.requestId ?? job.id };
}
