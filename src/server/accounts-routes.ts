// `/api/v1/accounts`: the connected platform accounts of the calling API account (issue 16). Listing,
// adding tokens obtained elsewhere, removing, and the OAuth consent run by the server: POST .../connect
// answers the platform's consent URL, whose redirect comes back to `/oauth/callback` (outside /api/v1: the
// user's browser calls it, with no API key; the signed `state` says which API account it is for). The
// callback saves nothing: its page asks for that API account's key, posted to `/oauth/confirm` (issue 23).
import type http from 'node:http';
import { ShortsError } from '../errors.js';
import { oauthApp, oauthAppSettings } from '../publish/oauth-endpoints.js';
import { PLATFORMS, type Platform } from '../publish/types.js';
import { grantInput, type ConnectedAccounts, isPlatform, normalizeHandle, parseAddAccountInput } from '../posts/connected-accounts.js';
import {
  callbackError, completeServeConsent, CONFIRM_TIMEOUT_MS, confirmationPage, CONSENT_TIMEOUT_MS, consentPage, OAuthFlowError, openPendingConsent,
  sealPendingConsent, serveConsentUrl, verifyConsentState,
} from '../posts/oauth-flow.js';
import type { AccountStore } from '../service/accounts.js';
import { setting } from '../settings.js';
import type { RouteHandlers } from './router.js';

/** Where platforms send the browser back after consent: `<SHORTS_PUBLIC_URL>/oauth/callback`. */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';
/** Where the callback's page posts the starting API account's key. */
export const OAUTH_CONFIRM_PATH = '/oauth/confirm';

export interface AccountsRoutesOptions {
  /** The server's public base (SHORTS_PUBLIC_URL, else the address it listens on). Default: SHORTS_PUBLIC_URL. */
  publicUrl?: () => string;
  env?: NodeJS.ProcessEnv;
}

function publicBase(opts: AccountsRoutesOptions): string {
  const base = opts.publicUrl?.() ?? setting('SHORTS_PUBLIC_URL', opts.env);
  if (!base) throw new ShortsError('internal_error', 'this server does not know its public address: its operator must set SHORTS_PUBLIC_URL to connect accounts');
  return base.replace(/\/+$/, '');
}

function redirectUri(opts: AccountsRoutesOptions): string {
  return `${publicBase(opts)}${OAUTH_CALLBACK_PATH}`;
}

function platformOf(v: unknown, parameter = 'platform'): Platform {
  if (!isPlatform(v)) throw new ShortsError('invalid_request', `${parameter} must be one of ${PLATFORMS.join(', ')}`, { parameter });
  return v;
}

function notFound(id: string): ShortsError {
  return new ShortsError('resource_not_found', `no connected account ${id}`);
}

type AccountsHandlers = Pick<RouteHandlers, 'listConnectedAccounts' | 'addConnectedAccount' | 'connectAccount' | 'getConnectedAccount' | 'removeConnectedAccount'>;

/** The handlers of the connected-accounts routes of the table (src/api/routes.ts). */
/** `accounts`: the engine's, looked up when a route is called. */
export function accountsRoutes(accounts: () => ConnectedAccounts, opts: AccountsRoutesOptions = {}): AccountsHandlers {
  return {
    listConnectedAccounts: async ({ auth, query }) => ({
      status: 200, body: { accounts: await accounts().list(auth.account.id, query.platform === undefined ? undefined : platformOf(query.platform)) },
    }),
    addConnectedAccount: async ({ auth, body }) => ({
      status: 201, body: await accounts().addChecked(auth.account.id, parseAddAccountInput(body)),
    }),
    connectAccount: ({ auth, body }) => {
      const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      const platform = platformOf(b.platform);
      if (b.handle !== undefined && (typeof b.handle !== 'string' || normalizeHandle(b.handle) === '' || normalizeHandle(b.handle).length > 100)) {
        throw new ShortsError('invalid_request', 'handle must be the account\'s name on the platform', { parameter: 'handle' });
      }
      const app = oauthApp(platform, opts.env);
      if (!app) {
        throw new ShortsError('invalid_request', `${platform} accounts cannot be connected through this server: its operator has not set `
          + `${oauthAppSettings(platform).join(' and ')}; add the account's tokens with POST /accounts instead`, { parameter: 'platform' });
      }
      const expiresAt = Date.now() + CONSENT_TIMEOUT_MS;
      const uri = redirectUri(opts);
      const authorizationUrl = serveConsentUrl(accounts().tokens(), app, {
        accountId: auth.account.id, platform, handle: typeof b.handle === 'string' ? normalizeHandle(b.handle) : null, expiresAt,
      }, uri, opts.env);
      return { status: 200, body: { platform, authorizationUrl, redirectUri: uri, expiresAt: new Date(expiresAt).toISOString() } };
    },
    getConnectedAccount: async ({ auth, params }) => {
      const found = await accounts().get(auth.account.id, params[0]!);
      if (!found) throw notFound(params[0]!);
      return { status: 200, body: found };
    },
    removeConnectedAccount: async ({ auth, params }) => {
      const removed = await accounts().remove(auth.account.id, params[0]!);
      if (!removed) throw notFound(params[0]!);
      return { status: 200, body: { id: params[0]!, deleted: true, canceledPosts: removed.canceledPosts } };
    },
  };
}

