// A job queue whose adapter opens asynchronously (BullMQ connects first, and on PostgreSQL runs its own
// migrations) behind the synchronous composition root: every call waits for the open, and a failed open is
// tried again on the next call (a queue server not up yet when a process starts is not fatal). Listeners of
// `onEnqueued` are kept here, so they hear jobs enqueued through this instance whenever the adapter opened.
// A call that fails because the queue's server cannot be reached rejects with the port's EngineUnavailable (the
// API answers 503, a worker hands its job back), whatever driver said it.
import { EventEmitter } from 'node:events';
import { unavailableIfLost } from '../adapters/connection-lost.js';
import type { Job, JobQueue, NewJob } from '../ports/job-queue.js';
import type { EngineUnavailable } from '../ports/unavailable.js';

export type ClosableJobQueue = JobQueue & { close(): Promise<void> };

export function lazyJobQueue(open: () => Promise<ClosableJobQueue>, engine: EngineUnavailable['engine']): ClosableJobQueue & { ping(): Promise<string> } {
  let opening: Promise<ClosableJobQueue> | null = null;
  const events = new EventEmitter();
  const adapter = () => (opening ??= open().then((q) => {
    q.onEnqueued((queue) => events.emit('enqueued', queue));
    return q;
  }, (e: unknown) => {
    opening = null;
    throw e;
  }));
  const call = async <R>(work: (q: ClosableJobQueue) => Promise<R>): Promise<R> => {
    try {
      return await work(await adapter());
    } catch (e) {
      throw unavailableIfLost(engine, e);
    }
  };
  return {
    enqueue: <T>(job: NewJob<T>) => call((q) => q.enqueue(job)),
    enqueueFlow: <P>(parent: NewJob<P>, children: readonly NewJob[]) => call((q) => q.enqueueFlow(parent, children)),
    take: (queues: readonly string[], owner: string, lockMs: number) => call((q) => q.take(queues, owner, lockMs)),
    extend: (job: Job, lockMs: number) => call((q) => q.extend(job, lockMs)),
    complete: (job: Job) => call((q) => q.complete(job)),
    fail: (job: Job, reason: string, opts?: { final?: boolean }) => call((q) => q.fail(job, reason, opts)),
    handBack: (job: Job, opts?: { delayMs?: number }) => call((q) => q.handBack(job, opts)),
    cancel: (queue: string, id: string) => call((q) => q.cancel(queue, id)),
    get: (queue: string, id: string) => call((q) => q.get(queue, id)),
    counts: (queue: string) => call((q) => q.counts(queue)),
    onEnqueued: (listener) => {
      events.on('enqueued', listener);
      return () => { events.off('enqueued', listener); };
    },
    // Readiness: the queue's engine answers a cheap read.
    ping: async () => {
      await call((q) => q.counts('fetch'));
      return 'job queue ok';
    },
    close: async () => {
      const q = opening ? await opening.catch(() => null) : null;
      opening = null;
      await q?.close();
    },
  };
}
