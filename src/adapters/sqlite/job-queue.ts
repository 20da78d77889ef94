// The job queue port over SQLite: a `jobs` table in the request store's database (migration v11). Time is the
// database's clock (NOW_MS, as for leases), so every process on a data dir sees one expiry. A take is one
// IMMEDIATE transaction (select the due job, lock it): two processes taking at once get different jobs. A
// `delayed` job is a waiting one whose run_at is still ahead; a stalled job is an active one whose lock ran out.
// Other processes' enqueues are found by polling `take` (the workers do every second); a read-only look comes
// first, so an idle poll takes no write lock. A flow's parent is a waiting row with children left to end
// (pending_children > 0, never due); each child that ends counts itself off its parent (`ended`). An ended job
// is kept KEEP_ENDED_JOBS_MS (its `ended_at`, migration v15), then removed when a later job of its queue ends,
// as BullMQ's removeOnComplete/removeOnFail `{ age }` does: a few rows per write, never a long lock.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { NOW_MS } from './lease-store.js';
import {
  JobLockLost, KEEP_ENDED_JOBS_MS, backoffDelay, type Backoff, type JobRetention, type Job, type JobInfo, type JobQueue, type JobState, type LockState, type NewJob,
} from '../../ports/job-queue.js';

interface Row {
  seq: number; queue: string; id: string; data: string; state: 'waiting' | 'active' | 'completed' | 'failed' | 'cancelled';
  run_at: number; attempts: number; attempts_made: number; backoff: string | null; lock_token: string | null;
  locked_until: number | null; cancel_requested: number; failed_reason: string | null;
  parent_queue: string | null; parent_id: string | null; pending_children: number;
}

/** Old ended jobs removed by one ending job at most (the first ends after an upgrade clear a backlog bit by bit). */
const PRUNE_BATCH = 100;

const ALL_STATES: readonly JobState[] = ['waiting-children', 'waiting', 'delayed', 'active', 'completed', 'failed', 'cancelled'];

/** Waiting and due, or active with its lock run out (stalled). */
const DUE = `((state = 'waiting' AND pending_children = 0 AND run_at <= ${NOW_MS}) OR (state = 'active' AND locked_until <= ${NOW_MS}))`;

export class SqliteJobQueue implements JobQueue {
  private readonly events = new EventEmitter();
  private readonly keepEndedMs: number;

  constructor(private readonly db: Database.Database, opts: JobRetention = {}) {
    this.keepEndedMs = Math.ceil(opts.keepEndedMs ?? KEEP_ENDED_JOBS_MS);
  }

  async enqueue<T>(job: NewJob<T>): Promise<boolean> {
    const added = this.db.transaction(() => this.insert(job)).immediate();
    if (added) this.events.emit('enqueued', job.queue);
    return added;
  }

  async enqueueFlow<P>(parent: NewJob<P>, children: readonly NewJob[]): Promise<boolean> {
    const added = this.db.transaction(() => {
      if (!this.insert(parent)) return false;
      let pending = 0;
      for (const child of children) if (this.insert(child, parent)) pending++;
      this.db.prepare('UPDATE jobs SET pending_children = ? WHERE queue = ? AND id = ?').run(pending, parent.queue, parent.id);
      return true;
    }).immediate();
    if (added) for (const q of new Set([parent.queue, ...children.map((c) => c.queue)])) this.events.emit('enqueued', q);
    return added;
  }

  /** Adds one job (inside the caller's transaction) unless its id is live in its queue; a child names its parent. */
  private insert(job: NewJob, parent?: NewJob): boolean {
    const o = job.options ?? {};
    const attempts = Math.max(1, Math.floor(o.attempts ?? 1));
    const live = this.db.prepare(`SELECT 1 FROM jobs WHERE queue = ? AND id = ? AND state IN ('waiting', 'active')`).get(job.queue, job.id);
    if (live) return false;
    // An ended job of that id is replaced (BullMQ's removeOnComplete/removeOnFail): a clip is re-rendered again.
    this.db.prepare('DELETE FROM jobs WHERE queue = ? AND id = ?').run(job.queue, job.id);
    this.db.prepare(`INSERT INTO jobs (queue, id, data, state, run_at, attempts, backoff, parent_queue, parent_id)
      VALUES (@queue, @id, @data, 'waiting', ${NOW_MS} + @delay, @attempts, @backoff, @parentQueue, @parentId)`).run({
      queue: job.queue, id: job.id, data: JSON.stringify(job.data ?? null), delay: Math.max(0, Math.ceil(o.delayMs ?? 0)), attempts,
      backoff: o.backoff ? JSON.stringify(o.backoff) : null, parentQueue: parent?.queue ?? null, parentId: parent?.id ?? null,
    });
    return true;
  }

