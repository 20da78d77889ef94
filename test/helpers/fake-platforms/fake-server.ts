// What the three fake platforms share: a real HTTP server on 127.0.0.1 (a free port), routes named after
// the platform's endpoints, per-route call counts, scripted faults (an answer, or a dropped connection,
// on the Nth call of a route), and the OAuth app + token book every platform keeps.
//
// A test points the code under test at a fake with SHORTS_PLATFORM_URL_<P>=fake.url (or a connector's
// baseUrl option): every path of the real service is served here (platforms.md 1.8, 2.6, 3.9).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

/** Something a route does instead of its normal answer. */
export type Fault =
  /** Answer this status and JSON body (an error envelope: see each fake's helpers). */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Destroy the connection: at once, or once `afterBytes` of the request body came in (mid-upload). */
  | { drop: true; afterBytes?: number }
  /** Do the work as usual but lose the answer (the connection drops instead): "did it go through?". */
  | { lose: true }
  /** Answer as usual, but only after `delayMs` (a slow platform: time to kill the process mid-publish). */
  | { delayMs: number };

interface Scripted { fault: Fault; onCall: number | null; times: number }

export interface FakeCall {
  route: string; method: string; path: string; at: number;
  /** The request's Content-Range (uploads), or its `offset` header (rupload). */
  range?: string;
}

export interface TokenRecord {
  accessToken: string;
  refreshToken: string | null;
  /** ms since epoch; an access token past it is refused like an expired one. */
  expiresAt: number;
  revoked: boolean;
}

export interface FakeOptions {
  clientId?: string;
  clientSecret?: string;
  /** Access token lifetime in seconds for tokens this fake issues. */
  accessTokenTtlSec?: number;
}

export interface Routed {
  route: string;
  /** Named parts of the path (ids). */
  params: Record<string, string>;
}

export abstract class FakePlatform {
  url = '';
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accessTokenTtlSec: number;
  /** Every request that matched a route, in order. */
  readonly calls: FakeCall[] = [];
  readonly tokens = new Map<string, TokenRecord>();
  /** Authorization codes handed out by the consent endpoint, with the redirect_uri and PKCE challenge they were issued for. */
  protected readonly codes = new Map<string, { redirectUri: string; challenge: string | null }>();
  /**
   * How this platform writes an S256 challenge (RFC 7636 says base64url of the SHA-256; TikTok's desktop flow
   * wants it in hex), or null when its consent takes no PKCE (then a code_challenge is refused as unknown).
   */
  protected readonly pkceEncoding: 'base64url' | 'hex' | null = null;
  /** Every code_challenge the consent endpoint received, in order (what a test compares the exchange against). */
  readonly challenges: string[] = [];
  /** The consent endpoint answers as if the user said no (redirect with error=access_denied). */
  consentDenied = false;
  private server: http.Server | null = null;
  private readonly scripts = new Map<string, Scripted[]>();
  private readonly counts = new Map<string, number>();

  constructor(opts: FakeOptions = {}) {
    this.clientId = opts.clientId ?? 'fake-client-id';
    this.clientSecret = opts.clientSecret ?? 'fake-client-secret';
    this.accessTokenTtlSec = opts.accessTokenTtlSec ?? 3600;
  }

