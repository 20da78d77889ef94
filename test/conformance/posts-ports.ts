// What the posts conformance suites (post-store, connected-accounts-store, automation-rules) are given: the
// three posts ports on one storage, with the request store and lease store beside them (posts are made of a
// request's clips; the publisher's writes are fenced by leases). Interface only: no SQL, no paths.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { Harness } from './harness.js';
import type { AutomationRules } from '../../src/ports/automation-rules.js';
import type { ConnectedAccountsStore } from '../../src/ports/connected-accounts-store.js';
import type { Lease, LeaseStore } from '../../src/ports/leases.js';
import type { NewPost, PostStore } from '../../src/ports/post-store.js';
import type { RequestStore, ShortRecord } from '../../src/ports/request-store.js';
import type { CreateRequest } from '../../src/domain/request.js';

export interface PostsPorts {
  posts: PostStore;
  accounts: ConnectedAccountsStore;
  rules: AutomationRules;
  requests: RequestStore;
  leases: LeaseStore;
}

export type PostsHarness = Harness<PostsPorts>;

export const hex = (n = 12) => randomBytes(n).toString('hex');

export function newPost(over: Partial<NewPost> = {}): NewPost {
  return {
    accountId: 'acc', connectedAccountId: 'ca_1', platform: 'video_site', scheduledAt: '2030-01-01T09:00:00.000Z', shortId: 'short-1',
    requestId: 'req-1', title: 'A clip', description: 'About it', accountHandle: 'chan', source: 'manual', ...over,
  };
}

/** A connected account stored with opaque "sealed" tokens (the port never opens them). */
export async function connect(p: PostsPorts, accountId = 'acc', handle = `h${hex(3)}`, platform: NewPost['platform'] = 'video_site') {
  return p.accounts.upsert({ accountId, platform, handle }, `ca_${hex(10)}`, { platformUserId: null, at: new Date().toISOString() },
    (id) => ({ accessToken: `sealed-access-${id}`, refreshToken: `sealed-refresh-${id}`, expiresAt: null, refreshExpiresAt: null, scopes: [] }));
}

/** A completed request of `accountId` with clips of these viral scores (rank order), finished now. */
export async function completedRequest(p: PostsPorts, accountId: string, scores: number[]): Promise<{ id: string; clips: ShortRecord[] }> {
  const id = hex();
  await p.requests.insertRequest({
    id, accountId, origin: accountId === 'local' ? 'local' : 'api', userEmail: 'a@example.com',
    options: { start: 0, end: 60 } as unknown as CreateRequest, url: 'https://cdn.example.com/a.mp4', start: 0, end: 60,
  });
  const clips: ShortRecord[] = scores.map((score, rank) => ({
    id: `${id}-${rank}`, requestId: id, rank, title: `Clip ${rank}`, sentenceIndexes: [rank], reason: 'r', description: 'd', viralScore: score,
    startTimestamp: rank * 10, endTimestamp: rank * 10 + 10, duration: 10, width: 1080, height: 1920, recompiling: false, error: false,
    errorMessage: null, fileKey: `clips/${rank}.mp4`,
  }));
  await p.requests.replaceShorts(id, clips);
  expect(await p.requests.finish(id, 'completed')).toBe(true);
  return { id, clips };
}

/** A `post` lease on `id` that another owner has taken over since (its holder is stale), and the new one. */
export async function takenOver(leases: LeaseStore, id: string): Promise<{ stale: Lease; current: Lease }> {
  const stale = (await leases.acquire({ kind: 'post', id }, 'publisher-old', 200))!;
  await sleep(400);
  const current = (await leases.acquire({ kind: 'post', id }, 'publisher-new', 60_000))!;
  expect(current).not.toBeNull();
  return { stale, current };
}
