// A fake photo_site (Instagram Graph API with Facebook Login, Reels) speaking platforms.md 2.6: the
// consent dialog, the code and long-lived token exchanges (and ig_refresh_token), me/accounts with the
// linked professional account, the REELS container (resumable: rupload of the bytes, or a video_url it
// fetches), container status polling, media_publish with the publishing quota, permalinks.
//
//   const ig = await new FakePhotoSite().start();        // ig.url -> SHORTS_PLATFORM_URL_PHOTO_SITE
//   const { accessToken } = ig.issueTokens({ refresh: false });
//   ig.fail('media', graphError(190, 463, 'Error validating access token: Session has expired'));
//   ig.containerScript = { polls: 2, outcome: 'FINISHED' };   // or 'never', 'EXPIRED', { errorSubcode: 2207026 }
//   ig.quotaTotal = 1;                                          // media_publish -> 9/2207042 once used up
//   ig.mediaListLag = 2;                                        // a new post shows in GET {user}/media from the 3rd read on
//   ig.media  // Map id -> { bytes, caption, permalink }: what was published
import type http from 'node:http';
import { FakePlatform, randomId, type Fault, type FakeOptions, type Routed } from './fake-server.js';

/** The Graph API error envelope (platforms.md 2.4). Instagram's publishing errors are all HTTP 400. */
export function graphError(code: number, subcode: number | null, message: string, opts: { status?: number; type?: string; transient?: boolean } = {}): Fault {
  return {
    status: opts.status ?? 400,
    body: {
      error: {
        message, type: opts.type ?? 'OAuthException', code, ...(subcode !== null ? { error_subcode: subcode } : {}),
        is_transient: opts.transient ?? false, error_user_title: message, error_user_msg: message, fbtrace_id: randomId(11),
      },
    },
  };
}

export const PHOTO_SITE_FAULTS = {
  tokenExpired: graphError(190, 463, 'Error validating access token: Session has expired.', { status: 401 }),
  permissionMissing: graphError(10, null, 'Application does not have permission for this action'),
  throttled: graphError(4, null, 'Application request limit reached', { transient: true }),
  userThrottled: graphError(17, null, 'User request limit reached', { transient: true }),
  cannotFetch: graphError(9004, 2207052, 'The media could not be fetched from this uri'),
  formatUnsupported: graphError(352, 2207026, 'The video format is not supported. Please check spec for supported video format'),
  restricted: graphError(25, 2207050, 'The Instagram account is restricted.'),
  spam: graphError(4, 2207051, 'We restrict certain activity to protect our community.'),
  publishLimit: graphError(9, 2207042, 'You reached maximum number of posts that is allowed to be published by Content Publishing API.'),
  serverError: graphError(-1, 2207001, 'Instagram server error', { transient: true }),
} satisfies Record<string, Fault>;

export interface FakeContainer {
  id: string;
  userId: string;
  caption: string;
  /** Bytes received so far (rupload), or fetched from video_url. */
  bytes: Buffer;
  fileSize: number | null;
  uploaded: boolean;
  /** Status polls since the upload completed. */
  polls: number;
  published: boolean;
  mediaId: string | null;
  createdAt: number;
  fetchFailed: boolean;
}

export interface FakeMedia {
  id: string;
  containerId: string;
  caption: string;
  bytes: Buffer;
  shortcode: string;
  permalink: string;
  publishedAt: number;
  /** Reads of the account's media list that do not show it yet (the listing lags behind publishing). */
  unlistedReads: number;
}

export type ContainerOutcome = 'FINISHED' | 'never' | 'EXPIRED' | { errorSubcode: number };

const VERSION = /^v\d+\.\d+$/;

export class FakePhotoSite extends FakePlatform {
  /** The professional account linked to the user's Page; null = a personal account (no IG user found). */
  igUser: { id: string; username: string } | null = { id: '17841400000000001', username: 'fake.reels' };
  /** Status polls that answer IN_PROGRESS after the upload, then the outcome. */
  containerScript: { polls: number; outcome: ContainerOutcome } = { polls: 0, outcome: 'FINISHED' };
  /** content_publishing_limit's quota_total; media_publish past it answers 9/2207042. */
  quotaTotal = 50;
  /** Posts published in the last 24 h before this fake started (counted against quotaTotal). */
  quotaUsedBefore = 0;
  readonly containers = new Map<string, FakeContainer>();
  readonly media = new Map<string, FakeMedia>();
  /** media_publish calls for a container that was already published (must stay 0). */
  republishAttempts = 0;
  /** How many reads of the account's media list miss a post just published (eventual consistency). */
  mediaListLag = 0;

