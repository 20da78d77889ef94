// The three platform connectors against the fake platforms (real loopback HTTP servers on the documented
// wire contracts): what a user would notice is the post on the platform (its bytes, counted once), its
// public URL, and the spec 7.3 errorCode/retryable of a post that did not go out.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, copyFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectorFor, clipMedia, type ConnectorOptions } from '../src/publish/connectors.js';
import { consentUrl, exchangeCode, identifyAccount, OAuthError, refreshGrant } from '../src/publish/oauth-endpoints.js';
import { platformOverride, platformUrls } from '../src/publish/platform-urls.js';
import { PublishError, type ClipMedia, type Platform, type PublishJob, type PublishState } from '../src/publish/types.js';
import {
  FakePhotoSite, FakeShortVideoSite, FakeVideoSite, PHOTO_SITE_FAULTS, SHORT_VIDEO_SITE_FAULTS, VIDEO_SITE_FAULTS,
  googleError, graphError, tiktokError, type AnyFakePlatform, type Fault,
} from './helpers/fake-platforms/index.js';

const CHUNK = 262_144;
const DIR = path.join(os.tmpdir(), 'shorts-publish-fixtures');

/** A clip made once per machine (keyed by its ffmpeg arguments). */
function clip(name: string, args: string[]): string {
  const key = createHash('sha1').update(args.join(' ')).digest('hex').slice(0, 10);
  const file = path.join(DIR, `${name}-${key}.mp4`);
  if (!existsSync(file)) {
    mkdirSync(DIR, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp.mp4`;
    execFileSync('ffmpeg', ['-v', 'error', '-y', ...args, tmp]);
    copyFileSync(tmp, file);
    rmSync(tmp);
  }
  return file;
}

let good: ClipMedia;
let bad: ClipMedia;

beforeAll(async () => {
  // 4 s of 360x640 portrait H.264/AAC at 2 Mbps (about 1 MB: several 256 KiB chunks), index at the front.
  const goodFile = clip('good', [
    '-f', 'lavfi', '-i', 'testsrc2=size=360x640:rate=30:duration=4', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=4:sample_rate=44100',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-b:v', '2M', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-ac', '2', '-movflags', '+faststart', '-shortest',
  ]);
  // Landscape, 15 fps, 320x240, index at the end: refused by all three.
  const badFile = clip('bad', [
    '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=15:duration=2', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p',
  ]);
  good = await clipMedia(goodFile);
  bad = await clipMedia(badFile);
}, 60_000);

type Fakes = { video_site: FakeVideoSite; photo_site: FakePhotoSite; short_video_site: FakeShortVideoSite };
const fakes = {} as Fakes;

beforeAll(async () => {
  fakes.video_site = await new FakeVideoSite().start();
  fakes.photo_site = await new FakePhotoSite().start();
  fakes.short_video_site = await new FakeShortVideoSite({ minChunkBytes: CHUNK }).start();
});
afterEach(() => {
  for (const f of Object.values(fakes)) f.clearFaults();
});
afterAll(async () => {
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

function optsFor(platform: Platform, extra: ConnectorOptions = {}): ConnectorOptions {
  return { baseUrl: fakes[platform].url, pollIntervalMs: 10, processingDeadlineMs: 400, retryDelaysMs: [5, 10, 20], chunkSizeBytes: CHUNK, ...extra };
}

function userIdOf(platform: Platform): string {
  if (platform === 'video_site') return fakes.video_site.channel!.id;
  if (platform === 'photo_site') return fakes.photo_site.igUser!.id;
  return fakes.short_video_site.openId;
}

interface Run {
  job: PublishJob;
  saved: PublishState[];
  refreshes: () => number;
  accessToken: string;
}

/** A publish job as the scheduler would hand it over, refreshing through the fake's token endpoint. */
function jobFor(platform: Platform, media: ClipMedia, state: PublishState | null = null, title = 'A short about testing'): Run {
  const fake: AnyFakePlatform = fakes[platform];
  const t = fake.issueTokens();
  let tokens = { accessToken: t.accessToken, refreshToken: t.refreshToken };
  let refreshes = 0;
  const saved: PublishState[] = [];
  const job: PublishJob = {
    postId: `post_${Math.random().toString(36).slice(2)}`, media, title, description: 'Made by shortwright #shorts', state,
    account: { handle: '@someone', platformUserId: userIdOf(platform), accessToken: t.accessToken },
    saveState: (s) => saved.push({ ...s }),
    refreshAccessToken: async () => {
      refreshes += 1;
      try {
        const g = await refreshGrant(platform, { clientId: fake.clientId, clientSecret: fake.clientSecret }, tokens, { baseUrl: fake.url });
        tokens = { accessToken: g.accessToken, refreshToken: g.refreshToken ?? tokens.refreshToken };
        return g.accessToken;
      } catch (e) {
        if (e instanceof OAuthError) throw e.toPublishError();
        throw e;
      }
    },
  };
  return { job, saved, refreshes: () => refreshes, accessToken: t.accessToken };
}

async function failureOf(p: Promise<unknown>): Promise<PublishError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof PublishError) return e;
    throw e;
  }
  throw new Error('the publish succeeded');
}

const FILE_BYTES = (): Buffer => readFileSync(good.file);

/** The bytes the platform holds for the post `id` (the result's platformPostId). */
function bytesOn(platform: Platform, id: string): Buffer | undefined {
  if (platform === 'video_site') return fakes.video_site.videos.get(id)?.bytes;
  if (platform === 'photo_site') return fakes.photo_site.media.get(id)?.bytes;
  return [...fakes.short_video_site.tasks.values()].find((t) => t.postId === id)?.bytes;
}

const PLATFORMS: Platform[] = ['video_site', 'photo_site', 'short_video_site'];
const UPLOAD_ROUTE: Record<Platform, string> = { video_site: 'upload', photo_site: 'rupload', short_video_site: 'upload' };

describe.each(PLATFORMS)('%s connector', (platform) => {
  it('publishes the clip: the platform holds exactly its bytes, once, and the post has its public URL', async () => {
    const before = fakes[platform].publishCount;
    const run = jobFor(platform, good);
    const result = await connectorFor(platform, optsFor(platform)).publish(run.job);
    expect(fakes[platform].publishCount).toBe(before + 1);
    expect(bytesOn(platform, result.platformPostId)?.equals(FILE_BYTES())).toBe(true);
    const urlShape = { video_site: /^https:\/\/www\.youtube\.com\/shorts\/[\w-]{11}$/, photo_site: /^https:\/\/www\.instagram\.com\/reel\/[\w-]+\/$/, short_video_site: /^https:\/\/www\.tiktok\.com\/@fake\.shorts\/video\/\d{19}$/ }[platform];
    expect(result.url).toMatch(urlShape);
    expect(run.saved.length).toBeGreaterThan(0);
  });

  it('resumes after the connection drops mid-upload, and still posts once', async () => {
    const fake = fakes[platform];
    const before = fake.publishCount;
    const route = UPLOAD_ROUTE[platform];
    const firstCall = fake.calls.length;
    // photo_site sends the file in one request: cut it past the first 256 KiB. The others: halfway into chunk 2.
    if (platform === 'photo_site') fake.fail(route, { drop: true, afterBytes: CHUNK + 1000 });
    else fake.fail(route, { drop: true, afterBytes: CHUNK / 2 }, { onCall: fake.count(route) + 2 });
    const result = await connectorFor(platform, optsFor(platform)).publish(jobFor(platform, good).job);
    expect(fake.publishCount).toBe(before + 1);
    expect(bytesOn(platform, result.platformPostId)?.equals(FILE_BYTES())).toBe(true);
    const ranges = fake.calls.slice(firstCall).filter((c) => c.route === route).map((c) => c.range);
    const total = good.sizeBytes;
    if (platform === 'video_site') {
      // Asked the session what it holds, then went on from the first chunk's end: nothing sent twice but the cut chunk.
      expect(ranges).toContain(`bytes */${total}`);
      expect(ranges.filter((r) => r === `bytes ${CHUNK}-${2 * CHUNK - 1}/${total}`)).toHaveLength(2);
      expect(ranges.filter((r) => r?.startsWith('bytes 0-'))).toHaveLength(1);
    } else if (platform === 'short_video_site') {
      expect(ranges.filter((r) => r === `bytes ${CHUNK}-${2 * CHUNK - 1}/${total}`)).toHaveLength(2);
      expect(ranges.filter((r) => r?.startsWith('bytes 0-'))).toHaveLength(1);
    } else {
      // Into the same container, from the start (no progress query exists for containers).
      expect(ranges).toEqual(['offset 0', 'offset 0']);
      expect(fake.count('media')).toBeGreaterThan(0);
    }
  });

  it('refreshes a refused token once and goes on; a refresh that is refused is auth_expired', async () => {
    const run = jobFor(platform, good);
    // photo_site renews a token by exchanging it, so its refusal is scripted (190 while still exchangeable).
    if (platform === 'photo_site') fakes.photo_site.fail('media', PHOTO_SITE_FAULTS.tokenExpired);
    else fakes[platform].expireAccessToken(run.accessToken);
    const result = await connectorFor(platform, optsFor(platform)).publish(run.job);
    expect(run.refreshes()).toBe(1);
    expect(bytesOn(platform, result.platformPostId)?.equals(FILE_BYTES())).toBe(true);

    const revoked = jobFor(platform, good);
    fakes[platform].revoke(revoked.accessToken);
    const e = await failureOf(connectorFor(platform, optsFor(platform)).publish(revoked.job));
    expect([e.errorCode, e.retryable]).toEqual(['auth_expired', false]);
  });

  it('refuses a clip the platform would reject before uploading anything (media_rejected)', () => {
    const c = connectorFor(platform, optsFor(platform));
    expect(c.checkMedia(good, { title: 'ok', description: '' })).toBeNull();
    const e = c.checkMedia(bad, { title: 'ok', description: '' });
    expect(e?.errorCode).toBe('media_rejected');
    expect(e?.retryable).toBe(false);
    expect(e?.message).toMatch(platform === 'video_site' ? /landscape/ : platform === 'photo_site' ? /faststart/ : /360/);
  });

  it('a clip file that is gone is video_missing', async () => {
    const gone = { ...good, file: path.join(DIR, 'no-such-clip.mp4') };
    const e = await failureOf(connectorFor(platform, optsFor(platform)).publish(jobFor(platform, gone).job));
    expect([e.errorCode, e.retryable]).toEqual(['video_missing', false]);
    await expect(clipMedia(gone.file)).rejects.toMatchObject({ errorCode: 'video_missing' });
  });
});

describe('processing that never finishes', () => {
  it.each(PLATFORMS)('%s: processing_timeout after the deadline; the next attempt resumes polling without uploading again', async (platform) => {
    const fake = fakes[platform];
    const setScript = (never: boolean): void => {
      if (platform === 'video_site') fakes.video_site.processing = { polls: 0, outcome: never ? 'never' : 'processed' };
      else if (platform === 'photo_site') fakes.photo_site.containerScript = { polls: 0, outcome: never ? 'never' : 'FINISHED' };
      else fakes.short_video_site.statusScript = { polls: 0, outcome: never ? 'never' : 'PUBLISH_COMPLETE', postIdPolls: 0 };
    };
    setScript(true);
    try {
      const run = jobFor(platform, good);
      const started = Date.now();
      const e = await failureOf(connectorFor(platform, optsFor(platform, { processingDeadlineMs: 150 })).publish(run.job));
      expect([e.errorCode, e.retryable]).toEqual(['processing_timeout', true]);
      expect(Date.now() - started).toBeLessThan(5000);
      const uploads = fake.count(UPLOAD_ROUTE[platform]);
      const before = fake.publishCount;
      setScript(false);
      const again = jobFor(platform, good, run.saved.at(-1)!);
      const result = await connectorFor(platform, optsFor(platform)).publish(again.job);
      expect(fake.count(UPLOAD_ROUTE[platform])).toBe(uploads);
      expect(bytesOn(platform, result.platformPostId)?.equals(FILE_BYTES())).toBe(true);
      // video_site and short_video_site had the video once the bytes were in; photo_site posts at media_publish.
      expect(fake.publishCount).toBe(platform === 'photo_site' ? before + 1 : before);
    } finally {
      setScript(false);
    }
  });
});

describe('an answer lost after the platform acted is not acted on twice', () => {
  it('video_site: the final chunk\'s answer is lost; the session status returns the video', async () => {
    const yt = fakes.video_site;
    const before = yt.publishCount;
    yt.fail('upload', { lose: true }, { onCall: yt.count('upload') + 4 }); // 1 MB = 4 chunks of 256 KiB
    const result = await connectorFor('video_site', optsFor('video_site')).publish(jobFor('video_site', good).job);
    expect(yt.publishCount).toBe(before + 1);
    expect(bytesOn('video_site', result.platformPostId)?.equals(FILE_BYTES())).toBe(true);
  });

  it('photo_site: media_publish went through but its answer was lost; a restarted attempt finds the post and never publishes again', async () => {
    const ig = fakes.photo_site;
    const before = ig.publishCount;
    ig.fail('publish', { lose: true });
    const run = jobFor('photo_site', good, null, 'A caption to find again');
    const e = await failureOf(connectorFor('photo_site', optsFor('photo_site', { retryDelaysMs: [] })).publish(run.job));
    expect(e.errorCode).toBe('unknown');
    expect(ig.publishCount).toBe(before + 1);
    const again = jobFor('photo_site', good, run.saved.at(-1)!, 'A caption to find again');
    const result = await connectorFor('photo_site', optsFor('photo_site')).publish(again.job);
    expect(ig.publishCount).toBe(before + 1);
    expect(ig.republishAttempts).toBe(0);
    expect(ig.media.get(result.platformPostId)?.caption).toMatch(/^A caption to find again/);
    expect(result.url).toBe(ig.media.get(result.platformPostId)?.permalink);
  });

  it('short_video_site: the last chunk\'s answer is lost; the upload is known complete and posts once', async () => {
    const tt = fakes.short_video_site;
    const before = tt.publishCount;
    tt.fail('upload', { lose: true }, { onCall: tt.count('upload') + 4 });
    const result = await connectorFor('short_video_site', optsFor('short_video_site')).publish(jobFor('short_video_site', good).job);
    expect(tt.publishCount).toBe(before + 1);
    expect(bytesOn('short_video_site', result.platformPostId)?.equals(FILE_BYTES())).toBe(true);
  });
});

describe('issue 23: a post goes out at most once and says the truth', () => {
  it('video_site: processing longer than 15 minutes of the platform\'s clock is followed to the end, one upload', async () => {
    const yt = fakes.video_site;
    const uploads = yt.count('insert');
    yt.processing = { polls: 0, outcome: 'processed', durationMs: 20 * 60_000 };
    yt.clockStepPerPollMs = 2 * 60_000;
    try {
      const run = jobFor('video_site', good);
      const result = await connectorFor('video_site', optsFor('video_site', { processingDeadlineMs: undefined, pollIntervalMs: 2, now: () => yt.now() })).publish(run.job);
      expect(yt.count('insert')).toBe(uploads + 1);
      expect(result.url).toBe(`https://www.youtube.com/shorts/${result.platformPostId}`);
      expect(yt.now() - yt.videos.get(result.platformPostId!)!.uploadedAt).toBeGreaterThanOrEqual(20 * 60_000);
      expect(run.saved.at(-1)).toMatchObject({ videoId: result.platformPostId });
    } finally {
      yt.processing = { polls: 0, outcome: 'processed' };
      yt.clockStepPerPollMs = 0;
    }
  });

  it('video_site: past the platform\'s processing limit it is processing_timeout naming the video; the next attempt only re-checks it', async () => {
    const yt = fakes.video_site;
    yt.processing = { polls: 0, outcome: 'never' };
    yt.clockStepPerPollMs = 3 * 3600_000;
    try {
      const opts = optsFor('video_site', { processingDeadlineMs: undefined, pollIntervalMs: 2, now: () => yt.now() });
      const run = jobFor('video_site', good);
      const e = await failureOf(connectorFor('video_site', opts).publish(run.job));
      expect([e.errorCode, e.retryable]).toEqual(['processing_timeout', true]);
      const videoId = run.saved.at(-1)!.videoId as string;
      expect(e.message).toContain(`https://www.youtube.com/shorts/${videoId}`);
      expect(yt.now() - yt.videos.get(videoId)!.uploadedAt).toBeGreaterThanOrEqual(24 * 3600_000 - 3 * 3600_000);
      const uploads = yt.count('insert');
      const polls = yt.count('videos');
      const again = await failureOf(connectorFor('video_site', opts).publish(jobFor('video_site', good, run.saved.at(-1)!).job));
      expect(again.errorCode).toBe('processing_timeout');
      expect(yt.count('insert')).toBe(uploads);
      expect(yt.count('videos')).toBe(polls + 1);
      yt.processing = { polls: 0, outcome: 'processed' };
      const done = await connectorFor('video_site', opts).publish(jobFor('video_site', good, run.saved.at(-1)!).job);
      expect(done.platformPostId).toBe(videoId);
      expect(yt.count('insert')).toBe(uploads);
    } finally {
      yt.processing = { polls: 0, outcome: 'processed' };
      yt.clockStepPerPollMs = 0;
    }
  });

  it('video_site: an upload the platform made private (unverified project) is media_rejected with the platform\'s privacy, not a public post', async () => {
    const yt = fakes.video_site;
    yt.forcePrivate = true;
    try {
      const uploads = yt.count('insert');
      const run = jobFor('video_site', good);
      const e = await failureOf(connectorFor('video_site', optsFor('video_site')).publish(run.job));
      expect([e.errorCode, e.retryable]).toEqual(['media_rejected', false]);
      const videoId = run.saved.at(-1)!.videoId as string;
      expect(yt.videos.get(videoId)!.privacyStatus).toBe('private');
      expect(e.message).toContain('privacyStatus "private"');
      expect(e.message).toContain(videoId);
      expect(yt.count('insert')).toBe(uploads + 1);
    } finally {
      yt.forcePrivate = false;
    }
  });

  /**
   * An older post with `caption`, then a new one whose media_publish answer is lost (the first attempt
   * gives up at once), resumed by a second attempt while the listing hides new posts for `lag` reads.
   */
  async function lostAnswerBesideOlderPost(caption: string, lag: number) {
    const ig = fakes.photo_site;
    const older = await connectorFor('photo_site', optsFor('photo_site')).publish(jobFor('photo_site', good, null, caption).job);
    const before = ig.publishCount;
    ig.fail('publish', { lose: true });
    ig.mediaListLag = lag;
    try {
      const run = jobFor('photo_site', good, null, caption);
      const e = await failureOf(connectorFor('photo_site', optsFor('photo_site', { retryDelaysMs: [] })).publish(run.job));
      const again = jobFor('photo_site', good, run.saved.at(-1)!, caption);
      const result = await connectorFor('photo_site', optsFor('photo_site')).publish(again.job);
      return { ig, older, before, firstError: e, again, result };
    } finally {
      ig.mediaListLag = 0;
    }
  }

  it('photo_site: a lost publish answer, a listing that lags, an older post with the same caption: the new post is found, published once', async () => {
    const { ig, older, before, firstError, result } = await lostAnswerBesideOlderPost('The same caption twice', 2);
    expect(firstError.errorCode).toBe('unknown');
    const newest = [...ig.media.values()].at(-1)!;
    expect(ig.publishCount).toBe(before + 1);
    expect(ig.republishAttempts).toBe(0);
    expect(result.platformPostId).not.toBe(older.platformPostId);
    expect(result).toEqual({ platformPostId: newest.id, url: newest.permalink });
  });

  it('photo_site: when the platform\'s listing never singles the post out, it is published with no URL, never the older post nor a container id', async () => {
    const { ig, before, again, result } = await lostAnswerBesideOlderPost('Another caption used twice', 100);
    expect(result).toEqual({ platformPostId: null, url: null });
    expect(again.saved.at(-1)).toMatchObject({ mediaId: null });
    expect(ig.publishCount).toBe(before + 1);
    expect(ig.republishAttempts).toBe(0);
  });
});

