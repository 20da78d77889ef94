// The wire part of OAuth 2.0 for each platform (platforms.md 1.1, 2.1, 3.1): the consent page URL, the
// authorization-code exchange, the refresh, and who the token belongs to. No storage and no flow here:
// src/posts keeps the tokens and drives the redirect; this module only speaks each platform's dialect
// (Google's token endpoint, the Graph API's long-lived token exchange, TikTok's rotating refresh tokens).
//
// photo_site is the Instagram API with Facebook Login: that flavour is the one with byte uploads
// (rupload), which a local clip needs (the Instagram Login flavour only pulls a public video_url). Its
// long-lived user token has no refresh token: it is renewed by exchanging itself (fb_exchange_token)
// while still valid, so `refreshToken` is null in its grants and `refreshGrant` sends the access token.
import { createHash } from 'node:crypto';
import { setting, type SettingName } from '../settings.js';
import { field, httpCall, num, str, TransportError, type HttpAnswer } from './http.js';
import { GRAPH_VERSION, platformUrls } from './platform-urls.js';
import { PublishError, type Platform } from './types.js';

export interface OAuthApp {
  clientId: string;
  clientSecret: string;
}

const APP_SETTINGS: Record<Platform, [SettingName, SettingName]> = {
  video_site: ['SHORTS_OAUTH_VIDEO_SITE_CLIENT_ID', 'SHORTS_OAUTH_VIDEO_SITE_CLIENT_SECRET'],
  photo_site: ['SHORTS_OAUTH_PHOTO_SITE_CLIENT_ID', 'SHORTS_OAUTH_PHOTO_SITE_CLIENT_SECRET'],
  short_video_site: ['SHORTS_OAUTH_SHORT_VIDEO_SITE_CLIENT_ID', 'SHORTS_OAUTH_SHORT_VIDEO_SITE_CLIENT_SECRET'],
};

