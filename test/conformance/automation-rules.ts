// The AutomationRules conformance suite (issue 22), against the interfaces only: rules stored per connected
// account, the start-up sweep's question, and the atomic apply: what it shows the planner, that it writes what
// the planner chose, and that two applies of one request at once (two processes) post each clip once.
import { describe, expect, it } from 'vitest';
import { perTest } from './harness.js';
import type { AutomationSnapshot } from '../../src/ports/automation-rules.js';
import type { NewPost } from '../../src/ports/post-store.js';
import { completedRequest, connect, hex, newPost, type PostsPorts, type PostsHarness } from './posts-ports.js';

const BEFORE = '2020-01-01T00:00:00.000Z';
const AFTER_ALL = '2999-01-01T00:00:00.000Z';

/** A planner that posts every clip a rule's account has no automation post of, an hour apart from `base`. */
function everyClip(seen: AutomationSnapshot[] = []) {
  return (s: AutomationSnapshot): NewPost[] => {
    seen.push(s);
    const out: NewPost[] = [];
    for (const rule of s.rules) {
      s.clips.forEach((c, i) => {
        if (s.automationPosted.has(`${rule.connectedAccountId} ${c.id}`)) return;
        out.push(newPost({ accountId: s.request.accountId, connectedAccountId: rule.connectedAccountId, platform: rule.platform, accountHandle: rule.handle,
          shortId: c.id, requestId: c.requestId, source: 'automation', scheduledAt: new Date(Date.parse('2030-01-01T00:00:00Z') + i * 3600_000).toISOString() }));
        s.automationPosted.add(`${rule.connectedAccountId} ${c.id}`);
      });
    }
    return out;
  };
}

async function rule(p: PostsPorts, accountId: string, connectedAccountId: string, createdAt = BEFORE, minViralScore = 50) {
  return p.rules.insert({ id: hex(), accountId, connectedAccountId, minViralScore, slots: ['09:00', '18:00'], timezone: 'Europe/Paris', createdAt });
}

