// Connected accounts (issue 16): the platform accounts an API account posts as, over the connected accounts
// port (issue 22). Tokens are sealed with TokenBox before they reach the store and opened only to hand a
// valid access token to a connector. freshAccessToken refreshes one that has less than five minutes left; a
// refresh the platform refuses (invalid_grant: revoked, expired, rotated away) marks the account `expired` and
// fails its pending posts with `auth_expired` in the same transaction, so nothing keeps trying a dead grant.
import { randomBytes } from 'node:crypto';
import { ShortsError } from '../errors.js';
import type { ConnectedAccountRecord, ConnectedAccountsStore } from '../ports/connected-accounts-store.js';
import { sleep } from '../publish/http.js';
import { PLATFORMS, PublishError, type Platform, type PublishAccount } from '../publish/types.js';
import { identifyTokens, OAuthError, oauthApp, oauthAppSettings, refreshGrant, type TokenGrant } from '../publish/oauth-endpoints.js';
import { loadSecretKey } from './secret-key.js';
import { TokenBox, TokenBoxError } from './token-box.js';
import type { ConnectedAccount } from '../api/types.js';

/** A connected account as the API and the CLI show it (declared with the API's shapes, which the studio reads too). */
export type { ConnectedAccount };

export interface AddAccountInput {
  platform: Platform;
  handle: string;
  accessToken: string;
  refreshToken?: string | null;
  /** Seconds the access token has left; omitted: unknown (used until the platform rejects it). */
  expiresInSec?: number | null;
  refreshExpiresInSec?: number | null;
  platformUserId?: string | null;
  scopes?: string[];
}

export interface ConnectedAccountsOptions {
  /** Where `secret.key` lives when SHORTS_SECRET_KEY is unset (the store's data directory). */
  dataDir: string;
  /** Settings read: SHORTS_SECRET_KEY, the OAuth apps, SHORTS_PLATFORM_URL_<P> (default process.env). */
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  /** How long a refused refresh waits for another process's concurrent refresh to land (default 1 s). */
  refreshGraceMs?: number;
}

/** platforms.md: refresh when less than this is left, before each publish and in the scheduler's tick. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
/** A refresh refused as invalid_grant looks again after this long: another process may have just rotated the token. */
const REFRESH_GRACE_MS = 1000;
/** refreshExpiring skips an account whose refresh failed (unreachable, 5xx) this recently. */
const TICK_RETRY_MS = 60_000;
const MAX_TOKEN_CHARS = 8192;
const MAX_HANDLE_CHARS = 100;
const MAX_LIFETIME_SEC = 10 * 365 * 86_400;

function toAccount(r: ConnectedAccountRecord): ConnectedAccount {
  return {
    id: r.id, platform: r.platform, handle: r.handle, platformUserId: r.platformUserId, status: r.status,
    expiresAt: r.expiresAt, scopes: r.scopes, createdAt: r.createdAt, updatedAt: r.updatedAt,
  };
}

/** `@name` and `name` are the same handle. */
export function normalizeHandle(handle: string): string {
  return handle.trim().replace(/^@/, '');
}

export function isPlatform(v: unknown): v is Platform {
  return typeof v === 'string' && (PLATFORMS as readonly string[]).includes(v);
}

/** A token answer's `scope`: space-separated (OAuth) or comma-separated (TikTok, the Graph API). */
export function scopeList(scope: string | null | undefined): string[] {
  return scope ? scope.split(/[\s,]+/).filter(Boolean) : [];
}

/** What a completed consent saves: the grant's tokens under the platform's (or the user's) handle. */
export function grantInput(platform: Platform, grant: { tokens: TokenGrant; handle: string; platformUserId: string | null }): AddAccountInput {
  return {
    platform, handle: grant.handle, platformUserId: grant.platformUserId, accessToken: grant.tokens.accessToken,
    refreshToken: grant.tokens.refreshToken, expiresInSec: grant.tokens.expiresInSec, refreshExpiresInSec: grant.tokens.refreshExpiresInSec,
    scopes: scopeList(grant.tokens.scope),
  };
}

