// Housekeeping: the state's bookkeeping that would otherwise pile up for ever is forgotten here, hourly, by the
// processes that run workers (src/app/create-engine.ts starts it; several processes doing it at once only
// delete the same old rows). Expired leases (kept a day: LeaseStore.prune) and idempotency keys past their
// replay window (IdempotencyStore.purge). Ended jobs are not here: the job queue removes its own as later jobs
// end (KEEP_ENDED_JOBS_MS, BullMQ's way). What the API reports (requests, clips, posts, webhook deliveries) is
// never pruned. Deletions go in batches with a pause between them, so a first pass over a big table never
// holds the database's write lock for long.
import { setTimeout as sleep } from 'node:timers/promises';
import { IDEMPOTENCY_TTL_MS, type IdempotencyStore } from '../ports/idempotency.js';
import { KEEP_EXPIRED_LEASES_MS, type LeaseStore } from '../ports/leases.js';

export interface HousekeepingDeps {
  leases: LeaseStore;
  idempotency: IdempotencyStore;
  log?: (line: string) => void;
  /** Between passes; default hourly. */
  everyMs?: number;
  /** Rows one statement deletes at most. */
  batch?: number;
}

export interface HousekeepingPass { leases: number; idempotencyKeys: number }

const EVERY_MS = 3600_000;
const BATCH = 500;
/** Between two batches: another process waiting for the write lock gets it. */
const BATCH_PAUSE_MS = 20;
/** The first pass, a while after start (not on the way of a starting process), spread over processes started together. */
const FIRST_PASS_MS = 60_000;

export class Housekeeping {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(private readonly deps: HousekeepingDeps) {}

  /** Passes from now on until stop(); a second start changes nothing. */
  start(): void {
    if (this.timer || this.stopped) return;
    const next = (ms: number) => {
      this.timer = setTimeout(() => {
        this.running = this.pass()
          .catch((e: unknown) => this.deps.log?.(`housekeeping: ${e instanceof Error ? e.message : String(e)} (tried again at the next pass)`))
          .finally(() => {
            this.running = null;
            if (!this.stopped) next(this.deps.everyMs ?? EVERY_MS);
          });
      }, ms);
      this.timer.unref();
    };
    next(FIRST_PASS_MS * (1 + Math.random()));
  }

  /** No more passes; resolves once a running one has finished its batch (the store may close after). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass: every kind of old row, batch after batch until none is left. */
  async pass(): Promise<HousekeepingPass> {
    const { leases, idempotency, log } = this.deps;
    const done: HousekeepingPass = {
      leases: await this.inBatches((n) => leases.prune(KEEP_EXPIRED_LEASES_MS, n)),
      idempotencyKeys: await this.inBatches((n) => idempotency.purge(IDEMPOTENCY_TTL_MS, n)),
    };
    if (done.leases || done.idempotencyKeys) {
      log?.(`housekeeping: forgot ${done.leases} long-expired lease(s) and ${done.idempotencyKeys} idempotency key(s) past their replay window`);
    }
    return done;
  }

  private async inBatches(prune: (limit: number) => Promise<number>): Promise<number> {
    const batch = this.deps.batch ?? BATCH;
    let total = 0;
    for (;;) {
      const n = await prune(batch);
      total += n;
      if (n < batch || this.stopped) return total;
      await sleep(BATCH_PAUSE_MS);
    }
  }
}