/** Each platform answer of platforms.md section 5 and the spec 7.3 code it becomes. */
const CASES: { platform: Platform; name: string; route: string; fault: Fault; times?: number; code: string }[] = [
  { platform: 'video_site', name: '401 youtubeSignupRequired', route: 'insert', fault: VIDEO_SITE_FAULTS.youtubeSignupRequired, code: 'account_not_eligible' },
  { platform: 'video_site', name: '403 insufficientPermissions', route: 'insert', fault: VIDEO_SITE_FAULTS.insufficientPermissions, code: 'account_not_eligible' },
  { platform: 'video_site', name: '403 quotaExceeded', route: 'insert', fault: VIDEO_SITE_FAULTS.quotaExceeded, code: 'daily_cap' },
  { platform: 'video_site', name: '429 Video Uploads per day', route: 'insert', fault: VIDEO_SITE_FAULTS.uploadsPerDay, code: 'daily_cap' },
  { platform: 'video_site', name: '400 uploadLimitExceeded', route: 'insert', fault: VIDEO_SITE_FAULTS.uploadLimitExceeded, code: 'daily_cap' },
  { platform: 'video_site', name: '403 rateLimitExceeded', route: 'insert', fault: VIDEO_SITE_FAULTS.rateLimitExceeded, code: 'rate_limited' },
  { platform: 'video_site', name: '403 account suspended', route: 'insert', fault: VIDEO_SITE_FAULTS.channelSuspended, code: 'account_restricted' },
  { platform: 'video_site', name: '400 mediaBodyRequired on the upload', route: 'upload', fault: googleError(400, 'mediaBodyRequired'), code: 'media_rejected' },
  { platform: 'video_site', name: '400 invalidTitle', route: 'insert', fault: VIDEO_SITE_FAULTS.invalidTitle, code: 'unknown' },
  { platform: 'video_site', name: '503 on every try', route: 'insert', fault: VIDEO_SITE_FAULTS.backendError, times: 10, code: 'unknown' },
  { platform: 'video_site', name: '401 authError even after a refresh', route: 'insert', fault: VIDEO_SITE_FAULTS.authError, times: 2, code: 'auth_expired' },
  { platform: 'photo_site', name: 'code 10 (permission)', route: 'media', fault: PHOTO_SITE_FAULTS.permissionMissing, code: 'account_not_eligible' },
  { platform: 'photo_site', name: 'code 4 (throttled)', route: 'media', fault: PHOTO_SITE_FAULTS.throttled, code: 'rate_limited' },
  { platform: 'photo_site', name: '25/2207050 (restricted)', route: 'media', fault: PHOTO_SITE_FAULTS.restricted, code: 'account_restricted' },
  { platform: 'photo_site', name: '4/2207051 (spam)', route: 'publish', fault: PHOTO_SITE_FAULTS.spam, code: 'account_restricted' },
  { platform: 'photo_site', name: '352/2207026 (format)', route: 'media', fault: PHOTO_SITE_FAULTS.formatUnsupported, code: 'media_rejected' },
  { platform: 'photo_site', name: '9/2207042 (publishing limit)', route: 'publish', fault: PHOTO_SITE_FAULTS.publishLimit, code: 'daily_cap' },
  { platform: 'photo_site', name: '9004/2207052 (could not fetch)', route: 'media', fault: PHOTO_SITE_FAULTS.cannotFetch, code: 'processing_timeout' },
  { platform: 'photo_site', name: 'code 1 (unknown)', route: 'media', fault: graphError(1, null, 'An unknown error occurred'), code: 'unknown' },
  { platform: 'photo_site', name: '190 even after a refresh', route: 'media', fault: PHOTO_SITE_FAULTS.tokenExpired, times: 2, code: 'auth_expired' },
  { platform: 'short_video_site', name: 'init 403 spam_risk_too_many_posts', route: 'init', fault: SHORT_VIDEO_SITE_FAULTS.tooManyPosts, code: 'daily_cap' },
  { platform: 'short_video_site', name: 'creator_info 200 spam_risk_too_many_posts', route: 'creator_info', fault: SHORT_VIDEO_SITE_FAULTS.tooManyPostsOnCreatorInfo, code: 'daily_cap' },
  { platform: 'short_video_site', name: 'init 403 reached_active_user_cap', route: 'init', fault: SHORT_VIDEO_SITE_FAULTS.activeUserCap, code: 'daily_cap' },
  { platform: 'short_video_site', name: 'init 403 spam_risk_user_banned_from_posting', route: 'init', fault: SHORT_VIDEO_SITE_FAULTS.bannedFromPosting, code: 'account_restricted' },
  { platform: 'short_video_site', name: 'init 403 unaudited client', route: 'init', fault: SHORT_VIDEO_SITE_FAULTS.unauditedClient, code: 'account_not_eligible' },
  { platform: 'short_video_site', name: 'creator_info 401 scope_not_authorized', route: 'creator_info', fault: SHORT_VIDEO_SITE_FAULTS.scopeNotAuthorized, code: 'account_not_eligible' },
  { platform: 'short_video_site', name: 'init 429 rate_limit_exceeded', route: 'init', fault: SHORT_VIDEO_SITE_FAULTS.rateLimited, code: 'rate_limited' },
  { platform: 'short_video_site', name: 'init 400 invalid_param', route: 'init', fault: tiktokError(400, 'invalid_param', 'bad'), code: 'unknown' },
  { platform: 'short_video_site', name: '500 internal_error on every try', route: 'status', fault: SHORT_VIDEO_SITE_FAULTS.internalError, times: 10, code: 'unknown' },
  { platform: 'short_video_site', name: 'access_token_invalid even after a refresh', route: 'init', fault: SHORT_VIDEO_SITE_FAULTS.tokenInvalid, times: 2, code: 'auth_expired' },
];