  /**
   * Inside the transaction that ended a job (completed, failed for good, cancelled): when it ended; one child
   * fewer for its parent, which is due at none left; and its queue's jobs that ended too long ago go.
   */
  private ended(queue: string, id: string): void {
    const row = this.db.prepare(`UPDATE jobs SET ended_at = ${NOW_MS} WHERE queue = ? AND id = ? RETURNING parent_queue, parent_id`)
      .get(queue, id) as Pick<Row, 'parent_queue' | 'parent_id'> | undefined;
    this.db.prepare(`DELETE FROM jobs WHERE seq IN (SELECT seq FROM jobs WHERE state IN ('completed', 'failed', 'cancelled') AND queue = ?
      AND ended_at < ${NOW_MS} - ? LIMIT ${PRUNE_BATCH})`).run(queue, this.keepEndedMs);
    if (!row?.parent_queue || !row.parent_id) return;
    const woke = this.db.prepare(`UPDATE jobs SET pending_children = pending_children - 1
      WHERE queue = ? AND id = ? AND state = 'waiting' AND pending_children > 0 RETURNING pending_children`).get(row.parent_queue, row.parent_id) as { pending_children: number } | undefined;
    if (woke?.pending_children === 0) queueMicrotask(() => this.events.emit('enqueued', row.parent_queue));
  }

  async take(queues: readonly string[], owner: string, lockMs: number): Promise<Job | null> {
    if (queues.length === 0) return null;
    const inQueues = `queue IN (${queues.map(() => '?').join(', ')})`;
    const next = this.db.prepare(`SELECT seq FROM jobs WHERE state IN ('waiting', 'active') AND ${inQueues} AND ${DUE}
      ORDER BY run_at, seq LIMIT 1`);
    if (!next.get(...queues)) return null;
    const row = this.db.transaction(() => {
      for (;;) {
        const due = next.get(...queues) as { seq: number } | undefined;
        if (!due) return undefined;
        // A stalled job whose cancel was asked ends cancelled instead of being run again.
        const ended = this.db.prepare(`UPDATE jobs SET state = 'cancelled', lock_token = NULL, locked_until = NULL
          WHERE seq = ? AND state = 'active' AND cancel_requested = 1`).run(due.seq);
        if (ended.changes === 1) {
          const r = this.db.prepare('SELECT queue, id FROM jobs WHERE seq = ?').get(due.seq) as { queue: string; id: string };
          this.ended(r.queue, r.id);
          continue;
        }
        return this.db.prepare(`UPDATE jobs SET state = 'active', attempts_made = attempts_made + 1, lock_token = @token,
            locked_until = ${NOW_MS} + @lock WHERE seq = @seq RETURNING *`)
          .get({ seq: due.seq, token: `${owner}:${randomUUID()}`, lock: Math.ceil(lockMs) }) as Row;
      }
    }).immediate();
    if (!row) return null;
    return {
      queue: row.queue, id: row.id, data: JSON.parse(row.data) as unknown, attempt: row.attempts_made, attempts: row.attempts,
      exhausted: row.attempts_made > row.attempts, token: row.lock_token!,
    };
  }

  async extend(job: Job, lockMs: number): Promise<LockState> {
    const row = this.db.prepare(`UPDATE jobs SET locked_until = ${NOW_MS} + @lock
      WHERE queue = @queue AND id = @id AND state = 'active' AND lock_token = @token RETURNING cancel_requested`)
      .get({ ...held(job), lock: Math.ceil(lockMs) }) as { cancel_requested: number } | undefined;
    if (!row) return 'lost';
    return row.cancel_requested === 1 ? 'cancelled' : 'held';
  }

  async complete(job: Job): Promise<void> {
    this.end(job, () => {
      this.db.prepare(`UPDATE jobs SET state = CASE cancel_requested WHEN 1 THEN 'cancelled' ELSE 'completed' END, lock_token = NULL, locked_until = NULL
        WHERE queue = @queue AND id = @id`).run(held(job));
      this.ended(job.queue, job.id);
    });
  }

  async fail(job: Job, reason: string, opts: { final?: boolean } = {}): Promise<'waiting' | 'delayed' | 'failed' | 'cancelled'> {
    return this.end(job, (row) => {
      const key = held(job);
      if (row.cancel_requested === 1) {
        this.db.prepare(`UPDATE jobs SET state = 'cancelled', failed_reason = @reason, lock_token = NULL, locked_until = NULL WHERE queue = @queue AND id = @id`).run({ ...key, reason });
        this.ended(job.queue, job.id);
        return 'cancelled';
      }
      if (opts.final || row.attempts_made >= row.attempts) {
        this.db.prepare(`UPDATE jobs SET state = 'failed', failed_reason = @reason, lock_token = NULL, locked_until = NULL WHERE queue = @queue AND id = @id`).run({ ...key, reason });
        this.ended(job.queue, job.id);
        return 'failed';
      }
      const wait = backoffDelay(row.backoff ? (JSON.parse(row.backoff) as Backoff) : undefined, row.attempts_made);
      this.db.prepare(`UPDATE jobs SET state = 'waiting', run_at = ${NOW_MS} + @wait, failed_reason = @reason, lock_token = NULL, locked_until = NULL
        WHERE queue = @queue AND id = @id`).run({ ...key, reason, wait: Math.ceil(wait) });
      return wait > 0 ? 'delayed' : 'waiting';
    });
  }

