// The web studio's sign-in (issue 25): sessions behind the `shorts_session` cookie. Signing in takes an API
// key once and hands back a cookie whose random token is stored only as a SHA-256 (src/ports/sessions.ts);
// the key itself is never kept by the browser. A session dies when it expires, when it is signed out, or
// when the key it was opened with is revoked. The local `shorts studio` signs in through a one-time link
// instead (no key: its account is the local client's, not metered).
import { createHash, randomBytes } from 'node:crypto';
import { ShortsError } from '../errors.js';
import type { SessionsPort } from '../ports/sessions.js';
import { TIER_LIMITS, type AccountRecord, type AccountStore, type AuthContext } from '../service/accounts.js';

export const SESSION_COOKIE = 'shorts_session';
/** A one-time sign-in link of `shorts studio` works this long, once. */
const SIGN_IN_LINK_MS = 60_000;
/** Expired sessions are swept at most this often (on sign-in). */
const SWEEP_EVERY_MS = 3600_000;

/** What GET /studio/session answers (the front end's `Session`). `credits` null: not metered. */
export interface StudioSession { email: string; accountId: string; credits: number | null; local: boolean; expiresAt: string }

/** The local studio's account: the local client's (`{ id: 'local' }`), with no row in the accounts store. */
export interface LocalStudioAccount { id: string; email: string }

export interface StudioSessionsOptions {
  /** SHORTS_SESSION_DAYS. */
  days: number;
  /** Set with `shorts studio`: the account its one-time links sign in as. */
  local?: LocalStudioAccount;
  now?: () => number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

/** The `shorts_session` cookie's value among a request's cookies, if any. */
export function sessionCookieOf(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** SHORTS_SESSION_DAYS: a positive number of days (fractions allowed, for short-lived deployments and tests). */
export function sessionDays(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 14;
  const days = Number(value);
  if (!Number.isFinite(days) || days <= 0 || days > 3650) throw new RangeError(`SHORTS_SESSION_DAYS must be a number of days from more than 0 to 3650, got "${value}"`);
  return days;
}

export class StudioSessions {
  private readonly now: () => number;
  /** One-time links of `shorts studio`, by the SHA-256 of their token: in memory, they live 60 s in this process. */
  private readonly links = new Map<string, number>();
  private lastSweep = 0;

  constructor(private readonly port: SessionsPort, private readonly accounts: AccountStore, private readonly opts: StudioSessionsOptions) {
    this.now = opts.now ?? Date.now;
  }

  get local(): boolean {
    return this.opts.local !== undefined;
  }

  get maxAgeSeconds(): number {
    return Math.round(this.opts.days * 86_400);
  }

  /** Signs in with an API key (a wrong one is the API's 401 `invalid_api_key`): the new cookie's token and the session. */
  async signIn(apiKey: unknown): Promise<{ token: string; session: StudioSession }> {
    if (typeof apiKey !== 'string' || apiKey.trim() === '') throw new ShortsError('missing_api_key', 'send your API key as "apiKey" to sign in');
    const auth = await this.accounts.authenticate(apiKey);
    return this.open(auth.account, auth.keyId);
  }

  /** A one-time sign-in link's token (`shorts studio` only). */
  issueSignInLink(): string {
    if (!this.opts.local) throw new Error('one-time sign-in links are for `shorts studio` only');
    const token = newToken();
    this.links.set(sha256(token), this.now() + SIGN_IN_LINK_MS);
    return token;
  }

  /** Opens a session for a one-time link, which is spent either way; a used, expired or unknown link is 401. */
  async redeemSignInLink(token: string): Promise<{ token: string; session: StudioSession }> {
    const hash = sha256(token);
    const until = this.links.get(hash);
    this.links.delete(hash);
    if (!this.opts.local || until === undefined || until < this.now()) {
      throw new ShortsError('invalid_api_key', 'this sign-in link was used already or has expired: run `shorts studio` again for a new one');
    }
    return this.open(this.localAccount(), null);
  }

  private async open(account: AccountRecord, keyId: string | null): Promise<{ token: string; session: StudioSession }> {
    const now = this.now();
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.port.deleteExpired(new Date(now).toISOString());
    }
    const token = newToken();
    const expiresAt = new Date(now + this.maxAgeSeconds * 1000).toISOString();
    await this.port.create({ tokenHash: sha256(token), accountId: account.id, keyId, createdAt: new Date(now).toISOString(), expiresAt });
    return { token, session: this.view({ account, keyId: keyId ?? 'local', session: { tokenHash: sha256(token), local: keyId === null, expiresAt } }) };
  }

  /** The caller behind a cookie's token; 401 when the session is unknown, expired, signed out or its key revoked. */
  async authenticate(token: string): Promise<AuthContext> {
    const tokenHash = sha256(token);
    const s = await this.port.findByTokenHash(tokenHash, new Date(this.now()).toISOString());
    const dead = () => new ShortsError('invalid_api_key', 'your studio session has ended: sign in again');
    if (!s) throw dead();
    if (s.keyId === null) {
      // Only the `shorts studio` process that opened it honours a keyless session.
      if (!this.opts.local || s.accountId !== this.opts.local.id) throw dead();
      return { account: this.localAccount(), keyId: 'local', session: { tokenHash, local: true, expiresAt: s.expiresAt } };
    }
    const [key] = await this.accounts.port.findKeys({ keyId: s.keyId });
    const account = key && key.revokedAt === null && key.accountId === s.accountId ? await this.accounts.getAccount(s.accountId) : undefined;
    if (!account) throw dead();
    return { account, keyId: s.keyId, session: { tokenHash, local: false, expiresAt: s.expiresAt } };
  }

  async signOut(tokenHash: string): Promise<void> {
    await this.port.delete(tokenHash);
  }

  view(auth: AuthContext): StudioSession {
    const local = auth.session?.local ?? false;
    return {
      email: auth.account.email, accountId: auth.account.id, credits: local ? null : auth.account.credits, local,
      expiresAt: auth.session?.expiresAt ?? '',
    };
  }

  private localAccount(): AccountRecord {
    const local = this.opts.local!;
    return {
      id: local.id, email: local.email, subscriptionActive: true, credits: 0,
      hourlyLimit: TIER_LIMITS.hourly.max, dailyLimit: TIER_LIMITS.daily.max, blurBackground: true, webhookSecret: '', createdAt: new Date(0).toISOString(),
    };
  }
}