  /** Which route a request is, or null (404). */
  protected abstract route(method: string, url: URL): Routed | null;
  /** The normal answer of a route. */
  protected abstract handle(r: Routed, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, url: URL): void | Promise<void>;
  /** A request body cut by a dropped connection: what the platform keeps of it (default nothing). */
  protected partial(_r: Routed, _req: http.IncomingMessage, _body: Buffer, _url: URL): void {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      this.serve(req, res).catch((e: unknown) => {
        if (!res.headersSent) this.json(res, 500, { error: { message: String((e as Error)?.message ?? e) } });
        else res.destroy();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    const s = this.server;
    this.server = null;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /**
   * Scripts a fault on `route`: on call number `onCall` of that route (1-based, counting every call
   * since start), else on its next call; `times` consecutive calls (default 1).
   */
  fail(route: string, fault: Fault, opts: { onCall?: number; times?: number } = {}): this {
    const list = this.scripts.get(route) ?? [];
    list.push({ fault, onCall: opts.onCall ?? null, times: opts.times ?? 1 });
    this.scripts.set(route, list);
    return this;
  }

  /** Drops every scripted fault not used yet (between tests). */
  clearFaults(): void {
    this.scripts.clear();
  }

  /** How many requests `route` received. */
  count(route: string): number {
    return this.counts.get(route) ?? 0;
  }

  /** A token pair as if the user had connected through the consent page (for `accounts add` tests). */
  issueTokens(opts: { ttlSec?: number; refresh?: boolean } = {}): TokenRecord {
    const t: TokenRecord = {
      accessToken: `at-${randomBytes(9).toString('hex')}`,
      refreshToken: opts.refresh === false ? null : `rt-${randomBytes(9).toString('hex')}`,
      expiresAt: Date.now() + (opts.ttlSec ?? this.accessTokenTtlSec) * 1000,
      revoked: false,
    };
    this.tokens.set(t.accessToken, t);
    return t;
  }

  /** Makes an access token answer 401 from now on (as if it had expired early). */
  expireAccessToken(accessToken: string): void {
    const t = this.tokens.get(accessToken);
    if (t) t.expiresAt = 0;
  }

  /** Revokes the grant behind a refresh token (refresh -> invalid_grant, its access tokens -> 401). */
  revoke(refreshOrAccessToken: string): void {
    for (const t of this.tokens.values()) {
      if (t.refreshToken === refreshOrAccessToken || t.accessToken === refreshOrAccessToken) t.revoked = true;
    }
  }

  /** The token record when `accessToken` is currently valid. */
  protected validToken(accessToken: string | undefined | null): TokenRecord | null {
    if (!accessToken) return null;
    const t = this.tokens.get(accessToken);
    return t && !t.revoked && t.expiresAt > Date.now() ? t : null;
  }

  protected bearer(req: http.IncomingMessage): string | null {
    const h = req.headers.authorization ?? '';
    const m = /^(?:Bearer|OAuth)\s+(.+)$/i.exec(h);
    return m ? m[1]!.trim() : null;
  }

  /** Issues a new access token for the grant of `old` (refresh); rotating gives a new refresh token too. */
  protected refreshFrom(old: TokenRecord, rotate: boolean): TokenRecord {
    const t: TokenRecord = {
      accessToken: `at-${randomBytes(9).toString('hex')}`,
      refreshToken: rotate ? `rt-${randomBytes(9).toString('hex')}` : old.refreshToken,
      expiresAt: Date.now() + this.accessTokenTtlSec * 1000,
      revoked: false,
    };
    if (rotate) old.revoked = true;
    this.tokens.set(t.accessToken, t);
    return t;
  }

  protected findByRefresh(refreshToken: string | null | undefined): TokenRecord | null {
    if (!refreshToken) return null;
    let found: TokenRecord | null = null;
    for (const t of this.tokens.values()) if (t.refreshToken === refreshToken) found = t;
    return found && !found.revoked ? found : null;
  }

  /** The consent page: redirects to redirect_uri with a fresh code and the state, as if the user agreed. */
  protected consent(res: http.ServerResponse, url: URL, clientParam: string): void {
    const clientId = url.searchParams.get(clientParam);
    const redirect = url.searchParams.get('redirect_uri');
    const state = url.searchParams.get('state');
    if (clientId !== this.clientId || !redirect) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`unknown ${clientParam} or no redirect_uri`);
      return;
    }
    const challenge = url.searchParams.get('code_challenge');
    if (challenge !== null && (this.pkceEncoding === null || url.searchParams.get('code_challenge_method') !== 'S256')) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('code_challenge: only S256 is supported, on the flows that document PKCE');
      return;
    }
    if (challenge !== null) this.challenges.push(challenge);
    const target = new URL(redirect);
    if (this.consentDenied) {
      target.searchParams.set('error', 'access_denied');
    } else {
      const code = `code-${randomBytes(9).toString('hex')}`;
      this.codes.set(code, { redirectUri: redirect, challenge });
      target.searchParams.set('code', code);
    }
    if (state !== null) target.searchParams.set('state', state);
    res.writeHead(302, { location: target.toString() }).end();
  }

