// The route table of the Shorts API: method + path pattern -> rate limiter, subscription rule, handler.
// Handlers return a status and a JSON body; everything else (auth, limits, envelopes, errors) is the
// server's job, so a handler stays a one-liner over the Service.
import type { AuthContext } from '../service/accounts.js';
import type { LimiterName } from './rate-limit.js';

export interface RouteContext {
  auth: AuthContext;
  params: string[];
  query: Record<string, string | undefined>;
  body: unknown;
}

export interface RouteResult { status: number; body: unknown }

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  limiter: LimiterName;
  /** Spec 5.4: create and posts need an active subscription. */
  subscription?: boolean;
  handle: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

export function matchRoute(routes: readonly Route[], method: string, pathname: string): { route: Route; params: string[] } | 'method' | null {
  let pathMatched = false;
  for (const route of routes) {
    const m = route.pattern.exec(pathname);
    if (!m) continue;
    pathMatched = true;
    if (route.method === method) return { route, params: m.slice(1).map((p) => decodeURIComponent(p)) };
  }
  return pathMatched ? 'method' : null;
}
