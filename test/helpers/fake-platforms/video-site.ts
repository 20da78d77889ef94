// A fake video_site (YouTube Data API v3) speaking platforms.md 1.8: the consent page and token endpoint,
// channels.list mine=true, the resumable videos.insert (session start, chunked PUTs with 308/Range,
// status checks with `bytes */T`, 404 for an unknown or expired session) and videos.list for processing.
//
//   const yt = await new FakeVideoSite().start();        // yt.url -> SHORTS_PLATFORM_URL_VIDEO_SITE
//   const { accessToken, refreshToken } = yt.issueTokens();
//   yt.fail('insert', googleError(403, 'quotaExceeded', 'youtube.quota'));   // the next session start
//   yt.fail('upload', { drop: true, afterBytes: 300_000 });                   // a connection cut mid-upload
//   yt.processing = { polls: 2, outcome: 'processed' };  // or 'never', or { failureReason: 'codec' }
//   yt.processing = { polls: 0, outcome: 'processed', durationMs: 20 * 60_000 };  // by the fake's clock
//   yt.clockStepPerPollMs = 120_000;   // each videos.list call moves the fake's clock on (yt.now())
//   yt.forcePrivate = true;            // every upload becomes private (an unverified API project)
//   yt.videos  // Map id -> { bytes, title, ... }: what was published
import type http from 'node:http';
import { FakePlatform, randomId, type Fault, type FakeOptions, type Routed } from './fake-server.js';

const CHUNK = 262_144;

/** Google's JSON error envelope (platforms.md 1.5) as a scripted answer. */
export function googleError(status: number, reason: string, domain = 'youtube.video', message?: string): Fault {
  const text = message ?? `${reason} (fake video_site)`;
  const statusName: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };
  return { status, body: { error: { code: status, message: text, errors: [{ message: text, domain, reason }], status: statusName[status] ?? 'UNKNOWN' } } };
}

/** The answers of platforms.md 1.8's error list, by the errorCode they should become. */
export const VIDEO_SITE_FAULTS = {
  authError: googleError(401, 'authError', 'global', 'Invalid Credentials'),
  youtubeSignupRequired: googleError(401, 'youtubeSignupRequired', 'youtube.header'),
  quotaExceeded: googleError(403, 'quotaExceeded', 'youtube.quota', 'The request cannot be completed because you have exceeded your quota.'),
  uploadsPerDay: googleError(429, 'rateLimitExceeded', 'global', "Quota exceeded for quota metric 'Video Uploads' and limit 'Video Uploads per day' of service 'youtube.googleapis.com'"),
  uploadLimitExceeded: googleError(400, 'uploadLimitExceeded', 'youtube.video', 'The user has exceeded the number of videos they may upload.'),
  rateLimitExceeded: googleError(403, 'rateLimitExceeded', 'youtube.quota', 'The request cannot be completed because you have exceeded your rate limit.'),
  invalidTitle: googleError(400, 'invalidTitle', 'youtube.video', 'The request metadata specifies an invalid or empty video title.'),
  channelSuspended: googleError(403, 'authenticatedUserAccountSuspended', 'youtube.common', 'The YouTube account used to authorize the API request has been suspended.'),
  insufficientPermissions: googleError(403, 'insufficientPermissions', 'global', 'Request had insufficient authentication scopes.'),
  backendError: googleError(503, 'backendError', 'global', 'Backend Error'),
} satisfies Record<string, Fault>;

export interface FakeVideo {
  id: string;
  title: string;
  description: string;
  privacyStatus: string;
  bytes: Buffer;
  contentType: string;
  /** videos.list calls so far for this video. */
  polls: number;
  uploadedAt: number;
}

interface Session {
  id: string;
  total: number;
  contentType: string;
  metadata: Record<string, unknown>;
  received: Buffer;
  createdAt: number;
  expired: boolean;
  videoId: string | null;
}

export type VideoOutcome =
  | 'processed'
  | 'never'
  | { failureReason: string }
  | { rejectionReason: string };

