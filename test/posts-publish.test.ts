// Publishing (issue 16): a live `shorts serve` publishes due posts on each platform's fake (the platform
// holds exactly the clip's bytes), not before their time; kill -9 of serve in the middle of a publish and a
// restart leave exactly one post on the platform. Retries with backoff and the daily cap run the real
// scheduler in this process with waits in milliseconds, on the same rendered clip.
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import type { PostRecord } from '../src/ports/post-store.js';
import { createPublishing } from '../src/posts/publishing.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { LeaseKeeper } from '../src/engine/lease-keeper.js';
import { postsStack } from './helpers/posts-stack.js';
import type { Platform } from '../src/publish/types.js';
import type { PostObject, RequestDetail } from '../src/api/types.js';
import type { PostsService } from '../src/posts/posts-service.js';
import {
  SHORT_VIDEO_SITE_FAULTS, startFakePlatform, VIDEO_SITE_FAULTS, type FakePhotoSite, type FakeShortVideoSite, type FakeVideoSite,
} from './helpers/fake-platforms/index.js';
import { addAccount, completedRequest, PLATFORM_URL_SETTING, postOf, settledPost, startPostsServe, type PostsServe } from './helpers/posts-fixture.js';
import { api, startServe, until } from './helpers/serve.js';
import { cliEnv, runCli } from './helpers/cli.js';

let video: FakeVideoSite;
let photo: FakePhotoSite;
let tiktok: FakeShortVideoSite;
let s: PostsServe;
let request: RequestDetail;
/** The rendered clip as the serve hands it out. */
let clipBytes: Buffer;

beforeAll(async () => {
  [video, photo, tiktok] = await Promise.all([startFakePlatform('video_site'), startFakePlatform('photo_site'), startFakePlatform('short_video_site')]);
  // A short lease (issue 22): a killed serve's post is taken over by the next one once its lease runs out.
  s = await startPostsServe({ video_site: video, photo_site: photo, short_video_site: tiktok }, { SHORTS_LEASE_TTL: '4' });
  request = await completedRequest(s.serve, s.key, s.cdn);
  clipBytes = Buffer.from(await (await fetch(request.shorts[0]!.video_url)).arrayBuffer());
  expect(clipBytes.length).toBeGreaterThan(10_000);
  await addAccount(s.serve, s.key, video, 'video_site', 'fakechannel');
  await addAccount(s.serve, s.key, photo, 'photo_site', 'insta', { platformUserId: photo.igUser!.id });
  await addAccount(s.serve, s.key, tiktok, 'short_video_site', 'tok');
}, 240_000);

afterAll(async () => {
  await s?.close();
  await Promise.all([video?.close(), photo?.close(), tiktok?.close()]);
});

const schedule = async (platform: Platform, extra: Record<string, unknown> = {}): Promise<PostObject> => {
  const r = await api(s.serve.api, s.key, 'POST', '/posts', { shortId: request.shorts[0]!.id, platform, ...extra });
  expect(r.status, r.text).toBe(201);
  return r.json.data as PostObject;
};

