// `/api/v1/accounts`: the connected platform accounts of the calling API account (issue 16). Listing,
// adding tokens obtained elsewhere, removing, and the OAuth consent run by the server: POST .../connect
// answers the platform's consent URL, whose redirect comes back to `/oauth/callback` (outside /api/v1: the
// user's browser calls it, with no API key; the signed `state` says which API account it is for).
import type http from 'node:http';
import { ShortsError } from '../errors.js';
import { consentUrl, oauthApp, oauthAppSettings } from '../publish/oauth-endpoints.js';
import { PLATFORMS, type Platform } from '../publish/types.js';
import { ConnectedAccounts, grantInput, isPlatform, normalizeHandle, parseAddAccountInput } from '../posts/connected-accounts.js';
import { callbackError, completeServeConsent, CONSENT_TIMEOUT_MS, consentPage, OAuthFlowError, signConsentState, verifyConsentState } from '../posts/oauth-flow.js';
import type { Service } from '../service/service.js';
import { setting } from '../settings.js';
import type { RouteHandlers } from './router.js';

/** Where platforms send the browser back after consent: `<SHORTS_PUBLIC_URL>/oauth/callback`. */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';

export interface AccountsRoutesOptions {
  /** The server's public base (SHORTS_PUBLIC_URL, else the address it listens on). Default: SHORTS_PUBLIC_URL. */
  publicUrl?: () => string;
  env?: NodeJS.ProcessEnv;
}

function redirectUri(opts: AccountsRoutesOptions): string {
  const base = opts.publicUrl?.() ?? setting('SHORTS_PUBLIC_URL', opts.env);
  if (!base) throw new ShortsError('internal_error', 'this server does not know its public address: its operator must set SHORTS_PUBLIC_URL to connect accounts');
  return `${base.replace(/\/+$/, '')}${OAUTH_CALLBACK_PATH}`;
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
export function accountsRoutes(service: Service, opts: AccountsRoutesOptions = {}): AccountsHandlers {
  const accounts = () => ConnectedAccounts.forStore(service.store);
  return {
    listConnectedAccounts: ({ auth, query }) => ({
      status: 200, body: { accounts: accounts().list(auth.account.id, query.platform === undefined ? undefined : platformOf(query.platform)) },
    }),
    addConnectedAccount: ({ auth, body }) => ({
      status: 201, body: accounts().add(auth.account.id, parseAddAccountInput(body)),
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
      const state = signConsentState(accounts().tokens(), {
        accountId: auth.account.id, platform, handle: typeof b.handle === 'string' ? normalizeHandle(b.handle) : null, expiresAt,
      });
      const uri = redirectUri(opts);
      return {
        status: 200,
        body: { platform, authorizationUrl: consentUrl(platform, { clientId: app.clientId, redirectUri: uri, state }, { env: opts.env }), redirectUri: uri, expiresAt: new Date(expiresAt).toISOString() },
      };
    },
    getConnectedAccount: ({ auth, params }) => {
      const found = accounts().get(auth.account.id, params[0]!);
      if (!found) throw notFound(params[0]!);
      return { status: 200, body: found };
    },
    removeConnectedAccount: ({ auth, params }) => {
      const removed = accounts().remove(auth.account.id, params[0]!);
      if (!removed) throw notFound(params[0]!);
      return { status: 200, body: { id: params[0]!, deleted: true, canceledPosts: removed.canceledPosts } };
    },
  };
}

/**
 * GET /oauth/callback?code&state (or ?error&state): the browser coming back from the consent page. Answers a
 * small HTML page saying whether the account is connected; the account then shows in GET /accounts.
 */
export async function handleOAuthCallback(req: http.IncomingMessage, res: http.ServerResponse, url: URL, service: Service, opts: AccountsRoutesOptions = {}): Promise<void> {
  const accounts = ConnectedAccounts.forStore(service.store);
  const fail = (message: string) => consentPage(res, { ok: false, message });
  let consent;
  try {
    consent = verifyConsentState(accounts.tokens(), url.searchParams.get('state') ?? '');
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
  try {
    const grant = await completeServeConsent(app, consent, code, redirectUri(opts), opts.env);
    accounts.add(consent.accountId, grantInput(consent.platform, grant));
    consentPage(res, { ok: true, platform: consent.platform, handle: grant.handle });
  } catch (e) {
    if (e instanceof ShortsError) throw e;
    fail(`connecting failed: ${(e as Error).message}`);
  }
}