function invalid(parameter: string, message: string): ShortsError {
  return new ShortsError('invalid_request', message, { parameter });
}

function tokenField(v: unknown, name: string, required: boolean): string | null {
  if (v === undefined || v === null || v === '') {
    if (required) throw invalid(name, `${name} is required`);
    return null;
  }
  if (typeof v !== 'string' || v.trim() === '' || v.length > MAX_TOKEN_CHARS || /\s/.test(v.trim())) {
    throw invalid(name, `${name} must be a token: a string of up to ${MAX_TOKEN_CHARS} characters without spaces`);
  }
  return v.trim();
}

function lifetimeField(v: unknown, name: string): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_LIFETIME_SEC) {
    throw invalid(name, `${name} must be a whole number of seconds from 1 to ${MAX_LIFETIME_SEC}`);
  }
  return v;
}

/** An add body as the API receives it, checked field by field (invalid_request naming the field). */
export function parseAddAccountInput(body: unknown): AddAccountInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ShortsError('invalid_request', 'the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (!isPlatform(b.platform)) throw invalid('platform', `platform must be one of ${PLATFORMS.join(', ')}`);
  if (typeof b.handle !== 'string' || normalizeHandle(b.handle) === '' || normalizeHandle(b.handle).length > MAX_HANDLE_CHARS || /[\u0000-\u001f]/.test(b.handle)) {
    throw invalid('handle', `handle must be the account's name on the platform (1 to ${MAX_HANDLE_CHARS} characters)`);
  }
  if (b.platformUserId !== undefined && b.platformUserId !== null && (typeof b.platformUserId !== 'string' || b.platformUserId.trim() === '' || b.platformUserId.length > 200)) {
    throw invalid('platformUserId', 'platformUserId must be the platform\'s id of the account');
  }
  if (b.scopes !== undefined && (!Array.isArray(b.scopes) || !b.scopes.every((s) => typeof s === 'string' && /^\S{1,200}$/.test(s)))) {
    throw invalid('scopes', 'scopes must be an array of scope names');
  }
  return {
    platform: b.platform,
    handle: normalizeHandle(b.handle),
    accessToken: tokenField(b.accessToken, 'accessToken', true)!,
    refreshToken: tokenField(b.refreshToken, 'refreshToken', false),
    expiresInSec: lifetimeField(b.expiresIn, 'expiresIn'),
    refreshExpiresInSec: lifetimeField(b.refreshExpiresIn, 'refreshExpiresIn'),
    platformUserId: typeof b.platformUserId === 'string' ? b.platformUserId.trim() : null,
    scopes: (b.scopes as string[] | undefined) ?? [],
  };
}

export class ConnectedAccounts {
  private box: TokenBox | null = null;
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => number;
  /** One refresh per account at a time in this process: a rotated refresh token must not be spent twice. */
  private readonly refreshing = new Map<string, Promise<string>>();
  /** When a refresh of an account last failed for a reason other than a dead grant (unreachable, 5xx, 429). */
  private readonly tickFailures = new Map<string, number>();

  /**
   * The engine makes one (the server's routes, its scheduler and the local clients share it), so a refresh in
   * flight is joined rather than repeated.
   */
  constructor(private readonly store: ConnectedAccountsStore, private readonly opts: ConnectedAccountsOptions) {
    this.env = opts.env ?? process.env;
    this.now = opts.now ?? Date.now;
  }

  /** The key is read (or generated) on first need, so listing accounts never creates a secret.key. */
  tokens(): TokenBox {
    return (this.box ??= new TokenBox(loadSecretKey({ dataDir: this.opts.dataDir, env: this.env }).key));
  }

  private iso(offsetSec: number | null | undefined): string | null {
    return offsetSec == null ? null : new Date(this.now() + offsetSec * 1000).toISOString();
  }

  private nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  /** The API account's connected accounts, oldest first (optionally of one platform). */
  async list(accountId: string, platform?: Platform): Promise<ConnectedAccount[]> {
    return (await this.store.list(accountId, platform)).map(toAccount);
  }

