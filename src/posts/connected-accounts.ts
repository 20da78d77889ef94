// Connected accounts (issue 16): the platform accounts an API account posts as, over the `connected_accounts`
// table (store v7). Tokens are sealed with TokenBox before they touch the database and opened only to hand a
// valid access token to a connector. freshAccessToken refreshes one that has less than five minutes left; a
// refresh the platform refuses (invalid_grant: revoked, expired, rotated away) marks the account `expired` and
// fails its pending posts with `auth_expired` in the same transaction, so nothing keeps trying a dead grant.
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { ShortsError } from '../errors.js';
import type { RequestStore } from '../ports/request-store.js';
import { sqliteDatabaseOf } from '../adapters/sqlite/request-store.js';
import { sleep } from '../publish/http.js';
import { PLATFORMS, PublishError, type Platform, type PublishAccount } from '../publish/types.js';
import { OAuthError, oauthApp, oauthAppSettings, refreshGrant, type TokenGrant } from '../publish/oauth-endpoints.js';
import { loadSecretKey } from './secret-key.js';
import { TokenBox, TokenBoxError } from './token-box.js';

/** A connected account as the API and the CLI show it: never a token. */
export interface ConnectedAccount {
  id: string;
  platform: Platform;
  handle: string;
  /** The platform's id of the account (channel id, IG user id, open_id), when known. */
  platformUserId: string | null;
  /** `expired`: the platform refused to refresh its token; connect it again (`accounts connect` or `add`). */
  status: 'active' | 'expired';
  /** When the current access token stops working (null: the platform gave no lifetime). */
  expiresAt: string | null;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}

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

interface Row {
  id: string; account_id: string; platform: Platform; handle: string; platform_user_id: string | null;
  access_token: string; refresh_token: string | null; expires_at: string | null; refresh_expires_at: string | null;
  scopes: string | null; status: 'active' | 'expired'; created_at: string; updated_at: string;
}

