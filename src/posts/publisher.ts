// Publishes one claimed post (issue 16): the clip's file first (gone: video_missing), its media against the
// platform's limits (media_rejected, nothing uploaded), a token valid for five more minutes, then the
// connector, which saves its progress through us before every step that must not be repeated, so a crash
// resumes instead of posting twice. A retryable failure (spec 7.3) is tried again later with backoff until
// the attempts run out (a daily cap is not: it fails at once, naming the platform's reset); then, like any
// other failure, the post is `failed` with the code and its retryable.
//
// What is uploaded is the post's own copy of the clip (issue 23), taken through the blob store when the post
// starts (`posts/<postId>/clip.mp4`): a re-render replacing the clip meanwhile changes nothing of an upload in
// flight, and every attempt of the post sends the same bytes. A clip being re-rendered when its post starts is
// waited for (the post stays scheduled, looked at again shortly). The copy is removed when the post ends.
// A new post of a clip whose earlier post's upload reached the platform (video_site's video id) starts from that
// post's progress, so it checks that video again instead of uploading a duplicate.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { RequestStore } from '../ports/request-store.js';
import { BlobNotFoundError, type BlobStore } from '../ports/blob-store.js';
import { PublishError, RETRYABLE, type ClipMedia, type Connector, type Platform, type PostErrorCode, type PublishState } from '../publish/types.js';
import type { ConnectedAccounts } from './connected-accounts.js';
import { LeaseLost, type Lease } from '../ports/leases.js';
import type { PostRecord, PostStore } from '../ports/post-store.js';
import { STAGES } from '../engine/stages.js';

/** Attempts of one post before a retryable failure becomes final (the stage table's publish policy). */
export const MAX_ATTEMPTS = STAGES.publish.retry.attempts;
/** Waits after the 1st and 2nd failed attempt (a platform's Retry-After, when longer, wins). */
export const RETRY_DELAYS_MS = STAGES.publish.retry.backoffMs;
/** How long a post whose clip is being re-rendered waits before it looks again (a clip's re-render takes about a minute). */
export const RERENDER_WAIT_MS = 15_000;
/**
 * The publish-state field holding the SHA-256 of the bytes the post uploads: a new post of the clip takes over an
 * earlier post's upload only when it would upload the same bytes (a clip re-rendered since is a new video).
 */
const CLIP_DIGEST = 'clipSha256';

/** The blob key of a post's own copy of its clip: what every attempt of the post uploads. */
export function snapshotKeyOf(postId: string): string {
  return `posts/${postId}/clip.mp4`;
}

/** The clip is being re-rendered and the post has no copy of it yet: it waits for the new render. */
class ClipRerendering extends Error {}

export interface PublisherOptions {
  store: RequestStore;
  /** Where the clips are: the upload reads the clip's local file (the data dir's, or a downloaded copy). */
  blobs: BlobStore;
  posts: PostStore;
  accounts: ConnectedAccounts;
  connector: (platform: Platform) => Connector;
  /** ffprobe facts of the clip file (P1's media check). */
  probe: (file: string) => Promise<ClipMedia>;
  maxAttempts?: number;
  retryDelaysMs?: readonly number[];
  /** Tests: the longest wait between attempts, whatever the platform asked for (a Retry-After may be long). */
  maxWaitMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

/**
 * What became of one attempt: `released` (stopped by a shutdown, resumed by the next start), `lost` (another
 * process took the post's lease over: it publishes the post, nothing more is written here).
 */
export type AttemptOutcome = 'published' | 'failed' | 'retry' | 'released' | 'lost';

export class Publisher {
  private readonly maxAttempts: number;
  private readonly delays: readonly number[];
  private readonly log: (line: string) => void;
  private readonly now: () => number;

  constructor(private readonly opts: PublisherOptions) {
    this.maxAttempts = opts.maxAttempts ?? MAX_ATTEMPTS;
    this.delays = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.log = opts.log ?? (() => {});
    this.now = opts.now ?? Date.now;
  }

  /**
   * Runs one attempt of a post this process has claimed under `lease` (status processing). Every write is
   * made only while the lease is held; once another process took it over this attempt stops, writing nothing.
   */
  async publish(post: PostRecord, lease: Lease, signal?: AbortSignal): Promise<AttemptOutcome> {
    const outcome = await this.run(post, lease, signal);
    // The post ended: its copy of the clip goes (a post back to `scheduled` had it removed by fail()).
    if (outcome === 'published' || outcome === 'failed') await this.dropSnapshot(post.id);
    return outcome;
  }

