// Publishing with the posts on PostgreSQL: two processes (two Pools, two lease owners, two schedulers) publish
// the due posts of one database at the same time, and the platform gets each post exactly once.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';
import { createPostgresState, type PostgresState } from '../src/adapters/postgres/index.js';
import type { PostObject } from '../src/api/types.js';
import { LeaseKeeper } from '../src/engine/lease-keeper.js';
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { ConnectedAccounts } from '../src/posts/connected-accounts.js';
import { PostsService } from '../src/posts/posts-service.js';
import { createPublishing } from '../src/posts/publishing.js';
import { startPostgres, type Postgres } from './helpers/engines.js';
import { startFakePlatform, type FakeVideoSite } from './helpers/fake-platforms/index.js';
import { PLATFORM_URL_SETTING } from './helpers/posts-fixture.js';
import { video } from './helpers/media.js';
import { until } from './helpers/serve.js';

let server: Postgres;
let site: FakeVideoSite;
let dir: string;
beforeAll(async () => {
  [server, site] = await Promise.all([startPostgres(), startFakePlatform('video_site')]);
  dir = mkdtempSync(path.join(os.tmpdir(), 'pg-publish-'));
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.close(), site?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One process's posts side on the shared database (its own state: Pool, lease owner, scheduler), wired as the engine wires it. */
async function processOn(url: string, owner: string) {
  const state: PostgresState = await createPostgresState(url, { dataDir: dir });
  const accounts = new ConnectedAccounts(state.connectedAccounts, { dataDir: dir });
  const service = new PostsService(state.requests, state.posts, accounts);
  const leases = new LeaseKeeper(state.leases, owner, 30_000);
  const env = { ...process.env, [PLATFORM_URL_SETTING.video_site]: site.url };
  const { scheduler } = createPublishing({
    store: state.requests, blobs: new FsBlobStore(dir), posts: state.posts, leases, media: createLocalMediaRunner(), accounts, scope: { kind: 'local' }, env,
    tuning: { intervalMs: 20 },
  });
  return { state, requests: state.requests, service, scheduler, leases, posts: state.posts };
}

describe('publishing on PostgreSQL', () => {
  it('two processes publishing the same due posts at once: each post reaches the platform once and is published once', async () => {
    copyFileSync(video({ duration: 2, width: 360, height: 640 }), path.join(dir, 'clip.mp4'));
    const url = await server.createDatabase('publish');
    const [a, b] = await Promise.all([processOn(url, 'process-a'), processOn(url, 'process-b')]);
    try {
      const requestId = randomUUID().replace(/-/g, '').slice(0, 24);
      // Six clips (one file): posts of one clip would rightly share one upload (issue 23), posts of six must be six.
      const clipIds = Array.from({ length: 6 }, () => randomUUID());
      await a.requests.insertRequest({ id: requestId, accountId: 'local', origin: 'local', userEmail: 'me@localhost', options: {} as never, url: '/talk.mp4', start: 0, end: 2 });
      await a.requests.replaceShorts(requestId, clipIds.map((id, rank) => ({
        id, requestId, rank, title: `Clip ${rank}`, sentenceIndexes: [rank], reason: 'r', description: 'd', viralScore: 80, startTimestamp: 0, endTimestamp: 2,
        duration: 2, width: 360, height: 640, recompiling: false, error: false, errorMessage: null, fileKey: 'clip.mp4',
      })));
      expect(await a.requests.finish(requestId, 'completed')).toBe(true);
      const t = site.issueTokens();
      const account = await a.service.accounts.add('local', { platform: 'video_site', handle: 'chan', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 3600 });
      const local = { id: 'local', email: 'me@localhost' };
      const before = site.publishCount;
      const scheduled: PostObject[] = [];
      for (const shortId of clipIds) scheduled.push(await a.service.schedule(local, { shortId, platform: 'video_site', accountId: account.id }));
      a.scheduler.start();
      b.scheduler.start();
      const done = await until(async () => Promise.all(scheduled.map(async (p) => (await b.posts.get(p.id))!)),
        (posts) => posts.every((p) => p.status === 'published' || p.status === 'failed'), 60_000, 50);
      for (const p of done) expect(p, JSON.stringify(p)).toMatchObject({ status: 'published', attempts: 1, errorCode: null });
      expect(site.publishCount).toBe(before + 6);
      expect(new Set(done.map((p) => p.url)).size).toBe(6);
    } finally {
      await Promise.all([a.scheduler.stop(), b.scheduler.stop()]);
      await Promise.all([a.leases.releaseAll(), b.leases.releaseAll()]);
      await Promise.all([a.state.close(), b.state.close()]);
    }
  }, 90_000);
});
