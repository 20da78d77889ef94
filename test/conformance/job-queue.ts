// Conformance suite of the job queue port (src/ports/job-queue.ts), written against the interface only (BullMQ's
// backend suite is the model): SQLite today, BullMQ on Redis or PostgreSQL later run it unchanged. Delays,
// backoffs and lock TTLs are a few tens of milliseconds, waited in real time; queue names and job ids are fresh
// per test so adapters sharing a server between tests do not see each other's jobs.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { perTest, type Harness } from './harness.js';
import { JobLockLost, type Job, type JobQueue, type JobRetention, type NewJob } from '../../src/ports/job-queue.js';

export type JobQueueHarness = Harness<JobQueue>;

/** What an adapter can do beyond the port's minimum. */
export interface JobQueueCapabilities {
  /**
   * Its takers hear a job another instance (process) made due at once, not at their next poll: BullMQ's
   * signals do; the SQLite adapter's other processes poll the file (default true).
   */
  hearsOtherInstances?: boolean;
}

const LONG = 30_000;
/** A lock TTL short enough to run out during a test. */
const SHORT = 60;
/**
 * How soon a taker hears a job another instance made due. Listeners are called only by what the adapter hears
 * (a poll calls none), so hearing at all shows the signal; the bound keeps it prompt with room for a loaded CI
 * machine (the clock starts before the other instance's enqueue call; bench:handoff measures 8-20 ms idle).
 */
const HEARD_WITHIN = 1500;

