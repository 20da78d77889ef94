// `shorts serve`'s HTTP adapter over the Service: authentication, the two rate-limit layers and their
// headers, subscription checks, JSON envelopes and the one error handler. No business rules here.
// Envelopes are decided here and only here: every 2xx of an /api/v1 route is `{ "data": <what the
// route returned> }` (integrations of the hosted API read `result.data.<field>` on every endpoint),
// every error `{ "error": {code, message, details?} }`.
import http from 'node:http';
import { ShortsError } from '../errors.js';
import { presentedKey, type AccountStore, type AuthContext } from '../service/accounts.js';
import type { Service } from '../service/service.js';
import type { JobStore } from '../engine/job-store.js';
import type { RateLimiter } from './rate-limit.js';
import { coverFileOf, MEDIA_CONTENT_TYPES, parseMediaPath, type MediaLinks } from './media-links.js';
import { serveFile } from './serve-file.js';
import { templateAssetFile } from '../pipeline/template-previews.js';
import { catalogAssetFile } from '../catalog/catalog-assets.js';
import { matchRoute, type Route, type RouteResult } from './router.js';
import { exportLocal } from '../service/export-service.js';
import type { PostsService } from '../posts/posts-service.js';
import type { Automation } from '../posts/automation.js';
import { accountsRoutes, handleOAuthCallback, OAUTH_CALLBACK_PATH } from './accounts-routes.js';

export interface ReadinessReport { ready: boolean; checks: Record<string, { ok: boolean; detail: string }> }

export interface ApiServerDeps {
  service: Service;
  /** Scheduling and canceling posts (issue 16). */
  posts: PostsService;
  /** Automation rules of connected accounts (issue 16). */
  automation: Automation;
  /** The server's public base (SHORTS_PUBLIC_URL, else its address): the OAuth redirect base. */
  publicUrl?: () => string;
  store: JobStore;
  accounts: AccountStore;
  limiter: RateLimiter;
  mediaLinks: MediaLinks;
  openapi: () => object;
  readiness: () => Promise<ReadinessReport>;
  log: (line: string) => void;
  /**
   * The MCP endpoint (Streamable HTTP), any method on `/mcp`. Called after the key is checked and the
   * 'standard' limiter has counted the HTTP request (its X-RateLimit-* headers are already set on `res`);
   * it writes the whole response itself. A ShortsError it throws before writing becomes the error envelope.
   */
  mcp?: (req: http.IncomingMessage, res: http.ServerResponse, auth: AuthContext) => Promise<void>;
}

const API = '/api/v1';
const MAX_BODY_BYTES = 1024 * 1024;
const ID = '([^/]+)';

