// The job queue port (src/ports/job-queue.ts) on BullMQ 6, for distributed mode (issue 24): one adapter, two
// backends chosen by the connection — Redis (an ioredis connection; BullMQ's Lua scripts) or PostgreSQL
// (BullMQ's own PostgreSQL backend, `createPostgresBackend`, its tables and functions in one schema, migrated
// here with its `runMigrations`). Every port queue is a BullMQ queue; BullMQ owns order, locks, retries,
// flows and stalled-job recovery, and this module only maps the port onto it:
// - `take` is Worker.getNextJob(token) on each asked queue in turn (a worker per queue and lock TTL, never
//   run: no processor), after BullMQ's stalled check. BullMQ orders the jobs of one queue; across queues the
//   first asked that has a due job wins, not the oldest job of all. That check is two-phase (a pass marks the active jobs,
//   the next pass re-queues those marked whose lock ran out) and throttled by `stalledInterval`; the port
//   wants a job whose lock ran out to be due at once, so a take runs two passes 1 ms apart (stalledInterval
//   is 1 ms: the throttle only keeps concurrent takes from all scanning at once).
// - A take never blocks; what makes the next one prompt is `onEnqueued`, told of this instance's enqueues and,
//   for every queue this instance has taken from, of jobs made due in any process, from BullMQ's own
//   signals (due-signals.ts: the event streams on Redis, NOTIFY on PostgreSQL; one connection for all
//   queues). A blocking take (Worker.getNextJob with block) would hold a connection per queue and pop
//   BullMQ's one marker per queue, waking one process where several serve it; the port's take asks several
//   queues at once and the taker's loop knows when it has room, so a signal suits it better.
// - `attempt` is BullMQ's attemptsStarted less our hand-backs (BullMQ counts every start; the port does not
//   count a hand-back), and a stalled job taken past its attempts — or one BullMQ itself gave up on after
//   maxStalledCount stalls (its deferred failure; the worker's maxStalledCount is per queue, the port's
//   attempts per job, so it is only a backstop) — comes back `exhausted` for its taker to fail.
// - Retry or not is the port's rule (`attempt < attempts`, stalls count) decided here, not BullMQ's (which
//   counts failures only): a final failure is moveToFailed with an UnrecoverableError, a retry moveToDelayed
//   by the port's backoff or straight back to wait.
// - BullMQ has no `cancelled` state and cannot end a job that is not active, so a cancel is a flag in the
//   job's data (`cancel: true`; data is stored as {data, cancel?, children?}): an active job's holder reads
//   it on `extend`, and the job ends completed or failed, reported `cancelled`. A waiting one is detached
//   from its flow's parent at once (BullMQ then releases the parent when it was its last pending child) and
//   stays in BullMQ's wait list, reported `cancelled`, until a take meets it and ends it instead of running
//   it (so `counts` sees it as waiting until then: only a backlog keeps it there, as a free taker takes at
//   once. Ending it at cancel time is not cheap in BullMQ: only a lock holder can move a job to completed or
//   failed, removing it would lose `get`'s `cancelled`, and leaving it out of `counts` would mean reading
//   every waiting job's data on each /metrics scrape). A parent records its children in its data so that
//   cancelling it reaches them.
// - Hand-backs and the due time of a delayed job are the holder's own bookkeeping, kept in the job's
//   `progress` (which only the holder writes; a cancel writes the data), so the two never overwrite each
//   other. `get` reports a delayed job whose time has come as waiting (BullMQ promotes it on the next take).
// - Ended jobs are kept KEEP_ENDED_JOBS_MS (removeOnComplete/removeOnFail `{ age }`, BullMQ's documented
//   practice: without it Redis memory, or BullMQ's PostgreSQL tables, grow by every job ever run); BullMQ
//   removes them itself when a later job of the queue ends, at most 1000 at a time on Redis.
// - An id is unique while its job is live: enqueueing it again once it ended removes the ended job first
//   (while kept, BullMQ would treat the id as a duplicate). The check and the add are two steps: of two
//   instances enqueueing one id at the same instant both may answer true, and BullMQ adds it once.
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  FlowProducer, Queue, UnrecoverableError, Worker, createPostgresBackend, runMigrations, quoteSchemaName, DEFAULT_SCHEMA,
  type BackendFactory, type FlowJob, type Job as BullJob, type JobsOptions,
} from 'bullmq';
import { postgresDueSignals, redisDueSignals, type DueSignals } from './due-signals.js';
import {
  JobLockLost, KEEP_ENDED_JOBS_MS, backoffDelay, type JobRetention,
  type Backoff, type Job, type JobInfo, type JobOptions, type JobQueue, type JobState, type LockState, type NewJob,
} from '../../ports/job-queue.js';

