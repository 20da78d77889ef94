// `shorts serve`'s HTTP adapter over the Service: authentication, the two rate-limit layers and their
// headers, subscription checks, JSON envelopes and the one error handler. No business rules here.
// Envelopes are decided here and only here: every 2xx of an /api/v1 route is `{ "data": <what the
// route returned> }` (integrations of the hosted API read `result.data.<field>` on every endpoint),
// every error `{ "error": {code, message, details?} }`.
import http from 'node:http';
import { ShortsError } from '../errors.js';
import { presentedKey, type AccountStore, type AuthContext } from '../service/accounts.js';
import type { Service } from '../service/service.js';
import type { RequestStore } from '../ports/request-store.js';
import type { LimiterName, RateLimiter } from './rate-limit.js';
import { MEDIA_CONTENT_TYPES, parseMediaPath, type MediaLinks } from './media-links.js';
import { serveBlob, serveFile } from './serve-file.js';
import { BlobNotFoundError } from '../ports/blob-store.js';
import { engineUnavailable } from '../ports/unavailable.js';
import { catalogAssetFile } from '../catalog/catalog-assets.js';
import { bindRoutes, matchRoute, type RouteHandlers, type RouteResult, type SelfHandler } from './router.js';
import { exportLocal } from '../service/export-service.js';
import type { PostsService } from '../posts/posts-service.js';
import type { Automation } from '../posts/automation.js';
import { accountsRoutes, handleOAuthCallback, handleOAuthConfirm } from './accounts-routes.js';
import { templateAssetFile } from '../pipeline/captions/template-previews.js';
import { fingerprintOf, idempotencyKeyOf, type IdempotentRequests } from './idempotency.js';
import { EngineMetrics } from '../engine/metrics.js';
import { answerMetrics } from './metrics-endpoint.js';
import { LiveHub } from './live-hub.js';
import { eventStreamHandlers } from './event-stream.js';
import { SESSION_COOKIE, sessionCookieOf, type StudioSessions } from './studio-sessions.js';
import { isStudioPage, StudioFiles } from './studio-static.js';
import type { UploadsHandler } from './uploads.js';

export interface ReadinessReport { ready: boolean; checks: Record<string, { ok: boolean; detail: string }> }

export interface ApiServerDeps {
  service: Service;
  /** Scheduling and canceling posts (issue 16). */
  posts: PostsService;
  /** Automation rules of connected accounts (issue 16). */
  automation: Automation;
  /** The server's public base (SHORTS_PUBLIC_URL, else its address): the OAuth redirect base. */
  publicUrl?: () => string;
  store: RequestStore;
  accounts: AccountStore;
  limiter: RateLimiter;
  mediaLinks: MediaLinks;
  openapi: () => object;
  readiness: () => Promise<ReadinessReport>;
  /** The engine's metrics, served at /metrics with this server's HTTP answers counted in; default a registry of the server's own. */
  metrics?: EngineMetrics;
  /** SHORTS_METRICS_TOKEN: the bearer token /metrics requires; without one it answers loopback callers only. */
  metricsToken?: string;
  /** Replays the first answer to a POST sent again with the same Idempotency-Key (issue 23). */
  idempotency: IdempotentRequests;
  log: (line: string) => void;
  /**
   * The web studio's sign-in sessions (issue 25): the `shorts_session` cookie stands for a key on every API route.
   * Without them (servers built for one test of the API) the cookie means nothing and the studio's routes are 404.
   */
  sessions?: StudioSessions;
  /** The web studio's built files (default: the package's dist/studio). */
  studioFiles?: StudioFiles;
  /**
   * The MCP endpoint (Streamable HTTP), any method on `/mcp`. Called after the key is checked and the
   * 'standard' limiter has counted the HTTP request (its X-RateLimit-* headers are already set on `res`);
   * it writes the whole response itself. A ShortsError it throws before writing becomes the error envelope.
   */
  mcp?: (req: http.IncomingMessage, res: http.ServerResponse, auth: AuthContext) => Promise<void>;
  /** Resumable uploads (issue 25, tus 1.0 at /uploads); without them those paths answer 404. */
  uploads?: UploadsHandler;
}