describe('platform answers become the spec\'s errorCode', () => {
  it.each(CASES)('$platform: $name -> $code', async ({ platform, route, fault, times, code }) => {
    const fake = fakes[platform];
    fake.fail(route, fault, { times: times ?? 1 });
    const e = await failureOf(connectorFor(platform, optsFor(platform)).publish(jobFor(platform, good).job));
    expect(fake.count(route)).toBeGreaterThan(0);
    expect(e.errorCode).toBe(code);
    expect(e.retryable).toBe(['daily_cap', 'rate_limited', 'processing_timeout', 'unknown'].includes(code));
    expect(e.message.length).toBeGreaterThan(10);
  });

  it('video_site: processing that fails or is rejected is media_rejected (codec, copyright)', async () => {
    for (const outcome of [{ failureReason: 'codec' }, { rejectionReason: 'copyright' }]) {
      fakes.video_site.processing = { polls: 1, outcome };
      const e = await failureOf(connectorFor('video_site', optsFor('video_site')).publish(jobFor('video_site', good).job));
      expect([e.errorCode, e.retryable]).toEqual(['media_rejected', false]);
    }
    fakes.video_site.processing = { polls: 0, outcome: 'processed' };
  });

  it('photo_site: a container in ERROR naming 2207026 is media_rejected; over the read quota is daily_cap before any upload', async () => {
    const ig = fakes.photo_site;
    ig.containerScript = { polls: 1, outcome: { errorSubcode: 2207026 } };
    const e = await failureOf(connectorFor('photo_site', optsFor('photo_site')).publish(jobFor('photo_site', good).job));
    expect([e.errorCode, e.retryable]).toEqual(['media_rejected', false]);
    ig.containerScript = { polls: 0, outcome: 'FINISHED' };

    const containers = ig.containers.size;
    ig.quotaUsedBefore = ig.quotaTotal;
    const cap = await failureOf(connectorFor('photo_site', optsFor('photo_site')).publish(jobFor('photo_site', good).job));
    ig.quotaUsedBefore = 0;
    expect([cap.errorCode, cap.retryable]).toEqual(['daily_cap', true]);
    expect(cap.retryAfterSec).toBeGreaterThan(3600);
    expect(ig.containers.size).toBe(containers);
  });

  it('short_video_site: fail_reason of status/fetch and the creator\'s length limit', async () => {
    const tt = fakes.short_video_site;
    for (const [reason, code] of [['picture_size_check_failed', 'media_rejected'], ['spam_risk_text', 'account_restricted'], ['auth_removed', 'auth_expired'], ['internal', 'unknown']] as const) {
      tt.statusScript = { polls: 0, outcome: { failReason: reason }, postIdPolls: 0 };
      const e = await failureOf(connectorFor('short_video_site', optsFor('short_video_site')).publish(jobFor('short_video_site', good).job));
      expect(e.errorCode).toBe(code);
    }
    tt.statusScript = { polls: 0, outcome: 'PUBLISH_COMPLETE', postIdPolls: 0 };

    const inits = tt.count('init');
    tt.creator.max_video_post_duration_sec = 3;
    const e = await failureOf(connectorFor('short_video_site', optsFor('short_video_site')).publish(jobFor('short_video_site', good).job));
    tt.creator.max_video_post_duration_sec = 600;
    expect([e.errorCode, e.retryable]).toEqual(['media_rejected', false]);
    expect(tt.count('init')).toBe(inits);
  });

  it('short_video_site: a daily cap reached by posting is daily_cap with a wait of about a day', async () => {
    const tt = fakes.short_video_site;
    tt.dailyPostCap = tt.publishCount;
    const e = await failureOf(connectorFor('short_video_site', optsFor('short_video_site')).publish(jobFor('short_video_site', good).job));
    tt.dailyPostCap = null;
    expect([e.errorCode, e.retryable]).toEqual(['daily_cap', true]);
    expect(e.retryAfterSec).toBe(24 * 3600);
  });
});