  /**
   * Fails a claimed post for good without trying it (its publishing kept dying with the process running it):
   * `unknown`, retryable (whether the platform has it is not known here). Its copy of the clip goes.
   */
  async abandon(post: PostRecord, why: string, lease: Lease): Promise<AttemptOutcome> {
    try {
      await this.opts.posts.failed(post.id, { code: 'unknown', message: why, retryable: RETRYABLE.unknown }, lease);
    } catch (refused) {
      if (refused instanceof LeaseLost) return 'lost';
      throw refused;
    }
    this.log(`post ${post.id} on ${post.platform} failed: ${why}`);
    await this.dropSnapshot(post.id);
    return 'failed';
  }

  private async run(post: PostRecord, lease: Lease, signal?: AbortSignal): Promise<AttemptOutcome> {
    const { posts } = this.opts;
    try {
      const result = await this.attempt(post, lease, signal);
      await posts.published(post.id, result.url, lease);
      this.log(`post ${post.id} published on ${post.platform}${result.url ? `: ${result.url}` : ''}`);
      return 'published';
    } catch (e) {
      if (e instanceof LeaseLost || signal?.reason instanceof LeaseLost) {
        this.log(`post ${post.id}: another process took it over; this attempt stops`);
        return 'lost';
      }
      // Shutdown, not a failure: the progress is saved, the next start resumes this attempt (the lease is handed back).
      if (signal?.aborted) return 'released';
      if (e instanceof ClipRerendering) return this.waitForRerender(post, lease);
      const err = e instanceof PublishError ? e : new PublishError('unknown', `publishing failed: ${e instanceof Error ? e.message : String(e)}`);
      try {
        return await this.fail(post, err, lease);
      } catch (refused) {
        if (refused instanceof LeaseLost) return 'lost';
        throw refused;
      }
    }
  }

  private async attempt(post: PostRecord, lease: Lease, signal?: AbortSignal) {
    const key = await this.snapshot(post);
    try {
      return await this.opts.blobs.withLocalFile(key, (file) => this.attemptWith(post, file, lease, signal));
    } catch (e) {
      throw e instanceof BlobNotFoundError ? videoMissing() : e;
    }
  }

  /**
   * The post's copy of its clip, taken now when it has none (its first attempt): one version of the clip's
   * blob, copied whole through the blob store, so a re-render replacing the clip later is never seen here.
   */
  private async snapshot(post: PostRecord): Promise<string> {
    const { blobs, store } = this.opts;
    const key = snapshotKeyOf(post.id);
    if (await blobs.stat(key)) return key;
    const clip = await store.getShort(post.requestId, post.shortId);
    if (!clip || clip.error || !clip.fileKey) throw videoMissing();
    if (clip.recompiling) throw new ClipRerendering();
    let reader;
    try {
      reader = await blobs.open(clip.fileKey);
    } catch (e) {
      throw e instanceof BlobNotFoundError ? videoMissing() : e;
    }
    const bytes = reader.stream();
    try {
      await blobs.put(key, bytes);
    } finally {
      bytes.destroy();
    }
    return key;
  }

  /** Nothing was taken from the clip yet: the post waits (scheduled, cancelable) and looks again shortly. */
  private async waitForRerender(post: PostRecord, lease: Lease): Promise<AttemptOutcome> {
    const next = new Date(this.now() + Math.min(RERENDER_WAIT_MS, this.opts.maxWaitMs ?? Infinity)).toISOString();
    try {
      // Not an attempt at the platform: it does not use up the post's retries.
      if (!(await this.opts.posts.retryLater(post.id, next, lease, { uncount: true }))) return 'failed';
    } catch (refused) {
      if (refused instanceof LeaseLost) return 'lost';
      throw refused;
    }
    this.log(`post ${post.id} on ${post.platform}: its clip is being re-rendered; it waits for the new render (next look at ${next})`);
    return 'retry';
  }

  private async dropSnapshot(postId: string): Promise<void> {
    await this.opts.blobs.delete(snapshotKeyOf(postId)).catch((e: unknown) => this.log(`post ${postId}: its copy of the clip was not removed: ${e instanceof Error ? e.message : String(e)}`));
  }