  constructor(opts: FakeOptions = {}) {
    super({ accessTokenTtlSec: 5_184_000, ...opts });
  }

  get publishCount(): number {
    return this.media.size;
  }

  protected route(method: string, url: URL): Routed | null {
    const parts = url.pathname.split('/').filter(Boolean);
    if (method === 'GET' && parts.length === 1 && parts[0] === 'refresh_access_token') return { route: 'ig_refresh', params: {} };
    if (parts[0] === 'ig-api-upload' && parts.length === 3 && VERSION.test(parts[1]!) && method === 'POST') return { route: 'rupload', params: { container: parts[2]! } };
    if (!VERSION.test(parts[0] ?? '')) return null;
    const rest = parts.slice(1);
    if (method === 'GET' && rest.join('/') === 'dialog/oauth') return { route: 'consent', params: {} };
    if (method === 'GET' && rest.join('/') === 'oauth/access_token') return { route: 'token', params: {} };
    if (method === 'GET' && rest.join('/') === 'me/accounts') return { route: 'accounts', params: {} };
    if (rest.length === 2 && rest[1] === 'media' && method === 'POST') return { route: 'media', params: { user: rest[0]! } };
    if (rest.length === 2 && rest[1] === 'media' && method === 'GET') return { route: 'media_list', params: { user: rest[0]! } };
    if (rest.length === 2 && rest[1] === 'media_publish' && method === 'POST') return { route: 'publish', params: { user: rest[0]! } };
    if (rest.length === 2 && rest[1] === 'content_publishing_limit' && method === 'GET') return { route: 'limit', params: { user: rest[0]! } };
    if (rest.length === 1 && method === 'GET') return { route: 'node', params: { id: rest[0]! } };
    return null;
  }

  protected override partial(r: Routed, req: http.IncomingMessage, body: Buffer): void {
    // A cut rupload: what arrived is kept at its offset (a later upload restarting at 0 replaces it).
    if (r.route !== 'rupload') return;
    const c = this.containers.get(r.params.container!);
    const offset = Number(req.headers.offset ?? 0);
    if (c && !c.uploaded && offset === c.bytes.length) c.bytes = Buffer.concat([c.bytes, body]);
  }

  protected async handle(r: Routed, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, url: URL): Promise<void> {
    const p = this.params(body, url, req);
    const token = p.get('access_token') ?? this.bearer(req);
    switch (r.route) {
      case 'consent': return this.consent(res, url, 'client_id');
      case 'token': return this.token(res, p);
      case 'ig_refresh': {
        const t = this.validToken(p.get('access_token'));
        if (p.get('grant_type') !== 'ig_refresh_token' || !t) return this.reply(res, PHOTO_SITE_FAULTS.tokenExpired);
        const n = this.refreshFrom(t, false);
        return this.json(res, 200, { access_token: n.accessToken, token_type: 'bearer', expires_in: this.accessTokenTtlSec });
      }
    }
    if (!this.validToken(token)) return this.reply(res, PHOTO_SITE_FAULTS.tokenExpired);
    switch (r.route) {
      case 'accounts':
        return this.json(res, 200, { data: [{ id: '100000000000001', name: 'Fake Page', ...(this.igUser ? { instagram_business_account: { id: this.igUser.id, username: this.igUser.username } } : {}) }] });
      case 'media': return this.createContainer(res, r.params.user!, p);
      case 'rupload': return this.rupload(req, res, body, r.params.container!);
      case 'limit': {
        if (!this.isUser(r.params.user!)) return this.reply(res, graphError(100, 33, 'Unsupported get request. Object does not exist'));
        return this.json(res, 200, { data: [{ quota_usage: this.quotaUsage(), config: { quota_total: this.quotaTotal, quota_duration: 86400 } }] });
      }
      case 'publish': return this.publish(res, r.params.user!, p.get('creation_id'));
      case 'media_list': {
        if (!this.isUser(r.params.user!)) return this.reply(res, graphError(100, 33, 'Unsupported get request. Object does not exist'));
        const listed = [...this.media.values()].filter((m) => m.unlistedReads-- <= 0);
        const items = listed.reverse().map((m) => ({ id: m.id, caption: m.caption, permalink: m.permalink, shortcode: m.shortcode, media_product_type: 'REELS', timestamp: new Date(m.publishedAt).toISOString() }));
        return this.json(res, 200, { data: items });
      }
      case 'node': return this.node(res, r.params.id!);
    }
  }