  async handBack(job: Job, opts: { delayMs?: number } = {}): Promise<void> {
    const delay = Math.max(0, Math.ceil(opts.delayMs ?? 0));
    this.end(job, (row) => {
      if (row.cancel_requested === 1) {
        this.db.prepare(`UPDATE jobs SET state = 'cancelled', lock_token = NULL, locked_until = NULL WHERE queue = @queue AND id = @id`).run(held(job));
        this.ended(job.queue, job.id);
        return;
      }
      // Not an attempt: the count goes back, and without a delay it keeps its place in the order.
      this.db.prepare(`UPDATE jobs SET state = 'waiting', attempts_made = attempts_made - 1, lock_token = NULL, locked_until = NULL,
          run_at = CASE WHEN @delay > 0 THEN ${NOW_MS} + @delay ELSE run_at END
        WHERE queue = @queue AND id = @id`).run({ ...held(job), delay });
    });
  }

  async cancel(queue: string, id: string): Promise<boolean> {
    return this.db.transaction(() => this.cancelOne(queue, id)).immediate();
  }

  /** Inside a transaction: a waiting job ends cancelled (its unended children with it), an active one is flagged. */
  private cancelOne(queue: string, id: string): boolean {
    const waiting = this.db.prepare(`UPDATE jobs SET state = 'cancelled' WHERE queue = ? AND id = ? AND state = 'waiting' RETURNING pending_children`).get(queue, id) as { pending_children: number } | undefined;
    if (waiting) {
      if (waiting.pending_children > 0) {
        const children = this.db.prepare(`SELECT queue, id FROM jobs WHERE parent_queue = ? AND parent_id = ? AND state IN ('waiting', 'active')`).all(queue, id) as { queue: string; id: string }[];
        for (const c of children) this.cancelOne(c.queue, c.id);
      }
      this.ended(queue, id);
      return true;
    }
    return this.db.prepare(`UPDATE jobs SET cancel_requested = 1 WHERE queue = ? AND id = ? AND state = 'active'`).run(queue, id).changes === 1;
  }

  async get(queue: string, id: string): Promise<JobInfo | undefined> {
    const row = this.db.prepare(`SELECT *, run_at > ${NOW_MS} AS ahead FROM jobs WHERE queue = ? AND id = ?`).get(queue, id) as (Row & { ahead: number }) | undefined;
    if (!row) return undefined;
    const state: JobState = row.state === 'waiting' && row.pending_children > 0 ? 'waiting-children' : row.state === 'waiting' && row.ahead === 1 ? 'delayed' : row.state;
    return {
      queue: row.queue, id: row.id, data: JSON.parse(row.data) as unknown, state, attemptsMade: row.attempts_made,
      failedReason: row.failed_reason, cancelRequested: row.cancel_requested === 1,
    };
  }

  async counts(queue: string): Promise<Record<JobState, number>> {
    const rows = this.db.prepare(`SELECT CASE WHEN state = 'waiting' AND pending_children > 0 THEN 'waiting-children'
        WHEN state = 'waiting' AND run_at > ${NOW_MS} THEN 'delayed' ELSE state END AS s, count(*) AS n
      FROM jobs WHERE queue = ? GROUP BY s`).all(queue) as { s: JobState; n: number }[];
    const out = Object.fromEntries(ALL_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    for (const r of rows) out[r.s] = r.n;
    return out;
  }

  onEnqueued(listener: (queue: string) => void): () => void {
    this.events.on('enqueued', listener);
    return () => { this.events.off('enqueued', listener); };
  }

  /** Runs `write` on the job's row in one IMMEDIATE transaction while this take still holds it; else JobLockLost. */
  private end<T>(job: Job, write: (row: Row) => T): T {
    return this.db.transaction(() => {
      const row = this.db.prepare(`SELECT * FROM jobs WHERE queue = @queue AND id = @id AND state = 'active' AND lock_token = @token`).get(held(job)) as Row | undefined;
      if (!row) throw new JobLockLost(job.queue, job.id);
      return write(row);
    }).immediate();
  }
}

function held(job: Job) {
  return { queue: job.queue, id: job.id, token: job.token };
}