function routes(service: Service, posts: PostsService, automation: Automation, publicUrl: (() => string) | undefined): Route[] {
  const api = (suffix: string) => new RegExp(`^${API}${suffix}$`);
  const catalog = (kind: 'music' | 'memeHooks' | 'gameVideos') => (q: Record<string, string | undefined>) => {
    const { items, pagination } = service.catalog(kind, q);
    return { status: 200, body: { [kind]: items, pagination } };
  };
  return [
    { method: 'GET', pattern: api('/shorts'), limiter: 'listRequests', handle: ({ auth, query }) => ({ status: 200, body: service.list(auth.account, 'api', query) }) },
    { method: 'POST', pattern: api('/shorts/create'), limiter: 'videoCreation', subscription: true,
      handle: async ({ auth, body }) => ({ status: 202, body: await service.create(auth.account, body, 'api') }) },
    { method: 'GET', pattern: api(`/shorts/${ID}/status`), limiter: 'statusCheck', handle: ({ auth, params }) => ({ status: 200, body: service.status(auth.account, params[0]!) }) },
    { method: 'GET', pattern: api(`/shorts/${ID}`), limiter: 'statusCheck', handle: ({ auth, params }) => ({ status: 200, body: service.detail(auth.account, params[0]!) }) },
    { method: 'DELETE', pattern: api(`/shorts/${ID}`), limiter: 'standard', handle: ({ auth, params }) => ({ status: 200, body: service.cancel(auth.account, params[0]!) }) },
    { method: 'POST', pattern: api(`/shorts/${ID}/shorts/${ID}/render`), limiter: 'standard', handle: async ({ auth, params, body }) => ({ status: 202, body: await service.rerender(auth.account, params[0]!, params[1]!, body) }) },
    // Exports (issue 14): the file itself, not an envelope; one clip, or the whole request in rank order.
    { method: 'GET', pattern: api(`/shorts/${ID}/shorts/${ID}/export`), limiter: 'statusCheck',
      handle: async ({ auth, params, query }) => ({ status: 200, file: await exportLocal(service.store, auth.account, params[0]!, params[1]!, query.format) }) },
    { method: 'GET', pattern: api(`/shorts/${ID}/export`), limiter: 'statusCheck',
      handle: async ({ auth, params, query }) => ({ status: 200, file: await exportLocal(service.store, auth.account, params[0]!, null, query.format) }) },
    { method: 'GET', pattern: api('/posts'), limiter: 'posts', subscription: true, handle: ({ auth, query }) => ({ status: 200, body: service.posts(auth.account, query) }) },
    // Issue 16: connected accounts, scheduling and canceling posts, and the automation rules of a connected account.
    ...accountsRoutes(service, { publicUrl }),
    { method: 'POST', pattern: api('/posts'), limiter: 'standard', subscription: true, handle: ({ auth, body }) => ({ status: 201, body: posts.schedule(auth.account, body) }) },
    { method: 'GET', pattern: api(`/posts/${ID}`), limiter: 'posts', subscription: true, handle: ({ auth, params }) => ({ status: 200, body: posts.get(auth.account, params[0]!) }) },
    { method: 'DELETE', pattern: api(`/posts/${ID}`), limiter: 'standard', handle: ({ auth, params }) => ({ status: 200, body: posts.cancel(auth.account, params[0]!) }) },
    { method: 'GET', pattern: api(`/accounts/${ID}/automation`), limiter: 'standard', handle: ({ auth, params }) => ({ status: 200, body: { rules: automation.list(auth.account.id, params[0]!) } }) },
    { method: 'POST', pattern: api(`/accounts/${ID}/automation`), limiter: 'standard', subscription: true, handle: ({ auth, params, body }) => ({ status: 201, body: automation.add(auth.account.id, params[0]!, body) }) },
    { method: 'DELETE', pattern: api(`/accounts/${ID}/automation/${ID}`), limiter: 'standard', handle: ({ auth, params }) => ({ status: 200, body: automation.remove(auth.account.id, params[0]!, params[1]!) }) },
    { method: 'GET', pattern: api('/templates'), limiter: 'standard', handle: () => ({ status: 200, body: service.templates() }) },
    { method: 'GET', pattern: api('/music'), limiter: 'statusCheck', handle: ({ query }) => catalog('music')(query) },
    { method: 'GET', pattern: api('/meme-hooks'), limiter: 'statusCheck', handle: ({ query }) => catalog('memeHooks')(query) },
    { method: 'GET', pattern: api('/game-videos'), limiter: 'statusCheck', handle: ({ query }) => catalog('gameVideos')(query) },
  ];
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
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

/** The outside-the-API endpoints (health, readiness, the OpenAPI document): read-only, GET and HEAD only. */
const READ_ONLY = ['GET', 'HEAD'];

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
  const table = routes(deps.service, deps.posts, deps.automation, deps.publicUrl);

  async function handleMedia(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const m = parseMediaPath(url.pathname);
    if (!m || (req.method !== 'GET' && req.method !== 'HEAD')) throw new ShortsError('resource_not_found', 'no such media');
    const { requestId, shortId, kind } = m;
    const verdict = deps.mediaLinks.verify(requestId, shortId, url.searchParams.get('expires') ?? undefined, url.searchParams.get('sig') ?? undefined, kind);
    if (verdict !== 'ok') throw new ShortsError('invalid_media_link', verdict === 'expired' ? 'this link has expired: get a fresh one from GET /shorts/:id' : 'this link is not valid');
    const short = deps.store.listShorts(requestId).find((s) => s.id === shortId);
    if (!short?.filePath) throw new ShortsError('resource_not_found', 'this clip has no video file');
    await serveFile(req, res, kind === 'jpg' ? coverFileOf(short.filePath) : short.filePath, MEDIA_CONTENT_TYPES[kind]);
  }

  /** `/mcp`: authenticated like the API, counted by the 'standard' limiter once per HTTP request. */
  async function handleMcp(req: http.IncomingMessage, res: http.ServerResponse, mcp: NonNullable<ApiServerDeps['mcp']>): Promise<void> {
    const auth = deps.accounts.authenticate(presentedKey(req.headers));
    const rate = deps.limiter.check(auth.keyId, auth.account, 'standard');
    try {
      if (rate.error) throw rate.error;
      for (const [name, value] of Object.entries(rate.headers)) res.setHeader(name, value);
      await mcp(req, res, auth);
    } catch (e) {
      if (e instanceof ShortsError && !res.headersSent) return sendError(res, e, rate.headers);
      throw e;
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const { url, path } = parseTarget(req.url ?? '/');
    const readOnly = path === '/healthz' || path === '/readyz' || path === `${API}/openapi.json`;
    if (readOnly && !READ_ONLY.includes(req.method ?? '')) throw methodNotAllowed(req.method, path, READ_ONLY);
    if (path === '/healthz') return send(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const report = await deps.readiness();
      return send(res, report.ready ? 200 : 503, report);
    }
    if (path === `${API}/openapi.json`) return send(res, 200, deps.openapi());
    if (path.startsWith('/media/')) return handleMedia(req, res, url);
    // Catalog images (template and catalog-item previews) are public: no API key, no rate limit; static files only.
    if (url.pathname.startsWith('/assets/')) return servePublicAsset(req, res, url.pathname);
    // The browser's consent redirect: no API key, the signed state names the API account.
    if (path === OAUTH_CALLBACK_PATH) return handleOAuthCallback(req, res, url, deps.service, { publicUrl: deps.publicUrl });
    if (path === '/mcp' && deps.mcp) return handleMcp(req, res, deps.mcp);

    const match = matchRoute(table, req.method ?? 'GET', path);
    if (match === null) throw new ShortsError('resource_not_found', `no endpoint ${req.method} ${path}`);
    // Which methods a path has is public (the OpenAPI document lists them), so 405 needs no key.
    if ('allow' in match) throw methodNotAllowed(req.method, path, match.allow);
    const auth = deps.accounts.authenticate(presentedKey(req.headers));
    const { route, params } = match;
    const rate = deps.limiter.check(auth.keyId, auth.account, route.limiter);
    try {
      if (rate.error) throw rate.error;
      if (route.subscription && !auth.account.subscriptionActive)
        throw new ShortsError('subscription_required', 'this account has no active subscription');
      const query = Object.fromEntries(url.searchParams.entries());
      const body = route.method === 'POST' ? await readJson(req) : undefined;
      const result = await route.handle({ auth, params, query, body });
      if (result.file) return sendFile(res, result.status, result.file, rate.headers);
      send(res, result.status, { data: result.body }, rate.headers);
    } catch (e) {
      if (e instanceof ShortsError) return sendError(res, e, rate.headers);
      throw e;
    }
  }

  return http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof ShortsError) return sendError(res, e);
      deps.log(`internal error on ${req.method} ${req.url}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      send(res, 500, { error: { code: 'internal_error', message: 'internal error' } });
    });
  });
}