  private reply(res: http.ServerResponse, f: Fault): void {
    if ('status' in f) this.json(res, f.status, f.body, f.headers);
    else throw new Error('reply() takes an answer fault');
  }

  private isUser(id: string): boolean {
    return this.igUser !== null && id === this.igUser.id;
  }

  private quotaUsage(): number {
    const since = Date.now() - 24 * 3600 * 1000;
    return this.quotaUsedBefore + [...this.media.values()].filter((m) => m.publishedAt >= since).length;
  }

  private token(res: http.ServerResponse, p: URLSearchParams): void {
    if (p.get('client_id') !== this.clientId || p.get('client_secret') !== this.clientSecret) {
      return this.reply(res, graphError(101, null, 'Error validating application. Invalid application ID.'));
    }
    if (p.get('grant_type') === 'fb_exchange_token') {
      const t = this.validToken(p.get('fb_exchange_token'));
      if (!t) return this.reply(res, graphError(190, 463, 'Error validating access token: Session has expired.'));
      const n = this.refreshFrom(t, false);
      return this.json(res, 200, { access_token: n.accessToken, token_type: 'bearer', expires_in: this.accessTokenTtlSec });
    }
    if (!this.takeCode(p.get('code'), p.get('redirect_uri'), p.get('code_verifier'))) return this.reply(res, graphError(100, 36009, 'This authorization code has been used.'));
    // The short-lived token the dialog's code gives (the caller exchanges it for a long-lived one).
    const t = this.issueTokens({ ttlSec: 3600, refresh: false });
    return this.json(res, 200, { access_token: t.accessToken, token_type: 'bearer', expires_in: 3600 });
  }

  private createContainer(res: http.ServerResponse, user: string, p: URLSearchParams): void {
    if (!this.isUser(user)) return this.reply(res, graphError(100, 33, `Unsupported post request. Object with ID '${user}' does not exist`));
    if (p.get('media_type') !== 'REELS') return this.reply(res, graphError(100, 2207023, `The media type ${p.get('media_type') ?? ''} is unknown.`));
    const resumable = p.get('upload_type') === 'resumable';
    const videoUrl = p.get('video_url');
    if (!resumable && !videoUrl) return this.reply(res, graphError(100, null, 'The parameter video_url is required'));
    const caption = p.get('caption') ?? '';
    if (caption.length > 2200) return this.reply(res, graphError(36003, 2207010, 'The caption is too long.'));
    const c: FakeContainer = {
      id: String(18_000_000_000_000_000 + this.containers.size + 1 + Math.floor(Math.random() * 1e6)),
      userId: user, caption, bytes: Buffer.alloc(0), fileSize: null, uploaded: false, polls: 0, published: false, mediaId: null, createdAt: Date.now(), fetchFailed: false,
    };
    this.containers.set(c.id, c);
    if (videoUrl) {
      void fetch(videoUrl).then(async (r) => {
        if (!r.ok) throw new Error(String(r.status));
        c.bytes = Buffer.from(await r.arrayBuffer());
        c.uploaded = true;
      }).catch(() => { c.fetchFailed = true; });
      return this.json(res, 200, { id: c.id });
    }
    // The real upload host, as the service hands it back: the client must move it onto the override.
    return this.json(res, 200, { id: c.id, uri: `https://rupload.facebook.com/ig-api-upload/v25.0/${c.id}` });
  }