export class FakeVideoSite extends FakePlatform {
  /** Google: RFC 7636 S256, base64url. */
  protected override readonly pkceEncoding = 'base64url' as const;
  /** The signed-in user's channel; null = an account without a channel (401 youtubeSignupRequired). */
  channel: { id: string; title: string; customUrl: string } | null = { id: 'UCfakeChannel0000000000', title: 'Fake Channel', customUrl: '@fakechannel' };
  /**
   * What videos.list reports: `polls` answers of uploaded/processing, then `outcome`; with `durationMs`,
   * processing until that long after the upload by the fake's clock.
   */
  processing: { polls: number; outcome: VideoOutcome; durationMs?: number } = { polls: 0, outcome: 'processed' };
  /** The fake's clock runs this far ahead of the real one (see now()). */
  clockOffsetMs = 0;
  /** Each videos.list call moves the fake's clock on by this much (time passing between a client's polls). */
  clockStepPerPollMs = 0;
  /** Uploads become private whatever was asked (platforms.md 1.1: unverified API projects). */
  forcePrivate = false;
  /** Uploads per day before 429 "Video Uploads per day"; null = no cap. */
  dailyUploadCap: number | null = null;
  /** Sessions older than this answer 404 (the session URI's finite lifetime). */
  sessionTtlMs = 7 * 24 * 3600 * 1000;
  readonly sessions = new Map<string, Session>();
  /** Every completed upload: what a viewer would see on the site. */
  readonly videos = new Map<string, FakeVideo>();

  constructor(opts: FakeOptions = {}) {
    super({ accessTokenTtlSec: 3599, ...opts });
  }

  /** Uploads that became videos (the "exactly one post" count). */
  get publishCount(): number {
    return this.videos.size;
  }

  /** The fake platform's clock (ms since epoch): processing durations and upload times are on it. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** Makes every open session answer 404, as after its lifetime. */
  expireSessions(): void {
    for (const s of this.sessions.values()) s.expired = true;
  }

  protected route(method: string, url: URL): Routed | null {
    const p = url.pathname;
    if (method === 'GET' && p === '/o/oauth2/v2/auth') return { route: 'consent', params: {} };
    if (method === 'POST' && p === '/token') return { route: 'token', params: {} };
    if (method === 'GET' && p === '/youtube/v3/channels') return { route: 'channels', params: {} };
    if (method === 'GET' && p === '/youtube/v3/videos') return { route: 'videos', params: {} };
    if (p === '/upload/youtube/v3/videos') {
      if (method === 'POST' && url.searchParams.get('uploadType') === 'resumable') return { route: 'insert', params: {} };
      if (method === 'PUT' && url.searchParams.get('upload_id')) return { route: 'upload', params: { uploadId: url.searchParams.get('upload_id')! } };
    }
    return null;
  }

  protected override partial(r: Routed, req: http.IncomingMessage, body: Buffer): void {
    // A cut PUT: the server keeps what it received, in whole 256 KiB units (what the Range header reports).
    if (r.route !== 'upload') return;
    const s = this.sessions.get(r.params.uploadId!);
    const range = parseRange(req.headers['content-range']);
    if (!s || s.videoId || !range || range.kind !== 'bytes' || range.first !== s.received.length) return;
    const keep = Math.floor(body.length / CHUNK) * CHUNK;
    s.received = Buffer.concat([s.received, body.subarray(0, keep)]);
  }