/** `retention`: the adapter built to keep ended jobs that long instead of KEEP_ENDED_JOBS_MS. */
export function jobQueueConformance(name: string, factory: (retention?: JobRetention) => Promise<JobQueueHarness>, can: JobQueueCapabilities = {}): void {
  describe(`job queue port conformance: ${name}`, () => {
    const open = perTest(factory);
    const q = () => `q-${randomUUID()}`;
    const job = (queue: string, id: string, options?: NewJob['options']): NewJob<{ n: string }> => ({ queue, id, data: { n: id }, options });
    const take = async (port: JobQueue, queues: string[], owner = 'w1', lockMs = LONG) => port.take(queues, owner, lockMs);

    it('enqueues with a caller-chosen id once: again while waiting or active is a no-op; once ended, a new job', async () => {
      const { port } = await open();
      const a = q();
      expect(await port.enqueue(job(a, 'j1'))).toBe(true);
      expect(await port.enqueue({ queue: a, id: 'j1', data: { n: 'other' } })).toBe(false);
      const taken = (await take(port, [a]))!;
      expect(taken).toMatchObject({ queue: a, id: 'j1', data: { n: 'j1' }, attempt: 1, attempts: 1, exhausted: false });
      expect(await port.enqueue(job(a, 'j1'))).toBe(false);
      expect(await take(port, [a])).toBeNull();
      await port.complete(taken);
      expect(await port.get(a, 'j1')).toMatchObject({ state: 'completed', attemptsMade: 1 });
      expect(await port.enqueue({ queue: a, id: 'j1', data: { n: 'again' } })).toBe(true);
      expect(await take(port, [a])).toMatchObject({ id: 'j1', data: { n: 'again' }, attempt: 1 });
    });

    it('gives jobs of a queue in the order they were enqueued, and only those of the queues asked', async () => {
      const { port } = await open();
      const [a, b] = [q(), q()];
      await port.enqueue(job(a, 'a1'));
      await port.enqueue(job(b, 'b1'));
      await port.enqueue(job(a, 'a2'));
      await port.enqueue(job(a, 'a3'));
      expect((await take(port, [a]))?.id).toBe('a1');
      expect((await take(port, [a]))?.id).toBe('a2');
      expect((await take(port, [a]))?.id).toBe('a3');
      expect(await take(port, [a])).toBeNull();
      expect(await take(port, [q()])).toBeNull();
      expect(await take(port, [])).toBeNull();
      expect((await take(port, [a, b]))?.id).toBe('b1');
    });

    it('keeps a delayed job until its delay has passed', async () => {
      const { port } = await open();
      const a = q();
      await port.enqueue(job(a, 'later', { delayMs: 150 }));
      await port.enqueue(job(a, 'now'));
      expect(await port.get(a, 'later')).toMatchObject({ state: 'delayed' });
      expect((await take(port, [a]))?.id).toBe('now');
      expect(await take(port, [a])).toBeNull();
      await sleep(250);
      expect(await port.get(a, 'later')).toMatchObject({ state: 'waiting' });
      expect((await take(port, [a]))?.id).toBe('later');
    });

    it('retries a retryable failure after its backoff (fixed, exponential) until its attempts run out, then fails it', async () => {
      const { port } = await open();
      const a = q();
      await port.enqueue(job(a, 'exp', { attempts: 3, backoff: { type: 'exponential', delayMs: 80 } }));
      let j = (await take(port, [a]))!;
      expect(await port.fail(j, 'boom 1')).toBe('delayed');
      expect(await port.get(a, 'exp')).toMatchObject({ state: 'delayed', attemptsMade: 1, failedReason: 'boom 1' });
      expect(await take(port, [a])).toBeNull();
      await sleep(140);
      j = (await take(port, [a]))!;
      expect(j).toMatchObject({ attempt: 2, attempts: 3, exhausted: false });
      expect(await port.fail(j, 'boom 2')).toBe('delayed');
      // The second wait is twice the first: not due yet where the first was.
      await sleep(100);
      expect(await take(port, [a])).toBeNull();
      await sleep(160);
      j = (await take(port, [a]))!;
      expect(j.attempt).toBe(3);
      expect(await port.fail(j, 'boom 3')).toBe('failed');
      expect(await port.get(a, 'exp')).toMatchObject({ state: 'failed', attemptsMade: 3, failedReason: 'boom 3' });
      expect(await take(port, [a])).toBeNull();

      await port.enqueue(job(a, 'fixed', { attempts: 2, backoff: { type: 'fixed', delayMs: 60 } }));
      expect(await port.fail((await take(port, [a]))!, 'once')).toBe('delayed');
      await sleep(120);
      expect(await take(port, [a])).toMatchObject({ id: 'fixed', attempt: 2 });
    });

    it('fails a job at once on a final error, attempts left or not', async () => {
      const { port } = await open();
      const a = q();
      await port.enqueue(job(a, 'j', { attempts: 5 }));
      expect(await port.fail((await take(port, [a]))!, 'unrecoverable', { final: true })).toBe('failed');
      expect(await port.get(a, 'j')).toMatchObject({ state: 'failed', failedReason: 'unrecoverable', attemptsMade: 1 });
      expect(await take(port, [a])).toBeNull();
    });

    it('never gives one job to two takers at once (two adapter instances on one storage)', async () => {
      const { port, another } = await open();
      const other = await another();
      const a = q();
      const ids = Array.from({ length: 12 }, (_, i) => `j${i}`);
      for (const id of ids) await port.enqueue(job(a, id));
      const takes = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? port : other).take([a], `w${i}`, LONG)));
      const got = takes.filter((t): t is Job => t !== null).map((t) => t.id);
      expect(got.sort()).toEqual([...ids].sort());
      // The other instance sees what this one enqueued, and the other way round.
      await other.enqueue(job(a, 'from-other'));
      expect((await port.take([a], 'w', LONG))?.id).toBe('from-other');
    });

    it('gives a stalled job (its holder stopped extending) to the next taker with one more attempt, and past its attempts as exhausted', async () => {
      const { port, another } = await open();
      const other = await another();
      const a = q();
      await port.enqueue(job(a, 'j', { attempts: 2 }));
      const first = (await port.take([a], 'dead-1', SHORT))!;
      expect(await other.take([a], 'w2', LONG)).toBeNull(); // still locked
      await sleep(SHORT * 2);
      const second = (await other.take([a], 'dead-2', SHORT))!;
      expect(second).toMatchObject({ id: 'j', attempt: 2, attempts: 2, exhausted: false });
      expect(second.token).not.toBe(first.token);
      await sleep(SHORT * 2);
      const third = (await port.take([a], 'w3', LONG))!;
      expect(third).toMatchObject({ id: 'j', attempt: 3, exhausted: true });
      expect(await port.fail(third, 'stopped unexpectedly 2 times')).toBe('failed');
      expect(await port.get(a, 'j')).toMatchObject({ state: 'failed', failedReason: 'stopped unexpectedly 2 times' });
    });

    it('keeps a job whose lock is extended, and refuses to end a job whose lock another take has now', async () => {
      const { port, another } = await open();
      const other = await another();
      const a = q();
      await port.enqueue(job(a, 'kept'));
      const kept = (await port.take([a], 'w1', SHORT * 2))!;
      for (let i = 0; i < 4; i++) {
        await sleep(SHORT);
        expect(await port.extend(kept, SHORT * 2)).toBe('held');
      }
      expect(await other.take([a], 'w2', LONG)).toBeNull();
      await port.complete(kept);
      expect(await port.get(a, 'kept')).toMatchObject({ state: 'completed' });

      await port.enqueue(job(a, 'lost', { attempts: 3 }));
      const stale = (await port.take([a], 'w1', SHORT))!;
      await sleep(SHORT * 2);
      const fresh = (await other.take([a], 'w2', LONG))!;
      expect(fresh).toMatchObject({ id: 'lost', attempt: 2 });
      expect(await port.extend(stale, LONG)).toBe('lost');
      await expect(port.complete(stale)).rejects.toBeInstanceOf(JobLockLost);
      await expect(port.fail(stale, 'late')).rejects.toBeInstanceOf(JobLockLost);
      await expect(port.handBack(stale)).rejects.toBeInstanceOf(JobLockLost);
      expect(await port.get(a, 'lost')).toMatchObject({ state: 'active', attemptsMade: 2 });
      await other.complete(fresh);
      expect(await port.get(a, 'lost')).toMatchObject({ state: 'completed' });
    });

    it('cancels a waiting job (never taken) and an active one (its holder learns it from extend)', async () => {
      const { port, another } = await open();
      const other = await another();
      const a = q();
      await port.enqueue(job(a, 'waiting'));
      await port.enqueue(job(a, 'running'));
      expect(await port.cancel(a, 'waiting')).toBe(true);
      expect(await port.get(a, 'waiting')).toMatchObject({ state: 'cancelled' });
      const running = (await port.take([a], 'w1', LONG))!;
      expect(running.id).toBe('running');
      expect(await take(port, [a])).toBeNull();
      expect(await port.extend(running, LONG)).toBe('held');
      // Asked through another instance (another API process).
      expect(await other.cancel(a, 'running')).toBe(true);
      expect(await port.get(a, 'running')).toMatchObject({ state: 'active', cancelRequested: true });
      expect(await port.extend(running, LONG)).toBe('cancelled');
      await port.complete(running);
      expect(await port.get(a, 'running')).toMatchObject({ state: 'cancelled' });
      expect(await port.cancel(a, 'running')).toBe(false);
      expect(await port.cancel(a, 'none')).toBe(false);
    });

    it('hands a job back without counting the attempt, keeping its place, or after a delay', async () => {
      const { port } = await open();
      const a = q();
      await port.enqueue(job(a, 'first', { attempts: 1 }));
      await port.enqueue(job(a, 'second'));
      const j = (await take(port, [a]))!;
      await port.handBack(j);
      expect(await port.get(a, 'first')).toMatchObject({ state: 'waiting', attemptsMade: 0 });
      const again = (await take(port, [a]))!;
      expect(again).toMatchObject({ id: 'first', attempt: 1, exhausted: false });
      await port.handBack(again, { delayMs: 150 });
      expect((await take(port, [a]))?.id).toBe('second');
      expect(await take(port, [a])).toBeNull();
      await sleep(250);
      expect(await take(port, [a])).toMatchObject({ id: 'first', attempt: 1 });
    });

    it('tells listeners of this instance at once when a job is enqueued', async () => {
      const { port } = await open();
      const a = q();
      const heard: string[] = [];
      const off = port.onEnqueued((queue) => heard.push(queue));
      await port.enqueue(job(a, 'j1'));
      await port.enqueue(job(a, 'j1')); // a no-op: nothing new to take
      off();
      await port.enqueue(job(a, 'j2'));
      expect(heard).toEqual([a]);
    });

    it.skipIf(can.hearsOtherInstances === false)("tells a taker's listeners soon when another instance (process) enqueues, or a flow's parent becomes due there", async () => {
      const { port, another } = await open();
      const other = await another();
      const [render, finish] = [q(), q()];
      // This instance takes from both queues (nothing is due yet): it is their taker from now on.
      expect(await take(port, [render, finish])).toBeNull();
      const heard: { queue: string; at: number }[] = [];
      port.onEnqueued((queue) => heard.push({ queue, at: Date.now() }));
      // Its hearing starts in the background (a connection opens): until the other's jobs are heard in both
      // queues; then they are cleared away.
      let n = 0;
      await expect.poll(async () => {
        n++;
        for (const queue of [render, finish]) await other.enqueue(job(queue, `warm-${n}`));
        return heard.some((h) => h.queue === render) && heard.some((h) => h.queue === finish);
      }, { timeout: 5000, interval: 200 }).toBe(true);
      for (let warm = await take(other, [render, finish], 'w2'); warm; warm = await take(other, [render, finish], 'w2')) await other.complete(warm);
      const hears = async (queue: string, since: number) => {
        while (!heard.some((h) => h.queue === queue && h.at >= since) && Date.now() - since < HEARD_WITHIN * 2) await sleep(5);
        const first = heard.find((h) => h.queue === queue && h.at >= since);
        expect(first, `heard ${queue}`).toBeDefined();
        expect(first!.at - since).toBeLessThan(HEARD_WITHIN);
      };
      let since = Date.now();
      await other.enqueueFlow(job(finish, 'req'), [job(render, 'c1')]);
      await hears(render, since);
      // The child ends in the other process: the parent it released is due here.
      const c1 = (await take(other, [render], 'w2'))!;
      since = Date.now();
      await other.complete(c1);
      await hears(finish, since);
      expect((await take(port, [finish]))?.id).toBe('req');
    });

    it('runs a flow: the children first, the parent once every child has ended (completed, failed or cancelled)', async () => {
      const { port, another } = await open();
      const other = await another();
      const [render, finish] = [q(), q()];
      const parent = job(finish, 'req');
      const children = ['c1', 'c2', 'c3'].map((id) => job(render, id, { attempts: 1 }));
      expect(await port.enqueueFlow(parent, children)).toBe(true);
      // Again while the parent waits for its children: nothing is added.
      expect(await port.enqueueFlow(parent, [job(render, 'c4')])).toBe(false);
      expect(await port.get(render, 'c4')).toBeUndefined();
      expect(await port.get(finish, 'req')).toMatchObject({ state: 'waiting-children' });
      expect(await take(port, [finish])).toBeNull();
      // Children are taken by any instance (two render workers).
      const c1 = (await take(port, [render]))!;
      const c2 = (await take(other, [render], 'w2'))!;
      expect([c1.id, c2.id]).toEqual(['c1', 'c2']);
      await port.complete(c1);
      expect(await other.fail(c2, 'the clip could not be rendered')).toBe('failed');
      expect(await port.get(finish, 'req')).toMatchObject({ state: 'waiting-children' });
      expect(await port.cancel(render, 'c3')).toBe(true);
      // The last child ended: the parent is due, and a failed child did not fail it.
      expect(await port.get(finish, 'req')).toMatchObject({ state: 'waiting' });
      const p = (await take(other, [finish], 'w2'))!;
      expect(p).toMatchObject({ id: 'req', data: { n: 'req' }, attempt: 1 });
      await other.complete(p);
      expect(await port.get(finish, 'req')).toMatchObject({ state: 'completed' });
    });

    it("makes a flow's parent due only after a child that stalled and was retried has ended", async () => {
      const { port, another } = await open();
      const other = await another();
      const [render, finish] = [q(), q()];
      await port.enqueueFlow(job(finish, 'req'), [job(render, 'c1', { attempts: 2 })]);
      await port.take([render], 'dies', SHORT);
      await sleep(SHORT * 3);
      expect(await port.get(finish, 'req')).toMatchObject({ state: 'waiting-children' });
      const again = (await take(other, [render], 'w2'))!;
      expect(again).toMatchObject({ id: 'c1', attempt: 2 });
      expect(await take(other, [finish], 'w2')).toBeNull();
      await other.complete(again);
      expect((await take(port, [finish]))?.id).toBe('req');
    });

    it('cancels a flow through its parent: children not ended are cancelled, an active one learns it from extend', async () => {
      const { port } = await open();
      const [render, finish] = [q(), q()];
      await port.enqueueFlow(job(finish, 'req'), [job(render, 'c1'), job(render, 'c2'), job(render, 'c3')]);
      const c1 = (await take(port, [render]))!;
      await port.complete(c1);
      const c2 = (await take(port, [render]))!;
      expect(await port.cancel(finish, 'req')).toBe(true);
      expect(await port.get(finish, 'req')).toMatchObject({ state: 'cancelled' });
      expect(await port.get(render, 'c1')).toMatchObject({ state: 'completed' });
      expect(await port.get(render, 'c3')).toMatchObject({ state: 'cancelled' });
      expect(await port.extend(c2, LONG)).toBe('cancelled');
      await port.complete(c2);
      expect(await port.get(render, 'c2')).toMatchObject({ state: 'cancelled' });
      expect(await take(port, [render, finish])).toBeNull();
    });

    it("makes a flow without children due at once, and wakes this instance's listeners for the children's queues", async () => {
      const { port } = await open();
      const [render, finish] = [q(), q()];
      const heard: string[] = [];
      const off = port.onEnqueued((queue) => heard.push(queue));
      await port.enqueueFlow(job(finish, 'empty'), []);
      await port.enqueueFlow(job(finish, 'req'), [job(render, 'c1')]);
      off();
      expect(heard).toContain(render);
      expect((await take(port, [finish]))?.id).toBe('empty');
    });

    it('counts the jobs of a queue in each state (queue depths)', async () => {
      const { port } = await open();
      const [a, finish] = [q(), q()];
      await port.enqueue(job(a, 'w1'));
      await port.enqueue(job(a, 'w2'));
      await port.enqueue(job(a, 'later', { delayMs: 60_000 }));
      await port.enqueue(job(a, 'run'));
      await port.enqueueFlow(job(finish, 'parent'), [job(a, 'child')]);
      const taken = (await take(port, [a]))!;
      await port.complete(taken);
      await take(port, [a]);
      const counts = await port.counts(a);
      expect(counts).toMatchObject({ waiting: 2, delayed: 1, active: 1, completed: 1 });
      expect(counts.failed).toBe(0);
      expect((await port.counts(finish))['waiting-children']).toBe(1);
      expect((await port.counts(q())).waiting).toBe(0);
    });

    it('removes a job ended longer ago than it keeps ended jobs, as later jobs of its queue end; one ended since stays', async () => {
      const { port } = await open({ keepEndedMs: 1000 });
      const a = q();
      const end = async (id: string, how: 'complete' | 'fail') => {
        await port.enqueue(job(a, id));
        const taken = (await take(port, [a]))!;
        if (how === 'complete') await port.complete(taken);
        else await port.fail(taken, 'broken', { final: true });
      };
      await end('old-done', 'complete');
      await end('old-failed', 'fail');
      await sleep(1100);
      await end('new-done', 'complete');
      await end('new-failed', 'fail');
      expect(await port.get(a, 'old-done')).toBeUndefined();
      expect(await port.get(a, 'old-failed')).toBeUndefined();
      expect(await port.get(a, 'new-done')).toMatchObject({ state: 'completed' });
      expect(await port.get(a, 'new-failed')).toMatchObject({ state: 'failed', failedReason: 'broken' });
      expect(await port.counts(a)).toMatchObject({ completed: 1, failed: 1 });
    });
  });
}