const MAX_BODY_BYTES = 1024 * 1024;
/** Retry-After of a 503 while the database or Redis is unreachable: a restart takes seconds. */
const UNAVAILABLE_RETRY_SEC = 5;

/** The handlers of the table's enveloped routes (src/api/routes.ts), by operationId. */
function apiHandlers(service: Service, posts: PostsService, automation: Automation, publicUrl: (() => string) | undefined) {
  const catalog = (kind: 'music' | 'memeHooks' | 'gameVideos') => (q: Record<string, string | undefined>) => {
    const { items, pagination } = service.catalog(kind, q);
    return { status: 200, body: { [kind]: items, pagination } };
  };
  return {
    // With the studio's cookie: every request of the account, saying where each was made (issue 25); with a key, spec 1.7's list.
    listShorts: async ({ auth, query }) => ({ status: 200, body: auth.session ? await service.studioList(auth.account, query) : await service.list(auth.account, 'api', query) }),
    // The studio's creates run on the server's queue like the API's (origin 'api') but stay out of the key's list.
    createShorts: async ({ auth, body }) => ({
      status: 202, body: await service.create(auth.account, body, 'api', auth.session ? { createdIn: 'studio', localAccount: auth.session.local } : {}),
    }),
    getShortsStatus: async ({ auth, params }) => ({ status: 200, body: await service.status(auth.account, params[0]!) }),
    getShorts: async ({ auth, params }) => ({ status: 200, body: await service.detail(auth.account, params[0]!) }),
    cancelShorts: async ({ auth, params }) => ({ status: 200, body: await service.cancel(auth.account, params[0]!) }),
    renderShort: async ({ auth, params, body }) => ({ status: 202, body: await service.rerender(auth.account, params[0]!, params[1]!, body) }),
    // Exports (issue 14): the file itself, not an envelope; one clip, or the whole request in rank order.
    exportShort: async ({ auth, params, query }) => ({ status: 200, file: await exportLocal(service, auth.account, params[0]!, params[1]!, query.format) }),
    exportRequest: async ({ auth, params, query }) => ({ status: 200, file: await exportLocal(service, auth.account, params[0]!, null, query.format) }),
    listPosts: async ({ auth, query }) => ({ status: 200, body: await service.posts(auth.account, query) }),
    getTranscript: async ({ auth, params, query }) => ({ status: 200, body: await service.transcript(auth.account, params[0]!, query) }),
    // Issue 16: connected accounts, scheduling and canceling posts, and the automation rules of a connected account.
    ...accountsRoutes(() => posts.accounts, { publicUrl }),
    schedulePost: async ({ auth, body }) => ({ status: 201, body: await posts.schedule(auth.account, body) }),
    getPost: async ({ auth, params }) => ({ status: 200, body: await posts.get(auth.account, params[0]!) }),
    cancelPost: async ({ auth, params }) => ({ status: 200, body: await posts.cancel(auth.account, params[0]!) }),
    listAutomationRules: async ({ auth, params }) => ({ status: 200, body: { rules: await automation.list(auth.account.id, params[0]!) } }),
    addAutomationRule: async ({ auth, params, body }) => ({ status: 201, body: await automation.add(auth.account.id, params[0]!, body) }),
    removeAutomationRule: async ({ auth, params }) => ({ status: 200, body: await automation.remove(auth.account.id, params[0]!, params[1]!) }),
    listTemplates: () => ({ status: 200, body: service.templates() }),
    listMusic: ({ query }) => catalog('music')(query),
    listMemeHooks: ({ query }) => catalog('memeHooks')(query),
    listGameVideos: ({ query }) => catalog('gameVideos')(query),
  } satisfies Partial<RouteHandlers>;
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

function sendJsonText(res: http.ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** An export: the bytes with their own type, as an attachment named after the clip; never cached by shared caches. */
function sendFile(res: http.ServerResponse, status: number, file: NonNullable<RouteResult['file']>, headers: Record<string, string>): void {
  const ascii = file.filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  res.writeHead(status, {
    ...headers, 'content-type': file.contentType, 'content-length': file.body.length,
    'content-disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
    'cache-control': 'private, no-store', 'x-content-type-options': 'nosniff',
  });
  res.end(file.body);
}

function sendError(res: http.ServerResponse, e: ShortsError, headers: Record<string, string> = {}): void {
  const error: Record<string, unknown> = { code: e.code, message: e.message };
  if (e.details) error.details = e.details;
  // RFC 9110 15.5.6: a 405 names the methods the resource has.
  const allow: Record<string, string> = e.code === 'method_not_allowed' && Array.isArray(e.details?.allow) ? { allow: e.details.allow.join(', ') } : {};
  send(res, e.httpStatus, { error }, { ...headers, ...allow });
}

/** A Set-Cookie for the studio's session; an empty token and maxAge 0 clear it. */
function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

function headerOf(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * CSRF: a browser sends the cookie with any request to this server, even one another site's page makes, so a
 * request the cookie authenticates may change something only when it comes from this server's own pages:
 * `Origin` is this server's (SHORTS_PUBLIC_URL's, or the Host it was asked by: the cookie is only ever sent to
 * that host), or the browser says `Sec-Fetch-Site: same-origin`.
 */
function checkSameOrigin(req: http.IncomingMessage, publicUrl: (() => string) | undefined): void {
  if (['GET', 'HEAD', 'OPTIONS'].includes(req.method ?? 'GET')) return;
  if (headerOf(req, 'sec-fetch-site') === 'same-origin') return;
  const origin = headerOf(req, 'origin');
  const own = new Set<string>();
  try {
    if (publicUrl) own.add(new URL(publicUrl()).origin);
  } catch { /* an unparsable public URL names no origin */ }
  const host = headerOf(req, 'host');
  if (host) own.add(`http://${host}`).add(`https://${host}`);
  if (origin === undefined || !own.has(origin)) {
    throw new ShortsError('forbidden', 'a request signed in with the studio\'s cookie must come from the studio\'s own pages (Origin of this server)');
  }
}

function methodNotAllowed(method: string | undefined, path: string, allow: readonly string[]): ShortsError {
  return new ShortsError('method_not_allowed', `${method} is not supported on ${path}; use ${allow.join(' or ')}`, { allow: [...allow] });
}

/**
 * The request target as a URL and its path, or 400 `invalid_request`: an absolute-form target that does
 * not parse (`GET http://[::1/x`) and a path with a broken percent-encoding (`/shorts/%E0%A4%A`) are the
 * client's mistakes, refused before any route, key or file is looked at.
 */
function parseTarget(target: string): { url: URL; path: string } {
  let url: URL;
  try {
    url = new URL(target, 'http://localhost');
  } catch {
    throw new ShortsError('invalid_request', 'the request target is not a valid URL');
  }
  for (const segment of url.pathname.split('/')) {
    try {
      decodeURIComponent(segment);
    } catch {
      throw new ShortsError('invalid_request', 'the request path has a malformed percent-encoding', { parameter: 'path' });
    }
  }
  return { url, path: url.pathname.replace(/\/+$/, '') || '/' };
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ShortsError('invalid_request', 'the request body is larger than 1 MB');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ShortsError('invalid_request', 'the request body is not valid JSON');
  }
}

/**
 * GET/HEAD of a public catalog file: a template preview (`/assets/templates/<file>`) or a catalog item's
 * preview or media (`/assets/catalog/<folder>/<name>/preview|media`). Each lookup accepts only its own exact shapes and
 * names, so `..`, encoded separators and every other file are a 404, never a file elsewhere.
 */
export async function servePublicAsset(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
  const asset = templateAssetFile(pathname) ?? catalogAssetFile(pathname);
  if (!asset) throw new ShortsError('resource_not_found', 'no such file');
  await serveFile(req, res, asset.file, asset.contentType);
}

export function createApiServer(deps: ApiServerDeps): http.Server {
  const media: SelfHandler = async (req, res, { url }) => {
    const m = parseMediaPath(url.pathname);
    if (!m) throw new ShortsError('resource_not_found', 'no such media');
    const { requestId, shortId, kind } = m;
    const verdict = deps.mediaLinks.verify(requestId, shortId, url.searchParams.get('expires') ?? undefined, url.searchParams.get('sig') ?? undefined, kind);
    if (verdict !== 'ok') throw new ShortsError('invalid_media_link', verdict === 'expired' ? 'this link has expired: get a fresh one from GET /shorts/:id' : 'this link is not valid');
    const short = await deps.service.linkedClip(requestId, shortId);
    if (!short?.fileKey) throw new ShortsError('resource_not_found', 'this clip has no video file');
    // A clip without a cover answers like a file that is gone (the 404 of serveBlob), as before covers were keys.
    const key = kind === 'jpg' ? short.coverKey : short.fileKey;
    const { blobs } = deps.service;
    await serveBlob(req, res, () => key ? blobs.open(key) : Promise.reject(new BlobNotFoundError(`${short.fileKey}.jpg`)), MEDIA_CONTENT_TYPES[kind]);
  };
  const asset: SelfHandler = (req, res, { url }) => servePublicAsset(req, res, url.pathname);
  const studio = studioHandlers(deps);
  // Issue 25: a request's kept source (its signed link), and the tus uploads of the caller's account.
  const source: SelfHandler = async (req, res, { url, params }) => {
    const requestId = params[0]!;
    const verdict = deps.mediaLinks.verifySource(requestId, url.searchParams.get('expires') ?? undefined, url.searchParams.get('sig') ?? undefined);
    if (verdict !== 'ok') throw new ShortsError('invalid_media_link', verdict === 'expired' ? 'this link has expired: get a fresh one from GET /shorts/:id' : 'this link is not valid');
    const kept = await deps.service.keptSourceOf(requestId);
    if (!kept) throw new ShortsError('resource_not_found', 'this request keeps no source video');
    await serveBlob(req, res, () => deps.service.blobs.open(kept.key), kept.contentType);
  };
  const uploads: SelfHandler = async (req, res, { auth }) => {
    if (!deps.uploads) throw new ShortsError('resource_not_found', 'this server takes no uploads');
    await deps.uploads.handle(req, res, auth!.account.id);
  };
  const mcp = deps.mcp;
  const metrics = deps.metrics ?? new EngineMetrics();
  // Issue 25: one hub per server for every live progress stream (one store read per tick for all of them).
  const hub = new LiveHub({ service: deps.service, store: deps.store, metrics, log: deps.log });
  const table = bindRoutes({
    ...apiHandlers(deps.service, deps.posts, deps.automation, deps.publicUrl),
    getOpenApiDocument: async (_req, res) => send(res, 200, deps.openapi()),
    getHealth: async (_req, res) => send(res, 200, { status: 'ok' }),
    getReadiness: async (_req, res) => {
      const report = await deps.readiness();
      send(res, report.ready ? 200 : 503, report);
    },
    getMetrics: (req, res) => answerMetrics(req, res, metrics, deps.metricsToken),
    getClipVideo: media, headClipVideo: media, getClipCover: media, headClipCover: media,
    getTemplateAsset: asset, getCatalogAsset: asset,
    getSourceVideo: source, uploads, upload: uploads,
    oauthCallback: (req, res, { url }) => handleOAuthCallback(req, res, url, deps.posts.accounts, deps.accounts, { publicUrl: deps.publicUrl }),
    oauthConfirm: (req, res) => handleOAuthConfirm(req, res, deps.posts.accounts, deps.accounts, { publicUrl: deps.publicUrl }),
    mcp: mcp && ((req, res, { auth }) => mcp(req, res, auth!)),
    ...eventStreamHandlers(hub, deps.service),
    ...studio.routes,
  });

  /**
   * The caller: the key (X-API-Key or Bearer) when one is sent, else the studio's cookie, else the 401 for no
   * key. A cookie-authenticated request that changes something must come from this server's own pages.
   */
  async function authenticate(req: http.IncomingMessage): Promise<AuthContext> {
    const key = presentedKey(req.headers);
    const cookie = key === undefined ? sessionCookieOf(headerOf(req, 'cookie')) : undefined;
    if (cookie === undefined || !deps.sessions) return deps.accounts.authenticate(key);
    const auth = await deps.sessions.authenticate(cookie);
    checkSameOrigin(req, deps.publicUrl);
    return auth;
  }

  /** The key, then the route's limiter (its X-RateLimit-* headers go on every answer after it), then `answer`. */
  async function withKey(req: http.IncomingMessage, res: http.ServerResponse, limiter: LimiterName,
    answer: (auth: AuthContext, headers: Record<string, string>) => Promise<void>): Promise<void> {
    const auth = await authenticate(req);
    // The local studio is not metered, and not limited either: it is the machine's own user.
    const rate = auth.session?.local ? { headers: {}, error: null }
      : await deps.limiter.check(auth.keyId, auth.account, limiter, { accountLimits: !auth.session });
    try {
      if (rate.error) throw rate.error;
      await answer(auth, rate.headers);
    } catch (e) {
      if (e instanceof ShortsError && !res.headersSent) return sendError(res, e, rate.headers);
      throw e;
    }
  }

  /** `answered.route` is set to the matched route's operationId (the label of its answer in /metrics). */
  async function handle(req: http.IncomingMessage, res: http.ServerResponse, answered: { route: string }): Promise<void> {
    const { url, path } = parseTarget(req.url ?? '/');
    const match = matchRoute(table, req.method ?? 'GET', path);
    if (match === null) {
      // The studio's pages (issue 25): a browser asking for a page that is none of the API's paths gets the studio.
      if (isStudioPage(req, path)) return studio.files.page(req, res);
      const asset = /^\/studio-assets\/([^/]+)$/.exec(path);
      if (asset && (req.method === 'GET' || req.method === 'HEAD') && await studio.files.asset(req, res, decodeURIComponent(asset[1]!))) return;
      throw new ShortsError('resource_not_found', `no endpoint ${req.method} ${path}`);
    }
    // Which methods a path has is public (the OpenAPI document lists them), so 405 needs no key.
    if ('allow' in match) throw methodNotAllowed(req.method, path, match.allow);
    const { route, params } = match;
    answered.route = route.spec.operationId;
    if (route.answer === 'self') {
      const { spec, handle: answer } = route;
      if (spec.auth === 'none') return answer(req, res, { url, params });
      // MCP and the live streams: counted once per HTTP request (a stream: per connection, not while open); the
      // handler writes the whole answer, the counters already on it.
      return withKey(req, res, spec.limiter, async (auth, headers) => {
        for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
        await answer(req, res, { url, params, auth });
      });
    }
    const { spec, handle: answer } = route;
    return withKey(req, res, spec.limiter, async (auth, headers) => {
      if (spec.subscription && !auth.account.subscriptionActive)
        throw new ShortsError('subscription_required', 'this account has no active subscription');
      const query = Object.fromEntries(url.searchParams.entries());
      const body = spec.method === 'POST' ? await readJson(req) : undefined;
      const key = spec.method === 'POST' ? idempotencyKeyOf(req.headers) : null;
      if (key !== null) {
        // The same key, path and body again: the first answer, not a second run (nor a second charge).
        const { answer: first, replayed } = await deps.idempotency.answer({ accountId: auth.account.id, key }, fingerprintOf(spec.method, path, body), async () => {
          const result = await answer({ auth, params, query, body });
          return { status: result.status, body: JSON.stringify({ data: result.body }) };
        });
        return sendJsonText(res, first.status, first.body, replayed ? { ...headers, 'idempotent-replayed': 'true' } : headers);
      }
      const result = await answer({ auth, params, query, body });
      if (result.file) return sendFile(res, result.status, result.file, headers);
      send(res, result.status, { data: result.body }, headers);
    });
  }

  const server = http.createServer((req, res) => {
    // Labelled by route, never by path: paths carry ids, and labels must stay few.
    const answered = { route: 'none' };
    res.once('finish', () => metrics.httpAnswered(answered.route, req.method, res.statusCode));
    handle(req, res, answered).catch((e: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof ShortsError) return sendError(res, e);
      const down = engineUnavailable(e);
      if (down) {
        // A restart of the database or Redis: the client learns to try again, the log gets one line, no stack.
        deps.log(`${down.engine} unavailable on ${req.method} ${req.url}: ${down.message}`);
        return sendError(res, new ShortsError('service_unavailable', `${down.engine === 'PostgreSQL' ? 'the database' : 'Redis'} cannot be reached right now (it may be restarting); try again in a few seconds`,
          { retryAfter: UNAVAILABLE_RETRY_SEC }), { 'retry-after': String(UNAVAILABLE_RETRY_SEC) });
      }
      deps.log(`internal error on ${req.method} ${req.url}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      send(res, 500, { error: { code: 'internal_error', message: 'internal error' } });
    });
  });
  server.once('close', () => hub.close());
  return server;
}

/** The studio's sign-in routes and files (issue 25): sessions behind an HttpOnly cookie, never the key in the browser. */
function studioHandlers(deps: ApiServerDeps) {
  const files = deps.studioFiles ?? new StudioFiles();
  const secure = () => deps.publicUrl?.().startsWith('https://') ?? false;
  const sessions = (): StudioSessions => {
    if (!deps.sessions) throw new ShortsError('resource_not_found', 'this server has no studio sign-in');
    return deps.sessions;
  };
  const signedIn = (res: http.ServerResponse, token: string) => res.setHeader('set-cookie', sessionCookie(token, sessions().maxAgeSeconds, secure()));
  const current = async (req: http.IncomingMessage): Promise<AuthContext> => {
    const cookie = sessionCookieOf(headerOf(req, 'cookie'));
    if (cookie === undefined) throw new ShortsError('missing_api_key', 'not signed in to the studio');
    return sessions().authenticate(cookie);
  };
  const noStore = { 'cache-control': 'no-store' };
  const routes = {
    studioSignIn: async (req, res) => {
      // A sign-in posted by another site's page would sign this browser in to that site's account.
      if (headerOf(req, 'origin') !== undefined || headerOf(req, 'sec-fetch-site') !== undefined) checkSameOrigin(req, deps.publicUrl);
      const body = await readJson(req) as { apiKey?: unknown } | null;
      const { token, session } = await sessions().signIn(body && typeof body === 'object' ? body.apiKey : undefined);
      signedIn(res, token);
      send(res, 200, { data: session }, noStore);
    },
    studioSession: async (req, res) => send(res, 200, { data: sessions().view(await current(req)) }, noStore),
    studioSignOut: async (req, res) => {
      const cookie = sessionCookieOf(headerOf(req, 'cookie'));
      if (cookie !== undefined) {
        checkSameOrigin(req, deps.publicUrl);
        const auth = await sessions().authenticate(cookie).catch(() => undefined);
        if (auth?.session) await sessions().signOut(auth.session.tokenHash);
      }
      res.setHeader('set-cookie', sessionCookie('', 0, secure()));
      send(res, 200, { data: { signedOut: true } }, noStore);
    },
    studioSignInLink: async (_req, res, { params }) => {
      if (!sessions().local) throw new ShortsError('resource_not_found', 'one-time sign-in links are served by `shorts studio` only');
      const { token } = await sessions().redeemSignInLink(params[0]!);
      signedIn(res, token);
      res.writeHead(303, { location: '/', ...noStore, 'content-length': '0' });
      res.end();
    },
  } satisfies Partial<Record<string, SelfHandler>>;
  return { routes, files };
}
