// Workers inside `shorts serve`: take queued API requests from the SQLite store in creation order, a
// bounded number at a time, run them through the orchestrator, refund the credit of a failed request
// and send its webhook. Each request and re-render run here is held under a lease (issue 22) that the
// process's LeaseKeeper renews; on start, and every little while after, the workers take over requests left
// `processing` whose lease expired (their process was killed); one whose lease is renewed (another `serve` on
// the same data dir, issue 15, in whatever PID namespace) is that process's, never taken. A stop hands the
// leases back so another process resumes the work at once.
// The same slots run clip re-renders (issue 14): a clip marked `recompiling` whose lease is free (a new one,
// or one a killed process left) is taken; a re-render sends no webhook and moves no credit.
import type { RequestStore } from '../ports/request-store.js';
import { type RequestRecord } from '../ports/request-store.js';
import { Orchestrator, ShutdownSignal } from './orchestrator.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { LeaseLost, type Lease } from '../ports/leases.js';

/** How often a running worker looks for requests another process left behind when it died. */
const ORPHAN_SCAN_MS = 5_000;

export interface WorkerOptions {
  store: RequestStore;
  orchestrator: Orchestrator;
  /** This process's leases: every request and re-render run here is held under one. */
  leases: LeaseKeeper;
  concurrency: number;
  /** Refunds the credit of a failed request (spec 6: failed requests are refunded). */
  refund: (requestId: string) => void;
  /** Called once a request reaches completed or failed (webhooks). Never awaited by the worker slot. */
  onFinished?: (request: RequestRecord) => Promise<void>;
  /** Registers the job's AbortController so DELETE kills it at once; returns the unregister function. */
  track: (requestId: string, controller: AbortController) => () => void;
  /** Starts after which a request that keeps dying with its process is failed instead of retried. */
  maxAttempts?: number;
  pollMs?: number;
  log?: (line: string) => void;
}

export class Worker {
  private readonly active = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly followUps = new Set<Promise<void>>();
  /** Orphans to take over (their lease had expired when seen). */
  private resume: string[] = [];
  private lastOrphanScan = 0;
  /** Slots of running re-renders are keyed `rerender:<shortId>` beside requests' ids. */
  private static rerenderKey(shortId: string): string { return `rerender:${shortId}`; }
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** A pump is taking work (claims are async): a second one waits for it instead of racing it. */
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;

  constructor(private readonly opts: WorkerOptions) {}

  /** Resumes orphaned requests, then polls the queue (and wakes at once on `wake()`). */
  start(): void {
    this.stopped = false;
    // The first pump waits for the startup scan (a pump asked for meanwhile runs after it).
    const scanned = this.scanOrphans().then(
      (found) => { if (found) this.opts.log?.(`resuming ${found} interrupted request(s)`); },
      (e: unknown) => { this.opts.log?.(`worker error scanning for interrupted requests: ${String(e)}`); },
    );
    this.pumping = scanned;
    void scanned.then(() => {
      this.pumping = null;
      this.pump();
    });
    this.timer = setInterval(() => {
      this.stopCancelledElsewhere().catch((e: unknown) => this.opts.log?.(`worker error checking for cancels: ${String(e)}`));
      this.pump();
    }, this.opts.pollMs ?? 1000);
    this.timer.unref();
  }

  /**
   * A DELETE answered by another `serve` on the same data dir marks the request cancelled in the store only:
   * the job running here learns it at its next step at the latest; this stops it within a poll instead.
   */
  private async stopCancelledElsewhere(): Promise<void> {
    for (const [id, job] of this.active) {
      if (id.startsWith('rerender:') || job.controller.signal.aborted) continue;
      if ((await this.opts.store.requestStatus(id)) === 'cancelled') job.controller.abort();
    }
  }

  /**
   * API requests left `processing` whose lease is missing or expired: their runner was killed (or stopped
   * cleanly and handed them back). One whose lease is renewed is left alone: a second `serve` on the same
   * data dir must not run it a second time.
   */
  private async scanOrphans(): Promise<number> {
    this.lastOrphanScan = Date.now();
    let found = 0;
    const queued = new Set(this.resume);
    for (const id of await this.opts.store.listOrphaned('api')) {
      if (this.isOurs(id) || queued.has(id)) continue;
      this.resume.push(id);
      found++;
    }
    return found;
  }

  wake(): void {
    if (!this.stopped) queueMicrotask(() => this.pump());
  }

