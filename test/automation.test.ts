// Channel automation through a live `shorts serve` (issue 16): rules are validated, listed and removed under
// /api/v1/accounts/:id/automation; when a request completes, each rule turns its qualifying clips (best
// first) into `source: "automation"` posts at the next free slots of its daily schedule, one post per slot
// per account, skipping slots other posts hold; a restart (the start-up sweep) adds nothing twice.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import type { ConnectedAccount } from '../src/posts/connected-accounts.js';
import { slotTimes, zonedTime } from '../src/posts/automation.js';
import { postsStack } from './helpers/posts-stack.js';
import type { AutomationRule, PostObject, RequestDetail } from '../src/api/types.js';
import { startFakePlatform, type FakeShortVideoSite } from './helpers/fake-platforms/index.js';
import { addAccount, completedRequest, startPostsServe, type PostsServe } from './helpers/posts-fixture.js';
import { api, startServe } from './helpers/serve.js';

const TZ = 'America/New_York';

/** "HH:MM" of an instant on the wall clock of a zone. */
function wall(iso: string, tz: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
}

describe('automation rules', () => {
  let tiktok: FakeShortVideoSite;
  let s: PostsServe;
  let main: ConnectedAccount;
  let picky: ConnectedAccount;
  let request: RequestDetail;
  let before: number;
  const call = (method: string, path: string, body?: unknown) => api(s.serve.api, s.key, method, path, body);
  const automationPosts = async () => {
    const r = await call('GET', '/posts?source=automation&limit=100');
    expect(r.status, r.text).toBe(200);
    return r.json.data.posts as PostObject[];
  };

  beforeAll(async () => {
    tiktok = await startFakePlatform('short_video_site');
    s = await startPostsServe({ short_video_site: tiktok });
    main = await addAccount(s.serve, s.key, tiktok, 'short_video_site', 'main_channel');
    picky = await addAccount(s.serve, s.key, tiktok, 'short_video_site', 'picky_channel');
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    await tiktok?.close();
  });

  it('validates rules (400 naming the field, 404 for an account that is not the caller\'s), lists and removes them', async () => {
    const path = `/accounts/${main.id}/automation`;
    const cases: [unknown, string][] = [
      [{ slots: ['09:00'] }, 'minViralScore'],
      [{ minViralScore: 101, slots: ['09:00'] }, 'minViralScore'],
      [{ minViralScore: 50.5, slots: ['09:00'] }, 'minViralScore'],
      [{ minViralScore: 50 }, 'slots'],
      [{ minViralScore: 50, slots: [] }, 'slots'],
      [{ minViralScore: 50, slots: ['9am'] }, 'slots'],
      [{ minViralScore: 50, slots: ['24:00'] }, 'slots'],
      [{ minViralScore: 50, slots: ['09:00'], timezone: 'Mars/Olympus' }, 'timezone'],
      [{ minViralScore: 50, slots: ['09:00'], every: 'day' }, 'every'],
    ];
    for (const [body, field] of cases) {
      const r = await call('POST', path, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.error.details).toEqual({ field });
    }
    expect((await call('POST', '/accounts/ca_nobody/automation', { minViralScore: 1, slots: ['09:00'] })).status).toBe(404);
    const made = await call('POST', path, { minViralScore: 10, slots: ['18:00', '09:00', '09:00'] });
    expect(made.status, made.text).toBe(201);
    const rule = made.json.data as AutomationRule;
    expect(rule).toMatchObject({ accountId: main.id, platform: 'short_video_site', handle: 'main_channel', minViralScore: 10, slots: ['09:00', '18:00'], timezone: 'UTC' });
    expect((await call('GET', path)).json.data).toEqual({ rules: [rule] });
    const removed = await call('DELETE', `${path}/${rule.id}`);
    expect(removed.status).toBe(200);
    expect(removed.json.data).toEqual(rule);
    expect((await call('DELETE', `${path}/${rule.id}`)).status).toBe(404);
    expect((await call('GET', path)).json.data).toEqual({ rules: [] });
  });

  it('a completed request becomes automation posts at the next free slots, best clip first, only clips that score enough', async () => {
    before = Date.now();
    // Every clip for the main account; only clips scoring 100 for the picky one.
    expect((await call('POST', `/accounts/${main.id}/automation`, { minViralScore: 0, slots: ['18:00', '09:00'], timezone: TZ })).status).toBe(201);
    expect((await call('POST', `/accounts/${picky.id}/automation`, { minViralScore: 100, slots: ['12:00'], timezone: TZ })).status).toBe(201);
    request = await completedRequest(s.serve, s.key, s.cdn);
    const auto = await automationPosts();
    const mine = auto.filter((p) => p.account.handle === 'main_channel').sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt));
    const usable = request.shorts.filter((c) => !c.error);
    expect(usable.length).toBe(1);
    expect(mine.length).toBe(usable.length);
    for (const p of mine) {
      expect(p).toMatchObject({ source: 'automation', status: 'scheduled', platform: 'short_video_site', requestId: request._id });
      expect(['09:00', '18:00']).toContain(wall(p.scheduledAt, TZ));
    }
    // The best clip gets the earliest slot; the slots are the first ones after the completion, each once.
    const best = [...usable].sort((a, b) => b.viral_score - a.viral_score);
    expect(mine.map((p) => p.shortId)).toEqual(best.map((c) => c.id));
    expect(mine[0]!.title).toBe(best[0]!.title);
    expect(mine.map((p) => p.scheduledAt)).toEqual([...takeSlots(['09:00', '18:00'], TZ, before, mine.length)]);
    // The picky rule: exactly the clips scoring 100.
    const pickyPosts = auto.filter((p) => p.account.handle === 'picky_channel');
    expect(pickyPosts.map((p) => p.shortId).sort()).toEqual(usable.filter((c) => c.viral_score >= 100).map((c) => c.id).sort());
    // Nothing went out yet: the slots are in the future.
    expect(tiktok.publishCount).toBe(0);
    // The clips' detail shows them too.
    const detail = (await call('GET', `/shorts/${request._id}`)).json.data as RequestDetail;
    expect(detail.shorts.flatMap((c) => c.posts).filter((p) => p.source === 'automation').length).toBe(auto.length);
  }, 240_000);

  it('a restart (the start-up sweep over completed requests) adds nothing twice; a canceled automation post is not made again', async () => {
    const auto = await automationPosts();
    const canceled = await call('DELETE', `/posts/${auto[0]!.id}`);
    expect(canceled.status, canceled.text).toBe(200);
    await s.serve.kill();
    s.serve = await startServe(s.env);
    const again = await automationPosts();
    expect(again.map((p) => p.id).sort()).toEqual(auto.map((p) => p.id).sort());
    expect(again.find((p) => p.id === auto[0]!.id)!.status).toBe('canceled');
  });
});

