// Scheduling and canceling posts (issue 16; the spec leaves both "not shown"): the rules of POST /posts and
// DELETE /posts/:id in one place, for the HTTP server and the local client alike. Errors use the spec's
// codes: a malformed or unknown field is 400 invalid_request naming it (as an unknown templateId is on
// creation), a post that is not the caller's is 404, and one that has gone out or is going out is 409.
// A post of an API account is also a job on the `publish` queue (issue 24), due at its time: whichever process
// serves that queue publishes it. The post is stored first and then queued (two stores in distributed mode); a
// post whose enqueue failed is queued by the publish worker's sweep (src/posts/publish-worker.ts).
import { ShortsError } from '../errors.js';
import type { RequestStore, ShortRecord } from '../ports/request-store.js';
import type { PostObject, SchedulePostBody } from '../api/types.js';
import { PLATFORMS, type Platform } from '../publish/types.js';
import { LOCAL_ACCOUNT, POST_ID_PATTERN, postObject, type PostRecord, type PostStore } from '../ports/post-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import { PUBLISH_QUEUE, publishJob } from '../engine/jobs.js';
import type { Account } from '../domain/account.js';
import { normalizeHandle, type ConnectedAccount, type ConnectedAccounts } from './connected-accounts.js';

export type ScheduleBody = SchedulePostBody;

const FIELDS = ['shortId', 'platform', 'accountId', 'handle', 'scheduledAt', 'title', 'description'] as const;

/** A scheduledAt this far in the past is a mistake, not "now" (a client's clock may lag a little). */
const PAST_TOLERANCE_MS = 5 * 60_000;

/**
 * What each platform accepts as text (platforms.md section 4): refused here, at scheduling, rather than
 * failing the post at its time. The connectors check again before uploading.
 */
export const TEXT_LIMITS: Record<Platform, { title: number; description: number; angleBrackets: boolean; descriptionBytes: boolean }> = {
  video_site: { title: 100, description: 5000, angleBrackets: false, descriptionBytes: true },
  photo_site: { title: 2200, description: 2200, angleBrackets: true, descriptionBytes: false },
  short_video_site: { title: 2200, description: 2200, angleBrackets: true, descriptionBytes: false },
};

const SHORT_ID = /^[0-9a-f-]{36}$/i;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

function bad(field: string, message: string): ShortsError {
  return new ShortsError('invalid_request', message, { field });
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(field, `${field} must be a string`);
  return v;
}

/** Parses an ISO 8601 date-time with a zone into UTC (a time without a zone would mean a different instant on every server). */
export function parseDateTime(field: string, raw: string): string {
  if (!ISO_DATE_TIME.test(raw) || Number.isNaN(Date.parse(raw)))
    throw bad(field, `${field} must be an ISO 8601 date-time with a time zone (e.g. 2026-12-01T18:00:00Z), got "${raw}"`);
  return new Date(raw).toISOString();
}

/**
 * Refuses a caption the platform would refuse (platforms.md section 4): a manual post is answered 400, an
 * automation post of that clip is skipped.
 */
export function checkPostText(platform: Platform, title: string, description: string): void {
  const limits = TEXT_LIMITS[platform];
  if (title === '') throw bad('title', 'title must not be empty');
  if ([...title].length > limits.title) throw bad('title', `title is ${[...title].length} characters; ${platform} takes at most ${limits.title}`);
  const descriptionSize = limits.descriptionBytes ? Buffer.byteLength(description) : description.length;
  if (descriptionSize > limits.description)
    throw bad('description', `description is ${descriptionSize} ${limits.descriptionBytes ? 'bytes' : 'characters'}; ${platform} takes at most ${limits.description}`);
  if (!limits.angleBrackets) {
    if (/[<>]/.test(title)) throw bad('title', `${platform} refuses < and > in a title`);
    if (/[<>]/.test(description)) throw bad('description', `${platform} refuses < and > in a description`);
  }
}

/** The message of a post to an account that must be connected again first. */
export function reconnectFirst(handle: string, platform: Platform): string {
  return `account ${handle} on ${platform} needs reconnecting (its token expired or was revoked): \`shorts accounts connect ${platform}\``;
}

export class PostsService {
  constructor(
    private readonly store: RequestStore,
    readonly posts: PostStore,
    readonly accounts: ConnectedAccounts,
    /** `queue`: where API accounts' posts are queued (none: only a publish worker's sweep queues them). */
    private readonly opts: { queue?: JobQueue; log?: (line: string) => void } = {},
  ) {}

  /** Validates and stores a post (status scheduled); a publish worker publishes it at scheduledAt. */
  async schedule(account: Account, raw: unknown): Promise<PostObject> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ShortsError('invalid_request', 'the body must be a JSON object');
    const body = raw as Record<string, unknown>;
    for (const k of Object.keys(body))
      if (!(FIELDS as readonly string[]).includes(k)) throw bad(k, `unknown field "${k}"; a post takes ${FIELDS.join(', ')}`);

    const shortId = optionalString(body, 'shortId');
    if (!shortId) throw bad('shortId', 'shortId is required: the id of the clip to post (shorts[].id of a request)');
    if (!SHORT_ID.test(shortId)) throw bad('shortId', `shortId must be a clip id (UUID), got "${shortId}"`);
    const platform = optionalString(body, 'platform');
    if (!platform) throw bad('platform', `platform is required: one of ${PLATFORMS.join(', ')}`);
    if (!(PLATFORMS as readonly string[]).includes(platform)) throw bad('platform', `platform must be one of ${PLATFORMS.join(', ')}, got "${platform}"`);