/** The operator's OAuth app for `platform` from the settings, or null when either half is unset. */
export function oauthApp(platform: Platform, env: NodeJS.ProcessEnv = process.env): OAuthApp | null {
  const [idName, secretName] = APP_SETTINGS[platform];
  const clientId = setting(idName, env);
  const clientSecret = setting(secretName, env);
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

/** The settings that name `platform`'s OAuth app: for messages telling the operator what to set. */
export function oauthAppSettings(platform: Platform): readonly [string, string] {
  return APP_SETTINGS[platform];
}

/** What publishing needs, and what identifyAccount reads (platforms.md 1.1, 2.1, 3.1). */
export const OAUTH_SCOPES: Record<Platform, readonly string[]> = {
  // youtube.upload to insert; youtube.readonly for channels.list mine=true (the handle).
  video_site: ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.readonly'],
  photo_site: ['instagram_basic', 'instagram_content_publish', 'pages_show_list', 'pages_read_engagement'],
  short_video_site: ['user.info.basic', 'video.publish'],
};

/**
 * A token endpoint said no, or could not be reached. `permanent`: the platform refused the grant or the
 * app (invalid_grant, invalid_client, a Graph 190): asking again will not help, the account must be
 * connected again (or the operator's app fixed). Not permanent: a 5xx, a 429 or no connection.
 */
export class OAuthError extends Error {
  constructor(
    /** The platform's own code: `invalid_grant`, `invalid_client`, `190`, `http_503`, `connection`. */
    readonly code: string,
    message: string,
    readonly permanent: boolean,
    /** The token works but the account cannot publish this way (no channel, no professional IG account). */
    readonly notEligible = false,
  ) {
    super(message);
    this.name = 'OAuthError';
  }

  /** The post failure this means for a post waiting on the account (spec 7.3). */
  toPublishError(): PublishError {
    if (this.notEligible) return new PublishError('account_not_eligible', this.message);
    if (this.permanent) return new PublishError('auth_expired', `the connected account's authorization was refused (${this.message}); connect the account again`);
    return new PublishError('unknown', `could not refresh the account's token: ${this.message}`);
  }
}

export interface TokenGrant {
  accessToken: string;
  /** null on photo_site (its long-lived token renews itself) and when the platform sent none. */
  refreshToken: string | null;
  /** Seconds the access token lives from now, when the platform said. */
  expiresInSec: number | null;
  /** Seconds the refresh token lives (short_video_site says; the others do not). */
  refreshExpiresInSec: number | null;
  scope: string | null;
  /** The platform's user id when the token answer carries it (short_video_site's open_id). */
  platformUserId: string | null;
}

export interface EndpointOptions {
  /** An origin replacing the platform's hosts (tests); default SHORTS_PLATFORM_URL_<P>. */
  baseUrl?: string | null;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export interface ConsentRequest {
  clientId: string;
  /** Where the platform sends the browser back with `code` and `state`. */
  redirectUri: string;
  /** Our anti-forgery value; the redirect must carry it back unchanged. */
  state: string;
  /** PKCE (RFC 7636): the challenge of the verifier the code exchange will send (pkceChallenge); absent where the flow has none. */
  codeChallenge?: string | null;
}

/**
 * The two places a consent runs: `loopback` (the CLI's catcher on 127.0.0.1: a native/desktop app, RFC 8252)
 * and `web` (`serve`'s public /oauth/callback: a web-server app).
 */
export type ConsentFlow = 'loopback' | 'web';

/**
 * How each platform's consent takes a PKCE S256 challenge, per flow; null where the platform documents none
 * (then none is sent: an undocumented parameter could make the consent page refuse).
 * - video_site: Google accepts the RFC's base64url challenge for installed and web-server apps alike.
 * - short_video_site: TikTok's desktop Login Kit requires PKCE, with the SHA-256 written in hex (not the
 *   RFC's base64url; method still `S256`); its web Login Kit documents no PKCE.
 * - photo_site: Facebook Login documents PKCE only for its OIDC login flow (marked "in testing"), not for
 *   the permissions flow publishing needs.
 */
const PKCE_ENCODING: Record<Platform, Record<ConsentFlow, 'base64url' | 'hex' | null>> = {
  video_site: { loopback: 'base64url', web: 'base64url' },
  short_video_site: { loopback: 'hex', web: null },
  photo_site: { loopback: null, web: null },
};

/** The S256 challenge of `verifier` as `platform` wants it in `flow`, or null when that flow takes no PKCE. */
export function pkceChallenge(platform: Platform, flow: ConsentFlow, verifier: string): string | null {
  const encoding = PKCE_ENCODING[platform][flow];
  return encoding && createHash('sha256').update(verifier, 'ascii').digest(encoding);
}

/** Whether `platform`'s consent in `flow` takes PKCE (then the exchange must send the verifier). */
export function takesPkce(platform: Platform, flow: ConsentFlow): boolean {
  return PKCE_ENCODING[platform][flow] !== null;
}

/** The consent URL's PKCE parameters, when there is a challenge. */
function pkceParams(req: ConsentRequest): Record<string, string> {
  return req.codeChallenge ? { code_challenge: req.codeChallenge, code_challenge_method: 'S256' } : {};
}

/** The page the user opens to let our app post for them. */
export function consentUrl(platform: Platform, req: ConsentRequest, opts: EndpointOptions = {}): string {
  const urls = platformUrls(platform, opts);
  const scopes = OAUTH_SCOPES[platform];
  switch (platform) {
    case 'video_site':
      // offline + consent: Google returns a refresh token only then (and again on every reconnect).
      return urls.at('consent', `/o/oauth2/v2/auth?${new URLSearchParams({
        client_id: req.clientId, redirect_uri: req.redirectUri, response_type: 'code', scope: scopes.join(' '),
        access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true', state: req.state, ...pkceParams(req),
      })}`);
    case 'photo_site':
      return urls.at('consent', `/${GRAPH_VERSION}/dialog/oauth?${new URLSearchParams({
        client_id: req.clientId, redirect_uri: req.redirectUri, response_type: 'code', scope: scopes.join(','), state: req.state, ...pkceParams(req),
      })}`);
    case 'short_video_site':
      return urls.at('consent', `/v2/auth/authorize/?${new URLSearchParams({
        client_key: req.clientId, redirect_uri: req.redirectUri, response_type: 'code', scope: scopes.join(','), state: req.state, ...pkceParams(req),
      })}`);
  }
}

/** Turns the code from the consent redirect into tokens; `codeVerifier` when the consent URL carried its challenge. */
export async function exchangeCode(
  platform: Platform, app: OAuthApp, req: { code: string; redirectUri: string; codeVerifier?: string | null }, opts: EndpointOptions = {},
): Promise<TokenGrant> {
  const urls = platformUrls(platform, opts);
  const pkce: Record<string, string> = req.codeVerifier ? { code_verifier: req.codeVerifier } : {};
  switch (platform) {
    case 'video_site':
      return googleGrant(await call(platform, urls.at('token', '/token'), form({
        grant_type: 'authorization_code', code: req.code, redirect_uri: req.redirectUri,
        client_id: app.clientId, client_secret: app.clientSecret, ...pkce,
      }), opts), null);
    case 'photo_site': {
      // The code gives a short-lived (1-2 h) token; exchanged at once for the ~60-day one we keep.
      const short = graphGrant(await call(platform, urls.at('token', `/${GRAPH_VERSION}/oauth/access_token?${new URLSearchParams({
        client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: req.redirectUri, code: req.code, ...pkce,
      })}`), {}, opts));
      return refreshGrant(platform, app, { accessToken: short.accessToken, refreshToken: null }, opts);
    }
    case 'short_video_site':
      return tiktokGrant(await call(platform, urls.at('token', '/v2/oauth/token/'), form({
        client_key: app.clientId, client_secret: app.clientSecret, code: req.code, grant_type: 'authorization_code',
        redirect_uri: req.redirectUri, ...pkce,
      }), opts));
  }
}

/**
 * A new access token. short_video_site rotates the refresh token (the old one stops working): the caller
 * must store the returned `refreshToken` in the same write as the access token. video_site keeps the
 * refresh token it was given (returned unchanged here).
 */
export async function refreshGrant(
  platform: Platform, app: OAuthApp, tokens: { accessToken: string; refreshToken: string | null }, opts: EndpointOptions = {},
): Promise<TokenGrant> {
  const urls = platformUrls(platform, opts);
  if (platform !== 'photo_site' && !tokens.refreshToken) {
    throw new OAuthError('no_refresh_token', 'the account has no refresh token', true);
  }
  switch (platform) {
    case 'video_site':
      return googleGrant(await call(platform, urls.at('token', '/token'), form({
        grant_type: 'refresh_token', refresh_token: tokens.refreshToken!, client_id: app.clientId, client_secret: app.clientSecret,
      }), opts), tokens.refreshToken);
    case 'photo_site':
      return graphGrant(await call(platform, urls.at('token', `/${GRAPH_VERSION}/oauth/access_token?${new URLSearchParams({
        grant_type: 'fb_exchange_token', client_id: app.clientId, client_secret: app.clientSecret, fb_exchange_token: tokens.accessToken,
      })}`), {}, opts));
    case 'short_video_site':
      return tiktokGrant(await call(platform, urls.at('token', '/v2/oauth/token/'), form({
        client_key: app.clientId, client_secret: app.clientSecret, grant_type: 'refresh_token', refresh_token: tokens.refreshToken!,
      }), opts));
  }
}

export interface AccountIdentity {
  /** What the user calls the account: the channel's @handle (or title), the IG username, the TikTok username. */
  handle: string;
  /** The id publishing needs in its paths or checks (channel id, IG user id, open_id). */
  platformUserId: string;
}

/**
 * Who a fresh token posts as. Throws OAuthError with notEligible when the account cannot publish (no
 * channel on video_site; no professional Instagram account linked to a Page on photo_site).
 */
export async function identifyAccount(platform: Platform, grant: Pick<TokenGrant, 'accessToken' | 'platformUserId'>, opts: EndpointOptions = {}): Promise<AccountIdentity> {
  const urls = platformUrls(platform, opts);
  const bearer = { authorization: `Bearer ${grant.accessToken}` };
  switch (platform) {
    case 'video_site': {
      const a = await call(platform, urls.at('api', '/youtube/v3/channels?part=snippet&mine=true'), { headers: bearer }, opts);
      const item = firstOf(field(a.json, 'items'));
      const id = str(field(item, 'id'));
      if (!id) throw new OAuthError('no_channel', 'this video_site account has no channel: create one on the site, then connect again', true, true);
      const snippet = field(item, 'snippet');
      return { handle: str(field(snippet, 'customUrl')) ?? str(field(snippet, 'title')) ?? id, platformUserId: id };
    }
    case 'photo_site': {
      const a = await call(platform, urls.at('api', `/${GRAPH_VERSION}/me/accounts?${new URLSearchParams({
        fields: 'instagram_business_account{id,username}', access_token: grant.accessToken,
      })}`), {}, opts);
      const pages = field(a.json, 'data');
      for (const page of Array.isArray(pages) ? pages : []) {
        const ig = field(page, 'instagram_business_account');
        const id = str(field(ig, 'id'));
        if (id) return { handle: str(field(ig, 'username')) ?? id, platformUserId: id };
      }
      throw new OAuthError('no_professional_account',
        'no professional (Business or Creator) photo_site account linked to a Page was found for this login; switch the account to professional and link it to a Page, then connect again', true, true);
    }
    case 'short_video_site': {
      const username = await creatorUsername(grant.accessToken, opts);
      if (!grant.platformUserId || !username) throw new OAuthError('no_creator', 'short_video_site did not say which creator this token belongs to', false);
      return { handle: username, platformUserId: grant.platformUserId };
    }
  }
}

/** short_video_site's creator_info: the username a token posts as (it does not say the open_id). */
async function creatorUsername(accessToken: string, opts: EndpointOptions): Promise<string | null> {
  const a = await call('short_video_site', platformUrls('short_video_site', opts).at('api', '/v2/post/publish/creator_info/query/'), {
    method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json; charset=UTF-8' }, body: '{}',
  }, opts);
  return str(field(field(a.json, 'data'), 'creator_username')) ?? null;
}

/**
 * Whose tokens the user brought (`accounts add`, POST /accounts; issue 23): the platform is asked as `connect`
 * asks it, so an account that cannot post (no channel, no professional account) is refused before it is saved.
 * short_video_site's creator_info names the creator but not its open_id (only the token exchange gives it),
 * so its id is null here; publishing there does not need it.
 */
export async function identifyTokens(platform: Platform, accessToken: string, opts: EndpointOptions = {}): Promise<{ handle: string; platformUserId: string | null }> {
  if (platform !== 'short_video_site') return identifyAccount(platform, { accessToken, platformUserId: null }, opts);
  const username = await creatorUsername(accessToken, opts);
  if (!username) throw new OAuthError('no_creator', 'short_video_site did not say which creator this token belongs to', false);
  return { handle: username, platformUserId: null };
}

function firstOf(v: unknown): unknown {
  return Array.isArray(v) ? v[0] : undefined;
}

function form(fields: Record<string, string>): { method: string; headers: Record<string, string>; body: string } {
  return { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() };
}

/** One token/identity call; a non-2xx or an error envelope (TikTok answers 200 with error.code) becomes OAuthError. */
async function call(
  platform: Platform, url: string, req: { method?: string; headers?: Record<string, string>; body?: string }, opts: EndpointOptions,
): Promise<HttpAnswer> {
  let a: HttpAnswer;
  try {
    a = await httpCall(url, { ...req, signal: opts.signal, timeoutMs: 30_000 });
  } catch (e) {
    if (e instanceof TransportError) throw new OAuthError('connection', e.message, false);
    throw e;
  }
  const error = field(a.json, 'error');
  const oauthCode = typeof error === 'string' ? error : undefined;     // OAuth: {"error":"invalid_grant",...}
  const envelope = error !== null && typeof error === 'object' ? error : undefined; // API: {"error":{...}}
  const apiCode = str(field(envelope, 'code'));
  // TikTok's v2 envelope is always there; its code "ok" is success. Google's and the Graph's mean failure.
  const failed = a.status < 200 || a.status >= 300 || oauthCode !== undefined
    || (envelope !== undefined && !(platform === 'short_video_site' && apiCode === 'ok'));
  if (!failed) return a;
  const transient = a.status >= 500 || a.status === 429;
  if (oauthCode) {
    const why = str(field(a.json, 'error_description')) ?? oauthCode;
    throw new OAuthError(oauthCode, `${oauthCode}: ${why}`, !transient);
  }
  const message = str(field(envelope, 'message')) ?? (a.text.slice(0, 200) || `HTTP ${a.status}`);
  const code = apiCode ?? `http_${a.status}`;
  // A rejected token on the identity call reads like a refused grant: the account must be connected again.
  throw new OAuthError(code, `${platform} answered ${a.status}: ${message}`, !transient);
}

function googleGrant(a: HttpAnswer, keptRefreshToken: string | null): TokenGrant {
  const accessToken = str(field(a.json, 'access_token'));
  if (!accessToken) throw new OAuthError('bad_answer', 'the token endpoint answered without an access_token', false);
  return {
    accessToken,
    refreshToken: str(field(a.json, 'refresh_token')) ?? keptRefreshToken,
    expiresInSec: num(field(a.json, 'expires_in')) ?? null,
    refreshExpiresInSec: num(field(a.json, 'refresh_token_expires_in')) ?? null,
    scope: str(field(a.json, 'scope')) ?? null,
    platformUserId: null,
  };
}

function graphGrant(a: HttpAnswer): TokenGrant {
  const accessToken = str(field(a.json, 'access_token'));
  if (!accessToken) throw new OAuthError('bad_answer', 'the token endpoint answered without an access_token', false);
  return { accessToken, refreshToken: null, expiresInSec: num(field(a.json, 'expires_in')) ?? null, refreshExpiresInSec: null, scope: null, platformUserId: null };
}

function tiktokGrant(a: HttpAnswer): TokenGrant {
  // The token endpoint answers flat ({"access_token",...}); some answers wrap it in {"data":{...}}.
  const body = field(a.json, 'access_token') !== undefined ? a.json : field(a.json, 'data');
  const accessToken = str(field(body, 'access_token'));
  if (!accessToken) throw new OAuthError('bad_answer', 'the token endpoint answered without an access_token', false);
  return {
    accessToken,
    refreshToken: str(field(body, 'refresh_token')) ?? null,
    expiresInSec: num(field(body, 'expires_in')) ?? null,
    refreshExpiresInSec: num(field(body, 'refresh_expires_in')) ?? null,
    scope: str(field(body, 'scope')) ?? null,
    platformUserId: str(field(body, 'open_id')) ?? null,
  };
}