  /**
   * Uses up an authorization code: true when it was issued for this redirect_uri and, when its consent carried
   * a PKCE challenge, `verifier` hashes to it (RFC 7636 4.6); a verifier for a code issued without one is refused too.
   */
  protected takeCode(code: string | null, redirectUri: string | null, verifier: string | null): boolean {
    if (!code || !this.codes.has(code)) return false;
    const issued = this.codes.get(code)!;
    this.codes.delete(code);
    if (issued.redirectUri !== redirectUri) return false;
    if (issued.challenge === null) return verifier === null;
    return verifier !== null && /^[A-Za-z0-9._~-]{43,128}$/.test(verifier)
      && createHash('sha256').update(verifier, 'ascii').digest(this.pkceEncoding!) === issued.challenge;
  }

  protected json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { ...(text ? { 'content-type': 'application/json; charset=UTF-8' } : {}), 'content-length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  }

  protected params(body: Buffer, url: URL, req: http.IncomingMessage): URLSearchParams {
    // Graph and OAuth endpoints take their fields in the query or a form body alike.
    const p = new URLSearchParams(url.search);
    if ((req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
      for (const [k, v] of new URLSearchParams(body.toString('utf8'))) p.set(k, v);
    }
    return p;
  }

  private takeFault(route: string, n: number): Fault | null {
    const list = this.scripts.get(route);
    if (!list) return null;
    const i = list.findIndex((s) => s.onCall === null || s.onCall === n);
    if (i < 0) return null;
    const s = list[i]!;
    if (s.onCall !== null) s.onCall += 1; // the next of its `times` calls
    if (--s.times <= 0) list.splice(i, 1);
    return s.fault;
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const r = this.route(method, url);
    if (!r) {
      req.resume();
      this.json(res, 404, { error: { code: 404, message: `no route ${method} ${url.pathname}` } });
      return;
    }
    const n = (this.counts.get(r.route) ?? 0) + 1;
    this.counts.set(r.route, n);
    const range = req.headers['content-range'] ?? (typeof req.headers.offset === 'string' ? `offset ${req.headers.offset}` : undefined);
    this.calls.push({ route: r.route, method, path: url.pathname + url.search, at: Date.now(), ...(range ? { range } : {}) });
    const fault = this.takeFault(r.route, n);
    if (fault && 'drop' in fault) {
      if (!fault.afterBytes) {
        req.socket.destroy();
        return;
      }
      const got = await readBody(req, fault.afterBytes);
      this.partial(r, req, got, url);
      req.socket.destroy();
      return;
    }
    const body = await readBody(req);
    if (fault && 'delayMs' in fault) {
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (!this.server) return;
      await this.handle(r, req, res, body, url);
      return;
    }
    if (fault && 'lose' in fault) {
      res.writeHead = (() => res) as typeof res.writeHead;
      res.end = (() => {
        req.socket.destroy();
        return res;
      }) as typeof res.end;
      await this.handle(r, req, res, body, url);
      return;
    }
    if (fault) {
      this.json(res, fault.status, fault.body, fault.headers);
      return;
    }
    await this.handle(r, req, res, body, url);
  }
}

/** The request body, or its first `limit` bytes (then the rest is left unread). */
function readBody(req: http.IncomingMessage, limit = Infinity): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      if (size + c.length >= limit) {
        parts.push(c.subarray(0, limit - size));
        size = limit;
        req.off('data', onData);
        req.pause();
        resolve(Buffer.concat(parts));
        return;
      }
      parts.push(c);
      size += c.length;
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export function randomId(length: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'): string {
  const bytes = randomBytes(length);
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[bytes[i]! % alphabet.length];
  return s;
}
