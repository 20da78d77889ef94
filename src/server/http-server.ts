// `shorts serve`'s HTTP adapter over the Service: authentication, the two rate-limit layers and their
// headers, subscription checks, JSON envelopes and the one error handler. No business rules here.
import http from 'node:http';
import { ShortsError } from '../errors.js';
import type { AccountStore } from '../service/accounts.js';
import type { Service } from '../service/service.js';
import type { JobStore } from '../engine/job-store.js';
import type { RateLimiter } from './rate-limit.js';
import type { MediaLinks } from './media-links.js';
import { serveFile } from './serve-file.js';
import { templateAssetFile } from '../catalog/template-previews.js';
import { catalogPreviewFile } from '../catalog/catalog-previews.js';
import { matchRoute, type Route } from './router.js';

export interface ReadinessReport { ready: boolean; checks: Record<string, { ok: boolean; detail: string }> }

export interface ApiServerDeps {
  service: Service;
  store: JobStore;
  accounts: AccountStore;
  limiter: RateLimiter;
  mediaLinks: MediaLinks;
  openapi: () => object;
  readiness: () => Promise<ReadinessReport>;
  log: (line: string) => void;
}

const API = '/api/v1';
const MAX_BODY_BYTES = 1024 * 1024;
const ID = '([^/]+)';

function routes(service: Service): Route[] {
  const api = (suffix: string) => new RegExp(`^${API}${suffix}$`);
  const catalog = (kind: 'music' | 'memeHooks' | 'gameVideos') => (q: Record<string, string | undefined>) => {
    const { items, pagination } = service.catalog(kind, q);
    return { status: 200, body: { data: { [kind]: items, pagination } } };
  };
  return [
    { method: 'GET', pattern: api('/shorts'), limiter: 'listRequests', handle: ({ auth, query }) => ({ status: 200, body: { data: service.list(auth.account, 'api', query) } }) },
    { method: 'POST', pattern: api('/shorts/create'), limiter: 'videoCreation', subscription: true,
      handle: async ({ auth, body }) => ({ status: 202, body: await service.create(auth.account, body, 'api') }) },
    { method: 'GET', pattern: api(`/shorts/${ID}/status`), limiter: 'statusCheck', handle: ({ auth, params }) => ({ status: 200, body: service.status(auth.account, params[0]!) }) },
    { method: 'GET', pattern: api(`/shorts/${ID}`), limiter: 'statusCheck', handle: ({ auth, params }) => ({ status: 200, body: service.detail(auth.account, params[0]!) }) },
    { method: 'DELETE', pattern: api(`/shorts/${ID}`), limiter: 'standard', handle: ({ auth, params }) => ({ status: 200, body: service.cancel(auth.account, params[0]!) }) },
    { method: 'GET', pattern: api('/posts'), limiter: 'posts', subscription: true, handle: ({ auth, query }) => ({ status: 200, body: { data: service.posts(auth.account, query) } }) },
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

function sendError(res: http.ServerResponse, e: ShortsError, headers: Record<string, string> = {}): void {
  const error: Record<string, unknown> = { code: e.code, message: e.message };
  if (e.details) error.details = e.details;
  send(res, e.httpStatus, { error }, headers);
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
 * GET/HEAD of a public catalog image: a template preview (`/assets/templates/<file>`) or a catalog item's
 * preview (`/assets/catalog/<folder>/<name>/preview`). Each lookup accepts only its own exact shapes and
 * names, so `..`, encoded separators and every other file are a 404, never a file elsewhere.
 */
export async function servePublicAsset(req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
  const asset = templateAssetFile(pathname) ?? catalogPreviewFile(pathname);
  if (!asset) throw new ShortsError('resource_not_found', 'no such image');
  await serveFile(req, res, asset.file, asset.contentType);
}

export function createApiServer(deps: ApiServerDeps): http.Server {
  const table = routes(deps.service);

  async function handleMedia(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    const m = /^\/media\/([0-9a-f]{24})\/([0-9a-f-]{36})\.mp4$/.exec(url.pathname);
    if (!m || (req.method !== 'GET' && req.method !== 'HEAD')) throw new ShortsError('resource_not_found', 'no such media');
    const [, requestId, shortId] = m as unknown as [string, string, string];
    const verdict = deps.mediaLinks.verify(requestId, shortId, url.searchParams.get('expires') ?? undefined, url.searchParams.get('sig') ?? undefined);
    if (verdict !== 'ok') throw new ShortsError('invalid_media_link', verdict === 'expired' ? 'this link has expired: get a fresh one from GET /shorts/:id' : 'this link is not valid');
    const short = deps.store.listShorts(requestId).find((s) => s.id === shortId);
    if (!short?.filePath) throw new ShortsError('resource_not_found', 'this clip has no video file');
    await serveFile(req, res, short.filePath, 'video/mp4');
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/healthz') return send(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const report = await deps.readiness();
      return send(res, report.ready ? 200 : 503, report);
    }
    if (path === `${API}/openapi.json`) return send(res, 200, deps.openapi());
    if (path.startsWith('/media/')) return handleMedia(req, res, url);
    // Catalog images (template and catalog-item previews) are public: no API key, no rate limit; static files only.
    if (url.pathname.startsWith('/assets/')) return servePublicAsset(req, res, url.pathname);

    const match = matchRoute(table, req.method ?? 'GET', path);
    if (match === null) throw new ShortsError('resource_not_found', `no endpoint ${req.method} ${path}`);
    const auth = deps.accounts.authenticate(headerValue(req.headers['x-api-key']));
    if (match === 'method') throw new ShortsError('resource_not_found', `${req.method} is not supported on ${path}`);
    const { route, params } = match;
    const rate = deps.limiter.check(auth.keyId, auth.account, route.limiter);
    try {
      if (rate.error) throw rate.error;
      if (route.subscription && !auth.account.subscriptionActive)
        throw new ShortsError('subscription_required', 'this account has no active subscription');
      const query = Object.fromEntries(url.searchParams.entries());
      const body = route.method === 'POST' ? await readJson(req) : undefined;
      const result = await route.handle({ auth, params, query, body });
      send(res, result.status, result.body, rate.headers);
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

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