describe('base URL override', () => {
  it('SHORTS_PLATFORM_URL_* replaces scheme, host and port of every URL, keeping paths; a path in it is refused', () => {
    const env = { SHORTS_PLATFORM_URL_VIDEO_SITE: 'http://127.0.0.1:8123' };
    const u = platformUrls('video_site', { env });
    expect(u.at('token', '/token')).toBe('http://127.0.0.1:8123/token');
    expect(u.rebase('https://www.googleapis.com/upload/youtube/v3/videos?upload_id=x')).toBe('http://127.0.0.1:8123/upload/youtube/v3/videos?upload_id=x');
    expect(platformUrls('photo_site', { env }).at('api', '/v25.0/me')).toBe('https://graph.facebook.com/v25.0/me');
    expect(() => platformOverride('video_site', { SHORTS_PLATFORM_URL_VIDEO_SITE: 'http://proxy/yt' })).toThrow(/no path/);
  });
});

describe('OAuth wire per platform', () => {
  it.each(PLATFORMS)('%s: consent redirect with code and state, code exchange, who the token is, refresh', async (platform) => {
    const fake = fakes[platform];
    const app = { clientId: fake.clientId, clientSecret: fake.clientSecret };
    const redirectUri = 'http://127.0.0.1:9/callback';
    const page = consentUrl(platform, { clientId: app.clientId, redirectUri, state: 'st-1' }, { baseUrl: fake.url });
    const back = new URL((await fetch(page, { redirect: 'manual' })).headers.get('location')!);
    expect(back.origin + back.pathname).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('st-1');
    const grant = await exchangeCode(platform, app, { code: back.searchParams.get('code')!, redirectUri }, { baseUrl: fake.url });
    expect(grant.expiresInSec).toBeGreaterThan(0);
    const who = await identifyAccount(platform, grant, { baseUrl: fake.url });
    expect(who.platformUserId).toBe(userIdOf(platform));
    // A code is good once.
    await expect(exchangeCode(platform, app, { code: back.searchParams.get('code')!, redirectUri }, { baseUrl: fake.url })).rejects.toMatchObject({ permanent: true });
    const renewed = await refreshGrant(platform, app, grant, { baseUrl: fake.url });
    expect(renewed.accessToken).not.toBe(grant.accessToken);
    if (platform === 'short_video_site') {
      // Rotation: the new refresh token works, the old one is refused for good.
      expect(renewed.refreshToken).not.toBe(grant.refreshToken);
      await expect(refreshGrant(platform, app, grant, { baseUrl: fake.url })).rejects.toMatchObject({ code: 'invalid_grant', permanent: true });
    }
    if (platform === 'video_site') expect(renewed.refreshToken).toBe(grant.refreshToken);
  });

  it('an account that cannot publish is told apart from a refused token', async () => {
    const yt = fakes.video_site;
    const channel = yt.channel;
    yt.channel = null;
    const t = yt.issueTokens();
    await expect(identifyAccount('video_site', { accessToken: t.accessToken, platformUserId: null }, { baseUrl: yt.url })).rejects.toMatchObject({ notEligible: true });
    yt.channel = channel;
    const ig = fakes.photo_site;
    const igUser = ig.igUser;
    ig.igUser = null;
    const e = await identifyAccount('photo_site', { accessToken: ig.issueTokens().accessToken, platformUserId: null }, { baseUrl: ig.url }).catch((x: unknown) => x);
    ig.igUser = igUser;
    expect(e).toBeInstanceOf(OAuthError);
    expect((e as OAuthError).toPublishError().errorCode).toBe('account_not_eligible');
    const gone = await refreshGrant('video_site', { clientId: yt.clientId, clientSecret: yt.clientSecret }, { accessToken: 'x', refreshToken: 'rt-unknown' }, { baseUrl: yt.url }).catch((x: unknown) => x);
    expect((gone as OAuthError).toPublishError().errorCode).toBe('auth_expired');
    // No platform at all: not permanent (the account stays connected; try later).
    const down = await refreshGrant('video_site', { clientId: 'a', clientSecret: 'b' }, { accessToken: 'x', refreshToken: 'y' }, { baseUrl: 'http://127.0.0.1:9' }).catch((x: unknown) => x);
    expect((down as OAuthError).permanent).toBe(false);
  });
});
