// The BullMQ job queue adapter for the conformance suite (a fresh namespace per harness: the caller's
// connection names it; `another()` opens a second adapter with connections of its own, as another process
// would), and what every backend must survive: its server restarting while a job is held.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBullmqJobQueue, type BullmqConnection, type BullmqJobQueue } from '../../src/adapters/bullmq/job-queue.js';
import { JobLockLost, type JobQueue, type JobRetention } from '../../src/ports/job-queue.js';
import type { Harness } from '../conformance/harness.js';

export async function bullmqHarness(connection: BullmqConnection, retention?: JobRetention): Promise<Harness<JobQueue>> {
  const opened: BullmqJobQueue[] = [await createBullmqJobQueue(connection, retention)];
  return {
    port: opened[0]!,
    another: async () => {
      const other = await createBullmqJobQueue(connection, retention);
      opened.push(other);
      return other;
    },
    close: async () => {
      await Promise.all(opened.map((q) => q.close()));
    },
  };
}

export interface RestartSetup {
  connection: BullmqConnection;
  server: { stop(): Promise<void>; start(): Promise<void> };
  /** Whether the server keeps its data across the restart (PostgreSQL does; the tests' in-memory Redis does not). */
  durable: boolean;
}

export function bullmqRestartTests(name: string, setup: () => RestartSetup | Promise<RestartSetup>): void {
  describe(`BullMQ job queue faults: ${name}`, () => {
    it('carries on after its server restarts while a job is held: no crash, take and complete work again, and jobs of another instance are heard again', async () => {
      const { connection, server, durable } = await setup();
      const errors: Error[] = [];
      const port = await createBullmqJobQueue(connection, { onError: (err) => errors.push(err) });
      const other = await createBullmqJobQueue(connection, { onError: (err) => errors.push(err) });
      const queue = `q-${randomUUID()}`;
      const heard: string[] = [];
      port.onEnqueued((q) => heard.push(q));
      try {
        await port.enqueue({ queue, id: 'held', data: { n: 1 } });
        const held = (await port.take([queue], 'w1', 30_000))!;
        expect(held.id).toBe('held');
        await server.stop();
        await server.start();
        if (durable) {
          await port.complete(held);
          expect(await port.get(queue, 'held')).toMatchObject({ state: 'completed' });
        } else {
          // The server lost its jobs: the holder learns its job is gone instead of the process failing.
          await expect(port.complete(held)).rejects.toBeInstanceOf(JobLockLost);
        }
        expect(await port.enqueue({ queue, id: 'after', data: { n: 2 } })).toBe(true);
        const next = (await port.take([queue], 'w1', 30_000))!;
        expect(next).toMatchObject({ id: 'after', data: { n: 2 }, attempt: 1 });
        expect(await port.extend(next, 30_000)).toBe('held');
        await port.complete(next);
        expect(await port.get(queue, 'after')).toMatchObject({ state: 'completed' });
        // The taker's signal connection came back too (a reconnect, or a new LISTEN session): another
        // process's job is heard without waiting for a poll (this instance's own enqueues aside).
        heard.length = 0;
        let n = 0;
        await expect.poll(async () => {
          await other.enqueue({ queue, id: `from-other-${++n}`, data: {} });
          return heard.includes(queue);
        }, { timeout: 10_000, interval: 500 }).toBe(true);
      } finally {
        await Promise.all([port.close(), other.close()]);
      }
    }, 30_000);
  });
}
