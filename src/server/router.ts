// Dispatch over the route table (src/api/routes.ts): each entry's path template becomes a pattern, and
// the server's handler for its operationId is bound to it. The handler map's type is derived from the
// table, so a route the server does not handle, or a handler for no route, is a compile error.
// Handlers of enveloped routes return a status and the inner JSON body; everything else (auth, limits,
// the `{data}` envelope, errors) is the server's job, so such a handler stays a one-liner over the Service.
import type http from 'node:http';
import type { AuthContext } from '../service/accounts.js';
import { fullPath, ROUTES, type EnvelopeRoute, type Route, type RouteSpec, type SelfRoute } from '../api/routes.js';

export interface RouteContext {
  auth: AuthContext;
  params: string[];
  query: Record<string, string | undefined>;
  body: unknown;
}

/**
 * `body` is the resource itself: the server sends it as `{ "data": body }`. `file` instead is sent as it
 * is (an export: its own Content-Type, and Content-Disposition naming the file), never enveloped.
 */
export interface RouteResult { status: number; body?: unknown; file?: { contentType: string; filename: string; body: Buffer } }

export type EnvelopeHandler = (ctx: RouteContext) => RouteResult | Promise<RouteResult>;

/** What a handler that writes its own answer gets: the parsed target, its path parameters, and the caller when the route takes a key. */
export interface SelfContext { url: URL; params: string[]; auth?: AuthContext }
export type SelfHandler = (req: http.IncomingMessage, res: http.ServerResponse, ctx: SelfContext) => Promise<void>;

/** One handler per operationId of the table; an optional route's may be absent (the route is then not served). */
export type RouteHandlers = {
  [R in Route as R['operationId']]: R extends { answer: 'envelope' } ? EnvelopeHandler
    : R extends { optional: true } ? SelfHandler | undefined : SelfHandler;
};

export type BoundRoute =
  | { answer: 'envelope'; spec: EnvelopeRoute; pattern: RegExp; handle: EnvelopeHandler }
  | { answer: 'self'; spec: SelfRoute; pattern: RegExp; handle: SelfHandler };

/** `/shorts/{id}/status` -> `^/api/v1/shorts/([^/]+)/status$`: a parameter is one path segment. */
function patternOf(spec: RouteSpec): RegExp {
  const source = fullPath(spec).split(/(\{[^}]+\})/).map((part) => (/^\{[^}]+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`);
}

/** The table with the server's handlers, in table order; an optional route without a handler is left out. */
export function bindRoutes(handlers: RouteHandlers): BoundRoute[] {
  const byId = handlers as Record<string, EnvelopeHandler | SelfHandler | undefined>;
  const bound: BoundRoute[] = [];
  for (const spec of ROUTES as readonly RouteSpec[]) {
    const handle = byId[spec.operationId];
    if (handle) bound.push({ answer: spec.answer, spec, pattern: patternOf(spec), handle } as BoundRoute);
  }
  return bound;
}

/** The methods a route answers: its own, and HEAD beside GET where the table says so. */
function methodsOf(spec: RouteSpec): readonly string[] {
  return spec.answer === 'self' && spec.alsoHead ? ['GET', 'HEAD'] : [spec.method];
}

export type RouteMatch =
  | { route: BoundRoute; params: string[] }
  /** The path is known but not with this method: `allow` lists the methods it has (for 405's Allow header). */
  | { allow: string[] }
  | null;

/**
 * Finds the route for a method and an already-validated pathname. Parameters are percent-decoded here;
 * the server has checked the whole path's encoding first, so decoding cannot fail on a client's typo.
 */
export function matchRoute(routes: readonly BoundRoute[], method: string, pathname: string): RouteMatch {
  const allow: string[] = [];
  for (const route of routes) {
    const m = route.pattern.exec(pathname);
    if (!m) continue;
    const methods = methodsOf(route.spec);
    if (route.spec.method === 'ANY' || methods.includes(method)) return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
    for (const each of methods) if (!allow.includes(each)) allow.push(each);
  }
  return allow.length > 0 ? { allow } : null;
}
