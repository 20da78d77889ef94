// The job queue port (issue 22 point 1): who runs what, in which order, how often it is retried, and how a
// cancel reaches the process running it. Named queues of jobs; each job has an id its caller chooses (one
// request, one clip's re-render, later one stage of a request: the port knows nothing of what a job means),
// JSON data, a number of attempts, a backoff between them and a delay before the first. A worker takes the
// next due job of the queues it serves under a lock with a TTL, extends the lock while it works (a heartbeat),
// and ends the job: complete, fail (retried after its backoff until its attempts run out, or at once when the
// error is final), or hand it back (a clean stop: no attempt counted). A holder that stops extending (a killed
// process) leaves a stalled job: the next taker gets it with one more attempt.
//
// Shaped after BullMQ 6 so its adapter (issue 24) implements this interface unchanged: `enqueue` is Queue.add
// with `jobId`, `attempts`, `backoff`, `delay` (and removeOnComplete/removeOnFail `{ age }`: ended jobs are
// bookkeeping, removed a while after they ended, see KEEP_ENDED_JOBS_MS); `take` is Worker.getNextJob(token) with `lockDuration`; `extend` is
// job.extendLock(token); `complete`/`fail` are moveToCompleted/moveToFailed (a final failure: its
// UnrecoverableError); `handBack` moves the job back to wait (moveToDelayed/Job.moveToWait without counting
// the attempt); stalled jobs are BullMQ's stalled-job recovery with maxStalledCount = attempts, the processor
// reading attemptsStarted (here `attempt`/`exhausted`). A cancel of a running job is a flag its holder reads in
// the answer of its next `extend` (a key beside the job in Redis; a column in SQL).
//
// The queue and leases (src/ports/leases.ts): the queue decides who gets a job (order, attempts, stalls,
// cancels); the lease fences the writes that finish a step in the request store. They are two records on
// purpose: a fenced write checks its lease inside the store's own transaction, and in distributed mode the
// job's lock lives in Redis, out of reach of a PostgreSQL transaction. So a worker takes a job, then the lease
// of what the job works on (a request, a clip) as it did before there was a queue; the lock's TTL is the
// lease's, so both run out together when a process dies. Today both live in one SQLite file.
//
// Today's adapter: src/adapters/sqlite/job-queue.ts (a `jobs` table, polled by the workers of other processes).
// test/conformance/job-queue.ts says what every adapter must do.

/**
 * How long an ended job (completed, failed, cancelled) is kept after it ended: `get` tells how it ended for that
 * long, then answers undefined. What reads ended jobs needs minutes at most (a worker's orphan sweep and the
 * publish sweep only ask whether a job is live; tests read a job just ended), and the truth about a request,
 * a clip or a post is in its own record, never pruned: a day is for an operator looking at the queues.
 * Adapters remove an old ended job, as BullMQ's age-based removeOnComplete/removeOnFail does, when a later job
 * of its queue ends (no timer: a queue nobody uses keeps its last ended jobs).
 */
export const KEEP_ENDED_JOBS_MS = 24 * 3600_000;

/** What an adapter is built with besides its connection. */
export interface JobRetention {
  /** KEEP_ENDED_JOBS_MS unless a test wants a short one (whole seconds on BullMQ). */
  keepEndedMs?: number;
}

/** Wait between attempts after a retryable failure: `delayMs` each time, or doubling from it (1, 2, 4... x). */
export interface Backoff {
  type: 'fixed' | 'exponential';
  delayMs: number;
}

export interface JobOptions {
  /** How many times the job may be started (takes that stalled or failed retryably count); default 1. */
  attempts?: number;
  backoff?: Backoff;
  /** Milliseconds before the job is first due; default 0. */
  delayMs?: number;
}

export interface NewJob<T = unknown> {
  queue: string;
  /** Chosen by the caller: enqueueing an id whose job is waiting or active again changes nothing. */
  id: string;
  /** JSON-serialisable. */
  data: T;
  options?: JobOptions;
}

/** A job taken under a lock: the handle its holder extends and ends it with. */
export interface Job<T = unknown> {
  queue: string;
  id: string;
  data: T;
  /** Which start this is (1 the first): previous starts that stalled or failed retryably count, hand-backs do not. */
  attempt: number;
  /** The attempts it was enqueued with. */
  attempts: number;
  /**
   * Taken back from holders that stopped (stalled) more times than it has attempts (`attempt > attempts`):
   * the taker must not run it again but settle it (say why to whoever waits for it) and `fail` it.
   */
  exhausted: boolean;
  /** This take's lock (opaque): complete, fail, extend and handBack are refused once another take has the job. */
  token: string;
}

/** `waiting-children`: a flow's parent whose children have not all ended yet (see `enqueueFlow`). */
export type JobState = 'waiting-children' | 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'cancelled';