  /**
   * Stops taking work. Running jobs are interrupted with a ShutdownSignal: they stay `processing`
   * with their checkpoints and resume on the next start (they are not cancelled, not failed).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.pumping;
    for (const job of this.active.values()) job.controller.abort(new ShutdownSignal());
    await Promise.all([...this.active.values()].map((j) => j.done));
    await Promise.all(this.followUps);
  }

  get running(): number {
    return this.active.size;
  }

  private isOurs(id: string): boolean {
    return this.active.has(id);
  }

  /** Fills the free slots: queued and orphaned requests first, then pending re-renders. One pump at a time. */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = (async () => {
      do {
        this.pumpAgain = false;
        while (!this.stopped && this.active.size < this.opts.concurrency) {
          const taken = await this.next();
          if (taken) {
            this.run(taken.record, taken.lease, taken.controller);
            continue;
          }
          if (!(await this.nextRerender())) break;
        }
      } while (this.pumpAgain && !this.stopped);
    })().catch((e: unknown) => this.opts.log?.(`worker: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => { this.pumping = null; });
  }

  /**
   * Takes a clip of an API request marked re-rendering whose lease is free (not started yet, or left by a
   * process that was killed) and starts it; false when there is none.
   */
  private async nextRerender(): Promise<boolean> {
    const { store, leases } = this.opts;
    for (const s of await store.listRerendering()) {
      if (s.origin !== 'api' || s.leased || this.active.has(Worker.rerenderKey(s.id))) continue;
      const controller = new AbortController();
      // Of two servers seeing it free, exactly one gets the lease.
      const lease = await leases.acquire({ kind: 'rerender', id: s.id }, controller);
      if (!lease) continue;
      this.runRerender(s.requestId, s.id, lease, controller);
      return true;
    }
    return false;
  }

  private runRerender(requestId: string, shortId: string, lease: Lease, controller: AbortController): void {
    const { store, orchestrator, leases } = this.opts;
    const key = Worker.rerenderKey(shortId);
    const entry = { controller, done: Promise.resolve() };
    this.active.set(key, entry);
    entry.done = (async () => {
      await Promise.resolve();
      try {
        const attempts = await store.claimRerender(shortId, lease);
        if (attempts === null) return; // finished or given up meanwhile
        if (attempts > (this.opts.maxAttempts ?? 3)) {
          await store.abandonRerender(shortId, `internal error: the re-render stopped unexpectedly ${attempts - 1} times; the clip is as it was`, lease);
          return;
        }
        await orchestrator.rerender(requestId, shortId, controller.signal, { lease });
        if (controller.signal.reason instanceof LeaseLost) this.opts.log?.(`re-render of ${shortId}: another process took it over; stopped here`);
      } catch (e) {
        this.opts.log?.(`worker error on the re-render of ${shortId}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        await leases.release(lease);
        this.active.delete(key);
        this.pump();
      }
    })();
  }

  /** The next request to run here, under its lease: an orphan to resume, else the oldest queued one. */
  private async next(): Promise<{ record: RequestRecord; lease: Lease; controller: AbortController } | undefined> {
    const { store, leases } = this.opts;
    // Another server on the same data dir may be killed while this one runs: its requests are picked up here.
    if (Date.now() - this.lastOrphanScan >= ORPHAN_SCAN_MS) {
      const found = await this.scanOrphans();
      if (found) this.opts.log?.(`taking over ${found} request(s) left processing by a stopped process`);
    }
    const take = async (id: string, claim: (lease: Lease) => Promise<RequestRecord | undefined>) => {
      const controller = new AbortController();
      const lease = await leases.acquire({ kind: 'request', id }, controller);
      if (!lease) return undefined; // another process holds it: its lease is live again, or it was quicker
      const record = await claim(lease);
      if (record) return { record, lease, controller };
      await leases.release(lease);
      return undefined;
    };
    while (this.resume.length) {
      const id = this.resume.shift()!;
      if (this.isOurs(id)) continue;
      const taken = await take(id, (lease) => store.reclaim(id, lease));
      if (taken) return taken;
    }
    // The oldest queued request whose lease is free; two servers racing for it: the lease decides.
    for (const id of await store.queuedUnleased(this.opts.concurrency + 1)) {
      if (this.isOurs(id)) continue;
      const taken = await take(id, (lease) => store.startQueued(id, lease));
      if (taken) return taken;
    }
    return undefined;
  }

  private run(record: RequestRecord, lease: Lease, controller: AbortController): void {
    const { store, orchestrator, refund, leases } = this.opts;
    const untrack = this.opts.track(record.id, controller);
    const maxAttempts = this.opts.maxAttempts ?? 3;
    const entry = { controller, done: Promise.resolve() };
    this.active.set(record.id, entry);
    entry.done = (async () => {
      await Promise.resolve(); // run after the slot is registered, even when nothing below awaits
      try {
        let final: RequestRecord;
        if ((await store.attempts(record.id)) > maxAttempts) {
          await store.finish(record.id, 'failed', `internal error: processing stopped unexpectedly ${maxAttempts} times`, lease);
          final = (await store.getRequest(record.id))!;
        } else {
          final = await orchestrator.run(record.id, controller.signal, { lease });
        }
        // Lost to another process (this one stalled past its lease): that process finishes it, refunds, notifies.
        if (controller.signal.reason instanceof LeaseLost || !(await leases.confirm(lease))) {
          this.opts.log?.(`request ${record.id}: another process took it over (this one stopped renewing its lease in time); stopped here`);
          return;
        }
        if (final.status === 'failed') refund(final.id);
        if ((final.status === 'failed' || final.status === 'completed') && this.opts.onFinished) {
          const followUp = this.opts.onFinished(final).catch((e: unknown) => this.opts.log?.(`webhook for ${final.id}: ${String(e)}`));
          this.followUps.add(followUp);
          void followUp.finally(() => this.followUps.delete(followUp));
        }
      } catch (e) {
        this.opts.log?.(`worker error on ${record.id}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        untrack();
        // Finished, or stopped by a shutdown: either way another process may take it at once.
        await leases.release(lease);
        this.active.delete(record.id);
        this.pump();
      }
    })();
  }
}
