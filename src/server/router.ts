// The route table of the Shorts API: method + path pattern -> rate limiter, subscription rule, handler.
// Handlers return a status and the inner JSON body; everything else (auth, limits, the `{data}` envelope,
// errors) is the server's job, so a handler stays a one-liner over the Service.
import type { AuthContext } from '../service/accounts.js';
import type { LimiterName } from './rate-limit.js';

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

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  limiter: LimiterName;
  /** Spec 5.4: create and posts need an active subscription. */
  subscription?: boolean;
  handle: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

export type RouteMatch =
  | { route: Route; params: string[] }
  /** The path is known but not with this method: `allow` lists the methods it has (for 405's Allow header). */
  | { allow: string[] }
  | null;

/**
 * Finds the route for a method and an already-validated pathname. Parameters are percent-decoded here;
 * the server has checked the whole path's encoding first, so decoding cannot fail on a client's typo.
 */
export function matchRoute(routes: readonly Route[], method: string, pathname: string): RouteMatch {
  const allow: string[] = [];
  for (const route of routes) {
    const m = route.pattern.exec(pathname);
    if (!m) continue;
    if (route.method === method) return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
    if (!allow.includes(route.method)) allow.push(route.method);
  }
  return allow.length > 0 ? { allow } : null;
}
