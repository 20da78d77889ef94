// The OAuth 2.0 authorization-code flow around the wire code of oauth-endpoints.ts (issue 16), in its two
// places: the CLI's loopback catcher (the consent page redirects to http://127.0.0.1:<port>/callback on this
// machine, RFC 8252's native-app pattern) and `serve`'s start + callback + confirmation, whose state is
// signed rather than kept, so a callback is accepted after a restart and only for the API account that
// started it. Both use PKCE (RFC 7636) where the platform's flow takes it (oauth-endpoints.ts, PKCE_ENCODING).
//
// On `serve` the consent link can be forwarded: whoever opens it consents with *their* platform account.
// So the callback saves nothing (issue 23): it exchanges the code, seals the grant into a confirmation form
// naming the API account it would go to, and only a POST of that form with that account's API key saves it.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Platform } from '../publish/types.js';
import {
  consentUrl, exchangeCode, identifyAccount, pkceChallenge, takesPkce, type ConsentFlow, type EndpointOptions, type OAuthApp, type TokenGrant,
} from '../publish/oauth-endpoints.js';
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

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Every page of a consent: never cached (it may carry a sealed grant), never framed (a confirmation button
 * must not be clickjacked), no Referer leaving it (its URL carries the code and state), forms only to itself.
 */