describe('slot assignment', () => {
  it('takes the next free slots in the rule\'s time zone (across a DST change), skipping slots held by other posts of the account', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'automation-slots-'));
    const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
    try {
      const { accounts, posts, automation } = postsStack(store);
      const account = await accounts.add('local', { platform: 'video_site', handle: 'chan', accessToken: 'at-1', refreshToken: 'rt-1', expiresInSec: 3600 });
      const req = await store.insertRequest({ id: '0123456789abcdef01234567', accountId: 'local', origin: 'local', userEmail: 'me@localhost', options: {} as never, url: '/x.mp4', start: 0, end: 60 });
      const clip = (n: number, score: number) => ({
        id: `00000000-0000-4000-8000-00000000000${n}`, requestId: req.id, rank: n, title: `Clip ${n}`, sentenceIndexes: [0], reason: 'r', description: 'd',
        viralScore: score, startTimestamp: 0, endTimestamp: 10, duration: 10, width: 1080, height: 1920, recompiling: false, error: false, errorMessage: null, fileKey: 'x.mp4',
      });
      await store.replaceShorts(req.id, [clip(1, 55), clip(2, 91), clip(3, 72), clip(4, 20)]);
      const local = { id: 'local', email: 'me@localhost' };
      await automation.add('local', account.id, { minViralScore: 50, slots: ['18:00', '09:00'], timezone: TZ });
      // 2027-03-13 15:00 in New York (EST); clocks go forward on the 14th.
      const now = Date.parse('2027-03-13T20:00:00Z');
      const held = await posts.schedule(local, { shortId: clip(1, 0).id, platform: 'video_site', scheduledAt: '2027-03-13T23:00:00Z' }); // the 13th, 18:00 EST
      const dropped = await posts.schedule(local, { shortId: clip(1, 0).id, platform: 'video_site', scheduledAt: '2027-03-14T13:00:00Z' }); // the 14th, 09:00 EDT
      await posts.cancel(local, dropped.id);
      expect(await store.finish(req.id, 'completed')).toBe(true);
      const made = await automation.onRequestCompleted(req.id, now);
      // Clips 2, 3, 1 (91, 72, 55; clip 4 scores under 50) at the 14th 09:00 EDT (its canceled post frees it), 18:00 EDT, the 15th 09:00 EDT.
      expect(made.map((p) => [p.shortId, p.scheduledAt, p.source])).toEqual([
        [clip(2, 0).id, '2027-03-14T13:00:00.000Z', 'automation'],
        [clip(3, 0).id, '2027-03-14T22:00:00.000Z', 'automation'],
        [clip(1, 0).id, '2027-03-15T13:00:00.000Z', 'automation'],
      ]);
      expect(held.status).toBe('scheduled');
      // A slot a DST change skips is the first valid time after it: 02:30 on the 14th is 03:30 EDT.
      expect(new Date(zonedTime(2027, 3, 14, 2, 30, TZ)).toISOString()).toBe('2027-03-14T07:30:00.000Z');
      // Applied again (the start-up sweep): nothing new.
      expect(await automation.onRequestCompleted(req.id, now)).toEqual([]);
      expect(await automation.sweep('local', now)).toEqual([]);
    } finally {
      store.close();
    }
  });
});

function* takeSlots(slots: string[], tz: string, after: number, n: number): Generator<string> {
  let i = 0;
  for (const t of slotTimes(slots, tz, after)) {
    if (i++ >= n) return;
    yield new Date(t).toISOString();
  }
}
