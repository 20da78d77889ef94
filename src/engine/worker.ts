// Workers inside `shorts serve`: take queued API requests from the SQLite store in creation order, a
// bounded number at a time, run them through the orchestrator, refund the credit of a failed request
// and send its webhook. On start, and every little while after, they resume requests left `processing`
// by a process that is gone; one whose runner still lives (another `serve` on the same data dir, issue 15)
// is that runner's, never taken.
// The same slots run clip re-renders (issue 14): a clip marked `recompiling` that no live process runs
// (a new one, or one a dead process left) is taken; a re-render sends no webhook and moves no credit.
import { JobStore, type RequestRecord } from './job-store.js';
import { Orchestrator, ShutdownSignal } from './orchestrator.js';
import { isAlive } from '../media/process.js';

/** How often a running worker looks for requests another process left behind when it died. */
const ORPHAN_SCAN_MS = 5_000;

export interface WorkerOptions {
  store: JobStore;
  orchestrator: Orchestrator;
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
  /** Orphans to take over, with the dead runner each was seen with (reclaim swaps only from that one). */
  private resume: { id: string; from: number | null }[] = [];
  private lastOrphanScan = 0;
  /** Slots of running re-renders are keyed `rerender:<shortId>` beside requests' ids. */
  private static rerenderKey(shortId: string): string { return `rerender:${shortId}`; }
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(private readonly opts: WorkerOptions) {}

  /** Resumes orphaned requests, then polls the queue (and wakes at once on `wake()`). */
  start(): void {
    this.stopped = false;
    const found = this.scanOrphans();
    if (found) this.opts.log?.(`resuming ${found} interrupted request(s)`);
    this.pump();
    this.timer = setInterval(() => {
      this.stopCancelledElsewhere();
      this.pump();
    }, this.opts.pollMs ?? 1000);
    this.timer.unref();
  }

  /**
   * A DELETE answered by another `serve` on the same data dir marks the request cancelled in the store only:
   * the job running here learns it at its next step at the latest; this stops it within a poll instead.
   */
  private stopCancelledElsewhere(): void {
    for (const [id, job] of this.active) {
      if (id.startsWith('rerender:') || job.controller.signal.aborted) continue;
      if (this.opts.store.requestStatus(id) === 'cancelled') job.controller.abort();
    }
  }

  /**
   * API requests left `processing` whose runner is gone: no pid, a dead pid, or our own pid on a request
   * we do not run (a previous life of this process, same pid after a restart as in a container). A live
   * runner's request is left alone: a second `serve` on the same data dir must not run it a second time.
   */
  private scanOrphans(): number {
    this.lastOrphanScan = Date.now();
    let found = 0;
    const queued = new Set(this.resume.map((r) => r.id));
    for (const r of this.opts.store.listProcessing('api')) {
      if (this.isOurs(r.id) || queued.has(r.id)) continue;
      const gone = r.runnerPid === null || r.runnerPid === process.pid || !isAlive(r.runnerPid);
      if (gone) {
        this.resume.push({ id: r.id, from: r.runnerPid });
        found++;
      }
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

  private pump(): void {
    while (!this.stopped && this.active.size < this.opts.concurrency) {
      const record = this.next();
      if (record) {
        this.run(record);
        continue;
      }
      const short = this.nextRerender();
      if (!short) return;
      this.runRerender(short.requestId, short.id, short.rerenderPid ?? null);
    }
  }

  /**
   * A clip of an API request marked re-rendering that nobody runs: not started yet (no pid), or left by a
   * process that is gone. Our own pid on a clip we do not run is a previous life of this process (same pid
   * after a restart, as in a container).
   */
  private nextRerender(): { id: string; requestId: string; rerenderPid?: number | null } | undefined {
    return this.opts.store.listRerendering().find((s) => s.origin === 'api' && !this.active.has(Worker.rerenderKey(s.id))
      && (s.rerenderPid == null || s.rerenderPid === process.pid || !isAlive(s.rerenderPid)));
  }

  private runRerender(requestId: string, shortId: string, from: number | null): void {
    const { store, orchestrator } = this.opts;
    const key = Worker.rerenderKey(shortId);
    // Swapped only from the runner seen (none, or a dead one): another server taking it at once gets null.
    const attempts = store.claimRerender(shortId, process.pid, from);
    const controller = new AbortController();
    const entry = { controller, done: Promise.resolve() };
    this.active.set(key, entry);
    entry.done = (async () => {
      await Promise.resolve();
      try {
        if (attempts === null) return; // finished, given up or taken by another server meanwhile
        if (attempts > (this.opts.maxAttempts ?? 3)) {
          store.abandonRerender(shortId, `internal error: the re-render stopped unexpectedly ${attempts - 1} times; the clip is as it was`);
          return;
        }
        await orchestrator.rerender(requestId, shortId, controller.signal);
      } catch (e) {
        this.opts.log?.(`worker error on the re-render of ${shortId}: ${e instanceof Error ? e.message : String(e)}`);
      } finally {
        this.active.delete(key);
        this.pump();
      }
    })();
  }

  private next(): RequestRecord | undefined {
    const { store } = this.opts;
    // Another server on the same data dir may die while this one runs: its requests are picked up here.
    if (Date.now() - this.lastOrphanScan >= ORPHAN_SCAN_MS) {
      const found = this.scanOrphans();
      if (found) this.opts.log?.(`taking over ${found} request(s) left processing by a stopped process`);
    }
    while (this.resume.length) {
      const { id, from } = this.resume.shift()!;
      const taken = store.reclaim(id, process.pid, from);
      if (taken) return taken;
    }
    return store.claimNextQueued(process.pid);
  }

  private run(record: RequestRecord): void {
    const { store, orchestrator, refund } = this.opts;
    const controller = new AbortController();
    const untrack = this.opts.track(record.id, controller);
    const maxAttempts = this.opts.maxAttempts ?? 3;
    const entry = { controller, done: Promise.resolve() };
    this.active.set(record.id, entry);
    entry.done = (async () => {
      await Promise.resolve(); // run after the slot is registered, even when nothing below awaits
      try {
        let final: RequestRecord;
        if (store.attempts(record.id) > maxAttempts) {
          store.finish(record.id, 'failed', `internal error: processing stopped unexpectedly ${maxAttempts} times`);
          final = store.getRequest(record.id)!;
        } else {
          final = await orchestrator.run(record.id, controller.signal);
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
        this.active.delete(record.id);
        this.pump();
      }
    })();
  }
}
