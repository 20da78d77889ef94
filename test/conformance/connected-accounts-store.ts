// The ConnectedAccountsStore conformance suite (issue 22), against the interfaces only: upsert by (API account,
// platform, handle), the unit of work that deletes an account and cancels its scheduled posts, refreshed tokens,
// and expiry failing an account's pending posts. Tokens are opaque here: the store keeps what it is given.
import { describe, expect, it } from 'vitest';
import { perTest } from './harness.js';
import { connect, hex, newPost, type PostsHarness } from './posts-ports.js';

const PAST = '2020-01-01T00:00:00.000Z';

export function connectedAccountsStoreConformance(name: string, factory: () => Promise<PostsHarness>): void {
  describe(`ConnectedAccountsStore conformance: ${name}`, () => {
    const open = perTest(factory);

    it('stores an account under the new id with the sealed tokens it is given, and finds it by id, handle and API account', async () => {
      const { port } = await open();
      const sealedFor: string[] = [];
      const a = await port.accounts.upsert({ accountId: 'acc', platform: 'video_site', handle: 'chan' }, 'ca_first', { platformUserId: 'UC1', at: '2026-01-01T00:00:00.000Z' },
        (id) => { sealedFor.push(id); return { accessToken: `A:${id}`, refreshToken: null, expiresAt: '2026-01-01T01:00:00.000Z', refreshExpiresAt: null, scopes: ['upload', 'read'] }; });
      expect(sealedFor).toEqual(['ca_first']);
      expect(a).toEqual({
        id: 'ca_first', accountId: 'acc', platform: 'video_site', handle: 'chan', platformUserId: 'UC1', accessToken: 'A:ca_first', refreshToken: null,
        expiresAt: '2026-01-01T01:00:00.000Z', refreshExpiresAt: null, scopes: ['upload', 'read'], status: 'active',
        createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
      });
      expect(await port.accounts.get('ca_first')).toEqual(a);
      expect(await port.accounts.findByHandle('acc', 'video_site', 'chan')).toEqual(a);
      expect(await port.accounts.findByHandle('acc', 'photo_site', 'chan')).toBeUndefined();
      expect(await port.accounts.findByHandle('other', 'video_site', 'chan')).toBeUndefined();
      const b = await port.accounts.upsert({ accountId: 'acc', platform: 'photo_site', handle: 'chan' }, 'ca_second', { platformUserId: null, at: '2026-01-02T00:00:00.000Z' },
        (id) => ({ accessToken: `A:${id}`, refreshToken: `R:${id}`, expiresAt: null, refreshExpiresAt: null, scopes: [] }));
      expect((await port.accounts.list('acc')).map((x) => x.id)).toEqual([a.id, b.id]);
      expect((await port.accounts.list('acc', 'photo_site')).map((x) => x.id)).toEqual([b.id]);
      expect(await port.accounts.list('other')).toEqual([]);
      expect(await port.accounts.get('ca_none')).toBeUndefined();
    });

    it('says which API account holds a platform account by its platform id (the oldest when several do)', async () => {
      const { port } = await open();
      const save = (accountId: string, handle: string, platformUserId: string | null, at: string) => port.accounts.upsert({ accountId, platform: 'video_site', handle },
        `ca_${hex(10)}`, { platformUserId, at }, () => ({ accessToken: 'A', refreshToken: null, expiresAt: null, refreshExpiresAt: null, scopes: [] }));
      await save('first', 'chan', 'UC1', '2026-01-01T00:00:00.000Z');
      await save('second', 'chan', 'UC1', '2026-01-02T00:00:00.000Z');
      await save('third', 'other', null, '2026-01-01T00:00:00.000Z');
      expect(await port.accounts.holderOf('video_site', 'UC1')).toBe('first');
      expect(await port.accounts.holderOf('photo_site', 'UC1')).toBeUndefined();
      expect(await port.accounts.holderOf('video_site', 'UC2')).toBeUndefined();
    });

    it('a reconnect (same API account, platform and handle) keeps the id and creation time, replaces the tokens and makes it active', async () => {
      const { port } = await open();
      const first = await port.accounts.upsert({ accountId: 'acc', platform: 'video_site', handle: 'chan' }, 'ca_one', { platformUserId: 'UC1', at: '2026-01-01T00:00:00.000Z' },
        (id) => ({ accessToken: `old:${id}`, refreshToken: `oldr:${id}`, expiresAt: null, refreshExpiresAt: null, scopes: ['a'] }));
      await port.accounts.expire(first.id, 'revoked', '2026-01-01T12:00:00.000Z');
      const sealedFor: string[] = [];
      const again = await port.accounts.upsert({ accountId: 'acc', platform: 'video_site', handle: 'chan' }, 'ca_two', { platformUserId: null, at: '2026-01-02T00:00:00.000Z' },
        (id) => { sealedFor.push(id); return { accessToken: `new:${id}`, refreshToken: null, expiresAt: '2026-01-02T01:00:00.000Z', refreshExpiresAt: null, scopes: ['b'] }; });
      expect(sealedFor).toEqual(['ca_one']);
      expect(again).toMatchObject({ id: 'ca_one', status: 'active', platformUserId: 'UC1', accessToken: 'new:ca_one', refreshToken: null, scopes: ['b'],
        createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z', expiresAt: '2026-01-02T01:00:00.000Z' });
      expect(await port.accounts.list('acc')).toHaveLength(1);
      // Another API account with the same handle is another account.
      const theirs = await connect(port, 'other', 'chan');
      expect(theirs.id).not.toBe('ca_one');
    });

    it('deleting an account cancels its scheduled posts in the same unit of work, and takes its rules with it', async () => {
      const { port } = await open();
      const a = await connect(port);
      const b = await connect(port);
      const scheduled = await port.posts.insert(newPost({ connectedAccountId: a.id }));
      const scheduled2 = await port.posts.insert(newPost({ connectedAccountId: a.id }));
      const running = await port.posts.insert(newPost({ connectedAccountId: a.id, scheduledAt: PAST }));
      await port.posts.claim(running.id, (await port.leases.acquire({ kind: 'post', id: running.id }, 'me', 60_000))!);
      const elsewhere = await port.posts.insert(newPost({ connectedAccountId: b.id }));
      await port.rules.insert({ id: hex(), accountId: 'acc', connectedAccountId: a.id, minViralScore: 50, slots: ['09:00'], timezone: 'UTC', createdAt: PAST });
      expect(await port.accounts.remove('other', a.id, '2026-01-01T00:00:00.000Z')).toBeNull();
      expect(await port.accounts.get(a.id)).toBeDefined();
      expect(await port.accounts.remove('acc', a.id, '2026-01-01T00:00:00.000Z')).toEqual({ canceledPosts: 2 });
      expect(await port.accounts.get(a.id)).toBeUndefined();
      expect(await port.accounts.remove('acc', a.id, '2026-01-01T00:00:00.000Z')).toBeNull();
      expect((await port.posts.get(scheduled.id))!.status).toBe('canceled');
      expect((await port.posts.get(scheduled2.id))!.status).toBe('canceled');
      expect((await port.posts.get(running.id))!.status).toBe('processing');
      expect((await port.posts.get(elsewhere.id))!.status).toBe('scheduled');
      expect(await port.rules.list('acc', a.id)).toEqual([]);
      expect((await port.accounts.list('acc')).map((x) => x.id)).toEqual([b.id]);
    });

    it('stores refreshed tokens, keeping what the refresh did not change', async () => {
      const { port } = await open();
      const a = await port.accounts.upsert({ accountId: 'acc', platform: 'short_video_site', handle: 'tok' }, 'ca_tok', { platformUserId: null, at: PAST },
        () => ({ accessToken: 'A1', refreshToken: 'R1', expiresAt: '2026-01-01T00:05:00.000Z', refreshExpiresAt: '2027-01-01T00:00:00.000Z', scopes: ['x'] }));
      await port.accounts.saveRefreshed(a.id, { accessToken: 'A2', refreshToken: null, expiresAt: '2026-01-01T02:00:00.000Z', refreshExpiresAt: null, scopes: null,
        platformUserId: 'open-1', at: '2026-01-01T00:01:00.000Z' });
      expect(await port.accounts.get(a.id)).toMatchObject({ accessToken: 'A2', refreshToken: 'R1', expiresAt: '2026-01-01T02:00:00.000Z',
        refreshExpiresAt: '2027-01-01T00:00:00.000Z', scopes: ['x'], platformUserId: 'open-1', status: 'active', updatedAt: '2026-01-01T00:01:00.000Z' });
      await port.accounts.saveRefreshed(a.id, { accessToken: 'A3', refreshToken: 'R3', expiresAt: null, refreshExpiresAt: '2028-01-01T00:00:00.000Z', scopes: ['x', 'y'],
        platformUserId: 'open-2', at: '2026-01-01T00:02:00.000Z' });
      // A rotated refresh token replaces the old one; the platform's user id, once known, stays.
      expect(await port.accounts.get(a.id)).toMatchObject({ accessToken: 'A3', refreshToken: 'R3', expiresAt: null, refreshExpiresAt: '2028-01-01T00:00:00.000Z',
        scopes: ['x', 'y'], platformUserId: 'open-1' });
    });

    it('expiring an account fails its scheduled and processing posts with auth_expired, not retryable, together', async () => {
      const { port } = await open();
      const a = await connect(port);
      const b = await connect(port);
      const scheduled = await port.posts.insert(newPost({ connectedAccountId: a.id }));
      const running = await port.posts.insert(newPost({ connectedAccountId: a.id, scheduledAt: PAST }));
      const lease = (await port.leases.acquire({ kind: 'post', id: running.id }, 'me', 60_000))!;
      await port.posts.claim(running.id, lease);
      const published = await port.posts.insert(newPost({ connectedAccountId: a.id, scheduledAt: PAST }));
      const l2 = (await port.leases.acquire({ kind: 'post', id: published.id }, 'me', 60_000))!;
      await port.posts.claim(published.id, l2);
      await port.posts.published(published.id, 'https://v.example.com/1', l2);
      const other = await port.posts.insert(newPost({ connectedAccountId: b.id }));
      await port.accounts.expire(a.id, 'the platform refused to refresh its token', '2026-01-01T00:00:00.000Z');
      expect(await port.accounts.get(a.id)).toMatchObject({ status: 'expired', updatedAt: '2026-01-01T00:00:00.000Z' });
      for (const id of [scheduled.id, running.id]) {
        expect(await port.posts.get(id)).toMatchObject({ status: 'failed', errorCode: 'auth_expired', retryable: false, error: 'the platform refused to refresh its token' });
      }
      expect((await port.posts.get(published.id))!.status).toBe('published');
      expect((await port.posts.get(other.id))!.status).toBe('scheduled');
      // The publisher that held the failed post cannot save progress any more.
      await expect(port.posts.saveState(running.id, lease, { step: 1 })).rejects.toThrow();
    });

    it('lists the active accounts whose token ends by a time (the scheduler\'s refresh pass)', async () => {
      const { port } = await open();
      const withExpiry = (handle: string, expiresAt: string | null) => port.accounts.upsert({ accountId: 'acc', platform: 'video_site', handle }, `ca_${hex(10)}`,
        { platformUserId: null, at: PAST }, () => ({ accessToken: 'A', refreshToken: 'R', expiresAt, refreshExpiresAt: null, scopes: [] }));
      const soon = await withExpiry('soon', '2026-01-01T00:04:00.000Z');
      const past = await withExpiry('past', '2025-12-31T00:00:00.000Z');
      await withExpiry('later', '2026-01-01T01:00:00.000Z');
      await withExpiry('never', null);
      const dead = await withExpiry('dead', '2025-12-31T00:00:00.000Z');
      await port.accounts.expire(dead.id, 'revoked', PAST);
      expect((await port.accounts.expiringBy('2026-01-01T00:05:00.000Z')).sort()).toEqual([soon.id, past.id].sort());
    });
  });
}
