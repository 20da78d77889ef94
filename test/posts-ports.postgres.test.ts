// The posts conformance suites (post store, connected accounts, automation rules) against the PostgreSQL
// adapters, on one server for this file and a fresh database per test; then what two processes (two Pools)
// racing on one database must never get wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postStoreConformance } from './conformance/post-store.js';
import { connectedAccountsStoreConformance } from './conformance/connected-accounts-store.js';
import { automationRulesConformance } from './conformance/automation-rules.js';
import { perTest } from './conformance/harness.js';
import { completedRequest, connect, hex, newPost } from './conformance/posts-ports.js';
import type { NewPost } from '../src/ports/post-store.js';
import { startPostgres, type Postgres } from './helpers/engines.js';
import { postgresPostsHarness } from './helpers/posts-ports-postgres.js';

let server: Postgres;
beforeAll(async () => { server = await startPostgres(); }, 60_000);
afterAll(async () => { await server?.close(); });

const harness = postgresPostsHarness(() => server);
postStoreConformance('PostgreSQL', harness);
connectedAccountsStoreConformance('PostgreSQL', harness);
automationRulesConformance('PostgreSQL', harness);

const PAST = '2020-01-01T00:00:00.000Z';

describe('posts on PostgreSQL, two processes at once', () => {
  const open = perTest(harness);

  it('a cancel racing a claim on each of 20 posts: every post is either canceled or being published, never both', async () => {
    const h = await open();
    const other = await h.another();
    const posts = await Promise.all(Array.from({ length: 20 }, () => h.port.posts.insert(newPost({ scheduledAt: PAST }))));
    const outcomes = await Promise.all(posts.map(async (p) => {
      const lease = (await other.leases.acquire({ kind: 'post', id: p.id }, 'publisher', 60_000))!;
      const [canceled, claimed] = await Promise.all([h.port.posts.cancel(p.id), other.posts.claim(p.id, lease)]);
      return { canceled: canceled !== undefined, claimed: claimed !== undefined, status: (await h.port.posts.get(p.id))!.status };
    }));
    for (const o of outcomes) {
      expect(o.canceled !== o.claimed).toBe(true);
      expect(o.status).toBe(o.canceled ? 'canceled' : 'processing');
    }
  });

  it('a publisher whose lease is taken over while it writes: its write lands before the takeover or is refused', async () => {
    const h = await open();
    const other = await h.another();
    const p = await h.port.posts.insert(newPost({ scheduledAt: PAST }));
    const old = (await h.port.leases.acquire({ kind: 'post', id: p.id }, 'old', 1))!;
    await h.port.posts.claim(p.id, old);
    await new Promise((r) => setTimeout(r, 20));
    const [saved, taken] = await Promise.all([
      h.port.posts.saveState(p.id, old, { step: 'old' }).then(() => true, () => false),
      other.leases.acquire({ kind: 'post', id: p.id }, 'new', 60_000),
    ]);
    expect(taken).not.toBeNull();
    expect((await h.port.posts.get(p.id))!.publishState).toEqual(saved ? { step: 'old' } : null);
    await expect(h.port.posts.saveState(p.id, old, { step: 'late' })).rejects.toThrow();
  });

  it('reconnecting one handle from two processes at once makes one account, its tokens sealed for its own id', async () => {
    const h = await open();
    const other = await h.another();
    const key = { accountId: 'acc', platform: 'video_site' as const, handle: 'chan' };
    const made = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? other : h.port).accounts.upsert(key, `ca_${hex(10)}`,
      { platformUserId: null, at: new Date().toISOString() },
      (id) => ({ accessToken: `sealed-for-${id}`, refreshToken: null, expiresAt: null, refreshExpiresAt: null, scopes: [] }))));
    expect(new Set(made.map((a) => a.id)).size).toBe(1);
    const [stored] = await h.port.accounts.list('acc');
    expect(stored!.accessToken).toBe(`sealed-for-${stored!.id}`);
  });

  it('rules applied to several requests of one account from two processes at once post every clip once, each in its own slot', async () => {
    const h = await open();
    const other = await h.another();
    const ca = await connect(h.port, 'acc', 'chan');
    await h.port.rules.insert({ id: hex(), accountId: 'acc', connectedAccountId: ca.id, minViralScore: 50, slots: ['09:00'], timezone: 'UTC', createdAt: PAST });
    const requests = await Promise.all([0, 1, 2].map(() => completedRequest(h.port, 'acc', [90, 80])));
    // Each clip not yet posted takes the first slot (a day apart) no post of the account holds.
    const nextFreeSlots = (s: Parameters<Parameters<typeof h.port.rules.apply>[2]>[0]): NewPost[] => s.clips
      .filter((c) => !s.automationPosted.has(`${ca.id} ${c.id}`))
      .map((c) => {
        let day = 0;
        const slot = () => new Date(Date.parse('2030-01-01T09:00:00.000Z') + day * 86_400_000).toISOString();
        while (s.takenSlots.has(`${ca.id} ${slot()}`)) day++;
        s.takenSlots.add(`${ca.id} ${slot()}`);
        return newPost({ connectedAccountId: ca.id, shortId: c.id, requestId: c.requestId, source: 'automation', scheduledAt: slot() });
      });
    await Promise.all(requests.flatMap((r) => [h.port, other, h.port, other].map((p) => p.rules.apply(r.id, PAST, nextFreeSlots))));
    const listed = await h.port.posts.listPosts('acc', { page: 1, limit: 50, date: 'scheduled', source: 'automation' });
    expect(listed.items.map((p) => p.shortId).sort()).toEqual(requests.flatMap((r) => r.clips.map((c) => c.id)).sort());
    expect(new Set(listed.items.map((p) => p.scheduledAt)).size).toBe(6);
  });

  it('an account deleted or expired while rules are applied to it keeps none of its posts scheduled', async () => {
    const h = await open();
    const other = await h.another();
    for (let round = 0; round < 10; round++) {
      const doomed = await connect(h.port, 'acc');
      await h.port.rules.insert({ id: hex(), accountId: 'acc', connectedAccountId: doomed.id, minViralScore: 50, slots: ['09:00'], timezone: 'UTC', createdAt: PAST });
      const { id } = await completedRequest(h.port, 'acc', [90, 80, 70, 60]);
      // As the automation plans: no post for an account that needs reconnecting.
      const plan = (s: Parameters<Parameters<typeof h.port.rules.apply>[2]>[0]): NewPost[] => s.rules.filter((r) => r.connectedStatus === 'active').flatMap((r) => s.clips
        .filter((c) => !s.automationPosted.has(`${r.connectedAccountId} ${c.id}`))
        .map((c) => newPost({ connectedAccountId: r.connectedAccountId, accountHandle: r.handle, shortId: c.id, requestId: c.requestId, source: 'automation',
          scheduledAt: new Date(Date.parse('2030-01-01T09:00:00.000Z') + c.rank * 86_400_000).toISOString() })));
      const end = round % 2 ? other.accounts.remove('acc', doomed.id, new Date().toISOString()) : other.accounts.expire(doomed.id, 'revoked', new Date().toISOString());
      await Promise.all([h.port.rules.apply(id, PAST, plan), end]);
      const left = await h.port.posts.listPosts('acc', { page: 1, limit: 50, date: 'scheduled', status: 'scheduled', requestId: id });
      expect(left.items.filter((p) => p.account.handle === doomed.handle)).toEqual([]);
    }
  });
});