  /** One connected account of this API account; undefined when it does not exist or belongs to another. */
  async get(accountId: string, id: string): Promise<ConnectedAccount | undefined> {
    const r = await this.store.get(id);
    return r && r.accountId === accountId ? toAccount(r) : undefined;
  }

  /** The account with this handle (`@` optional) on a platform, for posts that name a handle instead of an id. */
  async findByHandle(accountId: string, platform: Platform, handle: string): Promise<ConnectedAccount | undefined> {
    const r = await this.store.findByHandle(accountId, platform, normalizeHandle(handle));
    return r && toAccount(r);
  }

  /** The API account owning a connected account (the scheduler works across API accounts). */
  async ownerOf(id: string): Promise<string | undefined> {
    return (await this.store.get(id))?.accountId;
  }

  /**
   * The API account holding the platform account with this platform id, if any (issue 23: a channel is
   * connected to one API account only). The oldest holder when several do (rows saved before the rule).
   */
  holderOf(platform: Platform, platformUserId: string): Promise<string | undefined> {
    return this.store.holderOf(platform, platformUserId);
  }

  /**
   * The refusal when another API account than `accountId` holds this platform account, or null: the one rule
   * of `connect` (callback, confirmation) and `add` (issue 23: one API account per channel).
   */
  async heldElsewhere(accountId: string, platform: Platform, platformUserId: string | null): Promise<string | null> {
    const holder = platformUserId === null ? undefined : await this.holderOf(platform, platformUserId);
    return holder !== undefined && holder !== accountId
      ? `this ${platform} account is already connected to another shortwright API account; nothing was saved. It can be connected here once it is removed there.`
      : null;
  }

  /**
   * Tokens the user already has (`accounts add`, POST /accounts; issue 23): the platform is asked whose they are
   * and whether that account can post, as `connect` does, before anything is saved. Its id is the platform's
   * (one given that differs is refused); an account that cannot post, a token the platform refuses, or a
   * platform account another API account holds is refused with nothing saved.
   */
  async addChecked(accountId: string, input: AddAccountInput, opts: { signal?: AbortSignal } = {}): Promise<ConnectedAccount> {
    let who: { handle: string; platformUserId: string | null };
    try {
      who = await identifyTokens(input.platform, input.accessToken, { env: this.env, signal: opts.signal });
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      if (!e.permanent && !e.notEligible) {
        throw new ShortsError('platform_unreachable', `could not ask ${input.platform} whose these tokens are (${e.message}); nothing was saved, try again`);
      }
      const why = e.notEligible ? e.message : `${input.platform} refused the access token (${e.message})`;
      throw new ShortsError('invalid_request', `${why}; nothing was saved`, { parameter: 'accessToken' });
    }
    const platformUserId = who.platformUserId ?? input.platformUserId ?? null;
    if (who.platformUserId && input.platformUserId && input.platformUserId !== who.platformUserId) {
      throw new ShortsError('invalid_request', `these tokens belong to the ${input.platform} account ${who.platformUserId} (@${who.handle}), not ${input.platformUserId}; nothing was saved`, { parameter: 'platformUserId' });
    }
    const held = await this.heldElsewhere(accountId, input.platform, platformUserId);
    if (held) throw new ShortsError('account_already_connected', held);
    return this.add(accountId, { ...input, platformUserId });
  }

  /**
   * Saves an account with its tokens. The same platform and handle again (a reconnect) replaces the tokens
   * and makes the account active again under its existing id.
   */
  async add(accountId: string, input: AddAccountInput): Promise<ConnectedAccount> {
    const box = this.tokens();
    const saved = await this.store.upsert(
      { accountId, platform: input.platform, handle: normalizeHandle(input.handle) }, `ca_${randomBytes(10).toString('hex')}`,
      { platformUserId: input.platformUserId ?? null, at: this.nowIso() },
      (id) => ({
        accessToken: box.seal(input.accessToken, `${id}/access_token`),
        refreshToken: input.refreshToken ? box.seal(input.refreshToken, `${id}/refresh_token`) : null,
        expiresAt: this.iso(input.expiresInSec), refreshExpiresAt: this.iso(input.refreshExpiresInSec), scopes: input.scopes ?? [],
      }),
    );
    return toAccount(saved);
  }

