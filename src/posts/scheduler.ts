// The post scheduler (issue 16), for posts that are not queued (local mode's: src/engine/jobs.ts): `shorts posts
// run --watch` ticks every few seconds, refreshes tokens about to run out, claims the posts that are due and
// publishes them in the background, a few at a time; `shorts posts run` uses runDue to publish what is due now
// and wait for it. API accounts' posts are jobs of the `publish` queue instead (src/posts/publish-worker.ts).
// Each publish holds the post's lease (issue 22): a post left `processing` by a process that was killed
// (kill -9, power loss) is claimed again once its lease expired and resumed from its saved progress; on a
// clean stop the in-flight publishes are aborted and their leases handed back, so another process resumes
// them at once.
import type { LeaseKeeper } from '../engine/lease-keeper.js';
import type { Automation } from './automation.js';
import type { ConnectedAccounts } from './connected-accounts.js';
import type { PostRecord, PostScope, PostStore } from '../ports/post-store.js';
import type { AttemptOutcome, Publisher } from './publisher.js';

export interface SchedulerOptions {
  posts: PostStore;
  publisher: Publisher;
  /** This process's leases: each post published here is held under one. */
  leases: LeaseKeeper;
  accounts: ConnectedAccounts;
  /** Serve: API accounts' posts; `shorts posts run`: the local account's. */
  scope: PostScope;
  /** Applied once at start: requests that completed while no process was there to post their clips. */
  automation?: Automation;
  /** Milliseconds between ticks (default 5 s). */
  intervalMs?: number;
  /** Posts published at once (default 2: uploads are network-bound, but each one holds a file open and a connection). */
  concurrency?: number;
  log?: (line: string) => void;
}

export class Scheduler {
  private readonly active = new Map<string, { controller: AbortController; done: Promise<AttemptOutcome> }>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private again = false;
  /** start() .. stop(): ticking on a timer. */
  private looping = false;
  /** stop() called: no new claims. */
  private stopping = false;
  private readonly intervalMs: number;
  private readonly concurrency: number;
  private readonly log: (line: string) => void;

  constructor(private readonly opts: SchedulerOptions) {
    this.intervalMs = opts.intervalMs ?? 5_000;
    this.concurrency = opts.concurrency ?? 2;
    this.log = opts.log ?? (() => {});
  }

  start(): void {
    if (this.looping) return;
    this.looping = true;
    this.stopping = false;
    this.opts.automation?.sweep(this.opts.scope.kind).then((made) => {
      if (!made.length) return;
      this.log(`automation: ${made.length} post(s) scheduled for requests completed while stopped`);
      this.wake();
    }, (e: unknown) => this.log(`automation sweep: ${e instanceof Error ? e.message : String(e)}`));
    this.schedule(0);
  }

  /** Posts were scheduled, or a slot came free: look now rather than at the next tick. */
  wake(): void {
    if (this.looping) this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.looping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; void this.tick(); }, ms);
    this.timer.unref?.();
  }

  /** One pass: refresh tokens about to run out, then start the due posts there is room for. */
  tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      try {
        do {
          this.again = false;
          await this.opts.accounts.refreshExpiring().catch((e: unknown) => this.log(`token refresh: ${e instanceof Error ? e.message : String(e)}`));
          await this.startDue();
        } while (this.again && !this.stopping);
      } catch (e) {
        this.log(`scheduler: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.ticking = null;
        this.schedule(await this.nextWait().catch(() => this.intervalMs));
      }
    })();
    return this.ticking;
  }

  /** Leases and claims what is due (up to the free slots) and publishes each in the background. */
  private async startDue(): Promise<PostRecord[]> {
    const claimed: PostRecord[] = [];
    const { posts, leases, publisher } = this.opts;
    for (const id of await posts.dueUnleased(this.opts.scope, this.concurrency * 2)) {
      if (this.active.size >= this.concurrency || this.stopping) break;
      if (this.active.has(id)) continue;
      const controller = new AbortController();
      // Of two processes seeing it due, exactly one gets the lease.
      const lease = await leases.acquire({ kind: 'post', id }, controller);
      if (!lease) continue;
      const post = await posts.claim(id, lease);
      if (!post || this.stopping) {
        await leases.release(lease);
        continue;
      }
      claimed.push(post);
      const done = publisher.publish(post, lease, controller.signal)
        .catch((e: unknown) => { this.log(`post ${post.id}: ${e instanceof Error ? e.message : String(e)}`); return 'failed' as const; })
        .finally(async () => {
          await leases.release(lease);
          this.active.delete(post.id);
          // A slot is free: more may be waiting.
          this.wake();
        });
      this.active.set(post.id, { controller, done });
    }
    return claimed;
  }

  /**
   * Until the next tick: the interval, or sooner when a post falls due before it. With every slot busy, a
   * finishing publish wakes the scheduler; and never less than 100 ms, so a due post that cannot be taken
   * (another process holds it) does not spin the loop.
   */
  private async nextWait(): Promise<number> {
    if (this.active.size >= this.concurrency) return this.intervalMs;
    const next = await this.opts.posts.nextDueAt(this.opts.scope);
    if (!next) return this.intervalMs;
    return Math.max(100, Math.min(this.intervalMs, Date.parse(next) - Date.now()));
  }

  /**
   * `shorts posts run`: publishes every post due now (a few at a time) and waits for them. Posts that end
   * this run waiting for a retry are left for a later run. Returns the posts this run worked on.
   */
  async runDue(): Promise<string[]> {
    const seen = new Set<string>();
    await this.opts.accounts.refreshExpiring().catch((e: unknown) => this.log(`token refresh: ${e instanceof Error ? e.message : String(e)}`));
    for (;;) {
      for (const p of await this.startDue()) seen.add(p.id);
      if (this.active.size === 0) break;
      await Promise.race([...this.active.values()].map((a) => a.done));
    }
    return [...seen];
  }

  /** Stops ticking; in-flight publishes are aborted and handed back (resumed by the next start). */
  async stop(): Promise<void> {
    this.looping = false;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const a of this.active.values()) a.controller.abort();
    await Promise.allSettled([...this.active.values()].map((a) => a.done));
    await this.ticking;
  }
}
