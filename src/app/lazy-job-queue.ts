// A job queue whose adapter opens asynchronously (BullMQ connects first, and on PostgreSQL runs its own
// migrations) behind the synchronous composition root: every call waits for the open, and a failed open is
// tried again on the next call (a queue server not up yet when a process starts is not fatal). Listeners of
// `onEnqueued` are kept here, so they hear jobs enqueued through this instance whenever the adapter opened.
import { EventEmitter } from 'node:events';
import type { Job, JobQueue, NewJob } from '../ports/job-queue.js';

export type ClosableJobQueue = JobQueue & { close(): Promise<void> };

export function lazyJobQueue(open: () => Promise<ClosableJobQueue>): ClosableJobQueue & { ping(): Promise<string> } {
  let opening: Promise<ClosableJobQueue> | null = null;
  const events = new EventEmitter();
  const adapter = () => (opening ??= open().then((q) => {
    q.onEnqueued((queue) => events.emit('enqueued', queue));
    return q;
  }, (e: unknown) => {
    opening = null;
    throw e;
  }));
  return {
    enqueue: async <T>(job: NewJob<T>) => (await adapter()).enqueue(job),
    enqueueFlow: async <P>(parent: NewJob<P>, children: readonly NewJob[]) => (await adapter()).enqueueFlow(parent, children),
    take: async (queues: readonly string[], owner: string, lockMs: number) => (await adapter()).take(queues, owner, lockMs),
    extend: async (job: Job, lockMs: number) => (await adapter()).extend(job, lockMs),
    complete: async (job: Job) => (await adapter()).complete(job),
    fail: async (job: Job, reason: string, opts?: { final?: boolean }) => (await adapter()).fail(job, reason, opts),
    handBack: async (job: Job, opts?: { delayMs?: number }) => (await adapter()).handBack(job, opts),
    cancel: async (queue: string, id: string) => (await adapter()).cancel(queue, id),
    get: async (queue: string, id: string) => (await adapter()).get(queue, id),
    counts: async (queue: string) => (await adapter()).counts(queue),
    onEnqueued: (listener) => {
      events.on('enqueued', listener);
      return () => { events.off('enqueued', listener); };
    },
    // Readiness: the queue's engine answers a cheap read.
    ping: async () => {
      await (await adapter()).counts('fetch');
      return 'job queue ok';
    },
    close: async () => {
      const q = opening ? await opening.catch(() => null) : null;
      opening = null;
      await q?.close();
    },
  };
}