  /**
   * Removes an account of this API account (its automation rules go with it); its scheduled posts become
   * `canceled`: they can no longer go out. Returns how many were canceled, or null when there was no such account.
   */
  remove(accountId: string, id: string): Promise<{ canceledPosts: number } | null> {
    return this.store.remove(accountId, id, this.nowIso());
  }

  /**
   * The account as a connector needs it, with an access token valid for at least five more minutes.
   * Throws PublishError: `auth_expired` (removed, expired, or the refresh refused), or `unknown` (retryable)
   * when the token endpoint could not be reached and the current token has run out.
   */
  async publishAccount(id: string, opts: { signal?: AbortSignal } = {}): Promise<PublishAccount> {
    const accessToken = await this.freshAccessToken(id, opts);
    const r = (await this.store.get(id))!;
    return { handle: r.handle, platformUserId: r.platformUserId, accessToken };
  }

  /**
   * A valid access token: the stored one while it has more than five minutes left, else a refreshed one
   * (saved, with a rotated refresh token, in one write). `force`: the platform has just rejected the
   * token (a 401), refresh whatever its recorded expiry says.
   */
  async freshAccessToken(id: string, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    const running = this.refreshing.get(id);
    if (running) return running;
    const r = await this.usable(id);
    const expiresAt = r.expiresAt ? Date.parse(r.expiresAt) : null;
    if (!opts.force && (expiresAt === null || expiresAt - this.now() > REFRESH_MARGIN_MS)) return this.open(r, 'accessToken');
    // Looked again after the read: another caller may have started a refresh meanwhile.
    const again = this.refreshing.get(id);
    if (again) return again;
    const p = this.refresh(r, opts.signal).finally(() => this.refreshing.delete(id));
    this.refreshing.set(id, p);
    return p;
  }

  /**
   * The scheduler's tick: refreshes every active account whose token ends within five minutes, so a
   * post due later does not wait on a token endpoint. Failures are handled as in freshAccessToken.
   */
  async refreshExpiring(signal?: AbortSignal): Promise<{ refreshed: number; expired: number; failed: number }> {
    const ids = await this.store.expiringBy(new Date(this.now() + REFRESH_MARGIN_MS).toISOString());
    const result = { refreshed: 0, expired: 0, failed: 0 };
    for (const id of ids) {
      // A token endpoint that is down is not asked again at every tick (a publish still tries it).
      if (this.now() - (this.tickFailures.get(id) ?? -Infinity) < TICK_RETRY_MS) continue;
      try {
        await this.freshAccessToken(id, { signal });
        if (this.tickFailures.has(id)) result.failed++;
        else result.refreshed++;
      } catch (e) {
        if (e instanceof PublishError && e.errorCode === 'auth_expired') result.expired++;
        else result.failed++;
      }
    }
    return result;
  }

  private async usable(id: string): Promise<ConnectedAccountRecord> {
    const r = await this.store.get(id);
    if (!r) throw new PublishError('auth_expired', 'the connected account of this post was removed; connect the account again and schedule the post again');
    if (r.status === 'expired') throw new PublishError('auth_expired', this.reconnectMessage(r, 'its authorization has expired or was revoked'));
    return r;
  }

  private reconnectMessage(r: ConnectedAccountRecord, why: string): string {
    return `the ${r.platform} account @${r.handle} cannot post: ${why}; connect it again (\`shorts accounts connect ${r.platform}\`)`;
  }

