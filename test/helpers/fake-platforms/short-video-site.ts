// A fake short_video_site (TikTok Content Posting API v2, Direct Post with FILE_UPLOAD) speaking
// platforms.md 3.9: the authorize page, the token endpoint with rotating refresh tokens, creator_info,
// video/init with the chunk arithmetic checked, sequential chunk PUTs (206/201, Content-Range always,
// 416 on a gap, 403 once the upload URL expired, 404 for an unknown task), status/fetch and cancel.
//
//   const tt = await new FakeShortVideoSite().start();   // tt.url -> SHORTS_PLATFORM_URL_SHORT_VIDEO_SITE
//   const { accessToken, refreshToken } = tt.issueTokens();
//   tt.fail('init', tiktokError(403, 'spam_risk_too_many_posts', 'daily post cap reached'));
//   tt.fail('upload', { drop: true, afterBytes: 100_000 });
//   tt.statusScript = { polls: 2, outcome: 'PUBLISH_COMPLETE', postIdPolls: 1 };  // or 'never', { failReason }
//   tt.tasks  // Map publish_id -> { bytes, title, ... }
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import { FakePlatform, randomId, type Fault, type FakeOptions, type Routed } from './fake-server.js';

const MB = 1024 * 1024;

/** The v2 envelope with a failing error.code (platforms.md 3.2). creator_info's caps answer HTTP 200. */
export function tiktokError(status: number, code: string, message = code): Fault {
  return { status, body: { data: {}, error: { code, message, log_id: logId() } } };
}

export const SHORT_VIDEO_SITE_FAULTS = {
  tokenInvalid: tiktokError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.'),
  scopeNotAuthorized: tiktokError(401, 'scope_not_authorized', 'The user did not authorize the scope required for completing this request.'),
  tooManyPosts: tiktokError(403, 'spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.'),
  tooManyPostsOnCreatorInfo: tiktokError(200, 'spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.'),
  bannedFromPosting: tiktokError(403, 'spam_risk_user_banned_from_posting', 'The user is banned from making new posts.'),
  activeUserCap: tiktokError(403, 'reached_active_user_cap', 'The daily quota for active publishing users from your client is reached.'),
  unauditedClient: tiktokError(403, 'unaudited_client_can_only_post_to_private_accounts', 'Unaudited clients can only post to a private account.'),
  privacyMismatch: tiktokError(403, 'privacy_level_option_mismatch', 'privacy_level is not among the creator options.'),
  rateLimited: tiktokError(429, 'rate_limit_exceeded', 'API rate limit exceeded.'),
  internalError: tiktokError(500, 'internal_error', 'Something went wrong.'),
} satisfies Record<string, Fault>;

export interface FakeTask {
  publishId: string;
  uploadId: string;
  title: string;
  privacyLevel: string;
  videoSize: number;
  chunkSize: number;
  totalChunks: number;
  bytes: Buffer;
  uploadUrlIssuedAt: number;
  /** Status fetches since the upload completed. */
  polls: number;
  canceled: boolean;
  postId: string | null;
  completedAt: number | null;
}

export type TaskOutcome = 'PUBLISH_COMPLETE' | 'never' | { failReason: string };

function logId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