  private rupload(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, id: string): void {
    const c = this.containers.get(id);
    if (!c) return this.json(res, 404, { debug_info: { retriable: false, type: 'NotFoundError', message: 'No container with this id' } });
    const offset = Number(req.headers.offset ?? NaN);
    const size = Number(req.headers.file_size ?? NaN);
    if (!Number.isInteger(offset) || !Number.isInteger(size) || size <= 0) {
      return this.json(res, 400, { debug_info: { retriable: false, type: 'ProcessingFailedError', message: 'offset and file_size headers are required' } });
    }
    if (c.uploaded) return this.json(res, 200, { success: true, message: 'Upload successful.' });
    if (offset === 0) c.bytes = Buffer.alloc(0);
    if (offset !== c.bytes.length) {
      return this.json(res, 400, { debug_info: { retriable: false, type: 'ProcessingFailedError', message: `offset ${offset} does not match the ${c.bytes.length} bytes received` } });
    }
    c.fileSize = size;
    c.bytes = Buffer.concat([c.bytes, body]);
    if (c.bytes.length > size) return this.json(res, 400, { debug_info: { retriable: false, type: 'ProcessingFailedError', message: 'more bytes than file_size' } });
    if (c.bytes.length === size) c.uploaded = true;
    return this.json(res, 200, { success: true, message: c.uploaded ? 'Upload successful. Please check the status of the container.' : 'Partial upload received.' });
  }

  /** IN_PROGRESS until the bytes are in and the scripted polls are done, then the scripted outcome. */
  containerStatus(c: FakeContainer, poll: boolean): { status_code: string; status: string } {
    if (c.published) return { status_code: 'PUBLISHED', status: 'Published' };
    if (c.fetchFailed) return { status_code: 'ERROR', status: 'Error: The media could not be fetched from this uri (2207052)' };
    if (!c.uploaded) return { status_code: 'IN_PROGRESS', status: 'In Progress' };
    if (poll) c.polls += 1;
    const o = this.containerScript.outcome;
    if (o === 'never' || c.polls <= this.containerScript.polls) return { status_code: 'IN_PROGRESS', status: 'In Progress' };
    if (o === 'FINISHED') return { status_code: 'FINISHED', status: 'Finished' };
    if (o === 'EXPIRED') return { status_code: 'EXPIRED', status: 'Expired: the container was not published within 24 hours' };
    return { status_code: 'ERROR', status: `Error: Media upload has failed with error code ${o.errorSubcode} (${o.errorSubcode})` };
  }

  private publish(res: http.ServerResponse, user: string, creationId: string | null): void {
    if (!this.isUser(user)) return this.reply(res, graphError(100, 33, `Unsupported post request. Object with ID '${user}' does not exist`));
    const c = creationId ? this.containers.get(creationId) : undefined;
    if (!c || c.userId !== user) return this.reply(res, graphError(24, 2207008, 'The media builder with creation id = ' + (creationId ?? '') + ' does not exist or has been expired.'));
    if (c.published) {
      this.republishAttempts += 1;
      return this.reply(res, graphError(100, null, 'The media has already been published.'));
    }
    if (this.quotaUsage() >= this.quotaTotal) return this.reply(res, PHOTO_SITE_FAULTS.publishLimit);
    if (this.containerStatus(c, false).status_code !== 'FINISHED') return this.reply(res, graphError(9007, 2207027, 'The media is not ready for publishing, please wait for a moment'));
    const shortcode = randomId(11);
    const m: FakeMedia = {
      id: String(17_900_000_000_000_000 + this.media.size + 1 + Math.floor(Math.random() * 1e6)), containerId: c.id, caption: c.caption, bytes: c.bytes,
      shortcode, permalink: `https://www.instagram.com/reel/${shortcode}/`, publishedAt: Date.now(), unlistedReads: this.mediaListLag,
    };
    this.media.set(m.id, m);
    c.published = true;
    c.mediaId = m.id;
    return this.json(res, 200, { id: m.id });
  }

  private node(res: http.ServerResponse, id: string): void {
    const c = this.containers.get(id);
    if (c) return this.json(res, 200, { ...this.containerStatus(c, true), id: c.id });
    const m = this.media.get(id);
    if (m) return this.json(res, 200, { id: m.id, permalink: m.permalink, shortcode: m.shortcode, media_product_type: 'REELS' });
    return this.reply(res, graphError(100, 33, `Unsupported get request. Object with ID '${id}' does not exist`));
  }
}
