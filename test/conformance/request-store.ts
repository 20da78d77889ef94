// The RequestStore conformance suite (issue 22): written against the ports only, so every adapter (SQLite
// today, PostgreSQL later) runs it unchanged. Fenced writes are checked against a LeaseStore on the same
// storage (the factory gives both): a lease taken over makes the old holder's writes fail with LeaseLost.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { FIRST_TOKEN, LeaseLost, type Lease, type LeaseStore } from '../../src/ports/leases.js';
import type { NewRequest, RequestStore, ShortRecord } from '../../src/ports/request-store.js';
import type { CreateRequest } from '../../src/domain/request.js';

export type RequestStoreFactory = () => Promise<{ port: RequestStore; leases: LeaseStore; close: () => Promise<void> }>;

const OPTIONS = { source: { kind: 'fileUrl', url: 'https://cdn.example.com/a.mp4' }, start: 0, end: 120 } as unknown as CreateRequest;

export function requestStoreConformance(name: string, factory: RequestStoreFactory): void {
  describe(`RequestStore conformance: ${name}`, () => {
    let port: RequestStore;
    let leases: LeaseStore;
    let close: () => Promise<void>;
    const newId = () => randomBytes(12).toString('hex');
    const request = (over: Partial<NewRequest> = {}): NewRequest => ({
      id: newId(), accountId: 'acc', origin: 'api', userEmail: 'a@example.com', options: OPTIONS, url: 'https://cdn.example.com/a.mp4', start: 0, end: 120, ...over,
    });
    const clip = (requestId: string, rank: number, over: Partial<ShortRecord> = {}): ShortRecord => ({
      id: `${requestId}-${rank}`, requestId, rank, title: `t${rank}`, sentenceIndexes: [rank], reason: 'r', description: 'd', viralScore: 50 + rank,
      startTimestamp: rank * 30, endTimestamp: rank * 30 + 30, duration: 30, width: 1080, height: 1920, recompiling: false, error: false,
      errorMessage: null, fileKey: `clips/${rank}.mp4`, ...over,
    });
    /** A lease on `id` that another owner has taken over since (its holder is stale). */
    const staleLease = async (kind: 'request' | 'rerender', id: string): Promise<Lease> => {
      const old = (await leases.acquire({ kind, id }, 'runner-old', 200))!;
      await sleep(400);
      expect(await leases.acquire({ kind, id }, 'runner-new', 60_000)).not.toBeNull();
      return old;
    };

    beforeEach(async () => {
      ({ port, leases, close } = await factory());
    });
    afterEach(async () => {
      await close();
    });

    it('answers a readiness ping while it can be queried', async () => {
      expect(typeof await port.ping()).toBe('string');
    });

    it('stores a request queued at progress 0 and reads it back', async () => {
      const n = request();
      const created = await port.insertRequest(n);
      expect(created).toMatchObject({ id: n.id, accountId: 'acc', origin: 'api', status: 'queued', step: 'queued', progress: 0, options: OPTIONS, warnings: [], failureReason: null });
      expect(await port.getRequest(n.id)).toEqual(created);
      expect(await port.requestStatus(n.id)).toBe('queued');
      expect(await port.getRequest(newId())).toBeUndefined();
      expect(await port.requestStatus(newId())).toBeUndefined();
    });

    it('lists per account and origin, with status filter, sort and pagination', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const n = request({ origin: i === 4 ? 'local' : 'api' });
        ids.push(n.id);
        await port.insertRequest(n);
        await sleep(5); // distinct creation times
      }
      await port.insertRequest(request({ accountId: 'other' }));
      await port.finish(ids[0]!, 'failed', 'x');
      const page1 = await port.listRequests({ accountId: 'acc', origin: 'api', sortBy: 'createdAt', sortOrder: 'desc', page: 1, limit: 2 });
      expect(page1.total).toBe(4);
      expect(page1.items.map((r) => r.id)).toEqual([ids[3], ids[2]]);
      const asc = await port.listRequests({ accountId: 'acc', origin: 'api', sortBy: 'createdAt', sortOrder: 'asc', page: 2, limit: 2 });
      expect(asc.items.map((r) => r.id)).toEqual([ids[2], ids[3]]);
      const failed = await port.listRequests({ accountId: 'acc', origin: 'api', status: 'failed', sortBy: 'createdAt', sortOrder: 'desc', page: 1, limit: 20 });
      expect(failed).toMatchObject({ total: 1, items: [{ id: ids[0] }] });
      expect((await port.listRequests({ accountId: 'acc', sortBy: 'createdAt', sortOrder: 'asc', page: 1, limit: 20 })).total).toBe(5);
    });

    it('remembers where a request was made (issue 25): api by default, studio when said; the list filters on it', async () => {
      const api = await port.insertRequest(request());
      const studio = await port.insertRequest({ ...request(), createdIn: 'studio' });
      expect([api.createdIn, studio.createdIn, (await port.getRequest(studio.id))?.createdIn]).toEqual(['api', 'studio', 'studio']);
      const listed = (createdIn?: 'api' | 'studio') => port.listRequests({ accountId: 'acc', origin: 'api', createdIn, sortBy: 'createdAt', sortOrder: 'asc', page: 1, limit: 20 });
      expect((await listed('api')).items.map((r) => r.id)).toEqual([api.id]);
      expect((await listed('studio')).items.map((r) => r.id)).toEqual([studio.id]);
      expect((await listed()).total).toBe(2);
    });

    it('advances through steps without ever moving progress backwards, and not after a terminal state', async () => {
      const { id } = await port.insertRequest(request());
      expect(await port.advance(id, 'fetching_video', 20)).toBe(true);
      await port.setProgress(id, 35);
      expect(await port.getRequest(id)).toMatchObject({ status: 'processing', step: 'fetching_video', progress: 35 });
      await port.advance(id, 'transcribing_audio', 30);
      await port.setProgress(id, 25);
      expect((await port.getRequest(id))!.progress).toBe(35);
      expect(await port.finish(id, 'cancelled')).toBe(true);
      expect(await port.advance(id, 'finalizing', 80)).toBe(false);
      expect(await port.getRequest(id)).toMatchObject({ status: 'cancelled', step: 'cancelled' });
    });

    it('finishes only from a live state: a late worker cannot overwrite a cancel', async () => {
      const { id } = await port.insertRequest(request());
      await port.advance(id, 'fetching_video', 20);
      expect(await port.finish(id, 'cancelled')).toBe(true);
      expect(await port.finish(id, 'completed')).toBe(false);
      expect(await port.finish(id, 'failed', 'late')).toBe(false);
      expect(await port.getRequest(id)).toMatchObject({ status: 'cancelled', failureReason: null });
      const other = await port.insertRequest(request());
      expect(await port.finish(other.id, 'failed', 'video download failed')).toBe(true);
      expect(await port.getRequest(other.id)).toMatchObject({ status: 'failed', failureReason: 'video download failed' });
    });

    it('replaces a request\'s clips all at once, in rank order', async () => {
      const { id } = await port.insertRequest(request());
      await port.replaceShorts(id, [clip(id, 2), clip(id, 0), clip(id, 1, { error: true, errorMessage: 'encoder failed', fileKey: null })]);
      expect((await port.listShorts(id)).map((s) => [s.rank, s.error, s.errorMessage])).toEqual([[0, false, null], [1, true, 'encoder failed'], [2, false, null]]);
      await port.replaceShorts(id, [clip(id, 5)]);
      expect((await port.listShorts(id)).map((s) => s.id)).toEqual([`${id}-5`]);
      expect(await port.getShort(id, `${id}-5`)).toMatchObject({ title: 't5', fileKey: 'clips/5.mp4', recompiling: false });
      expect(await port.getShort(id, `${id}-0`)).toBeUndefined();
      expect(await port.findShort(`${id}-5`)).toMatchObject({ requestId: id, title: 't5' });
      expect(await port.findShort(`${id}-0`)).toBeUndefined();
    });

    it('refuses the fenced writes of a stale lease, changing nothing', async () => {
      const { id } = await port.insertRequest(request());
      await port.advance(id, 'fetching_video', 20);
      const stale = await staleLease('request', id);
      await expect(port.advance(id, 'finalizing', 80, stale)).rejects.toBeInstanceOf(LeaseLost);
      await expect(port.replaceShorts(id, [clip(id, 0)], stale)).rejects.toBeInstanceOf(LeaseLost);
      await expect(port.finish(id, 'completed', null, stale)).rejects.toBeInstanceOf(LeaseLost);
      expect(await port.getRequest(id)).toMatchObject({ status: 'processing', step: 'fetching_video' });
      expect(await port.listShorts(id)).toEqual([]);
    });

    it('starts a clip\'s re-render once (two racing: one wins), only on a completed request', async () => {
      const { id } = await port.insertRequest(request());
      await port.replaceShorts(id, [clip(id, 0)]);
      expect(await port.startRerender(id, `${id}-0`, { end: 25 })).toBe('not_completed');
      await port.advance(id, 'finalizing', 80);
      await port.finish(id, 'completed');
      const results = await Promise.all([port.startRerender(id, `${id}-0`, { end: 25 }), port.startRerender(id, `${id}-0`, { end: 20 })]);
      expect(results.sort()).toEqual(['busy', 'started']);
      expect(await port.listRerendering()).toMatchObject([{ id: `${id}-0`, recompiling: true, leased: false }]);
      const lease = (await leases.acquire({ kind: 'rerender', id: `${id}-0` }, 'runner', 60_000))!;
      expect(await port.claimRerender(`${id}-0`, lease)).toBe(1);
      await port.finishRerender(`${id}-0`, { title: 'New', reason: 'r2', sentenceIndexes: [0], startTimestamp: 0, endTimestamp: 25, duration: 25, layout: 'fit', fileKey: 'clips/0b.mp4', coverKey: null, edit: { end: 25 } }, lease);
      expect(await port.getShort(id, `${id}-0`)).toMatchObject({ recompiling: false, pendingEdit: null, title: 'New', duration: 25, fileKey: 'clips/0b.mp4', edit: { end: 25 } });
      expect(await port.listRerendering()).toEqual([]);
    });

    it('refuses a stale re-render lease: the clip stays as it was', async () => {
      const { id } = await port.insertRequest(request());
      await port.replaceShorts(id, [clip(id, 0)]);
      await port.finish(id, 'completed');
      expect(await port.startRerender(id, `${id}-0`, { end: 25 })).toBe('started');
      const stale = await staleLease('rerender', `${id}-0`);
      await expect(port.finishRerender(`${id}-0`, { title: 'New', reason: 'r2', sentenceIndexes: [0], startTimestamp: 0, endTimestamp: 25, duration: 25, layout: 'fit', fileKey: 'clips/0b.mp4', coverKey: null, edit: { end: 25 } }, stale))
        .rejects.toBeInstanceOf(LeaseLost);
      expect(await port.getShort(id, `${id}-0`)).toMatchObject({ recompiling: true, title: 't0', fileKey: 'clips/0.mp4' });
    });

    it("keeps a live request's lease through a lease prune (it tells a local runner another had it); once the request ended, it goes", async () => {
      const { id } = await port.insertRequest(request());
      await leases.acquire({ kind: 'request', id }, 'runner-old', 1);
      await sleep(20);
      expect(await leases.prune(0, 100)).toBe(0);
      const next = (await leases.acquire({ kind: 'request', id }, 'runner-new', 60_000))!;
      expect(next.token).not.toBe(FIRST_TOKEN);
      await port.finish(id, 'failed', 'interrupted', next);
      await leases.release(next);
      await sleep(20);
      expect(await leases.prune(0, 100)).toBe(1);
      expect(await leases.acquire({ kind: 'request', id }, 'runner-new', 60_000)).toMatchObject({ token: FIRST_TOKEN });
    });

    it('adds a warning once', async () => {
      const { id } = await port.insertRequest(request());
      await port.addWarning(id, 'speech is not in English');
      await port.addWarning(id, 'speech is not in English');
      await port.addWarning(id, 'another');
      expect((await port.getRequest(id))!.warnings).toEqual(['speech is not in English', 'another']);
    });

    it('starts (and resumes) a live request under its lease, never a finished one, and lists the live and the orphaned', async () => {
      const { id } = await port.insertRequest(request());
      const lease = (await leases.acquire({ kind: 'request', id }, 'runner', 60_000))!;
      expect(await port.startRun(id, lease)).toMatchObject({ id, status: 'processing' });
      expect(await port.startRun(id, lease)).toMatchObject({ id, status: 'processing' });
      expect((await port.listLive()).map((r) => r.id)).toContain(id);
      expect(await port.listOrphaned('api')).not.toContain(id);
      await leases.release(lease);
      expect(await port.listOrphaned('api')).toContain(id);
      const again = (await leases.acquire({ kind: 'request', id }, 'runner', 60_000))!;
      await port.finish(id, 'cancelled');
      expect(await port.startRun(id, again)).toBeUndefined();
    });
  });
}