/**
 * Where the queues live: a Redis server (`redis://…`, keys under `prefix`) or a PostgreSQL database
 * (`postgres://…`, BullMQ's tables in its schema `bullmq`: BullMQ checks that schema on a pool it did not
 * build, and one pool per process is all this adapter opens, so a database holds one deployment's queues).
 */
export type BullmqConnection = { redisUrl: string; prefix?: string } | { postgresUrl: string };

export interface BullmqJobQueueOptions extends JobRetention {
  /** Errors of connections and BullMQ objects that no call is waiting for (a server restarting): they are retried by BullMQ and the clients. */
  onError?: (err: Error) => void;
}

/** A BullMQ job queue, and how to close its connections. */
export type BullmqJobQueue = JobQueue & { close(): Promise<void> };

interface Stored<T = unknown> {
  data: T;
  cancel?: true;
  /** A flow's parent: its children, for a cancel to reach them. */
  children?: { queue: string; id: string }[];
}

/** The holder's bookkeeping (see the header). */
interface Bookkeeping {
  handBacks?: number;
  /** When a job the holder delayed (retry backoff, hand-back) is due, epoch ms. */
  dueAt?: number;
}

/** BullMQ's own limit on stalls, a backstop under the port's per-job attempts (see the header). */
const MAX_STALLED = 1000;
/** Lock kept by handBack's ownership check until the move a moment later releases it. */
const CHECK_LOCK_MS = 30_000;
const NAME = 'job';
/** Never enqueued to: see the PostgreSQL branch of createBullmqJobQueue. */
const WARM_UP_QUEUE = 'shorts-warm-up';
/** The error codes of BullMQ's finishing commands meaning the job is not this take's any more (missing, lock missing, not active, lock mismatch). */
const LOST_CODES = new Set([-1, -2, -3, -6]);

const ENDED = new Set(['completed', 'failed']);

