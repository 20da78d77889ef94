// The `publish` queue's worker (issue 24): posts go out wherever a process serves `publish` (`shorts serve`
// unless --workers 0, `shorts worker --queues publish`), not inside whichever serve runs a scheduler. Each job is
// one post (src/engine/jobs.ts): taken under the queue's lock, then the post's lease (the lease fences the post
// store's writes, as it did under the scheduler; the lock's TTL is the lease's, so both run out together when a
// process dies), claimed, and run through the Publisher for one attempt. Then the job ends with the post:
// published -> completed; failed -> failed; a retry -> handed back until the retry's time (the post store counts
// the platform attempts, STAGES.publish); a stop -> handed back at once, so another process resumes the upload
// from its saved progress. A process killed mid-upload stops extending the lock: another worker takes the job
// with one more attempt and resumes the post (one upload: the connector's saved progress); a post whose
// publishing died with its process more often than the job's attempts is failed, saying so.
//
// Besides the jobs, a light tick keeps what the scheduler's tick did that is not a post: refreshing the tokens
// about to run out (so a post due later does not wait on a token endpoint; every process serving `publish` may
// do it, ConnectedAccounts settles two refreshing at once), and a sweep that queues the API accounts' pending
// posts that have no live job: at start every one of them (posts scheduled before the queue existed, a data dir
// upgraded with scheduled posts), then every minute those due soon (a post whose enqueue failed when it was
// scheduled). Enqueueing is idempotent by id, so several workers sweeping at once add each job once.
import { JobLockLost, type Job, type JobQueue, type JobState } from '../ports/job-queue.js';
import { LeaseLost } from '../ports/leases.js';
import type { PostRecord, PostStore } from '../ports/post-store.js';
import type { LeaseKeeper } from '../engine/lease-keeper.js';
import { PUBLISH_QUEUE, publishJob, type PublishJobData } from '../engine/jobs.js';
import type { Automation } from './automation.js';
import type { ConnectedAccounts } from './connected-accounts.js';
import type { Publisher } from './publisher.js';

/** The longest a running job goes without extending its lock (the worker of requests does the same). */
const HEARTBEAT_MS = 1000;
/** How long a job whose post another process still holds (its lock ran out first) waits before it is tried again. */
const LEASE_BUSY_RETRY_MS = 1000;
/** A job whose post is not due yet (clocks a little apart) or whose run broke on the store looks again after at least this long. */
const LOOK_AGAIN_MS = 1000;
/** A run that broke on something else than the platform (a store unreachable) is tried again after this long. */
const ERROR_RETRY_MS = 10_000;
/** Between the sweeps after the first, and how far ahead of now each looks. */
const SWEEP_EVERY_MS = 60_000;
/** Posts a sweep looks at once (the start-up sweep's far-future ones beyond it are queued as they come within a later sweep's reach). */
const SWEEP_LIMIT = 10_000;
const FAR_FUTURE = '9999-12-31T23:59:59.999Z';
/** Job states that will still run: a pending post with one of these has its job. */
const LIVE: ReadonlySet<JobState> = new Set(['waiting', 'delayed', 'active', 'waiting-children']);
const API = { kind: 'api' } as const;

export interface PublishWorkerOptions {
  queue: JobQueue;
  posts: PostStore;
  publisher: Publisher;
  /** This process's leases: each post published here is held under one. */
  leases: LeaseKeeper;
  accounts: ConnectedAccounts;
  /** Applied once at start: requests that completed while no process was there to post their clips. */
  automation?: Automation;
  /** Posts published at once (default 2: uploads are network-bound, but each holds a file open and a connection). */
  concurrency?: number;
  /** Milliseconds between token refresh passes (default 5 s). */
  intervalMs?: number;
  /** Milliseconds between looks at the queue for jobs other processes enqueued (default 1 s). */
  pollMs?: number;
  log?: (line: string) => void;
}

/** How a job's run ends for the queue. */
type Outcome = { end: 'complete' } | { end: 'fail'; reason: string } | { end: 'handBack'; delayMs?: number } | { end: 'none' };