  private open(r: ConnectedAccountRecord, field: 'accessToken' | 'refreshToken'): string {
    const sealed = r[field];
    const aad = field === 'accessToken' ? 'access_token' : 'refresh_token';
    if (sealed === null) throw new Error(`no ${aad}`);
    try {
      return this.tokens().open(sealed, `${r.id}/${aad}`);
    } catch (e) {
      // The operator's key is wrong (changed, or secret.key lost): fixing it brings the account back, so the
      // post is retried later rather than failed for good and the account is not marked expired.
      if (e instanceof TokenBoxError) throw new PublishError('unknown', `the tokens of the ${r.platform} account @${r.handle} cannot be read: ${e.message}`);
      throw e;
    }
  }

  private async refresh(r: ConnectedAccountRecord, signal?: AbortSignal): Promise<string> {
    const stillValid = r.expiresAt !== null && Date.parse(r.expiresAt) > this.now();
    const app = oauthApp(r.platform, this.env);
    const refreshToken = r.refreshToken ? this.open(r, 'refreshToken') : null;
    // photo_site refreshes with the long-lived access token itself; the others need a refresh token.
    const canRefresh = r.platform === 'photo_site' || refreshToken !== null;
    if (!canRefresh) {
      if (stillValid) return this.open(r, 'accessToken');
      throw await this.expire(r, 'its access token has expired and no refresh token was saved with it');
    }
    if (!app) {
      // The grant may be fine: what is missing is the operator's configuration, so nothing is marked expired.
      if (stillValid) return this.open(r, 'accessToken');
      throw new PublishError('auth_expired', `the ${r.platform} account @${r.handle} has an expired access token and it cannot be refreshed: set ${oauthAppSettings(r.platform).join(' and ')}`);
    }
    let tokens: TokenGrant;
    try {
      tokens = await refreshGrant(r.platform, app, { refreshToken, accessToken: this.open(r, 'accessToken') }, { env: this.env, signal });
    } catch (e) {
      const dead = e instanceof OAuthError && e.permanent;
      // Another process refreshed meanwhile (and, on short_video_site, rotated the refresh token we just
      // spent): its token is the valid one, not a sign of a dead grant. Its answer may have come a moment
      // after ours was refused, so a refusal looks again after a short grace before expiring anything.
      const winner = await this.refreshedElsewhere(r, dead ? this.opts.refreshGraceMs ?? REFRESH_GRACE_MS : 0);
      if (winner) return this.open(winner, 'accessToken');
      if (dead) throw await this.expire(r, `the platform refused to refresh its token (${(e as Error).message})`);
      this.tickFailures.set(r.id, this.now());
      if (stillValid) return this.open(r, 'accessToken');
      throw new PublishError('unknown', `refreshing the token of the ${r.platform} account @${r.handle} failed: ${(e as Error).message}`);
    }
    this.tickFailures.delete(r.id);
    const box = this.tokens();
    await this.store.saveRefreshed(r.id, {
      accessToken: box.seal(tokens.accessToken, `${r.id}/access_token`),
      refreshToken: tokens.refreshToken ? box.seal(tokens.refreshToken, `${r.id}/refresh_token`) : null,
      expiresAt: this.iso(tokens.expiresInSec), refreshExpiresAt: this.iso(tokens.refreshExpiresInSec),
      scopes: tokens.scope ? scopeList(tokens.scope) : null, platformUserId: tokens.platformUserId, at: this.nowIso(),
    });
    return tokens.accessToken;
  }

  private async refreshedElsewhere(r: ConnectedAccountRecord, graceMs: number): Promise<ConnectedAccountRecord | null> {
    const changed = async () => {
      const now = await this.store.get(r.id);
      return now && now.status === 'active' && (now.refreshToken !== r.refreshToken || now.accessToken !== r.accessToken) ? now : null;
    };
    const found = await changed();
    if (found || graceMs <= 0) return found;
    await sleep(graceMs);
    return changed();
  }

  /**
   * Marks the account expired and fails its scheduled and processing posts with auth_expired (not
   * retryable: only a reconnect helps), in one unit of work; returns the error for the caller to throw.
   */
  private async expire(r: ConnectedAccountRecord, why: string): Promise<PublishError> {
    const error = new PublishError('auth_expired', this.reconnectMessage(r, why));
    await this.store.expire(r.id, error.message, this.nowIso());
    return error;
  }
}
