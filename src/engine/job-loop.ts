// A worker's loop over the job queue port (src/ports/job-queue.ts), whatever its jobs mean: it takes the due jobs
// of its queues a bounded number at a time (at once when the queue says one is due — enqueued by this process, or
// by any with BullMQ — else at every poll), extends each job's lock while its handler runs — the answer says a
// cancel was asked anywhere, or another take has the job now — and ends the job as the handler says: complete,
// fail (for good: retries happen inside the handler or as hand-backs), hand back (no attempt counted: a stop, a
// wait), or nothing (another take ends it). The locks last the TTL of the process's leases and are taken in its
// owner's name, so a job's lock and the lease of what it works on run out together when the process dies.
// stop() stops taking, aborts the running handlers and waits for them to end their jobs.
import { JobLockLost, type Job, type JobQueue } from '../ports/job-queue.js';
import { engineUnavailable } from '../ports/unavailable.js';
import type { LeaseKeeper } from './lease-keeper.js';

/** The longest a running job goes without extending its lock, so a cancel from another process stops it this soon. */
const HEARTBEAT_MS = 1000;

/** How a job's run ends for the queue. */
export type JobOutcome = { end: 'complete' } | { end: 'fail'; reason: string } | { end: 'handBack'; delayMs?: number } | { end: 'none' };

export interface JobLoopOptions {
  queue: JobQueue;
  queues: readonly string[];
  /** The process's leases: whose name the jobs are taken in, and the TTL of their locks. */
  leases: Pick<LeaseKeeper, 'owner' | 'ttlMs'>;
  concurrency: number;
  /** Runs one taken job; `controller` is aborted on stop (with `stopReason`) and as `onLock` decides. */
  run(job: Job, controller: AbortController): Promise<JobOutcome>;
  /** What the lock's answer does to a running job: a cancel asked anywhere, or the job taken by another take. */
  onLock(job: Job, state: 'cancelled' | 'lost', controller: AbortController): void;
  /** What a handler's throw ends its job with. */
  onError(job: Job, e: unknown): JobOutcome;
  /** The abort reason handed to running jobs by stop() (default the AbortController's own). */
  stopReason?: () => unknown;
  /** Called when a take finds nothing due (the backlog of this start is done). */
  onIdle?: () => void;
  pollMs?: number;
  log: (line: string) => void;
}

export class JobLoop {
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopped = true;
  /** A pump is taking work (takes are async): a second one waits for it instead of racing it. */
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  /** The queue's server could not be reached at the last take: said once per outage, not at every poll. */
  private unreachable = false;

  constructor(private readonly opts: JobLoopOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.opts.queue.onEnqueued((q) => { if (this.opts.queues.includes(q)) this.wake(); });
    this.pump();
    this.timer = setInterval(() => this.pump(), this.opts.pollMs ?? 1000);
    this.timer.unref();
  }

  wake(): void {
    if (!this.stopped) queueMicrotask(() => this.pump());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    await this.pumping;
    for (const job of this.active.values()) job.controller.abort(this.opts.stopReason?.());
    await Promise.all([...this.active.values()].map((j) => j.done));
  }

  get running(): number {
    return this.active.size;
  }

  /** Fills the free slots with due jobs, oldest first. One pump at a time. */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    const { queue, leases } = this.opts;
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        while (!this.stopped && this.active.size < this.opts.concurrency) {
          const job = await queue.take(this.opts.queues, leases.owner, leases.ttlMs);
          if (this.unreachable) this.opts.log(`worker: the job queue answers again`);
          this.unreachable = false;
          if (!job) {
            this.opts.onIdle?.();
            break;
          }
          this.run(job);
        }
      } while (this.pumpAgain && !this.stopped);
    })().catch((e: unknown) => {
      const down = engineUnavailable(e);
      if (down && this.unreachable) return;
      this.unreachable = down !== undefined;
      this.opts.log(`worker: ${e instanceof Error ? e.message : String(e)}${down ? ` (${down.engine} cannot be reached; taking jobs again once it answers)` : ''}`);
    })
      .finally(() => { this.pumping = null; });
  }

  private run(job: Job): void {
    const controller = new AbortController();
    const slot = `${job.queue}/${job.id}`;
    const entry = { controller, done: Promise.resolve() };
    this.active.set(slot, entry);
    entry.done = (async () => {
      await Promise.resolve(); // run after the slot is registered, even when nothing below awaits
      const heartbeat = this.heartbeat(job, controller);
      let outcome: JobOutcome;
      try {
        outcome = await this.opts.run(job, controller);
      } catch (e) {
        outcome = this.opts.onError(job, e);
      } finally {
        clearInterval(heartbeat);
      }
      try {
        await this.settle(job, outcome);
      } catch (e) {
        // Lost to another take: that one ends the job.
        if (!(e instanceof JobLockLost)) this.opts.log(`worker error ending job ${slot}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.active.delete(slot);
        this.pump();
      }
    })();
  }

  private async settle(job: Job, outcome: JobOutcome): Promise<void> {
    const { queue } = this.opts;
    if (outcome.end === 'complete') await queue.complete(job);
    else if (outcome.end === 'fail') await queue.fail(job, outcome.reason, { final: true });
    else if (outcome.end === 'handBack') await queue.handBack(job, { delayMs: outcome.delayMs });
  }

  /** Extends the job's lock while it runs, telling `onLock` when the answer is not `held`. */
  private heartbeat(job: Job, controller: AbortController): NodeJS.Timeout {
    const { queue, leases } = this.opts;
    let beating = false;
    const timer = setInterval(() => {
      if (beating || controller.signal.aborted) return;
      beating = true;
      queue.extend(job, leases.ttlMs).then((state) => {
        if (state !== 'held') this.opts.onLock(job, state, controller);
      }, () => { /* the queue is busy or unreachable: extend at the next beat, the lock lasts a whole TTL */ }).finally(() => { beating = false; });
    }, Math.min(HEARTBEAT_MS, Math.max(50, leases.ttlMs / 3)));
    timer.unref();
    return timer;
  }
}