  protected handle(r: Routed, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, url: URL): void {
    switch (r.route) {
      case 'consent': return this.consent(res, url, 'client_id');
      case 'token': return this.token(res, this.params(body, url, req));
      case 'channels': {
        if (!this.validToken(this.bearer(req))) return this.reply(res, VIDEO_SITE_FAULTS.authError);
        return this.json(res, 200, { kind: 'youtube#channelListResponse', items: this.channel ? [{ kind: 'youtube#channel', id: this.channel.id, snippet: { title: this.channel.title, customUrl: this.channel.customUrl } }] : [] });
      }
      case 'insert': return this.insert(req, res, body, url);
      case 'upload': return this.upload(req, res, body, r.params.uploadId!);
      case 'videos': {
        if (!this.validToken(this.bearer(req))) return this.reply(res, VIDEO_SITE_FAULTS.authError);
        this.clockOffsetMs += this.clockStepPerPollMs;
        const ids = (url.searchParams.get('id') ?? '').split(',');
        const items = ids.map((id) => this.videos.get(id)).filter((v): v is FakeVideo => Boolean(v)).map((v) => {
          v.polls += 1;
          return this.resource(v, true);
        });
        return this.json(res, 200, { kind: 'youtube#videoListResponse', items });
      }
    }
  }

  private reply(res: http.ServerResponse, f: Fault): void {
    if ('status' in f) this.json(res, f.status, f.body, f.headers);
    else throw new Error('reply() takes an answer fault');
  }