    const clip = await this.ownedClip(account, shortId);
    const connected = await this.connectedAccount(account, platform as Platform, optionalString(body, 'accountId'), optionalString(body, 'handle'));

    const at = optionalString(body, 'scheduledAt');
    let scheduledAt = new Date().toISOString();
    if (at !== undefined) {
      scheduledAt = parseDateTime('scheduledAt', at);
      if (Date.parse(scheduledAt) < Date.now() - PAST_TOLERANCE_MS)
        throw bad('scheduledAt', `scheduledAt ${at} is in the past; leave it out to post now`);
    }

    const title = (optionalString(body, 'title') ?? clip.title).trim();
    const description = optionalString(body, 'description') ?? clip.description;
    checkPostText(platform as Platform, title, description);

    const post = await this.posts.insert({
      accountId: account.id, connectedAccountId: connected.id, platform: platform as Platform, scheduledAt, shortId, requestId: clip.requestId,
      title, description, accountHandle: connected.handle, source: 'manual',
    });
    await this.scheduled([post]);
    return postObject(post);
  }

  /**
   * Posts were stored (here, or by automation): those of API accounts go on the `publish` queue, due at their
   * time. A failed enqueue is not the caller's failure: the post is stored, and the publish worker's sweep queues it.
   */
  async scheduled(made: readonly PostRecord[]): Promise<void> {
    const { queue } = this.opts;
    if (!queue) return;
    for (const p of made) {
      // Local mode's posts are published by `shorts posts run` in the foreground.
      if (p.accountId === LOCAL_ACCOUNT) continue;
      await queue.enqueue(publishJob(p.id, p.nextAttemptAt ?? p.scheduledAt))
        .catch((e: unknown) => this.opts.log?.(`post ${p.id}: not queued yet (${e instanceof Error ? e.message : String(e)}); the publish worker's sweep queues it`));
    }
  }

  /** scheduled -> canceled; 409 post_not_cancelable once it is being published or has ended. */
  async cancel(account: Account, id: string): Promise<PostObject> {
    const post = await this.owned(account, id);
    const canceled = await this.posts.cancel(post.id);
    if (canceled) {
      // A job left behind (the queue unreachable) finds its post canceled and ends.
      await this.opts.queue?.cancel(PUBLISH_QUEUE, canceled.id)
        .catch((e: unknown) => this.opts.log?.(`post ${canceled.id}: its publish job was not canceled (${e instanceof Error ? e.message : String(e)}); it ends when it finds the post canceled`));
      return postObject(canceled);
    }
    const now = (await this.posts.get(post.id))!;
    const why = now.status === 'processing' ? 'it is being published (uploaded, or waiting for the platform)'
      : now.status === 'published' ? 'it has been published' : `it is already ${now.status}`;
    throw new ShortsError('post_not_cancelable', `post ${id} cannot be canceled: ${why}`, { status: now.status });
  }

  async get(account: Account, id: string): Promise<PostObject> {
    return postObject(await this.owned(account, id));
  }

  private async owned(account: Account, id: string): Promise<PostRecord> {
    if (!POST_ID_PATTERN.test(id)) throw new ShortsError('invalid_request', `post id must be a 24-character hex string, got "${id}"`, { parameter: 'id' });
    const post = await this.posts.get(id);
    if (!post || post.accountId !== account.id) throw new ShortsError('resource_not_found', `post ${id} was not found`);
    return post;
  }

  /** A clip of one of the caller's completed requests, with a video to post. */
  private async ownedClip(account: Account, shortId: string): Promise<ShortRecord> {
    const clip = await this.store.findShort(shortId.toLowerCase());
    if (!clip || (await this.store.getRequest(clip.requestId))?.accountId !== account.id) throw bad('shortId', `no clip ${shortId} among this account's requests`);
    if (clip.error || !clip.fileKey) throw bad('shortId', `clip ${shortId} has no video (its render failed): re-render it before posting`);
    return clip;
  }

  /** The connected account to post to: by id, by handle, or the only one on that platform. */
  private async connectedAccount(account: Account, platform: Platform, id: string | undefined, handle: string | undefined): Promise<ConnectedAccount> {
    let found: ConnectedAccount | undefined;
    let field = 'accountId';
    if (id !== undefined) {
      found = await this.accounts.get(account.id, id);
      if (!found) throw bad('accountId', `no connected account ${id}; \`shorts accounts list\` (GET /accounts) shows them`);
      if (handle !== undefined && normalizeHandle(handle) !== found.handle)
        throw bad('handle', `accountId ${id} is ${found.handle}, not ${handle}: give one of them`);
    } else if (handle !== undefined) {
      field = 'handle';
      found = await this.accounts.findByHandle(account.id, platform, handle);
      if (!found) throw bad('handle', `no ${platform} account ${handle} is connected; connect it with \`shorts accounts connect ${platform}\``);
    } else {
      const onPlatform = await this.accounts.list(account.id, platform);
      if (onPlatform.length !== 1)
        throw bad('accountId', onPlatform.length === 0 ? `no ${platform} account is connected; connect one with \`shorts accounts connect ${platform}\``
          : `${onPlatform.length} ${platform} accounts are connected (${onPlatform.map((a) => a.handle).join(', ')}): say which with accountId or handle`);
      found = onPlatform[0]!;
    }
    if (found.platform !== platform) throw bad(field, `account ${found.handle} is a ${found.platform} account, not ${platform}`);
    if (found.status !== 'active') throw bad(field, reconnectFirst(found.handle, platform));
    return found;
  }
}