export class FakeShortVideoSite extends FakePlatform {
  /** TikTok desktop Login Kit: S256 written in hex. */
  protected override readonly pkceEncoding = 'hex' as const;
  readonly openId = `open-${randomId(16)}`;
  creator = {
    creator_username: 'fake.shorts', creator_nickname: 'Fake Shorts', creator_avatar_url: 'https://p16.example/avatar.jpeg',
    privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] as string[],
    comment_disabled: false, duet_disabled: false, stitch_disabled: true, max_video_post_duration_sec: 600,
  };
  /** Status fetches after the upload answering PROCESSING_UPLOAD, then the outcome; the public post id
   * appears `postIdPolls` fetches after PUBLISH_COMPLETE (moderation), never for SELF_ONLY. */
  statusScript: { polls: number; outcome: TaskOutcome; postIdPolls: number } = { polls: 0, outcome: 'PUBLISH_COMPLETE', postIdPolls: 0 };
  /** Posts per 24 h before init answers 403 spam_risk_too_many_posts; null = no cap. */
  dailyPostCap: number | null = null;
  /** The smallest non-final chunk (5 MB on the real service); files under it go as one chunk. */
  minChunkBytes = 5 * MB;
  /** upload_url lifetime (1 h on the real service); an older URL answers 403. */
  uploadUrlTtlMs = 3600 * 1000;
  readonly tasks = new Map<string, FakeTask>();

  constructor(opts: FakeOptions & { minChunkBytes?: number } = {}) {
    super({ accessTokenTtlSec: 7200, ...opts });
    if (opts.minChunkBytes) this.minChunkBytes = opts.minChunkBytes;
  }

  /** Tasks whose bytes all arrived (the platform posts those): the "exactly one post" count. */
  get publishCount(): number {
    return [...this.tasks.values()].filter((t) => t.bytes.length === t.videoSize && !t.canceled).length;
  }

  protected route(method: string, url: URL): Routed | null {
    const p = url.pathname;
    if (method === 'GET' && p === '/v2/auth/authorize/') return { route: 'consent', params: {} };
    if (method === 'POST' && p === '/v2/oauth/token/') return { route: 'token', params: {} };
    if (method === 'POST' && p === '/v2/post/publish/creator_info/query/') return { route: 'creator_info', params: {} };
    if (method === 'POST' && p === '/v2/post/publish/video/init/') return { route: 'init', params: {} };
    if (method === 'POST' && p === '/v2/post/publish/status/fetch/') return { route: 'status', params: {} };
    if (method === 'POST' && p === '/v2/post/publish/cancel/') return { route: 'cancel', params: {} };
    if (method === 'PUT' && p === '/video/' && url.searchParams.get('upload_id')) return { route: 'upload', params: { uploadId: url.searchParams.get('upload_id')! } };
    return null;
  }

  protected async handle(r: Routed, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, url: URL): Promise<void> {
    switch (r.route) {
      case 'consent': return this.consent(res, url, 'client_key');
      case 'token': return this.token(res, this.params(body, url, req));
      case 'upload': return this.upload(req, res, body, r.params.uploadId!, url);
    }
    if (!this.validToken(this.bearer(req))) return this.reply(res, SHORT_VIDEO_SITE_FAULTS.tokenInvalid);
    let json: Record<string, unknown> = {};
    try {
      json = body.length ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      return this.reply(res, tiktokError(400, 'invalid_params', 'The request body is not JSON.'));
    }
    switch (r.route) {
      case 'creator_info': return this.ok(res, this.creator);
      case 'init': return this.init(res, json);
      case 'status': {
        const t = this.tasks.get(String(json.publish_id ?? ''));
        if (!t) return this.reply(res, tiktokError(400, 'invalid_publish_id', 'The publish_id does not exist.'));
        // post ids are int64 on the wire (19 digits: more than a JS number holds), written raw as the service does.
        const data = this.status(t);
        const text = JSON.stringify({ data, error: { code: 'ok', message: '', log_id: logId() } }).replace('"@POST_ID@"', t.postId ?? '');
        res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(text)) }).end(text);
        return;
      }
      case 'cancel': {
        const t = this.tasks.get(String(json.publish_id ?? ''));
        if (!t) return this.reply(res, tiktokError(400, 'invalid_publish_id', 'The publish_id does not exist.'));
        if (t.completedAt !== null) return this.reply(res, tiktokError(400, 'publish_not_cancellable', 'The post can no longer be canceled.'));
        t.canceled = true;
        return this.ok(res, {});
      }
    }
  }

  private reply(res: http.ServerResponse, f: Fault): void {
    if ('status' in f) this.json(res, f.status, f.body, f.headers);
    else throw new Error('reply() takes an answer fault');
  }

  private ok(res: http.ServerResponse, data: unknown): void {
    this.json(res, 200, { data, error: { code: 'ok', message: '', log_id: logId() } });
  }

  private token(res: http.ServerResponse, p: URLSearchParams): void {
    if (p.get('client_key') !== this.clientId || p.get('client_secret') !== this.clientSecret) {
      return this.json(res, 401, { error: 'invalid_client', error_description: 'Client key or secret is incorrect.', log_id: logId() });
    }
    const answer = (t: { accessToken: string; refreshToken: string | null }): void => this.json(res, 200, {
      access_token: t.accessToken, expires_in: this.accessTokenTtlSec, refresh_token: t.refreshToken, refresh_expires_in: 15_552_000,
      open_id: this.openId, scope: 'user.info.basic,video.publish', token_type: 'Bearer',
    });
    if (p.get('grant_type') === 'authorization_code') {
      if (!this.takeCode(p.get('code'), p.get('redirect_uri'), p.get('code_verifier'))) return this.json(res, 400, { error: 'invalid_grant', error_description: 'Authorization code is expired.', log_id: logId() });
      return answer(this.issueTokens());
    }
    if (p.get('grant_type') === 'refresh_token') {
      const old = this.findByRefresh(p.get('refresh_token'));
      if (!old) return this.json(res, 400, { error: 'invalid_grant', error_description: 'Refresh token is invalid or expired.', log_id: logId() });
      // Rotation: the old refresh token (and its access token) stop working once the new one is issued.
      return answer(this.refreshFrom(old, true));
    }
    return this.json(res, 400, { error: 'unsupported_grant_type', error_description: 'grant_type is not supported', log_id: logId() });
  }

  private postsToday(): number {
    const since = Date.now() - 24 * 3600 * 1000;
    return [...this.tasks.values()].filter((t) => t.completedAt !== null && t.completedAt >= since).length;
  }

  private init(res: http.ServerResponse, json: Record<string, unknown>): void {
    const post = (json.post_info ?? {}) as Record<string, unknown>;
    const src = (json.source_info ?? {}) as Record<string, unknown>;
    if (this.dailyPostCap !== null && this.postsToday() >= this.dailyPostCap) return this.reply(res, SHORT_VIDEO_SITE_FAULTS.tooManyPosts);
    const privacy = String(post.privacy_level ?? '');
    if (!this.creator.privacy_level_options.includes(privacy)) return this.reply(res, SHORT_VIDEO_SITE_FAULTS.privacyMismatch);
    const title = String(post.title ?? '');
    if (title.length > 2200) return this.reply(res, tiktokError(400, 'invalid_param', 'title is longer than 2200 characters'));
    if (src.source !== 'FILE_UPLOAD') return this.reply(res, tiktokError(400, 'invalid_param', 'only FILE_UPLOAD is served by this fake'));
    const size = Number(src.video_size), chunk = Number(src.chunk_size), count = Number(src.total_chunk_count);
    if (![size, chunk, count].every((n) => Number.isInteger(n) && n > 0)) return this.reply(res, tiktokError(400, 'invalid_param', 'video_size, chunk_size and total_chunk_count are required'));
    if (size < this.minChunkBytes ? chunk !== size : chunk < this.minChunkBytes || chunk > 64 * MB) return this.reply(res, tiktokError(400, 'invalid_param', 'chunk_size is out of bounds'));
    if (count !== Math.floor(size / chunk) || count > 1000) return this.reply(res, tiktokError(400, 'invalid_param', 'total_chunk_count must be floor(video_size / chunk_size)'));
    if (size - chunk * (count - 1) > 128 * MB) return this.reply(res, tiktokError(400, 'invalid_param', 'the final chunk would exceed 128 MB'));
    const t: FakeTask = {
      publishId: `v_pub_file~v2-1.${randomId(18, '0123456789')}`, uploadId: randomId(20, '0123456789'), title, privacyLevel: privacy,
      videoSize: size, chunkSize: chunk, totalChunks: count, bytes: Buffer.alloc(0), uploadUrlIssuedAt: Date.now(), polls: 0, canceled: false, postId: null, completedAt: null,
    };
    this.tasks.set(t.publishId, t);
    // The real upload host, as the service hands it back: the client must move it onto the override.
    return this.ok(res, { publish_id: t.publishId, upload_url: `https://open-upload.tiktokapis.com/video/?upload_id=${t.uploadId}&upload_token=${randomId(24)}` });
  }

  private upload(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, uploadId: string, _url: URL): void {
    const t = [...this.tasks.values()].find((x) => x.uploadId === uploadId);
    if (!t) return this.json(res, 404, { error: { code: 'not_found', message: 'no such upload task' } });
    const progress = (): Record<string, string> => ({ 'content-range': `bytes 0-${t.bytes.length - 1}/${t.videoSize}` });
    if (Date.now() - t.uploadUrlIssuedAt > this.uploadUrlTtlMs) return this.json(res, 403, { error: { code: 'upload_url_expired', message: 'the upload URL has expired' } }, progress());
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? '').trim());
    if (!m) return this.json(res, 400, { error: { code: 'invalid_param', message: 'Content-Range is required' } }, progress());
    const first = Number(m[1]), last = Number(m[2]), total = Number(m[3]);
    if (total !== t.videoSize || body.length !== last - first + 1) return this.json(res, 400, { error: { code: 'invalid_param', message: 'Content-Range or Content-Length does not match' } }, progress());
    if (first !== t.bytes.length) return this.json(res, 416, { error: { code: 'range_not_satisfiable', message: `expected the chunk starting at ${t.bytes.length}` } }, progress());
    const index = Math.floor(first / t.chunkSize);
    const isFinal = index === t.totalChunks - 1;
    const expected = isFinal ? t.videoSize - first : t.chunkSize;
    if (first % t.chunkSize !== 0 || body.length !== expected) return this.json(res, 400, { error: { code: 'invalid_param', message: `chunk ${index} must be ${expected} bytes` } }, progress());
    t.bytes = Buffer.concat([t.bytes, body]);
    if (t.bytes.length < t.videoSize) {
      res.writeHead(206, { ...progress(), 'content-length': '0' }).end();
      return;
    }
    t.completedAt = Date.now();
    res.writeHead(201, { ...progress(), 'content-length': '0' }).end();
  }

  private status(t: FakeTask): Record<string, unknown> {
    const base = { uploaded_bytes: t.bytes.length };
    if (t.canceled) return { ...base, status: 'FAILED', fail_reason: 'publish_cancelled', publicaly_available_post_id: [] };
    if (t.completedAt === null) return { ...base, status: 'PROCESSING_UPLOAD', publicaly_available_post_id: [] };
    t.polls += 1;
    const s = this.statusScript;
    if (s.outcome === 'never' || t.polls <= s.polls) return { ...base, status: 'PROCESSING_UPLOAD', publicaly_available_post_id: [] };
    if (typeof s.outcome === 'object') return { ...base, status: 'FAILED', fail_reason: s.outcome.failReason, publicaly_available_post_id: [] };
    if (t.privacyLevel !== 'SELF_ONLY' && t.polls > s.polls + s.postIdPolls) t.postId ??= `7${randomId(18, '0123456789')}`;
    return { ...base, status: 'PUBLISH_COMPLETE', publicaly_available_post_id: t.postId ? ['@POST_ID@'] : [] };
  }
}