export function automationRulesConformance(name: string, factory: () => Promise<PostsHarness>): void {
  describe(`AutomationRules conformance: ${name}`, () => {
    const open = perTest(factory);

    it('stores, lists and removes the rules of a connected account, with that account\'s platform, handle and status', async () => {
      const { port } = await open();
      const ca = await connect(port, 'acc', 'chan', 'photo_site');
      const r1 = await rule(port, 'acc', ca.id, '2026-01-01T00:00:00.000Z', 70);
      expect(r1).toMatchObject({ accountId: 'acc', connectedAccountId: ca.id, platform: 'photo_site', handle: 'chan', connectedStatus: 'active',
        minViralScore: 70, slots: ['09:00', '18:00'], timezone: 'Europe/Paris', enabled: true, createdAt: '2026-01-01T00:00:00.000Z' });
      const r2 = await rule(port, 'acc', ca.id, '2026-01-02T00:00:00.000Z');
      expect((await port.rules.list('acc', ca.id)).map((r) => r.id)).toEqual([r1.id, r2.id]);
      expect(await port.rules.list('other', ca.id)).toEqual([]);
      await port.accounts.expire(ca.id, 'revoked', '2026-01-03T00:00:00.000Z');
      expect((await port.rules.list('acc', ca.id))[0]!.connectedStatus).toBe('expired');
      expect(await port.rules.remove('other', ca.id, r1.id)).toBeUndefined();
      expect(await port.rules.remove('acc', ca.id, r1.id)).toMatchObject({ id: r1.id });
      expect(await port.rules.remove('acc', ca.id, r1.id)).toBeUndefined();
      expect((await port.rules.list('acc', ca.id)).map((r) => r.id)).toEqual([r2.id]);
    });

    it('names the completed requests of a scope that have a rule made before they finished (the start-up sweep)', async () => {
      const { port } = await open();
      const api = await completedRequest(port, 'acc', [60]);
      const local = await completedRequest(port, 'local', [60]);
      const noRules = await completedRequest(port, 'lonely', [60]);
      const late = await completedRequest(port, 'late', [60]);
      await rule(port, 'acc', (await connect(port, 'acc')).id);
      await rule(port, 'local', (await connect(port, 'local')).id);
      await rule(port, 'late', (await connect(port, 'late')).id, AFTER_ALL);
      expect(await port.rules.completedWithRules('api')).toEqual([api.id]);
      expect(await port.rules.completedWithRules('local')).toEqual([local.id]);
      expect([noRules.id, late.id].some((id) => [api.id, local.id].includes(id))).toBe(false);
    });

    it('applies: shows the planner the request, its rules, its clips and the accounts\' posts, and stores what it chose', async () => {
      const { port } = await open();
      const ca = await connect(port, 'acc', 'chan');
      const other = await connect(port, 'acc', 'second');
      const r = await rule(port, 'acc', ca.id);
      await rule(port, 'acc', other.id, AFTER_ALL); // made after the request finished: not applied to it
      await rule(port, 'someone-else', (await connect(port, 'someone-else')).id);
      const { id, clips } = await completedRequest(port, 'acc', [40, 90, 70]);
      // Slots held by posts of the account (not canceled ones, not those before `after`), an earlier automation post of clip 1.
      const held = await port.posts.insert(newPost({ connectedAccountId: ca.id, scheduledAt: '2030-01-01T09:00:00.000Z' }));
      const dropped = await port.posts.insert(newPost({ connectedAccountId: ca.id, scheduledAt: '2030-01-01T18:00:00.000Z' }));
      await port.posts.cancel(dropped.id);
      await port.posts.insert(newPost({ connectedAccountId: ca.id, scheduledAt: '2029-06-01T09:00:00.000Z' }));
      const earlier = await port.posts.insert(newPost({ connectedAccountId: ca.id, shortId: clips[1]!.id, source: 'automation', scheduledAt: '2031-01-01T00:00:00.000Z' }));
      await port.posts.cancel(earlier.id);
      const seen: AutomationSnapshot[] = [];
      const made = await port.rules.apply(id, '2030-01-01T00:00:00.000Z', everyClip(seen));
      expect(seen).toHaveLength(1);
      const s = seen[0]!;
      expect(s.request).toMatchObject({ id, accountId: 'acc', status: 'completed' });
      expect(s.rules.map((x) => x.id)).toEqual([r.id]);
      expect(s.clips.map((c) => c.id)).toEqual(clips.map((c) => c.id));
      expect(s.automationPosted.has(`${ca.id} ${clips[1]!.id}`)).toBe(true);
      expect(s.takenSlots.has(`${ca.id} ${held.scheduledAt}`)).toBe(true);
      expect(s.takenSlots.has(`${ca.id} ${dropped.scheduledAt}`)).toBe(false);
      expect(s.takenSlots.has(`${ca.id} 2029-06-01T09:00:00.000Z`)).toBe(false);
      expect(made.map((p) => p.shortId)).toEqual([clips[0]!.id, clips[2]!.id]);
      for (const p of made) {
        expect(await port.posts.get(p.id)).toEqual(p);
        expect(p).toMatchObject({ status: 'scheduled', source: 'automation', connectedAccountId: ca.id, accountId: 'acc' });
      }
      // Applied again: the planner sees its own posts.
      expect(await port.rules.apply(id, '2030-01-01T00:00:00.000Z', everyClip())).toEqual([]);
    });

    it('reads and writes nothing for a request that is not completed', async () => {
      const { port } = await open();
      await rule(port, 'acc', (await connect(port, 'acc')).id);
      const { id } = await completedRequest(port, 'acc', [90]);
      const queued = hex();
      await port.requests.insertRequest({ ...(await port.requests.getRequest(id))!, id: queued, options: {} as never });
      let called = 0;
      expect(await port.rules.apply(queued, BEFORE, () => { called++; return []; })).toEqual([]);
      expect(await port.rules.apply(hex(), BEFORE, () => { called++; return []; })).toEqual([]);
      expect(called).toBe(0);
    });

    it('two applies of one request at once (two processes) post each clip once', async () => {
      const h = await open();
      const second = await h.another();
      const ca = await connect(h.port, 'acc', 'chan');
      await rule(h.port, 'acc', ca.id);
      const { id, clips } = await completedRequest(h.port, 'acc', [90, 80, 70]);
      const made = await Promise.all([
        h.port.rules.apply(id, BEFORE, everyClip()), second.rules.apply(id, BEFORE, everyClip()),
        h.port.rules.apply(id, BEFORE, everyClip()), second.rules.apply(id, BEFORE, everyClip()),
      ]);
      expect(made.flat().map((p) => p.shortId).sort()).toEqual(clips.map((c) => c.id).sort());
      const listed = await h.port.posts.listPosts('acc', { page: 1, limit: 50, date: 'scheduled', source: 'automation' });
      expect(listed.total).toBe(3);
    });
  });
}