export async function createBullmqJobQueue(connection: BullmqConnection, opts: BullmqJobQueueOptions = {}): Promise<BullmqJobQueue> {
  const onError = opts.onError ?? (() => {});
  const keepEndedS = Math.max(1, Math.round((opts.keepEndedMs ?? KEEP_ENDED_JOBS_MS) / 1000));
  if ('redisUrl' in connection) {
    // BullMQ's requirement for blocking commands; the worker duplicates this connection for its own.
    const redis = new Redis(connection.redisUrl, { maxRetriesPerRequest: null });
    redis.on('error', onError);
    const base = { connection: redis, prefix: connection.prefix ?? 'bull' };
    return new BullmqAdapter(base, undefined, keepEndedS, onError, async () => { redis.disconnect(); },
      (adapter, due) => redisDueSignals(redis, (queue) => adapter.eventsKey(queue), due, onError));
  }
  // One pool for every queue of this instance (BullMQ would build a pool per queue object), its sessions
  // pinned to BullMQ's schema as BullMQ does on the pools it builds.
  const pool = new pg.Pool({ connectionString: connection.postgresUrl, options: `-c search_path=${quoteSchemaName(DEFAULT_SCHEMA)}` });
  pool.on('error', onError);
  // Every client of the pool keeps an error listener of ours for its whole life: a server shutting down sends
  // its FATAL to sessions that may be between owners (pg-pool drops its idle listener on checkout; the LISTEN
  // session is handed on by BullMQ's PostgresConnection on a restart), and an error event with no listener
  // would end the process. Found by the restart test (an uncaught 57P01 on the LISTEN session's pool slot).
  pool.on('connect', (client) => { client.on('error', onError); });
  try {
    const client = await pool.connect();
    try {
      await runMigrations(client, DEFAULT_SCHEMA);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  // BullMQ's factory gives a worker a LISTEN session of its own, checked out of a pool it did not build for
  // good: a pool slot per queue. Our takes never block (they poll), so no backend is built with one.
  const factory: BackendFactory = (name, queueOpts) => createPostgresBackend(name, queueOpts as never);
  const adapter = new BullmqAdapter({ connection: pool }, factory, keepEndedS, onError, () => pool.end(),
    (_adapter, due) => postgresDueSignals(pool, due, onError));
  // PostgreSQL compiles BullMQ's PL/pgSQL functions in a session on their first call (tens of ms): a take on
  // an unused queue does it now, so that the first real take does not outlast a short lock it should see held.
  await adapter.take([WARM_UP_QUEUE], 'open', 1);
  return adapter;
}

type Base = Record<string, unknown>;
// The backend factory goes to every BullMQ constructor (none: Redis); its type ties constructor overloads to
// one backend, which this module does not need (it uses the backend-agnostic API only).
type Factory = BackendFactory | undefined;

class BullmqAdapter implements BullmqJobQueue {
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, Worker>();
  private flows?: FlowProducer;
  private readonly stalledChecks = new Map<string, Promise<void>>();
  private readonly events = new EventEmitter();
  /** Jobs that became due in any process, for the queues this instance took from (see due-signals.ts). */
  private readonly signals: DueSignals;

  constructor(
    private readonly base: Base,
    private readonly factory: Factory,
    /** Seconds an ended job is kept (BullMQ's `age`). */
    private readonly keepEndedS: number,
    private readonly onError: (err: Error) => void,
    private readonly closeConnection: () => Promise<void>,
    signals: (adapter: BullmqAdapter, due: (queue: string) => void) => DueSignals,
  ) {
    this.signals = signals(this, (queue) => this.events.emit('enqueued', queue));
  }

  async enqueue<T>(job: NewJob<T>): Promise<boolean> {
    if (!(await this.clearEnded(job.queue, job.id))) return false;
    await this.queue(job.queue).add(NAME, { data: job.data } satisfies Stored<T>, bullOptions(job, this.keepEndedS));
    this.events.emit('enqueued', job.queue);
    return true;
  }

  async enqueueFlow<P>(parent: NewJob<P>, children: readonly NewJob[]): Promise<boolean> {
    if (!(await this.clearEnded(parent.queue, parent.id))) return false;
    for (const c of children) await this.clearEnded(c.queue, c.id);
    const stored: Stored<P> = { data: parent.data, children: children.map((c) => ({ queue: c.queue, id: c.id })) };
    const flow: FlowJob = {
      name: NAME, queueName: parent.queue, data: stored, opts: bullOptions(parent, this.keepEndedS),
      children: children.map((c) => ({
        name: NAME, queueName: c.queue, data: { data: c.data } satisfies Stored,
        opts: { ...bullOptions(c, this.keepEndedS), ignoreDependencyOnFailure: true },
      })),
    };
    await this.flowProducer().add(flow);
    for (const queue of new Set(children.length ? children.map((c) => c.queue) : [parent.queue])) this.events.emit('enqueued', queue);
    return true;
  }

  async take(queues: readonly string[], owner: string, lockMs: number): Promise<Job | null> {
    // Whoever takes from a queue hears its jobs from now on (a no-op after the first take); not waited for, so
    // that opening the signal's connection slows no take (due-signals.ts: no job made due meanwhile is missed).
    for (const name of queues) if (name !== WARM_UP_QUEUE) this.signals.watch(name);
    return this.takeFirst(queues, owner, lockMs);
  }

  private async takeFirst(queues: readonly string[], owner: string, lockMs: number): Promise<Job | null> {
    for (const name of queues) {
      const worker = this.worker(name, lockMs);
      await this.recoverStalled(name, worker);
      for (;;) {
        const token = `${owner}:${randomUUID()}`;
        const taken = (await worker.getNextJob(token, { block: false })) as BullJob | undefined;
        if (!taken) break;
        if ((taken.data as Stored).cancel) {
          // Cancelled while waiting (or stalled once its cancel was asked): it ends here instead of running.
          await taken.moveToCompleted(null, token, false);
          continue;
        }
        const attempts = taken.opts.attempts ?? 1;
        const attempt = taken.attemptsStarted - handBacks(taken);
        return {
          queue: name, id: taken.id!, data: (taken.data as Stored).data, attempt, attempts,
          exhausted: attempt > attempts || Boolean(taken.deferredFailure), token,
        };
      }
    }
    return null;
  }

  async extend(job: Job, lockMs: number): Promise<LockState> {
    const held = await this.queue(job.queue).getJob(job.id);
    if (!held || !(await held.extendLock(job.token, Math.ceil(lockMs)))) return 'lost';
    return (held.data as Stored).cancel ? 'cancelled' : 'held';
  }

  async complete(job: Job): Promise<void> {
    const held = await this.held(job);
    await lostIfRefused(job, () => held.moveToCompleted(null, job.token, false));
  }

  async fail(job: Job, reason: string, opts: { final?: boolean } = {}): Promise<'waiting' | 'delayed' | 'failed' | 'cancelled'> {
    const held = await this.held(job);
    const cancelled = Boolean((held.data as Stored).cancel);
    if (cancelled || opts.final || job.exhausted || job.attempt >= job.attempts) {
      await lostIfRefused(job, () => held.moveToFailed(new UnrecoverableError(reason), job.token, false));
      return cancelled ? 'cancelled' : 'failed';
    }
    const delay = backoffDelay(portBackoff(held.opts), job.attempt);
    const fieldsToUpdate = { failedReason: reason };
    if (delay > 0) {
      await this.keep(held, job, { dueAt: Date.now() + delay });
      await lostIfRefused(job, () => this.queue(job.queue).backend.moveToDelayed(job.id, Date.now(), delay, job.token, { fieldsToUpdate }));
      return 'delayed';
    }
    await lostIfRefused(job, () => this.queue(job.queue).backend.retryJob(job.id, false, job.token, { fieldsToUpdate }));
    return 'waiting';
  }

  async handBack(job: Job, opts: { delayMs?: number } = {}): Promise<void> {
    const held = await this.held(job);
    const delay = Math.max(0, opts.delayMs ?? 0);
    await this.keep(held, job, { handBacks: handBacks(held) + 1, dueAt: delay > 0 ? Date.now() + delay : undefined });
    // Not counted as a failed attempt (skipAttempt); without a delay, first in line again (lifo), where it was taken from.
    if (delay > 0) await lostIfRefused(job, () => this.queue(job.queue).backend.moveToDelayed(job.id, Date.now(), delay, job.token, { skipAttempt: true }));
    else await lostIfRefused(job, () => this.queue(job.queue).backend.retryJob(job.id, true, job.token));
  }

  async cancel(queue: string, id: string): Promise<boolean> {
    const found = await this.queue(queue).getJob(id);
    if (!found) return false;
    const state = await found.getState();
    const stored = found.data as Stored;
    if (ENDED.has(state) || state === 'unknown') return false;
    if (stored.cancel) return state === 'active';
    await found.updateData({ ...stored, cancel: true } satisfies Stored);
    if (state === 'active') return true;
    // Not started: it is over now. Its parent no longer waits for it, and its own children are cancelled.
    if (found.parentKey) await found.removeChildDependency().catch(() => false);
    for (const child of stored.children ?? []) await this.cancel(child.queue, child.id);
    return true;
  }

  async get(queue: string, id: string): Promise<JobInfo | undefined> {
    const found = await this.queue(queue).getJob(id);
    if (!found) return undefined;
    const state = await found.getState();
    if (state === 'unknown') return undefined;
    const stored = found.data as Stored;
    return {
      queue, id, data: stored.data,
      state: stored.cancel && state !== 'active' ? 'cancelled' : portState(found, state),
      attemptsMade: found.attemptsStarted - handBacks(found),
      failedReason: found.failedReason || null,
      cancelRequested: Boolean(stored.cancel) && state === 'active',
    };
  }

  async counts(queue: string): Promise<Record<JobState, number>> {
    const c = await this.queue(queue).getJobCounts('waiting', 'prioritized', 'waiting-children', 'delayed', 'active', 'completed', 'failed');
    return {
      'waiting-children': c['waiting-children'] ?? 0,
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
      delayed: c.delayed ?? 0, active: c.active ?? 0, completed: c.completed ?? 0, failed: c.failed ?? 0,
      cancelled: 0, // reported as completed or failed (see the header)
    };
  }

  onEnqueued(listener: (queue: string) => void): () => void {
    this.events.on('enqueued', listener);
    return () => this.events.off('enqueued', listener);
  }

  async close(): Promise<void> {
    await this.signals.close();
    const all = [...this.workers.values(), ...this.queues.values(), ...(this.flows ? [this.flows] : [])];
    await Promise.allSettled(all.map((o) => o.close()));
    await this.closeConnection();
  }

  /** The key of a queue's event stream on Redis. */
  eventsKey(name: string): string {
    return this.queue(name).keys.events!;
  }

  /** True when the id is free to enqueue: no job, or one that ended (removed now). */
  private async clearEnded(queue: string, id: string): Promise<boolean> {
    const found = await this.queue(queue).getJob(id);
    if (!found) return true;
    const state = await found.getState();
    const cancelled = (found.data as Stored).cancel && state !== 'active';
    if (!cancelled && !ENDED.has(state) && state !== 'unknown') return false;
    await this.queue(queue).remove(id, { removeChildren: false });
    return true;
  }

  /** The held job as stored now, JobLockLost when it is gone. */
  private async held(job: Job): Promise<BullJob> {
    const found = await this.queue(job.queue).getJob(job.id);
    if (!found) throw new JobLockLost(job.queue, job.id);
    return found;
  }

  /** Writes the holder's bookkeeping once sure the lock is still this take's (a lost one must not touch the job). */
  private async keep(held: BullJob, job: Job, change: Bookkeeping): Promise<void> {
    if (!(await held.extendLock(job.token, CHECK_LOCK_MS))) throw new JobLockLost(job.queue, job.id);
    await held.updateProgress({ ...bookkeeping(held), ...change } as object);
  }

  /** BullMQ's stalled check, twice (see the header); takes of this instance at the same moment share one. */
  private recoverStalled(name: string, worker: Worker): Promise<void> {
    let running = this.stalledChecks.get(name);
    if (!running) {
      running = (async () => {
        await worker.backend.moveStalledJobsToWait();
        await sleep(2);
        await worker.backend.moveStalledJobsToWait();
      })().finally(() => this.stalledChecks.delete(name));
      this.stalledChecks.set(name, running);
    }
    return running;
  }

  private queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, this.base as never, this.factory as never);
      q.on('error', this.onError);
      this.queues.set(name, q);
    }
    return q;
  }

  private worker(name: string, lockMs: number): Worker {
    const key = `${name}\u0000${lockMs}`;
    let w = this.workers.get(key);
    if (!w) {
      w = new Worker(name, null, {
        ...this.base, autorun: false, lockDuration: Math.ceil(lockMs), stalledInterval: 1, maxStalledCount: MAX_STALLED,
      } as never, this.factory as never);
      w.on('error', this.onError);
      this.workers.set(key, w);
    }
    return w;
  }

  private flowProducer(): FlowProducer {
    if (!this.flows) {
      this.flows = new FlowProducer(this.base as never, this.factory as never);
      this.flows.on('error', this.onError);
    }
    return this.flows;
  }
}

