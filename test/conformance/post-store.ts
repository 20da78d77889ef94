// The PostStore conformance suite (issue 22): the posts port written against the interfaces only, so every
// adapter (SQLite today, PostgreSQL later) runs it unchanged. Fenced writes are checked against a LeaseStore
// on the same storage: once another owner took a post's lease over, the old holder's writes reject with
// LeaseLost and change nothing.
import { describe, expect, it } from 'vitest';
import { perTest } from './harness.js';
import { LeaseLost } from '../../src/ports/leases.js';
import { POST_ID_PATTERN, postObject } from '../../src/ports/post-store.js';
import type { PostsQuery } from '../../src/domain/posts-query.js';
import { UPLOADED_MARK } from '../../src/domain/post.js';
import { hex, newPost, takenOver, type PostsHarness } from './posts-ports.js';

const query = (over: Partial<PostsQuery> = {}): PostsQuery => ({ page: 1, limit: 50, date: 'scheduled', ...over });
const PAST = '2020-01-01T00:00:00.000Z';

export function postStoreConformance(name: string, factory: () => Promise<PostsHarness>): void {
  describe(`PostStore conformance: ${name}`, () => {
    const open = perTest(factory);

    it('stores a scheduled post with a fresh id and no attempts, and reads it back', async () => {
      const { port } = await open();
      const made = await port.posts.insert(newPost());
      expect(made.id).toMatch(POST_ID_PATTERN);
      expect(made).toMatchObject({ status: 'scheduled', attempts: 0, publishedAt: null, url: null, error: null, errorCode: null, retryable: null,
        publishState: null, nextAttemptAt: null, title: 'A clip', description: 'About it', accountHandle: 'chan', source: 'manual' });
      expect(await port.posts.get(made.id)).toEqual(made);
      expect(await port.posts.get(hex())).toBeUndefined();
      expect((await port.posts.insert(newPost())).id).not.toBe(made.id);
    });

    it('lists an account\'s posts newest first with the spec 4.6 filters and pages; a clip\'s posts', async () => {
      const { port } = await open();
      const a = await port.posts.insert(newPost({ scheduledAt: '2030-01-01T09:00:00.000Z', shortId: 's1', requestId: 'r1' }));
      const b = await port.posts.insert(newPost({ scheduledAt: '2030-01-02T09:00:00.000Z', shortId: 's2', requestId: 'r1', platform: 'photo_site', source: 'automation' }));
      const c = await port.posts.insert(newPost({ scheduledAt: '2030-01-03T09:00:00.000Z', shortId: 's1', requestId: 'r2' }));
      await port.posts.insert(newPost({ accountId: 'other', shortId: 's1' }));
      expect(await port.posts.cancel(c.id)).toBeDefined();
      const all = await port.posts.listPosts('acc', query());
      expect(all.total).toBe(3);
      expect(all.items.map((p) => p.id)).toEqual([c.id, b.id, a.id]);
      expect(all.items[0]).toEqual(postObject((await port.posts.get(c.id))!));
      expect((await port.posts.listPosts('acc', query({ status: 'canceled' }))).items.map((p) => p.id)).toEqual([c.id]);
      expect((await port.posts.listPosts('acc', query({ platform: 'photo_site' }))).items.map((p) => p.id)).toEqual([b.id]);
      expect((await port.posts.listPosts('acc', query({ source: 'automation' }))).items.map((p) => p.id)).toEqual([b.id]);
      expect((await port.posts.listPosts('acc', query({ requestId: 'r1' }))).items.map((p) => p.id)).toEqual([b.id, a.id]);
      expect((await port.posts.listPosts('acc', query({ shortId: 's1' }))).items.map((p) => p.id)).toEqual([c.id, a.id]);
      expect((await port.posts.listPosts('acc', query({ since: '2030-01-02T00:00:00.000Z', until: '2030-01-02T23:00:00.000Z' }))).items.map((p) => p.id)).toEqual([b.id]);
      expect((await port.posts.listPosts('acc', query({ date: 'published' }))).total).toBe(3);
      const page2 = await port.posts.listPosts('acc', query({ page: 2, limit: 2 }));
      expect(page2).toMatchObject({ total: 3 });
      expect(page2.items.map((p) => p.id)).toEqual([a.id]);
      expect((await port.posts.postsForShort('s1')).map((p) => p.id).sort()).toEqual([a.id, c.id, (await port.posts.listPosts('other', query())).items[0]!.id].sort());
      expect(await port.posts.postsForShort('none')).toEqual([]);
    });

    it('cancels a scheduled post once; a claimed one cannot be canceled', async () => {
      const { port } = await open();
      const p = await port.posts.insert(newPost());
      expect(await port.posts.cancel(p.id)).toMatchObject({ id: p.id, status: 'canceled' });
      expect(await port.posts.cancel(p.id)).toBeUndefined();
      const due = await port.posts.insert(newPost({ scheduledAt: PAST }));
      const lease = (await port.leases.acquire({ kind: 'post', id: due.id }, 'me', 60_000))!;
      expect(await port.posts.claim(due.id, lease)).toMatchObject({ status: 'processing', attempts: 1 });
      expect(await port.posts.cancel(due.id)).toBeUndefined();
      expect((await port.posts.get(due.id))!.status).toBe('processing');
    });

    it('answers what is due per scope: processing first, then scheduled by time; not leased, not waiting, not in the future', async () => {
      const { port } = await open();
      const later = await port.posts.insert(newPost({ scheduledAt: '2020-01-02T00:00:00.000Z' }));
      const early = await port.posts.insert(newPost({ scheduledAt: '2020-01-01T00:00:00.000Z' }));
      const future = await port.posts.insert(newPost({ scheduledAt: '2999-01-01T00:00:00.000Z' }));
      const local = await port.posts.insert(newPost({ accountId: 'local', scheduledAt: PAST }));
      const resumed = await port.posts.insert(newPost({ scheduledAt: '2020-01-03T00:00:00.000Z' }));
      const l = (await port.leases.acquire({ kind: 'post', id: resumed.id }, 'me', 60_000))!;
      await port.posts.claim(resumed.id, l);
      // Held: not due for anyone else. Handed back: due again, before the scheduled ones.
      expect(await port.posts.dueUnleased({ kind: 'api' }, 10)).toEqual([early.id, later.id]);
      expect(await port.leases.release(l)).toBe(true);
      expect(await port.posts.dueUnleased({ kind: 'api' }, 10)).toEqual([resumed.id, early.id, later.id]);
      expect(await port.posts.dueUnleased({ kind: 'api' }, 2)).toEqual([resumed.id, early.id]);
      expect(await port.posts.dueUnleased({ kind: 'local' }, 10)).toEqual([local.id]);
      expect(await port.posts.nextDueAt({ kind: 'local' })).toBe(PAST);
      expect(await port.posts.dueUnleased({ kind: 'api' }, 10, '2999-06-01T00:00:00.000Z')).toContain(future.id);
      expect(await port.posts.claim(future.id, (await port.leases.acquire({ kind: 'post', id: future.id }, 'me', 60_000))!)).toBeUndefined();
      expect((await port.posts.get(future.id))!).toMatchObject({ status: 'scheduled', attempts: 0 });
      await port.posts.cancel(local.id);
      expect(await port.posts.nextDueAt({ kind: 'local' })).toBeNull();
    });

    it('a retry waits until its time: scheduled again without progress, still processing with it; each new attempt counts', async () => {
      const { port } = await open();
      const p = await port.posts.insert(newPost({ scheduledAt: PAST }));
      const lease = (await port.leases.acquire({ kind: 'post', id: p.id }, 'me', 60_000))!;
      await port.posts.claim(p.id, lease);
      const next = '2999-01-01T00:00:00.000Z';
      expect(await port.posts.retryLater(p.id, next, lease)).toMatchObject({ status: 'scheduled', nextAttemptAt: next });
      expect(await port.posts.dueUnleased({ kind: 'api' }, 10)).toEqual([]);
      expect(await port.posts.nextDueAt({ kind: 'api' })).toBe(next);
      expect(await port.posts.claim(p.id, lease)).toBeUndefined();
      const after = '2999-01-01T00:00:01.000Z';
      // The publisher hands the post back while it waits; once the wait is over it is due again.
      expect(await port.posts.dueUnleased({ kind: 'api' }, 10, after)).toEqual([]);
      await port.leases.release(lease);
      expect(await port.posts.dueUnleased({ kind: 'api' }, 10, after)).toEqual([p.id]);
      expect((await port.leases.acquire({ kind: 'post', id: p.id }, 'me', 60_000))).not.toBeNull();
      expect(await port.posts.claim(p.id, lease, after)).toMatchObject({ status: 'processing', attempts: 2, nextAttemptAt: null });
      await port.posts.saveState(p.id, lease, { sessionUrl: 'https://upload.example.com/s/1', uploaded: false });
      expect(await port.posts.retryLater(p.id, next, lease)).toMatchObject({ status: 'processing', nextAttemptAt: next, publishState: { sessionUrl: 'https://upload.example.com/s/1', uploaded: false } });
      expect(await port.posts.cancel(p.id)).toBeUndefined();
      expect(await port.posts.claim(p.id, lease, after)).toMatchObject({ status: 'processing', attempts: 3 });
    });

    it('publishes and fails only from processing (or the statuses named)', async () => {
      const { port } = await open();
      const p = await port.posts.insert(newPost({ scheduledAt: PAST }));
      expect(await port.posts.published(p.id, 'https://v.example.com/1')).toBeUndefined();
      const lease = (await port.leases.acquire({ kind: 'post', id: p.id }, 'me', 60_000))!;
      await port.posts.claim(p.id, lease);
      const done = await port.posts.published(p.id, 'https://v.example.com/1', lease);
      expect(done).toMatchObject({ status: 'published', url: 'https://v.example.com/1', error: null });
      expect(done!.publishedAt).not.toBeNull();
      expect(await port.posts.failed(p.id, { code: 'unknown', message: 'x', retryable: true }, lease)).toBeUndefined();
      const q = await port.posts.insert(newPost());
      expect(await port.posts.failed(q.id, { code: 'auth_expired', message: 'reconnect', retryable: false })).toBeUndefined();
      expect(await port.posts.failed(q.id, { code: 'auth_expired', message: 'reconnect', retryable: false }, undefined, ['scheduled', 'processing']))
        .toMatchObject({ status: 'failed', errorCode: 'auth_expired', error: 'reconnect', retryable: false });
    });

    it('refuses every fenced write of a post whose lease was taken over, changing nothing; the new holder goes on', async () => {
      const { port } = await open();
      const p = await port.posts.insert(newPost({ scheduledAt: PAST }));
      const { stale, current } = await takenOver(port.leases, p.id);
      await expect(port.posts.claim(p.id, stale)).rejects.toBeInstanceOf(LeaseLost);
      expect((await port.posts.get(p.id))!).toMatchObject({ status: 'scheduled', attempts: 0 });
      expect(await port.posts.claim(p.id, current)).toMatchObject({ status: 'processing', attempts: 1 });
      await expect(port.posts.saveState(p.id, stale, { step: 'old' })).rejects.toBeInstanceOf(LeaseLost);
      await expect(port.posts.published(p.id, 'https://v.example.com/old', stale)).rejects.toBeInstanceOf(LeaseLost);
      await expect(port.posts.failed(p.id, { code: 'unknown', message: 'old', retryable: true }, stale)).rejects.toBeInstanceOf(LeaseLost);
      await expect(port.posts.retryLater(p.id, '2999-01-01T00:00:00.000Z', stale)).rejects.toBeInstanceOf(LeaseLost);
      expect((await port.posts.get(p.id))!).toMatchObject({ status: 'processing', publishState: null, url: null, error: null, nextAttemptAt: null });
      await port.posts.saveState(p.id, current, { step: 'new' });
      expect(await port.posts.published(p.id, 'https://v.example.com/new', current)).toMatchObject({ status: 'published', url: 'https://v.example.com/new', publishState: { step: 'new' } });
    });

    it('a retry that did not really try (the clip was being re-rendered) gives its attempt back', async () => {
      const { port } = await open();
      const p = await port.posts.insert(newPost({ scheduledAt: PAST }));
      const lease = (await port.leases.acquire({ kind: 'post', id: p.id }, 'me', 60_000))!;
      expect((await port.posts.claim(p.id, lease))!.attempts).toBe(1);
      expect(await port.posts.retryLater(p.id, PAST, lease, { uncount: true })).toMatchObject({ status: 'scheduled', attempts: 0 });
      expect((await port.posts.claim(p.id, lease))!.attempts).toBe(1);
      expect(await port.posts.retryLater(p.id, PAST, lease)).toMatchObject({ status: 'scheduled', attempts: 1 });
    });

    it('holds at most one live automation post of a clip per connected account; manual posts are not limited', async () => {
      const { port } = await open();
      const first = await port.posts.insert(newPost({ shortId: 'clip', source: 'automation' }));
      await expect(port.posts.insert(newPost({ shortId: 'clip', source: 'automation', scheduledAt: '2031-01-01T00:00:00.000Z' }))).rejects.toBeInstanceOf(Error);
      await port.posts.insert(newPost({ shortId: 'clip', source: 'manual' }));
      await port.posts.insert(newPost({ shortId: 'other', source: 'automation' }));
      expect((await port.posts.postsForShort('clip')).map((p) => p.source).sort()).toEqual(['automation', 'manual']);
      // Once the first is no longer live, the rule no longer stands in the way (the automation decides whether to post again).
      expect(await port.posts.cancel(first.id)).toBeTruthy();
      await port.posts.insert(newPost({ shortId: 'clip', source: 'automation' }));
    });

    it('refuses to save progress of a post that is not being published any more (the connector must not go on)', async () => {
      const { port } = await open();
      const p = await port.posts.insert(newPost({ scheduledAt: PAST }));
      const lease = (await port.leases.acquire({ kind: 'post', id: p.id }, 'me', 60_000))!;
      await port.posts.claim(p.id, lease);
      await port.posts.failed(p.id, { code: 'auth_expired', message: 'reconnect', retryable: false }, undefined, ['scheduled', 'processing']);
      const refused = await port.posts.saveState(p.id, lease, { step: 1 }).then(() => null, (e: unknown) => e);
      expect(refused).toBeInstanceOf(Error);
      expect(refused).not.toBeInstanceOf(LeaseLost);
      expect((await port.posts.get(p.id))!.publishState).toBeNull();
    });
    it('answers the saved progress of the newest post of a clip to an account whose upload reached the platform and whose outcome is open', async () => {
      const { port } = await open();
      const started = async (state: Record<string, string | number | null>) => {
        const p = await port.posts.insert(newPost({ scheduledAt: PAST }));
        const lease = (await port.leases.acquire({ kind: 'post', id: p.id }, 'me', 60_000))!;
        await port.posts.claim(p.id, lease);
        await port.posts.saveState(p.id, lease, state);
        return { id: p.id, lease };
      };
      const lookup = () => port.posts.lastUploadedState('ca_1', 'short-1', 'video_site');
      expect(await lookup()).toBeNull();
      // A session started but no upload finished: nothing is on the platform.
      const halfway = await started({ sessionUrl: 'https://upload.example.com/s/1', videoId: null });
      await port.posts.failed(halfway.id, { code: 'unknown', message: 'x', retryable: true }, halfway.lease);
      expect(await lookup()).toBeNull();
      const timedOut = await started({ sessionUrl: 'https://upload.example.com/s/2', videoId: 'v1', [UPLOADED_MARK]: 1 });
      await port.posts.failed(timedOut.id, { code: 'processing_timeout', message: 'x', retryable: true }, timedOut.lease);
      expect(await lookup()).toEqual({ sessionUrl: 'https://upload.example.com/s/2', videoId: 'v1', [UPLOADED_MARK]: 1 });
      // A newer post still following its upload wins; once published, it is out and the failed one answers again.
      const newer = await started({ videoId: 'v2', [UPLOADED_MARK]: 2 });
      expect(await lookup()).toEqual({ videoId: 'v2', [UPLOADED_MARK]: 2 });
      await port.posts.published(newer.id, 'https://v.example.com/v2', newer.lease);
      expect(await lookup()).toEqual({ sessionUrl: 'https://upload.example.com/s/2', videoId: 'v1', [UPLOADED_MARK]: 1 });
      // Refused for good by the platform (not retryable): the answer is over; a newer such post does not answer.
      const refused = await started({ videoId: 'v3', [UPLOADED_MARK]: 3 });
      await port.posts.failed(refused.id, { code: 'media_rejected', message: 'forced private', retryable: false }, refused.lease);
      expect(await lookup()).toEqual({ sessionUrl: 'https://upload.example.com/s/2', videoId: 'v1', [UPLOADED_MARK]: 1 });
      expect(await port.posts.lastUploadedState('ca_2', 'short-1', 'video_site')).toBeNull();
      expect(await port.posts.lastUploadedState('ca_1', 'short-2', 'video_site')).toBeNull();
      expect(await port.posts.lastUploadedState('ca_1', 'short-1', 'photo_site')).toBeNull();
    });
  });
}