  /**
   * The progress this attempt starts from: the post's own; on its first attempt, that of an earlier post of the
   * same clip to the same account whose upload reached the platform and that uploaded the same bytes (saved
   * here at once, so the post is not uploaded again even if this attempt stops).
   */
  private async startState(post: PostRecord, digest: string, lease: Lease): Promise<PublishState | null> {
    if (post.publishState !== null || !post.connectedAccountId) return post.publishState;
    const earlier = await this.opts.posts.lastUploadedState(post.connectedAccountId, post.shortId, post.platform);
    if (!earlier || earlier[CLIP_DIGEST] !== digest) return null;
    await this.opts.posts.saveState(post.id, lease, earlier);
    this.log(`post ${post.id} on ${post.platform}: an earlier post of this clip already uploaded it; checking that upload instead of uploading again`);
    return earlier;
  }

  private async attemptWith(post: PostRecord, file: string, lease: Lease, signal?: AbortSignal) {
    const { posts, accounts } = this.opts;
    const digest = await sha256Of(file);
    let media: ClipMedia;
    try {
      media = await this.opts.probe(file);
    } catch (e) {
      throw new PublishError('media_rejected', `the clip's video file could not be read: ${e instanceof Error ? e.message : String(e)}`);
    }
    const connector = this.opts.connector(post.platform);
    const refused = connector.checkMedia(media, { title: post.title, description: post.description });
    if (refused) throw refused;
    if (!post.connectedAccountId) throw new PublishError('auth_expired', 'the post has no connected account; connect one and schedule it again');
    const account = await accounts.publishAccount(post.connectedAccountId, { signal });
    const connectedAccountId = post.connectedAccountId;
    const state = await this.startState(post, digest, lease);
    return connector.publish({
      postId: post.id, media, title: post.title, description: post.description, account, state,
      saveState: (next) => posts.saveState(post.id, lease, { ...next, [CLIP_DIGEST]: digest }),
      refreshAccessToken: () => accounts.freshAccessToken(connectedAccountId, { force: true, signal }),
      signal,
    });
  }

  private async fail(post: PostRecord, err: PublishError, lease: Lease): Promise<AttemptOutcome> {
    const { posts } = this.opts;
    if (!STAGES.publish.retry.isFinal(err) && post.attempts < this.maxAttempts) {
      const wait = Math.min(this.delay(post.attempts, err), this.opts.maxWaitMs ?? Infinity);
      const next = new Date(this.now() + wait).toISOString();
      const waiting = await posts.retryLater(post.id, next, lease);
      if (waiting) {
        // Nothing reached the platform (the post is scheduled again, cancelable): the next attempt takes a new copy.
        if (waiting.status === 'scheduled') await this.dropSnapshot(post.id);
        this.log(`post ${post.id} on ${post.platform}: ${err.errorCode} (${err.message}); attempt ${post.attempts} of ${this.maxAttempts}, next at ${next}`);
        return 'retry';
      }
      return 'failed';
    }
    // An account whose refresh was refused has had its posts failed (auth_expired) already: the guard leaves them.
    await posts.failed(post.id, { code: err.errorCode, message: message(err, this.now(), post.platform), retryable: RETRYABLE[err.errorCode] }, lease);
    this.log(`post ${post.id} on ${post.platform} failed: ${err.errorCode}: ${err.message}`);
    return 'failed';
  }

  private delay(attempt: number, err: PublishError): number {
    const asked = err.retryAfterSec !== undefined ? err.retryAfterSec * 1000 : null;
    const base = this.delays[Math.min(attempt - 1, this.delays.length - 1)] ?? 60_000;
    return Math.max(base, asked ?? 0);
  }
}

function videoMissing(): PublishError {
  return new PublishError('video_missing', 'the clip\'s video file is no longer available; re-create or re-render the clip, then schedule it again');
}

/** The SHA-256 of a file (hex): which bytes a post uploads. */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The failed post's `error`: the connector's plain-language message; for a retryable code, what happened to the retries. */
function message(err: PublishError, now: number, platform: Platform): string {
  // The platform's reset when it said (video_site: Pacific midnight), else its 24-hour window.
  const reset = new Date(now + (err.retryAfterSec ?? 24 * 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const tail: Partial<Record<PostErrorCode, string>> = {
    daily_cap: ` (the platform's daily limit; not tried again before it resets, at about ${reset}: schedule it again then)`,
    rate_limited: ' (the platform kept limiting requests; schedule it again later)',
    // video_site: a new post of the clip to this account re-checks the uploaded video (startState). Elsewhere the
    // upload may be on the platform already, and a new post would upload it twice.
    processing_timeout: platform === 'video_site'
      ? ' (the platform did not finish processing in time; scheduling the clip again to this account checks the same video, it does not upload it again)'
      : ' (the platform did not finish processing in time; look for it on the platform before scheduling it again)',
  };
  return `${err.message}${tail[err.errorCode] ?? ''}`;
}