/**
 * GET /oauth/callback?code&state (or ?error&state): the browser coming back from the consent page. Exchanges
 * the code (it expires within minutes) and answers a confirmation page naming the API account that started
 * the consent and the platform account it would get, the grant sealed in its form. Nothing is saved here:
 * whoever opened a forwarded link is not that API account's holder (handleOAuthConfirm).
 */
export async function handleOAuthCallback(
  _req: http.IncomingMessage, res: http.ServerResponse, url: URL, accounts: ConnectedAccounts, apiAccounts: AccountStore, opts: AccountsRoutesOptions = {},
): Promise<void> {
  const fail = (message: string) => consentPage(res, { ok: false, message });
  const state = url.searchParams.get('state') ?? '';
  let consent;
  try {
    consent = verifyConsentState(accounts.tokens(), state);
  } catch (e) {
    if (e instanceof OAuthFlowError || e instanceof SyntaxError) return fail(e instanceof OAuthFlowError ? e.message : 'invalid state');
    throw e;
  }
  const refused = callbackError(url.searchParams);
  if (refused) return fail(refused);
  const code = url.searchParams.get('code');
  if (!code) return fail('the redirect carried no authorization code');
  const app = oauthApp(consent.platform, opts.env);
  if (!app) return fail(`this server has no ${consent.platform} OAuth app configured any more`);
  const owner = await apiAccounts.getAccount(consent.accountId);
  if (!owner) return fail('the API account that started this consent no longer exists');
  let grant;
  try {
    grant = await completeServeConsent(accounts.tokens(), app, consent, state, code, redirectUri(opts), opts.env);
  } catch (e) {
    if (e instanceof ShortsError) throw e;
    return fail(`connecting failed: ${(e as Error).message}`);
  }
  const held = await accounts.heldElsewhere(consent.accountId, consent.platform, grant.platformUserId);
  if (held) return consentPage(res, { ok: false, message: held, status: 409 });
  const now = Date.now();
  confirmationPage(res, {
    action: `${publicBase(opts)}${OAUTH_CONFIRM_PATH}`, accountEmail: owner.email, platform: consent.platform, handle: grant.handle,
    platformUserId: grant.platformUserId,
    sealed: sealPendingConsent(accounts.tokens(), { accountId: consent.accountId, platform: consent.platform, grant, exchangedAt: now, expiresAt: now + CONFIRM_TIMEOUT_MS }),
  });
}

const MAX_FORM_BYTES = 64 * 1024;

/**
 * A browser's POST sent from another site. Sec-Fetch-Site says so whatever the page's referrer policy; the
 * Origin header is the fallback for browsers without it. An `Origin: null` is what a same-origin form sends
 * from a page with `Referrer-Policy: no-referrer` (ours), so it is not taken as foreign by itself.
 */
function crossSite(req: http.IncomingMessage, ownOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.origin;
  return origin !== undefined && origin !== 'null' && origin !== ownOrigin;
}

/** A form body (application/x-www-form-urlencoded), or null when it is not one or too large. */
async function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    req.resume();
    return null;
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return null;
    parts.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(parts).toString('utf8'));
}

/**
 * POST /oauth/confirm (the confirmation page's form): saves the sealed grant for the API account that
 * started the consent, only when the form carries that account's API key. The key proves the person holds
 * that account; it travels in the body of a POST to this server, never in a URL. A browser's cross-site
 * POST is refused before anything is read: a page elsewhere cannot complete it.
 */
export async function handleOAuthConfirm(
  req: http.IncomingMessage, res: http.ServerResponse, accounts: ConnectedAccounts, apiAccounts: AccountStore, opts: AccountsRoutesOptions = {},
): Promise<void> {
  const fail = (message: string, status = 400) => consentPage(res, { ok: false, message, status });
  if (crossSite(req, new URL(publicBase(opts)).origin)) {
    req.resume();
    return fail('this confirmation must be sent from this server\'s own page; nothing was saved', 403);
  }
  const form = await readForm(req);
  if (!form) return fail('this address takes the form of the confirmation page; nothing was saved');
  let pending;
  try {
    pending = openPendingConsent(accounts.tokens(), form.get('consent') ?? '');
  } catch (e) {
    if (e instanceof OAuthFlowError) return fail(e.message);
    throw e;
  }
  const owner = await apiAccounts.getAccount(pending.accountId);
  if (!owner) return fail('the API account that started this consent no longer exists');
  const wrongKey = `that is not the API key of ${owner.email}: nothing was saved. Only the holder of that API account can connect this account to it.`;
  let auth;
  try {
    auth = await apiAccounts.authenticate(form.get('apiKey') ?? '');
  } catch (e) {
    if (e instanceof ShortsError) return fail(wrongKey, 401);
    throw e;
  }
  if (auth.account.id !== pending.accountId) return fail(wrongKey, 403);
  const held = await accounts.heldElsewhere(pending.accountId, pending.platform, pending.grant.platformUserId);
  if (held) return fail(held, 409);
  await accounts.add(pending.accountId, grantInput(pending.platform, pending.grant));
  consentPage(res, { ok: true, platform: pending.platform, handle: pending.grant.handle });
}
