// The OAuth 2.0 authorization-code flow around the wire code of oauth-endpoints.ts (issue 16), in its two
// places: the CLI's loopback catcher (the consent page redirects to http://127.0.0.1:<port>/callback on this
// machine, RFC 8252's native-app pattern) and `serve`'s start + callback, whose state is signed rather than
// kept, so a callback is accepted after a restart and only for the API account that started it.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Platform } from '../publish/types.js';
import { consentUrl, exchangeCode, identifyAccount, type EndpointOptions, type OAuthApp, type TokenGrant } from '../publish/oauth-endpoints.js';
import { normalizeHandle } from './connected-accounts.js';
import type { TokenBox } from './token-box.js';

/** The tokens of a completed consent and whose they are. */
export interface ConnectedGrant { tokens: TokenGrant; handle: string; platformUserId: string | null }

/** A consent page left open this long is given up on (the CLI waits, `serve` refuses the callback after it). */
export const CONSENT_TIMEOUT_MS = 10 * 60_000;

export class OAuthFlowError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OAuthFlowError';
  }
}

function page(res: http.ServerResponse, status: number, title: string, text: string): void {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const html = `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><body style="font-family:sans-serif;margin:3em">`
    + `<h1>${esc(title)}</h1><p>${esc(text)}</p></body>`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), 'cache-control': 'no-store' });
  res.end(html);
}

/** The answer page of a callback, shared by the loopback catcher and `serve`. */
export function consentPage(res: http.ServerResponse, outcome: { ok: true; platform: Platform; handle: string } | { ok: false; message: string }): void {
  if (outcome.ok) page(res, 200, 'Account connected', `The ${outcome.platform} account @${outcome.handle} is connected to shortwright. You can close this tab.`);
  else page(res, 400, 'Not connected', outcome.message);
}

/** The platform's own refusal on the redirect (`error=access_denied&error_description=…`), in words. */
export function callbackError(params: URLSearchParams): string | null {
  const error = params.get('error');
  if (!error) return null;
  const description = params.get('error_description') ?? params.get('error_reason');
  return `the platform did not grant access: ${error}${description ? ` (${description})` : ''}`;
}

/**
 * The code for tokens, and whose they are. The platform is always asked (identifyAccount): it also says
 * whether the account can publish at all (a channel, a professional account), which is better refused at
 * connect time than at the first post. A handle given by the user names the account instead of the platform's.
 */
async function grantFor(platform: Platform, app: OAuthApp, code: string, redirectUri: string, handle: string | null | undefined, opts: EndpointOptions): Promise<ConnectedGrant> {
  const tokens = await exchangeCode(platform, app, { code, redirectUri }, opts);
  const who = await identifyAccount(platform, tokens, opts);
  return { tokens, handle: normalizeHandle(handle || who.handle), platformUserId: who.platformUserId };
}

export interface LoopbackOptions {
  platform: Platform;
  app: OAuthApp;
  /** Settings (SHORTS_PLATFORM_URL_<P>), default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The catcher's port on 127.0.0.1; 0 (default) picks a free one. A fixed one fits an app whose redirect URIs must be registered. */
  port?: number;
  /** The handle to save the account under; default: the platform's own answer (whoAmI). */
  handle?: string;
  timeoutMs?: number;
  /** Called once with the consent URL: the CLI prints it (and opens a browser on a terminal). */
  onConsentUrl: (url: string, redirectUri: string) => void;
  signal?: AbortSignal;
}

/**
 * Runs a whole consent on this machine: listens on 127.0.0.1, hands out the consent URL, waits for the
 * redirect carrying our `state` (anything else is answered 400 and waited past: a stale tab or a forged
 * request must not end the flow), exchanges the code and answers the browser with the outcome.
 */
export async function connectWithLoopback(opts: LoopbackOptions): Promise<ConnectedGrant> {
  const state = randomBytes(24).toString('base64url');
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new OAuthFlowError(e.code === 'EADDRINUSE'
      ? `port ${opts.port} on 127.0.0.1 is in use; choose another with --port` : `cannot listen on 127.0.0.1: ${e.message}`)));
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  try {
    return await new Promise<ConnectedGrant>((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? CONSENT_TIMEOUT_MS;
      const timer = setTimeout(() => reject(new OAuthFlowError(`no answer from the consent page within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      const onAbort = () => reject(new OAuthFlowError('interrupted'));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
      };
      let busy = false;
      server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
        const url = new URL(req.url ?? '/', redirectUri);
        if (req.method !== 'GET' || url.pathname !== '/callback') return page(res, 404, 'Not found', 'This address only receives the consent redirect.');
        if (url.searchParams.get('state') !== state) return consentPage(res, { ok: false, message: 'This answer does not belong to the consent this shorts process is waiting for (state mismatch). Start again from the link it printed.' });
        if (busy) return consentPage(res, { ok: false, message: 'This consent is already being completed.' });
        busy = true;
        const refused = callbackError(url.searchParams);
        const code = url.searchParams.get('code');
        if (refused || !code) {
          const message = refused ?? 'the redirect carried no authorization code';
          consentPage(res, { ok: false, message });
          done();
          return reject(new OAuthFlowError(message));
        }
        grantFor(opts.platform, opts.app, code, redirectUri, opts.handle, { env: opts.env, signal: opts.signal })
          .then((grant) => {
            consentPage(res, { ok: true, platform: opts.platform, handle: grant.handle });
            done();
            resolve(grant);
          }, (e: unknown) => {
            const message = `connecting failed: ${(e as Error).message}`;
            consentPage(res, { ok: false, message });
            done();
            reject(new OAuthFlowError(message));
          });
      });
      opts.onConsentUrl(consentUrl(opts.platform, { clientId: opts.app.clientId, redirectUri, state }, { env: opts.env }), redirectUri);
    });
  } finally {
    await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
  }
}

/** What a `serve` consent's state carries: who started it, for which platform, until when. */
export interface ServeConsent { accountId: string; platform: Platform; handle: string | null; expiresAt: number }

/** A state that only this server (holder of SHORTS_SECRET_KEY) can have made: payload.mac, base64url. */
export function signConsentState(box: TokenBox, consent: ServeConsent): string {
  const payload = Buffer.from(JSON.stringify({ a: consent.accountId, p: consent.platform, h: consent.handle, e: consent.expiresAt, n: randomBytes(9).toString('base64url') })).toString('base64url');
  return `${payload}.${box.mac(payload)}`;
}

/** The consent a state was signed for; an OAuthFlowError when it was altered, forged or has expired. */
export function verifyConsentState(box: TokenBox, state: string, now = Date.now()): ServeConsent {
  const [payload, mac, extra] = state.split('.');
  if (!payload || !mac || extra !== undefined || !box.verifyMac(payload, mac)) throw new OAuthFlowError('this consent answer was not started by this server (invalid state)');
  const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { a: string; p: Platform; h: string | null; e: number };
  if (p.e < now) throw new OAuthFlowError('this consent was started too long ago; start it again');
  return { accountId: p.a, platform: p.p, handle: p.h, expiresAt: p.e };
}

/** The exchange of a `serve` callback: the code for tokens, and whose they are. */
export function completeServeConsent(app: OAuthApp, consent: ServeConsent, code: string, redirectUri: string, env?: NodeJS.ProcessEnv): Promise<ConnectedGrant> {
  return grantFor(consent.platform, app, code, redirectUri, consent.handle, { env });
}