export interface JobInfo<T = unknown> {
  queue: string;
  id: string;
  data: T;
  state: JobState;
  /** Starts so far (stalled, failed, running). */
  attemptsMade: number;
  /** Why it failed (its last failure while retried). */
  failedReason: string | null;
  /** A cancel was asked while it was active: its holder learns it from `extend`. */
  cancelRequested: boolean;
}

/** What `extend` tells the holder: go on; stop, it was cancelled (the lock is still extended); stop, it is not yours. */
export type LockState = 'held' | 'cancelled' | 'lost';

export interface JobQueue {
  /**
   * Adds a job; false (and nothing changes) when a job with that id is waiting (for children or not) or active
   * in that queue. An id whose job ended (kept or already removed) can be enqueued again: a new job.
   */
  enqueue<T>(job: NewJob<T>): Promise<boolean>;
  /**
   * A flow (BullMQ's FlowProducer.add; issue 24: a request's render fans out one job per clip): the `children`
   * are added due at once (each with its own options), and `parent` waits for them in `waiting-children`; it
   * becomes due (waiting, or delayed by its own delay) once every child has ended — completed, failed for good,
   * or cancelled. A child's failure does not fail the parent (BullMQ's ignoreDependencyOnFailure): the parent's
   * holder reads what happened from its own records (a clip whose render failed says so on the clip). All or
   * nothing: false, and nothing added, when the parent's id is waiting, waiting for children or active in its
   * queue. Children ids are unique in their queues like any job's (a live one is not added twice). Cancelling the
   * parent cancels its children that have not ended (an active child learns it from `extend`). No children: the
   * parent is due at once.
   */
  enqueueFlow<P>(parent: NewJob<P>, children: readonly NewJob[]): Promise<boolean>;
  /**
   * The next due job of these queues (oldest due first), locked for `owner` for `lockMs`, or null when none is
   * due. A job whose lock ran out (its holder stopped extending it) is due again, with one more attempt.
   * Atomic: of two processes taking at once, exactly one gets a given job.
   */
  take(queues: readonly string[], owner: string, lockMs: number): Promise<Job | null>;
  /** Pushes the lock's expiry to `lockMs` from now; says whether the holder should go on. */
  extend(job: Job, lockMs: number): Promise<LockState>;
  /** The job is done (a job whose cancel was asked ends cancelled). JobLockLost when the lock is not this take's. */
  complete(job: Job): Promise<void>;
  /**
   * The job failed: back to waiting after its backoff while attempts are left and the error is not `final`,
   * else failed. Returns the state it is in now. JobLockLost when the lock is not this take's.
   */
  fail(job: Job, reason: string, opts?: { final?: boolean }): Promise<'waiting' | 'delayed' | 'failed' | 'cancelled'>;
  /** Gives a job back without counting the attempt (shutdown; not runnable here yet: after `delayMs`). JobLockLost likewise. */
  handBack(job: Job, opts?: { delayMs?: number }): Promise<void>;
  /**
   * Cancels a job: a waiting one is never taken; an active one is flagged, and its holder learns it from its next
   * `extend`. False when there is no waiting or active job with that id.
   */
  cancel(queue: string, id: string): Promise<boolean>;
  /**
   * A job's state now (undefined when the queue has none with that id, or its job ended longer ago than the
   * adapter keeps ended jobs, KEEP_ENDED_JOBS_MS, and a later job of its queue ended since).
   */
  get(queue: string, id: string): Promise<JobInfo | undefined>;
  /** How many jobs of a queue are in each state now (the queue depths of /metrics); ended jobs an adapter no longer keeps count 0. */
  counts(queue: string): Promise<Record<JobState, number>>;
  /**
   * Calls `listener` when a job is enqueued through this adapter instance (in-process wake-up: the local worker
   * takes it at once) and, where the adapter can hear it (BullMQ: yes; SQLite: no, other processes poll the
   * file), when a job of a queue this instance has taken from becomes due in another process. It may be called
   * when nothing is due after all (a spurious wake-up costs one take). Returns the unsubscribe function.
   */
  onEnqueued(listener: (queue: string) => void): () => void;
}

/** A holder's complete/fail/handBack refused: another take has the job now (its lock ran out and was taken). */
export class JobLockLost extends Error {
  constructor(readonly queue: string, readonly id: string) {
    super(`the lock on job ${queue}/${id} is held by another take`);
    this.name = 'JobLockLost';
  }
}

/** The wait before the next attempt once `attemptsMade` starts failed (BullMQ's built-in strategies). */
export function backoffDelay(backoff: Backoff | undefined, attemptsMade: number): number {
  if (!backoff) return 0;
  return backoff.type === 'fixed' ? backoff.delayMs : backoff.delayMs * 2 ** Math.max(0, attemptsMade - 1);
}
