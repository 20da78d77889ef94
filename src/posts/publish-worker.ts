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
import type { Job, JobQueue, JobState } from '../ports/job-queue.js';
import { LeaseLost } from '../ports/leases.js';
import type { PostRecord, PostStore } from '../ports/post-store.js';
import type { LeaseKeeper } from '../engine/lease-keeper.js';
import { JobLoop, type JobOutcome } from '../engine/job-loop.js';
import { PUBLISH_QUEUE, publishJob, type PublishJobData } from '../engine/jobs.js';
import type { Automation } from './automation.js';
import type { ConnectedAccounts } from './connected-accounts.js';
import type { Publisher } from './publisher.js';

/** How long a job whose post another process still holds (its lock ran out first) waits before it is tried again. */
const LEASE_BUSY_RETRY_MS = 1000;
/** A job whose post is not due yet (clocks a little apart) looks again after at least this long. */
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

export class PublishWorker {
  private readonly loop: JobLoop;
  private timers: NodeJS.Timeout[] = [];
  private stopped = true;
  /** The refresh pass or sweep running now (one at a time); aborted by stop(). */
  private chores: Promise<void> | null = null;
  private choresAbort = new AbortController();
  private readonly log: (line: string) => void;

  constructor(private readonly opts: PublishWorkerOptions) {
    this.log = opts.log ?? (() => {});
    this.loop = new JobLoop({
      queue: opts.queue, queues: [PUBLISH_QUEUE], leases: opts.leases, concurrency: opts.concurrency ?? 2, pollMs: opts.pollMs, log: this.log,
      run: (job, controller) => this.publish(job as Job<PublishJobData>, controller),
      // A cancel is not looked at: a post being published cannot be canceled (one canceled while its job was being
      // taken is found canceled by the claim). Another take holding the job stops this one like a lost lease.
      onLock: (job, state, controller) => { if (state === 'lost') controller.abort(new LeaseLost({ kind: 'post', id: job.id })); },
      onError: (job, e) => {
        this.log(`post ${job.id}: ${e instanceof Error ? e.message : String(e)}; tried again in ${ERROR_RETRY_MS / 1000} s`);
        return { end: 'handBack', delayMs: ERROR_RETRY_MS };
      },
    });
  }

  /** Takes due jobs now, at every poll, and at once when this process enqueues one; sweeps and refreshes on its tick. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.choresAbort = new AbortController();
    this.chore(async () => {
      // The automation's posts are queued as they are stored (the posts service), then every other pending one.
      const made = await this.opts.automation?.sweep('api');
      if (made?.length) this.log(`automation: ${made.length} post(s) scheduled for requests completed while stopped`);
      await this.sweep(FAR_FUTURE);
      await this.refresh();
    });
    this.loop.start();
    const every = (ms: number, fn: () => void) => { const t = setInterval(fn, ms); t.unref(); this.timers.push(t); };
    every(this.opts.intervalMs ?? 5000, () => this.chore(() => this.refresh()));
    every(SWEEP_EVERY_MS, () => this.chore(() => this.sweep(new Date(Date.now() + 2 * SWEEP_EVERY_MS).toISOString())));
  }

  /** Stops taking work; posts being published are interrupted and their jobs handed back (resumed at once elsewhere, or by the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.choresAbort.abort();
    await this.loop.stop();
    await this.chores;
  }

  get running(): number {
    return this.loop.running;
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

  /** One attempt of the job's post under its lease; how the job ends follows from how the post did. */
  private async publish(job: Job<PublishJobData>, controller: AbortController): Promise<JobOutcome> {
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
  private async after(id: string, minDelayMs = 0): Promise<JobOutcome> {
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