  private token(res: http.ServerResponse, p: URLSearchParams): void {
    if (p.get('client_id') !== this.clientId || p.get('client_secret') !== this.clientSecret) {
      return this.json(res, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    }
    const scope = 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly';
    if (p.get('grant_type') === 'authorization_code') {
      if (!this.takeCode(p.get('code'), p.get('redirect_uri'), p.get('code_verifier'))) return this.json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
      const t = this.issueTokens();
      return this.json(res, 200, { access_token: t.accessToken, expires_in: this.accessTokenTtlSec, refresh_token: t.refreshToken, scope, token_type: 'Bearer' });
    }
    if (p.get('grant_type') === 'refresh_token') {
      const old = this.findByRefresh(p.get('refresh_token'));
      if (!old) return this.json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      const t = this.refreshFrom(old, false);
      return this.json(res, 200, { access_token: t.accessToken, expires_in: this.accessTokenTtlSec, scope, token_type: 'Bearer' });
    }
    return this.json(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
  }

  private insert(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, url: URL): void {
    if (!this.validToken(this.bearer(req))) return this.reply(res, VIDEO_SITE_FAULTS.authError);
    if (!this.channel) return this.reply(res, VIDEO_SITE_FAULTS.youtubeSignupRequired);
    if (this.dailyUploadCap !== null && this.uploadsToday() >= this.dailyUploadCap) return this.reply(res, VIDEO_SITE_FAULTS.uploadsPerDay);
    const total = Number(req.headers['x-upload-content-length']);
    const type = String(req.headers['x-upload-content-type'] ?? '');
    if (!Number.isInteger(total) || total <= 0) return this.reply(res, googleError(400, 'badRequest', 'global', 'X-Upload-Content-Length is missing or invalid'));
    if (!/^(video\/|application\/octet-stream)/.test(type)) return this.reply(res, googleError(400, 'badRequest', 'global', 'X-Upload-Content-Type must be video/* or application/octet-stream'));
    let meta: Record<string, unknown>;
    try {
      meta = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.reply(res, googleError(400, 'parseError', 'global', 'Parse Error'));
    }
    const title = (meta.snippet as { title?: unknown } | undefined)?.title;
    if (typeof title !== 'string' || !title.trim() || title.length > 100 || /[<>]/.test(title)) return this.reply(res, VIDEO_SITE_FAULTS.invalidTitle);
    const id = randomId(16);
    this.sessions.set(id, { id, total, contentType: type, metadata: meta, received: Buffer.alloc(0), createdAt: this.now(), expired: false, videoId: null });
    // The real upload host, as the service would hand it back: the client must move it onto the override.
    const location = `https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=${id}&part=${encodeURIComponent(url.searchParams.get('part') ?? 'snippet,status')}`;
    res.writeHead(200, { location, 'content-length': '0' }).end();
  }

  private upload(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, uploadId: string): void {
    const s = this.sessions.get(uploadId);
    if (!s || s.expired || this.now() - s.createdAt > this.sessionTtlMs) return this.json(res, 404, { error: { code: 404, message: 'Not Found' } });
    if (!this.validToken(this.bearer(req))) return this.reply(res, VIDEO_SITE_FAULTS.authError);
    const range = parseRange(req.headers['content-range']);
    if (s.videoId) return this.json(res, 201, this.resource(this.videos.get(s.videoId)!, false));
    if (range?.kind === 'status') {
      if (range.total !== s.total) return this.reply(res, googleError(400, 'badContent', 'global', 'Content-Range total does not match X-Upload-Content-Length'));
      res.writeHead(308, { ...(s.received.length ? { range: `bytes=0-${s.received.length - 1}` } : {}), 'content-length': '0' }).end();
      return;
    }
    const first = range ? range.first : 0;
    const last = range ? range.last : body.length - 1;
    const total = range ? range.total : body.length;
    if (total !== s.total) return this.reply(res, googleError(400, 'badContent', 'global', 'the upload size does not match X-Upload-Content-Length'));
    if (first !== s.received.length) return this.reply(res, googleError(400, 'badContent', 'global', `Content-Range starts at ${first}, the session holds ${s.received.length} bytes`));
    if (body.length !== last - first + 1) return this.reply(res, googleError(400, 'badContent', 'global', 'Content-Length does not match Content-Range'));
    const final = last === total - 1;
    if (!final && body.length % CHUNK !== 0) return this.reply(res, googleError(400, 'badContent', 'global', 'a non-final chunk must be a multiple of 262144 bytes'));
    s.received = Buffer.concat([s.received, body]);
    if (!final) {
      res.writeHead(308, { range: `bytes=0-${s.received.length - 1}`, 'content-length': '0' }).end();
      return;
    }
    const snippet = s.metadata.snippet as { title: string; description?: string };
    const status = (s.metadata.status ?? {}) as { privacyStatus?: string };
    const video: FakeVideo = {
      id: randomId(11), title: snippet.title, description: snippet.description ?? '', privacyStatus: this.forcePrivate ? 'private' : status.privacyStatus ?? 'public',
      bytes: s.received, contentType: s.contentType, polls: 0, uploadedAt: this.now(),
    };
    this.videos.set(video.id, video);
    s.videoId = video.id;
    this.json(res, 201, this.resource(video, false));
  }

  private uploadsToday(): number {
    const since = this.now() - 24 * 3600 * 1000;
    return [...this.videos.values()].filter((v) => v.uploadedAt >= since).length;
  }

  /** The video resource; after processing (videos.list) it reports the scripted outcome. */
  private resource(v: FakeVideo, listing: boolean): Record<string, unknown> {
    let uploadStatus = 'uploaded';
    let processingStatus = 'processing';
    const extra: Record<string, string> = {};
    const o = this.processing.outcome;
    const due = this.processing.durationMs === undefined || this.now() - v.uploadedAt >= this.processing.durationMs;
    if (listing && o !== 'never' && v.polls > this.processing.polls && due) {
      if (o === 'processed') {
        uploadStatus = 'processed';
        processingStatus = 'succeeded';
      } else if ('failureReason' in o) {
        uploadStatus = 'failed';
        processingStatus = 'failed';
        extra.failureReason = o.failureReason;
      } else {
        uploadStatus = 'rejected';
        processingStatus = 'terminated';
        extra.rejectionReason = o.rejectionReason;
      }
    }
    return {
      kind: 'youtube#video', id: v.id,
      snippet: { title: v.title, description: v.description, channelId: this.channel?.id },
      status: { uploadStatus, privacyStatus: v.privacyStatus, ...extra },
      processingDetails: { processingStatus },
    };
  }
}

type Range = { kind: 'status'; total: number } | { kind: 'bytes'; first: number; last: number; total: number };

function parseRange(h: string | string[] | undefined): Range | null {
  if (typeof h !== 'string') return null;
  let m = /^bytes \*\/(\d+)$/.exec(h.trim());
  if (m) return { kind: 'status', total: Number(m[1]) };
  m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(h.trim());
  if (m) return { kind: 'bytes', first: Number(m[1]), last: Number(m[2]), total: Number(m[3]) };
  return null;
}