function page(res: http.ServerResponse, status: number, title: string, bodyHtml: string): void {
  const html = `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><body style="font-family:sans-serif;margin:3em;max-width:40em">`
    + `<h1>${esc(title)}</h1>${bodyHtml}</body>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), 'cache-control': 'no-store',
    'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  });
  res.end(html);
}

/** The answer page of a callback or a confirmation, shared by the loopback catcher and `serve`. */
export function consentPage(res: http.ServerResponse, outcome: { ok: true; platform: Platform; handle: string } | { ok: false; message: string; status?: number }): void {
  if (outcome.ok) page(res, 200, 'Account connected', `<p>${esc(`The ${outcome.platform} account @${outcome.handle} is connected to shortwright. You can close this tab.`)}</p>`);
  else page(res, outcome.status ?? 400, 'Not connected', `<p>${esc(outcome.message)}</p>`);
}

/** What `serve`'s confirmation page shows and posts back. */
export interface ConfirmationForm {
  /** Absolute URL of POST /oauth/confirm on this server. */
  action: string;
  /** The API account the channel would be connected to (its email). */
  accountEmail: string;
  platform: Platform;
  handle: string;
  platformUserId: string | null;
  /** sealPendingConsent's output. */
  sealed: string;
}

/** `serve`'s callback answer: who would be connected to whom, and a form asking for that API account's key. */
export function confirmationPage(res: http.ServerResponse, f: ConfirmationForm): void {
  const who = `${f.platform} account @${f.handle}${f.platformUserId ? ` (id ${f.platformUserId})` : ''}`;
  page(res, 200, 'Confirm the connection', `<p>${esc(`The ${who} would be connected to the shortwright API account `)}<strong>${esc(f.accountEmail)}</strong>`
    + `${esc(', which could then post as it.')}</p>`
    + `<p>${esc('Nothing is saved yet. To confirm, type the API key of that API account. If you did not start this yourself (someone sent you this link), close this page: nothing will be connected.')}</p>`
    + `<form method="post" action="${esc(f.action)}" autocomplete="off">`
    + `<input type="hidden" name="consent" value="${esc(f.sealed)}">`
    + `<p><label>${esc(`API key of ${f.accountEmail}`)}<br><input type="password" name="apiKey" required size="60" autocomplete="off"></label></p>`
    + '<p><button type="submit">Connect</button></p></form>');
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
async function grantFor(
  platform: Platform, app: OAuthApp, code: string, redirectUri: string, codeVerifier: string | null, handle: string | null | undefined, opts: EndpointOptions,
): Promise<ConnectedGrant> {
  const tokens = await exchangeCode(platform, app, { code, redirectUri, codeVerifier }, opts);
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
  // PKCE: the verifier never leaves this process; a code caught by another program on this machine is useless without it.
  const verifier = randomBytes(32).toString('base64url');
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new OAuthFlowError(e.code === 'EADDRINUSE'
      ? `port ${opts.port} on 127.0.0.1 is in use; choose another with --port` : `cannot listen on 127.0.0.1: ${e.message}`)));
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const codeChallenge = pkceChallenge(opts.platform, 'loopback', verifier);
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
        grantFor(opts.platform, opts.app, code, redirectUri, codeChallenge ? verifier : null, opts.handle, { env: opts.env, signal: opts.signal })
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
      opts.onConsentUrl(consentUrl(opts.platform, { clientId: opts.app.clientId, redirectUri, state, codeChallenge }, { env: opts.env }), redirectUri);
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

/**
 * The PKCE verifier of a `serve` consent, derived from its signed state with the server's key rather than
 * kept: only this server can produce it, and a code injected into another consent's callback (a code stolen
 * from someone else's redirect) is refused by the platform, the other state giving another verifier. The
 * prefix keeps these MACs apart from the state's own (a state's payload is base64url: never a ':').
 */
function serveVerifier(box: TokenBox, state: string): string {
  return box.mac(`pkce-verifier:${state}`);
}

/** The flow `serve` runs: its redirect is its public /oauth/callback. */
const SERVE_FLOW: ConsentFlow = 'web';

/** The consent page URL of a `serve` consent: its signed state, and its PKCE challenge where the platform takes one. */
export function serveConsentUrl(box: TokenBox, app: OAuthApp, consent: ServeConsent, redirectUri: string, env?: NodeJS.ProcessEnv): string {
  const state = signConsentState(box, consent);
  const codeChallenge = pkceChallenge(consent.platform, SERVE_FLOW, serveVerifier(box, state));
  return consentUrl(consent.platform, { clientId: app.clientId, redirectUri, state, codeChallenge }, { env });
}

/** The exchange of a `serve` callback: the code for tokens (with the state's verifier), and whose they are. */
export function completeServeConsent(
  box: TokenBox, app: OAuthApp, consent: ServeConsent, state: string, code: string, redirectUri: string, env?: NodeJS.ProcessEnv,
): Promise<ConnectedGrant> {
  const verifier = takesPkce(consent.platform, SERVE_FLOW) ? serveVerifier(box, state) : null;
  return grantFor(consent.platform, app, code, redirectUri, verifier, consent.handle, { env });
}

/** How long the confirmation page of a `serve` callback stays valid: codes are spent, the grant waits sealed in the page. */
export const CONFIRM_TIMEOUT_MS = 10 * 60_000;

/** A `serve` consent exchanged at the callback, waiting for its starter's API key (it travels sealed in the form). */
export interface PendingConsent {
  accountId: string;
  platform: Platform;
  grant: ConnectedGrant;
  /** When the code was exchanged (ms): the grant's lifetimes count from then. */
  exchangedAt: number;
  expiresAt: number;
}

/** AES-GCM's additional data of a sealed pending consent: a sealed token of a stored account never opens as one. */
const PENDING_CONTEXT = 'oauth consent awaiting confirmation v1';

export function sealPendingConsent(box: TokenBox, pending: PendingConsent): string {
  return box.seal(JSON.stringify(pending), PENDING_CONTEXT);
}

/**
 * The pending consent of a confirmation form, its token lifetimes counted from now; an OAuthFlowError when
 * the form was not made by this server, was altered, or is too old.
 */
export function openPendingConsent(box: TokenBox, sealed: string, now = Date.now()): PendingConsent {
  let p: PendingConsent;
  try {
    p = JSON.parse(box.open(sealed, PENDING_CONTEXT)) as PendingConsent;
  } catch {
    throw new OAuthFlowError('this confirmation was not made by this server (or was altered); start connecting again');
  }
  if (p.expiresAt < now) throw new OAuthFlowError('this confirmation page is too old; start connecting again');
  const elapsed = Math.max(0, Math.floor((now - p.exchangedAt) / 1000));
  const less = (sec: number | null) => (sec === null ? null : Math.max(1, sec - elapsed));
  const t = p.grant.tokens;
  return { ...p, grant: { ...p.grant, tokens: { ...t, expiresInSec: less(t.expiresInSec), refreshExpiresInSec: less(t.refreshExpiresInSec) } } };
}