export class PublishWorker {
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | null = null;
  private stopped = true;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  /** The refresh pass or sweep running now (one at a time); aborted by stop(). */
  private chores: Promise<void> | null = null;
  private choresAbort = new AbortController();
  private readonly concurrency: number;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: PublishWorkerOptions) {
    this.concurrency = opts.concurrency ?? 2;
    this.log = opts.log ?? (() => {});
  }

  /** Takes due jobs now, at every poll, and at once when this process enqueues one; sweeps and refreshes on its tick. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.choresAbort = new AbortController();
    this.unsubscribe = this.opts.queue.onEnqueued((q) => { if (q === PUBLISH_QUEUE) this.wake(); });
    this.chore(async () => {
      // The automation's posts are queued as they are stored (the posts service), then every other pending one.
      const made = await this.opts.automation?.sweep('api');
      if (made?.length) this.log(`automation: ${made.length} post(s) scheduled for requests completed while stopped`);
      await this.sweep(FAR_FUTURE);
      await this.refresh();
    });
    this.pump();
    const every = (ms: number, fn: () => void) => { const t = setInterval(fn, ms); t.unref(); this.timers.push(t); };
    every(this.opts.pollMs ?? 1000, () => this.pump());
    every(this.opts.intervalMs ?? 5000, () => this.chore(() => this.refresh()));
    every(SWEEP_EVERY_MS, () => this.chore(() => this.sweep(new Date(Date.now() + 2 * SWEEP_EVERY_MS).toISOString())));
  }

  wake(): void {
    if (!this.stopped) queueMicrotask(() => this.pump());
  }

  /** Stops taking work; posts being published are interrupted and their jobs handed back (resumed at once elsewhere, or by the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.unsubscribe?.();
    this.choresAbort.abort();
    await this.pumping;
    for (const job of this.active.values()) job.controller.abort();
    await Promise.all([...this.active.values()].map((j) => j.done));
    await this.chores;
  }

  get running(): number {
    return this.active.size;
  }

  /** Runs `fn` unless a chore is running (a slow token endpoint must not pile passes up). */
  private chore(fn: () => Promise<void>): void {
    if (this.chores || this.stopped) return;
    this.chores = fn().catch((e: unknown) => this.log(`publish worker: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => { this.chores = null; });
  }

  private async refresh(): Promise<void> {
    await this.opts.accounts.refreshExpiring(this.choresAbort.signal)
      .catch((e: unknown) => this.log(`token refresh: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Queues the API accounts' pending posts due by `until` that have no live job. */
  private async sweep(until: string): Promise<void> {
    const { posts, queue } = this.opts;
    let queued = 0;
    for (const id of await posts.dueUnleased(API, SWEEP_LIMIT, until)) {
      if (this.stopped) break;
      const job = await queue.get(PUBLISH_QUEUE, id);
      if (job && LIVE.has(job.state)) continue;
      const post = await posts.get(id);
      if (!post || !pending(post)) continue;
      if (await queue.enqueue(publishJob(post.id, dueAt(post)))) queued++;
    }
    if (queued) this.log(`publish: ${queued} scheduled post(s) had no job (scheduled before the publish queue, or not queued then); queued now`);
  }

  /** Fills the free slots with due jobs. One pump at a time. */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    const { queue, leases } = this.opts;
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        while (!this.stopped && this.active.size < this.concurrency) {
          const job = await queue.take([PUBLISH_QUEUE], leases.owner, leases.ttlMs);
          if (!job) break;
          this.run(job as Job<PublishJobData>);
        }
      } while (this.pumpAgain && !this.stopped);
    })().catch((e: unknown) => this.log(`publish worker: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => { this.pumping = null; });
  }

  private run(job: Job<PublishJobData>): void {
    const controller = new AbortController();
    const entry = { controller, done: Promise.resolve() };
    this.active.set(job.id, entry);
    entry.done = (async () => {
      await Promise.resolve(); // run after the slot is registered
      const heartbeat = this.heartbeat(job, controller);
      let outcome: Outcome;
      try {
        outcome = await this.publish(job, controller);
      } catch (e) {
        this.log(`post ${job.data.postId}: ${e instanceof Error ? e.message : String(e)}; tried again in ${ERROR_RETRY_MS / 1000} s`);
        outcome = { end: 'handBack', delayMs: ERROR_RETRY_MS };
      } finally {
        clearInterval(heartbeat);
      }
      try {
        await this.settle(job, outcome);
      } catch (e) {
        // Lost to another take: that one ends the job.
        if (!(e instanceof JobLockLost)) this.log(`publish worker: ending job ${job.id}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.active.delete(job.id);
        this.pump();
      }
    })();
  }

  private async settle(job: Job, outcome: Outcome): Promise<void> {
    const { queue } = this.opts;
    if (outcome.end === 'complete') await queue.complete(job);
    else if (outcome.end === 'fail') await queue.fail(job, outcome.reason, { final: true });
    else if (outcome.end === 'handBack') await queue.handBack(job, { delayMs: outcome.delayMs });
  }

  /**
   * Extends the job's lock while the post is published; another take holding it now stops this one like a lost
   * lease. A cancel is not looked at: a post being published cannot be canceled (a post canceled while its job
   * was being taken is found canceled by the claim).
   */
  private heartbeat(job: Job<PublishJobData>, controller: AbortController): NodeJS.Timeout {
    const { queue, leases } = this.opts;
    let beating = false;
    const timer = setInterval(() => {
      if (beating || controller.signal.aborted) return;
      beating = true;
      queue.extend(job, leases.ttlMs).then((state) => {
        if (state === 'lost') controller.abort(new LeaseLost({ kind: 'post', id: job.data.postId }));
      }, () => { /* the queue is busy or unreachable: extend at the next beat, the lock lasts a whole TTL */ }).finally(() => { beating = false; });
    }, Math.min(HEARTBEAT_MS, Math.max(50, leases.ttlMs / 3)));
    timer.unref();
    return timer;
  }

  /** One attempt of the job's post under its lease; how the job ends follows from how the post did. */
  private async publish(job: Job<PublishJobData>, controller: AbortController): Promise<Outcome> {
    const { posts, leases, publisher } = this.opts;
    const id = job.data.postId;
    const lease = await leases.acquire({ kind: 'post', id }, controller);
    if (!lease) return { end: 'handBack', delayMs: LEASE_BUSY_RETRY_MS };
    try {
      const post = await posts.claim(id, lease);
      if (!post) return this.after(id, LOOK_AGAIN_MS);
      if (job.exhausted) {
        const outcome = await publisher.abandon(post, `publishing this post stopped unexpectedly ${job.attempt - 1} times (the process publishing it died each time); look for it on the platform before scheduling it again`, lease);
        return outcome === 'lost' ? { end: 'none' } : this.after(id);
      }
      if (job.attempt > 1) this.log(`post ${id}: resuming it (the process publishing it stopped)`);
      const outcome = await publisher.publish(post, lease, controller.signal);
      if (outcome === 'lost') return { end: 'none' };
      // A stop: the progress is saved; another process (or the next start) resumes it at once.
      if (outcome === 'released') return { end: 'handBack' };
      return this.after(id);
    } finally {
      await leases.release(lease);
    }
  }

  /**
   * How the job ends once its post is where it is now: published or canceled -> completed; failed -> failed;
   * still pending (a retry, or not due yet) -> handed back until it is due, at least `minDelayMs` from now.
   */
  private async after(id: string, minDelayMs = 0): Promise<Outcome> {
    const post = await this.opts.posts.get(id);
    if (!post || post.status === 'published' || post.status === 'canceled') return { end: 'complete' };
    if (post.status === 'failed') return { end: 'fail', reason: `${post.errorCode ?? 'unknown'}: ${post.error ?? 'failed'}` };
    return { end: 'handBack', delayMs: Math.max(minDelayMs, Date.parse(dueAt(post)) - Date.now()) };
  }
}

function pending(p: PostRecord): boolean {
  return p.status === 'scheduled' || p.status === 'processing';
}

/** When a pending post is next due: its retry's time, else its scheduled time. */
function dueAt(p: PostRecord): string {
  return p.nextAttemptAt ?? p.scheduledAt;
}