function bullOptions(job: NewJob, keepEndedS: number): JobsOptions {
  const o: JobOptions = job.options ?? {};
  return {
    jobId: job.id, attempts: o.attempts ?? 1, delay: o.delayMs ?? 0,
    ...(o.backoff ? { backoff: { type: o.backoff.type, delay: o.backoff.delayMs } } : {}),
    // Ended jobs stay a while, so that `get` tells how they ended (see the header); enqueueing the id again removes them.
    removeOnComplete: { age: keepEndedS }, removeOnFail: { age: keepEndedS },
  };
}

function portBackoff(opts: JobsOptions): Backoff | undefined {
  const b = opts.backoff;
  if (!b || typeof b === 'number') return b ? { type: 'fixed', delayMs: b } : undefined;
  return { type: b.type === 'exponential' ? 'exponential' : 'fixed', delayMs: b.delay ?? 0 };
}

function bookkeeping(job: BullJob): Bookkeeping {
  return typeof job.progress === 'object' && job.progress !== null ? (job.progress as Bookkeeping) : {};
}

function handBacks(job: BullJob): number {
  return bookkeeping(job).handBacks ?? 0;
}

function portState(job: BullJob, state: string): JobState {
  if (state === 'prioritized' || state === 'waiting' || state === 'paused') return 'waiting';
  if (state === 'delayed') {
    const dueAt = bookkeeping(job).dueAt ?? job.timestamp + (job.opts.delay ?? 0);
    return dueAt <= Date.now() ? 'waiting' : 'delayed';
  }
  return state as JobState;
}

/** Runs a finishing command of BullMQ's; its refusal because another take has the job is JobLockLost. */
async function lostIfRefused(job: Job, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (LOST_CODES.has((err as { code?: unknown }).code as number)) throw new JobLockLost(job.queue, job.id);
    throw err;
  }
}