describe('the scheduler in serve', () => {
  it('publishes on each platform: published with publishedAt and the public URL, the platform holding the clip\'s bytes', async () => {
    const posts = await Promise.all((['video_site', 'photo_site', 'short_video_site'] as const).map((p) => schedule(p)));
    const done = await Promise.all(posts.map((p) => settledPost(s.serve, s.key, p.id)));
    for (const d of done) {
      expect(d, JSON.stringify(d)).toMatchObject({ status: 'published', error: null, errorCode: null, retryable: null });
      expect(Date.parse(d.publishedAt!)).toBeGreaterThanOrEqual(Date.parse(d.scheduledAt));
    }
    expect(done[0]!.url).toMatch(/^https:\/\//);
    expect(done[1]!.url).toMatch(/^https:\/\//);
    expect([video.publishCount, photo.publishCount, tiktok.publishCount]).toEqual([1, 1, 1]);
    expect([...video.videos.values()][0]!.bytes.equals(clipBytes)).toBe(true);
    expect([...photo.media.values()][0]!.bytes.equals(clipBytes)).toBe(true);
    expect([...tiktok.tasks.values()][0]!.bytes.equals(clipBytes)).toBe(true);
    expect([...video.videos.values()][0]!.title).toBe(request.shorts[0]!.title);
  });

  it('waits for scheduledAt: scheduled until then, published after', async () => {
    const at = new Date(Date.now() + 2500).toISOString();
    const p = await schedule('video_site', { scheduledAt: at });
    expect((await postOf(s.serve, s.key, p.id)).status).toBe('scheduled');
    const done = await settledPost(s.serve, s.key, p.id);
    expect(done.status).toBe('published');
    expect(Date.parse(done.publishedAt!)).toBeGreaterThanOrEqual(Date.parse(at));
    expect(video.publishCount).toBe(2);
  });

  it('kill -9 of serve while the platform publishes, then a restart: the post is published once', async () => {
    // media_publish answers slowly: the serve dies after sending it, the platform goes on and publishes.
    photo.fail('publish', { delayMs: 1500 });
    const before = photo.publishCount;
    const publishCalls = photo.count('publish');
    const p = await schedule('photo_site');
    await until(async () => photo.count('publish'), (n) => n > publishCalls, 20_000, 20);
    await s.serve.kill('SIGKILL');
    await until(async () => photo.publishCount, (n) => n > before, 10_000, 50);
    s.serve = await startServe(s.env);
    const done = await settledPost(s.serve, s.key, p.id);
    expect(done.status, JSON.stringify(done)).toBe('published');
    expect(done.url).toMatch(/^https:\/\//);
    expect(photo.publishCount).toBe(before + 1);
    expect(photo.count('publish')).toBe(publishCalls + 1);
  });
});

/** A local data directory holding the served clip as a completed request of the local account. */
async function localStore(prefix: string): Promise<{ store: SqliteRequestStore; dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, 'clip.mp4');
  writeFileSync(file, clipBytes);
  const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  const req = await store.insertRequest({ id: request._id, accountId: 'local', origin: 'local', userEmail: 'me@localhost', options: {} as never, url: '/talk.mp4', start: 0, end: 60 });
  const c = request.shorts[0]!;
  await store.replaceShorts(req.id, [{
    id: c.id, requestId: req.id, rank: 1, title: c.title, sentenceIndexes: c.sentenceIndexes, reason: c.reason, description: c.description, viralScore: c.viral_score,
    startTimestamp: c.startTimestamp, endTimestamp: c.endTimestamp, duration: c.duration, width: c.width, height: c.height, recompiling: false, error: false, errorMessage: null, fileKey: 'clip.mp4',
  }]);
  await store.finish(req.id, 'completed');
  return { store, dir };
}

describe('the shorts posts CLI', () => {
  it('locally: schedule, `posts run` publishes what is due and waits, list, cancel refused once published', async () => {
    const { store, dir } = await localStore('posts-cli-');
    const t = video.issueTokens();
    await postsStack(store).accounts.add('local', { platform: 'video_site', handle: 'mychannel', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 3600 });
    store.close();
    const env = cliEnv({ SHORTS_DATA_DIR: dir, [PLATFORM_URL_SETTING.video_site]: video.url });
    const published = video.publishCount;
    const scheduled = await runCli(['posts', 'schedule', request.shorts[0]!.id, '--platform', 'video_site', '--title', 'From the CLI', '--json'], env);
    expect(scheduled.code, scheduled.stderr).toBe(0);
    const post = JSON.parse(scheduled.stdout) as PostObject;
    expect(post).toMatchObject({ status: 'scheduled', account: { handle: 'mychannel' }, title: 'From the CLI' });
    const run = await runCli(['posts', 'run', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const ran = JSON.parse(run.stdout) as { posts: PostObject[] };
    expect(ran.posts.map((p) => [p.id, p.status])).toEqual([[post.id, 'published']]);
    expect(video.publishCount).toBe(published + 1);
    const listed = await runCli(['posts', '--status', 'published', '--json'], env);
    expect((JSON.parse(listed.stdout) as { data: { posts: PostObject[] } }).data.posts.map((p) => p.id)).toEqual([post.id]);
    const cancel = await runCli(['posts', 'cancel', post.id], env);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toContain('post_not_cancelable');
    expect((await runCli(['posts', 'run'], env)).stderr).toContain('no posts are due');
  });

  it('remotely: schedule and cancel through the serve; automation rules listed', async () => {
    const env = cliEnv({ SHORTS_REMOTE: s.serve.url, SHORTS_API_KEY: s.key });
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await runCli(['posts', 'schedule', request.shorts[0]!.id, '--platform', 'short_video_site', '--at', at, '--json'], env);
    expect(scheduled.code, scheduled.stderr).toBe(0);
    const post = JSON.parse(scheduled.stdout) as PostObject;
    expect(post).toMatchObject({ status: 'scheduled', platform: 'short_video_site', account: { handle: 'tok' }, scheduledAt: at });
    const canceled = await runCli(['posts', 'cancel', post.id, '--json'], env);
    expect(canceled.code, canceled.stderr).toBe(0);
    expect((JSON.parse(canceled.stdout) as PostObject).status).toBe('canceled');
    const bad = await runCli(['posts', 'schedule', request.shorts[0]!.id, '--platform', 'video_site', '--at', 'soon'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('scheduledAt');
    const accounts = (await api(s.serve.api, s.key, 'GET', '/accounts')).json.data.accounts as { id: string; platform: string }[];
    const tok = accounts.find((a) => a.platform === 'short_video_site')!;
    const added = await runCli(['posts', 'automation', 'add', tok.id, '--min-score', '70', '--slots', '18:00,09:00', '--timezone', 'Europe/Paris', '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const listed = await runCli(['posts', 'automation', 'list', tok.id, '--json'], env);
    expect(JSON.parse(listed.stdout)).toEqual([JSON.parse(added.stdout)]);
    expect((await runCli(['posts', 'run'], env)).code).toBe(2);
  });
});

describe('the MCP tools on /mcp', () => {
  it('an agent lists the connected accounts, schedules a clip (published by the scheduler), and cancels a later one', async () => {
    const client = new Client({ name: 'posts-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.serve.url}/mcp`), { requestInit: { headers: { 'x-api-key': s.key } } }));
    try {
      const call = async <T>(name: string, args: Record<string, unknown> = {}): Promise<T> => {
        const r = await client.callTool({ name, arguments: args }) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        return r.structuredContent as T;
      };
      const { accounts } = await call<{ accounts: { id: string; handle: string; status: string }[] }>('list_connected_accounts', { platform: 'video_site' });
      expect(accounts.map((a) => [a.handle, a.status])).toEqual([['fakechannel', 'active']]);
      const published = video.publishCount;
      const now = await call<PostObject>('schedule_post', { shortId: request.shorts[0]!.id, platform: 'video_site', accountId: accounts[0]!.id, title: 'By an agent' });
      expect(now).toMatchObject({ status: 'scheduled', platform: 'video_site', title: 'By an agent', account: { handle: 'fakechannel' } });
      expect(await settledPost(s.serve, s.key, now.id)).toMatchObject({ status: 'published' });
      expect(video.publishCount).toBe(published + 1);
      const later = await call<PostObject>('schedule_post', { shortId: request.shorts[0]!.id, platform: 'short_video_site', handle: 'tok',
        scheduledAt: new Date(Date.now() + 86_400_000).toISOString() });
      expect((await call<PostObject>('cancel_post', { postId: later.id })).status).toBe('canceled');
      // A published post cannot be canceled: the API's code, as a tool error.
      const refused = await client.callTool({ name: 'cancel_post', arguments: { postId: now.id } }) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('post_not_cancelable');
    } finally {
      await client.close();
    }
  });
});

describe('retries and the daily cap (the scheduler in this process, waits in milliseconds)', () => {
  let store: SqliteRequestStore;
  let service: PostsService;
  let leases: LeaseKeeper;
  const local = { id: 'local', email: 'me@localhost' };
  const accountIds: Partial<Record<Platform, string>> = {};

  beforeAll(async () => {
    ({ store } = await localStore('posts-retry-'));
    service = postsStack(store).posts;
    leases = new LeaseKeeper(new SqliteLeaseStore(store.db));
    for (const [platform, fake] of [['video_site', video], ['short_video_site', tiktok]] as const) {
      const t = fake.issueTokens();
      accountIds[platform] = (await service.accounts.add('local', { platform, handle: `${platform}_acct`, accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 3600 })).id;
    }
  });

  afterAll(async () => {
    await leases?.releaseAll();
    store?.close();
  });

  async function publishWith(platform: Platform, tuning: Parameters<typeof createPublishing>[0]['tuning']): Promise<{ post: PostRecord; states: string[] }> {
    const env = { ...process.env, [PLATFORM_URL_SETTING.video_site]: video.url, [PLATFORM_URL_SETTING.short_video_site]: tiktok.url };
    const { scheduler, posts } = createPublishing({
      store, blobs: new FsBlobStore(store.dataDir), posts: service.posts, leases, media: createLocalMediaRunner(), accounts: service.accounts, scope: { kind: 'local' }, env, tuning: { intervalMs: 20, ...tuning },
    });
    const p = await service.schedule(local, { shortId: request.shorts[0]!.id, platform, accountId: accountIds[platform] });
    const states: string[] = [];
    scheduler.start();
    try {
      const post = await until(async () => {
        const r = (await posts.get(p.id))!;
        const seen = `${r.status}:${r.attempts}`;
        if (states.at(-1) !== seen) states.push(seen);
        return r;
      }, (r) => r.status === 'published' || r.status === 'failed', 20_000, 5);
      return { post, states };
    } finally {
      await scheduler.stop();
    }
  }

  it('a rate-limited attempt is retried after the backoff and then published', async () => {
    const inserts = video.count('insert');
    const published = video.publishCount;
    video.fail('insert', VIDEO_SITE_FAULTS.rateLimitExceeded);
    const { post, states } = await publishWith('video_site', { retryDelaysMs: [300, 600] });
    expect(post).toMatchObject({ status: 'published', attempts: 2, errorCode: null });
    expect(video.count('insert')).toBe(inserts + 2);
    expect(video.publishCount).toBe(published + 1);
    // Between the attempts it waited (back to scheduled: nothing had reached the platform), at least the backoff.
    expect(states).toContain('scheduled:1');
    const calls = video.calls.filter((c) => c.route === 'insert').slice(-2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(300);
  });

  it('retryable failures until the attempts run out: failed with the spec code and retryable true', async () => {
    const inserts = video.count('insert');
    video.fail('insert', VIDEO_SITE_FAULTS.rateLimitExceeded, { times: 3 });
    const { post } = await publishWith('video_site', { retryDelaysMs: [100, 250] });
    expect(post).toMatchObject({ status: 'failed', attempts: 3, errorCode: 'rate_limited', retryable: true, publishedAt: null, url: null });
    expect(video.count('insert')).toBe(inserts + 3);
    const calls = video.calls.filter((c) => c.route === 'insert').slice(-3);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(100);
    expect(calls[2]!.at - calls[1]!.at).toBeGreaterThanOrEqual(250);
  });

  it('the daily cap fails the post at once with daily_cap (retryable), naming the platform\'s reset; not tried again before it, nothing is posted', async () => {
    // Issue 23: it used to wait for the reset reading `scheduled`, then try again.
    const published = tiktok.publishCount;
    const inits = tiktok.count('init');
    tiktok.fail('init', SHORT_VIDEO_SITE_FAULTS.tooManyPosts);
    const { post, states } = await publishWith('short_video_site', { maxAttempts: 2, retryDelaysMs: [50] });
    expect(post).toMatchObject({ status: 'failed', attempts: 1, errorCode: 'daily_cap', retryable: true });
    expect(post.error).toMatch(/daily/);
    // short_video_site does not say when its 24-hour window ends: a day from now.
    const reset = Date.parse(/resets, at about (\S+):/.exec(post.error ?? '')?.[1] ?? '');
    expect(reset - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(states).not.toContain('scheduled:1');
    expect(tiktok.count('init')).toBe(inits + 1);
    expect(tiktok.publishCount).toBe(published);
  });

  it('video_site processing for longer than 15 minutes (the fake\'s clock) is followed to the end: one upload, published', async () => {
    const inserts = video.count('insert');
    const published = video.publishCount;
    video.processing = { polls: 0, outcome: 'processed', durationMs: 20 * 60_000 };
    video.clockStepPerPollMs = 2 * 60_000;
    try {
      const { post, states } = await publishWith('video_site', { pollIntervalMs: 2, now: () => video.now() });
      expect(post).toMatchObject({ status: 'published', attempts: 1, errorCode: null });
      const v = [...video.videos.values()].at(-1)!;
      expect(post.url).toBe(`https://www.youtube.com/shorts/${v.id}`);
      expect(video.now() - v.uploadedAt).toBeGreaterThanOrEqual(20 * 60_000);
      expect(video.count('insert')).toBe(inserts + 1);
      expect(video.publishCount).toBe(published + 1);
      expect(states.filter((x) => x.startsWith('failed') || x.startsWith('scheduled:1'))).toEqual([]);
    } finally {
      video.processing = { polls: 0, outcome: 'processed' };
      video.clockStepPerPollMs = 0;
    }
  });

  it('an upload video_site made private (unverified project) is failed media_rejected with the platform\'s privacy and the video, not a public post; uploaded once', async () => {
    const inserts = video.count('insert');
    video.forcePrivate = true;
    try {
      const { post } = await publishWith('video_site', { retryDelaysMs: [50] });
      expect(post).toMatchObject({ status: 'failed', attempts: 1, errorCode: 'media_rejected', retryable: false, url: null, publishedAt: null });
      const v = [...video.videos.values()].at(-1)!;
      expect(v.privacyStatus).toBe('private');
      expect(post.error).toContain('privacyStatus "private"');
      expect(post.error).toContain(`https://www.youtube.com/shorts/${v.id}`);
      expect(video.count('insert')).toBe(inserts + 1);
    } finally {
      video.forcePrivate = false;
    }
  });

  it('a non-retryable refusal fails at once (account_restricted, false), one attempt', async () => {
    video.fail('insert', VIDEO_SITE_FAULTS.channelSuspended);
    const { post } = await publishWith('video_site', { retryDelaysMs: [100] });
    expect(post).toMatchObject({ status: 'failed', attempts: 1, errorCode: 'account_restricted', retryable: false });
  });
});

describe('what a post uploads (issue 23): its own copy of the clip, and never a video already on the platform', () => {
  let store: SqliteRequestStore;
  let service: PostsService;
  let leases: LeaseKeeper;
  let blobs: FsBlobStore;
  let accountId: string;
  const local = { id: 'local', email: 'me@localhost' };
  const clipId = () => request.shorts[0]!.id;

  beforeAll(async () => {
    ({ store } = await localStore('posts-snapshot-'));
    service = postsStack(store).posts;
    leases = new LeaseKeeper(new SqliteLeaseStore(store.db));
    blobs = new FsBlobStore(store.dataDir);
    const t = video.issueTokens();
    accountId = (await service.accounts.add('local', { platform: 'video_site', handle: 'snapchannel', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 3600 })).id;
  });

  afterAll(async () => {
    await leases?.releaseAll();
    store?.close();
  });

  /** Schedules the clip now and runs the real scheduler; `during` runs while it publishes. Returns the ended post. */
  async function publishClip(tuning: Parameters<typeof createPublishing>[0]['tuning'], during?: (postId: string) => Promise<void>): Promise<PostRecord> {
    const env = { ...process.env, [PLATFORM_URL_SETTING.video_site]: video.url };
    const { scheduler, posts } = createPublishing({ store, blobs, posts: service.posts, leases, media: createLocalMediaRunner(), accounts: service.accounts, scope: { kind: 'local' }, env, tuning: { intervalMs: 20, ...tuning } });
    const p = await service.schedule(local, { shortId: clipId(), platform: 'video_site', accountId });
    scheduler.start();
    try {
      await during?.(p.id);
      return await until(async () => (await posts.get(p.id))!, (r) => r.status === 'published' || r.status === 'failed', 30_000, 5);
    } finally {
      await scheduler.stop();
    }
  }

  /** The clip's re-render is over (same file key, as a re-render keeps it). */
  async function finishRerender(): Promise<void> {
    const c = (await store.getShort(request._id, clipId()))!;
    await store.finishRerender(clipId(), { title: c.title, reason: c.reason, sentenceIndexes: c.sentenceIndexes, startTimestamp: c.startTimestamp,
      endTimestamp: c.endTimestamp, duration: c.duration, fileKey: c.fileKey!, coverKey: null, layout: null, edit: { title: c.title } });
  }

  it('a re-render during the upload changes nothing of it: the platform gets the original bytes, whole, once; the post is published', async () => {
    expect(clipBytes.length).toBeGreaterThan(262_144);
    const inserts = video.count('insert');
    const videos = video.publishCount;
    const uploads = video.count('upload');
    // The first upload PUT is cut after 256 KiB (kept by the platform): with no retry inside the attempt, the next
    // attempt resumes the session from there, after the re-render replaced the clip's file.
    video.fail('upload', { drop: true, afterBytes: 262_144 });
    let snapshotSeen = false;
    try {
      const post = await publishClip({ retryDelaysMs: [1500], connectorRetryDelaysMs: [] }, async (postId) => {
        await until(async () => video.count('upload'), (n) => n > uploads, 20_000, 5);
        expect(await store.startRerender(request._id, clipId(), { title: 'Re-rendered' })).toBe('started');
        await blobs.put('clip.mp4', Buffer.concat([Buffer.from('another render'), clipBytes]));
        await finishRerender();
        snapshotSeen = (await blobs.stat(`posts/${postId}/clip.mp4`))?.size === clipBytes.length;
      });
      expect(post, JSON.stringify(post)).toMatchObject({ status: 'published', attempts: 2, errorCode: null });
      const v = [...video.videos.values()].at(-1)!;
      expect(v.bytes.equals(clipBytes)).toBe(true);
      expect(post.url).toBe(`https://www.youtube.com/shorts/${v.id}`);
      expect(video.count('insert')).toBe(inserts + 1);
      expect(video.publishCount).toBe(videos + 1);
      // The post's copy existed while it was published and is gone once it ended.
      expect(snapshotSeen).toBe(true);
      expect(await blobs.stat(`posts/${post.id}/clip.mp4`)).toBeNull();
    } finally {
      await blobs.put('clip.mp4', clipBytes);
    }
  });

  it('a clip being re-rendered when its post is due: the post waits, scheduled, uploading nothing, then posts the new render', async () => {
    const inserts = video.count('insert');
    expect(await store.startRerender(request._id, clipId(), { title: 'Re-rendered' })).toBe('started');
    let waited: PostRecord | undefined;
    const post = await publishClip({ maxWaitMs: 100 }, async (postId) => {
      waited = await until(async () => (await service.posts.get(postId))!, (r) => r.status === 'scheduled' && r.nextAttemptAt !== null, 20_000, 5);
      expect(video.count('insert')).toBe(inserts);
      await finishRerender();
    });
    // Waiting for the re-render used none of the post's retries.
    expect(waited).toMatchObject({ status: 'scheduled', publishState: null, attempts: 0 });
    expect(post).toMatchObject({ status: 'published', errorCode: null });
    expect(video.count('insert')).toBe(inserts + 1);
    expect([...video.videos.values()].at(-1)!.bytes.equals(clipBytes)).toBe(true);
  });

  it('a new post of a clip whose video_site upload timed out in processing checks that video again: one upload, published with its id', async () => {
    const inserts = video.count('insert');
    const videos = video.publishCount;
    // Processing outlasts video_site's limit (24 h on the fake's clock): the first post fails processing_timeout with the video on the channel.
    video.processing = { polls: 0, outcome: 'processed', durationMs: 30 * 3600_000 };
    video.clockStepPerPollMs = 3 * 3600_000;
    let first: PostRecord;
    try {
      first = await publishClip({ maxAttempts: 1, pollIntervalMs: 2, now: () => video.now() });
    } finally {
      video.processing = { polls: 0, outcome: 'processed' };
      video.clockStepPerPollMs = 0;
    }
    const v = [...video.videos.values()].at(-1)!;
    expect(first, JSON.stringify(first)).toMatchObject({ status: 'failed', errorCode: 'processing_timeout', retryable: true });
    expect(first.publishState?.videoId).toBe(v.id);
    // The platform has finished it meanwhile; the clip is posted to the same channel again.
    const again = await publishClip({ pollIntervalMs: 2, now: () => video.now() });
    expect(again, JSON.stringify(again)).toMatchObject({ status: 'published', url: `https://www.youtube.com/shorts/${v.id}`, errorCode: null });
    expect(again.publishState?.videoId).toBe(v.id);
    expect(video.count('insert')).toBe(inserts + 1);
    expect(video.publishCount).toBe(videos + 1);
  });
});