function toAccount(r: Row): ConnectedAccount {
  return {
    id: r.id, platform: r.platform, handle: r.handle, platformUserId: r.platform_user_id, status: r.status,
    expiresAt: r.expires_at, scopes: r.scopes ? r.scopes.split(' ').filter(Boolean) : [], createdAt: r.created_at, updatedAt: r.updated_at,
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

const INSTANCES = new WeakMap<object, ConnectedAccounts>();

export class ConnectedAccounts {
  private box: TokenBox | null = null;
  private readonly env: NodeJS.ProcessEnv;
  private readonly now: () => number;
  /** One refresh per account at a time in this process: a rotated refresh token must not be spent twice. */
  private readonly refreshing = new Map<string, Promise<string>>();
  /** When a refresh of an account last failed for a reason other than a dead grant (unreachable, 5xx, 429). */
  private readonly tickFailures = new Map<string, number>();

  constructor(private readonly db: Database.Database, private readonly opts: ConnectedAccountsOptions) {
    this.env = opts.env ?? process.env;
    this.now = opts.now ?? Date.now;
  }

  /**
   * The one instance per store (the server's routes, its scheduler and the local clients share it), so a
   * refresh in flight is joined rather than repeated.
   */
  static forStore(store: RequestStore): ConnectedAccounts {
    let found = INSTANCES.get(store);
    if (!found) INSTANCES.set(store, (found = new ConnectedAccounts(sqliteDatabaseOf(store), { dataDir: store.dataDir })));
    return found;
  }

  /** The key is read (or generated) on first need, so listing accounts never creates a secret.key. */
  tokens(): TokenBox {
    return (this.box ??= new TokenBox(loadSecretKey({ dataDir: this.opts.dataDir, env: this.env }).key));
  }

  private iso(offsetSec: number | null | undefined): string | null {
    return offsetSec == null ? null : new Date(this.now() + offsetSec * 1000).toISOString();
  }

  private row(id: string): Row | undefined {
    return this.db.prepare('SELECT * FROM connected_accounts WHERE id = ?').get(id) as Row | undefined;
  }

  /** The API account's connected accounts, oldest first (optionally of one platform). */
  list(accountId: string, platform?: Platform): ConnectedAccount[] {
    const rows = platform
      ? this.db.prepare('SELECT * FROM connected_accounts WHERE account_id = ? AND platform = ? ORDER BY created_at, id').all(accountId, platform)
      : this.db.prepare('SELECT * FROM connected_accounts WHERE account_id = ? ORDER BY created_at, id').all(accountId);
    return (rows as Row[]).map(toAccount);
  }

  /** One connected account of this API account; undefined when it does not exist or belongs to another. */
  get(accountId: string, id: string): ConnectedAccount | undefined {
    const r = this.row(id);
    return r && r.account_id === accountId ? toAccount(r) : undefined;
  }

  /** The account with this handle (`@` optional) on a platform, for posts that name a handle instead of an id. */
  findByHandle(accountId: string, platform: Platform, handle: string): ConnectedAccount | undefined {
    const r = this.db.prepare('SELECT * FROM connected_accounts WHERE account_id = ? AND platform = ? AND handle = ?')
      .get(accountId, platform, normalizeHandle(handle)) as Row | undefined;
    return r ? toAccount(r) : undefined;
  }

  /** The API account owning a connected account (the scheduler works across API accounts). */
  ownerOf(id: string): string | undefined {
    return this.row(id)?.account_id;
  }

  /**
   * The API account holding the platform account with this platform id, if any (issue 23: a channel is
   * connected to one API account only). The oldest holder when several do (rows saved before the rule).
   */
  holderOf(platform: Platform, platformUserId: string): string | undefined {
    const r = this.db.prepare('SELECT account_id FROM connected_accounts WHERE platform = ? AND platform_user_id = ? ORDER BY created_at, id LIMIT 1')
      .get(platform, platformUserId) as { account_id: string } | undefined;
    return r?.account_id;
  }

  /**
   * Saves an account with its tokens. The same platform and handle again (a reconnect) replaces the tokens
   * and makes the account active again under its existing id.
   */
  add(accountId: string, input: AddAccountInput): ConnectedAccount {
    const handle = normalizeHandle(input.handle);
    const now = new Date(this.now()).toISOString();
    const existing = this.db.prepare('SELECT id FROM connected_accounts WHERE account_id = ? AND platform = ? AND handle = ?')
      .get(accountId, input.platform, handle) as { id: string } | undefined;
    const id = existing?.id ?? `ca_${randomBytes(10).toString('hex')}`;
    const box = this.tokens();
    const values = {
      id, accountId, platform: input.platform, handle, platformUserId: input.platformUserId ?? null,
      access: box.seal(input.accessToken, `${id}/access_token`),
      refresh: input.refreshToken ? box.seal(input.refreshToken, `${id}/refresh_token`) : null,
      expiresAt: this.iso(input.expiresInSec), refreshExpiresAt: this.iso(input.refreshExpiresInSec),
      scopes: (input.scopes ?? []).join(' ') || null, now,
    };
    if (existing) {
      this.db.prepare(`UPDATE connected_accounts SET platform_user_id = COALESCE(@platformUserId, platform_user_id), access_token = @access,
        refresh_token = @refresh, expires_at = @expiresAt, refresh_expires_at = @refreshExpiresAt, scopes = @scopes, status = 'active',
        updated_at = @now WHERE id = @id`).run(values);
    } else {
      this.db.prepare(`INSERT INTO connected_accounts (id, account_id, platform, handle, platform_user_id, access_token, refresh_token,
        expires_at, refresh_expires_at, scopes, status, created_at, updated_at) VALUES (@id, @accountId, @platform, @handle, @platformUserId,
        @access, @refresh, @expiresAt, @refreshExpiresAt, @scopes, 'active', @now, @now)`).run(values);
    }
    return toAccount(this.row(id)!);
  }

  /**
   * Removes an account of this API account (its automation rules go with it); its scheduled posts become
   * `canceled`: they can no longer go out. Returns how many were canceled, or null when there was no such account.
   */
  remove(accountId: string, id: string): { canceledPosts: number } | null {
    return this.db.transaction(() => {
      const r = this.row(id);
      if (!r || r.account_id !== accountId) return null;
      const now = new Date(this.now()).toISOString();
      const canceled = this.db.prepare(`UPDATE posts SET status = 'canceled', next_attempt_at = NULL, updated_at = ?
        WHERE connected_account_id = ? AND status = 'scheduled'`).run(now, id).changes;
      this.db.prepare('DELETE FROM connected_accounts WHERE id = ?').run(id);
      return { canceledPosts: canceled };
    })();
  }

  /**
   * The account as a connector needs it, with an access token valid for at least five more minutes.
   * Throws PublishError: `auth_expired` (removed, expired, or the refresh refused), or `unknown` (retryable)
   * when the token endpoint could not be reached and the current token has run out.
   */
  async publishAccount(id: string, opts: { signal?: AbortSignal } = {}): Promise<PublishAccount> {
    const accessToken = await this.freshAccessToken(id, opts);
    const r = this.row(id)!;
    return { handle: r.handle, platformUserId: r.platform_user_id, accessToken };
  }

  /**
   * A valid access token: the stored one while it has more than five minutes left, else a refreshed one
   * (saved, with a rotated refresh token, in one statement). `force`: the platform has just rejected the
   * token (a 401), refresh whatever its recorded expiry says.
   */
  async freshAccessToken(id: string, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    const r = this.usable(id);
    const expiresAt = r.expires_at ? Date.parse(r.expires_at) : null;
    if (!opts.force && (expiresAt === null || expiresAt - this.now() > REFRESH_MARGIN_MS)) return this.open(r, 'access_token');
    const running = this.refreshing.get(id);
    if (running) return running;
    const p = this.refresh(r, opts.signal).finally(() => this.refreshing.delete(id));
    this.refreshing.set(id, p);
    return p;
  }

  /**
   * The scheduler's tick: refreshes every active account whose token ends within five minutes, so a
   * post due later does not wait on a token endpoint. Failures are handled as in freshAccessToken.
   */
  async refreshExpiring(signal?: AbortSignal): Promise<{ refreshed: number; expired: number; failed: number }> {
    const limit = new Date(this.now() + REFRESH_MARGIN_MS).toISOString();
    const ids = (this.db.prepare(`SELECT id FROM connected_accounts WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?`)
      .all(limit) as { id: string }[]).map((x) => x.id);
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

  private usable(id: string): Row {
    const r = this.row(id);
    if (!r) throw new PublishError('auth_expired', 'the connected account of this post was removed; connect the account again and schedule the post again');
    if (r.status === 'expired') throw new PublishError('auth_expired', this.reconnectMessage(r, 'its authorization has expired or was revoked'));
    return r;
  }

  private reconnectMessage(r: Row, why: string): string {
    return `the ${r.platform} account @${r.handle} cannot post: ${why}; connect it again (\`shorts accounts connect ${r.platform}\`)`;
  }

  private open(r: Row, field: 'access_token' | 'refresh_token'): string {
    const sealed = r[field];
    if (sealed === null) throw new Error(`no ${field}`);
    try {
      return this.tokens().open(sealed, `${r.id}/${field}`);
    } catch (e) {
      // The operator's key is wrong (changed, or secret.key lost): fixing it brings the account back, so the
      // post is retried later rather than failed for good and the account is not marked expired.
      if (e instanceof TokenBoxError) throw new PublishError('unknown', `the tokens of the ${r.platform} account @${r.handle} cannot be read: ${e.message}`);
      throw e;
    }
  }

  private async refresh(r: Row, signal?: AbortSignal): Promise<string> {
    const stillValid = r.expires_at !== null && Date.parse(r.expires_at) > this.now();
    const app = oauthApp(r.platform, this.env);
    const refreshToken = r.refresh_token ? this.open(r, 'refresh_token') : null;
    // photo_site refreshes with the long-lived access token itself; the others need a refresh token.
    const canRefresh = r.platform === 'photo_site' || refreshToken !== null;
    if (!canRefresh) {
      if (stillValid) return this.open(r, 'access_token');
      throw this.expire(r, 'its access token has expired and no refresh token was saved with it');
    }
    if (!app) {
      // The grant may be fine: what is missing is the operator's configuration, so nothing is marked expired.
      if (stillValid) return this.open(r, 'access_token');
      throw new PublishError('auth_expired', `the ${r.platform} account @${r.handle} has an expired access token and it cannot be refreshed: set ${oauthAppSettings(r.platform).join(' and ')}`);
    }
    let tokens: TokenGrant;
    try {
      tokens = await refreshGrant(r.platform, app, { refreshToken, accessToken: this.open(r, 'access_token') }, { env: this.env, signal });
    } catch (e) {
      const dead = e instanceof OAuthError && e.permanent;
      // Another process refreshed meanwhile (and, on short_video_site, rotated the refresh token we just
      // spent): its token is the valid one, not a sign of a dead grant. Its answer may have come a moment
      // after ours was refused, so a refusal looks again after a short grace before expiring anything.
      const winner = await this.refreshedElsewhere(r, dead ? this.opts.refreshGraceMs ?? REFRESH_GRACE_MS : 0);
      if (winner) return this.open(winner, 'access_token');
      if (dead) throw this.expire(r, `the platform refused to refresh its token (${(e as Error).message})`);
      this.tickFailures.set(r.id, this.now());
      if (stillValid) return this.open(r, 'access_token');
      throw new PublishError('unknown', `refreshing the token of the ${r.platform} account @${r.handle} failed: ${(e as Error).message}`);
    }
    this.tickFailures.delete(r.id);
    const box = this.tokens();
    this.db.prepare(`UPDATE connected_accounts SET access_token = @access, refresh_token = COALESCE(@refresh, refresh_token),
      expires_at = @expiresAt, refresh_expires_at = COALESCE(@refreshExpiresAt, refresh_expires_at), scopes = COALESCE(@scopes, scopes),
      platform_user_id = COALESCE(platform_user_id, @platformUserId), status = 'active', updated_at = @now WHERE id = @id`).run({
      id: r.id,
      access: box.seal(tokens.accessToken, `${r.id}/access_token`),
      refresh: tokens.refreshToken ? box.seal(tokens.refreshToken, `${r.id}/refresh_token`) : null,
      expiresAt: this.iso(tokens.expiresInSec), refreshExpiresAt: this.iso(tokens.refreshExpiresInSec),
      scopes: tokens.scope ? scopeList(tokens.scope).join(' ') : null, platformUserId: tokens.platformUserId,
      now: new Date(this.now()).toISOString(),
    });
    return tokens.accessToken;
  }

  private async refreshedElsewhere(r: Row, graceMs: number): Promise<Row | null> {
    const changed = () => {
      const now = this.row(r.id);
      return now && now.status === 'active' && (now.refresh_token !== r.refresh_token || now.access_token !== r.access_token) ? now : null;
    };
    const found = changed();
    if (found || graceMs <= 0) return found;
    await sleep(graceMs);
    return changed();
  }

  /**
   * Marks the account expired and fails its scheduled and processing posts with auth_expired (not
   * retryable: only a reconnect helps), in one transaction; returns the error for the caller to throw.
   */
  private expire(r: Row, why: string): PublishError {
    const error = new PublishError('auth_expired', this.reconnectMessage(r, why));
    const now = new Date(this.now()).toISOString();
    this.db.transaction(() => {
      this.db.prepare(`UPDATE connected_accounts SET status = 'expired', updated_at = ? WHERE id = ?`).run(now, r.id);
      this.db.prepare(`UPDATE posts SET status = 'failed', error = ?, error_code = 'auth_expired', retryable = 0, next_attempt_at = NULL,
        updated_at = ? WHERE connected_account_id = ? AND status IN ('scheduled', 'processing')`).run(error.message, now, r.id);
    })();
    return error;
  }
}
