// Accounts, API keys and the credit ledger of `shorts serve`: the rules, over the accounts port
// (src/ports/accounts.ts; today's adapter keeps them in the job store's SQLite file).
// Keys are shown once and stored only as a SHA-256 hash plus a short display prefix (the key's own
// prefix, whatever SHORTS_API_KEY_PREFIX was when it was issued, plus four characters); credits move
// only through the port's units of work, so concurrent creations can never spend the same credit twice.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ShortsError } from '../errors.js';
import type { AccountRecord, AccountsPort, KeyInfo, KeyMatch } from '../ports/accounts.js';

export type { AccountRecord, KeyInfo } from '../ports/accounts.js';

/**
 * Who is calling. `session`: the caller came with the studio's cookie instead of a key (issue 25): the same
 * account and limits, but unsafe methods must come from the server's own origin, its creates are the
 * studio's, and `local` marks the local `shorts studio` (no key, no ledger, no rate limits).
 */
export interface AuthContext { account: AccountRecord; keyId: string; session?: { tokenHash: string; local: boolean; expiresAt: string } }

/** Account limits of spec 8.2: the default tier and the range a higher tier may reach. */
export const TIER_LIMITS = {
  hourly: { min: 1, default: 100, max: 2000 },
  daily: { min: 1, default: 1000, max: 20000 },
} as const;

/** The prefix of new keys when SHORTS_API_KEY_PREFIX is not set. */
export const KEY_PREFIX = 'sk_live_';
/** What SHORTS_API_KEY_PREFIX may hold: the characters integrations accept in a key, short enough to read. */
const KEY_PREFIX_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 random bytes need 43 base62 digits (62^43 > 2^256); shorter encodings are left-padded with '0'. */
const KEY_BODY_LENGTH = 43;
/**
 * Any key this server can have issued: a 1-32 character prefix of any era, then the random body. Only a
 * format check before the hash lookup (which is what decides); it lets old `sk_live_` keys keep working
 * after the operator changes the prefix.
 */
const KEY_PATTERN = new RegExp(`^[A-Za-z0-9_-]{1,32}[0-9A-Za-z]{${KEY_BODY_LENGTH}}$`);
const KEY_ID_PATTERN = /^key_[0-9a-f]{16}$/;
/** What `keys list` shows and `keys revoke` accepts: the key's own prefix plus four random characters. */
const DISPLAY_RANDOM_CHARS = 4;
/** last_used_at is a hint for operators, not an audit log: one write a minute per key is plenty. */
const LAST_USED_RESOLUTION_MS = 60_000;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;

function base62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out.padStart(length, '0');
}

/**
 * Throws unless `prefix` can start a key (SHORTS_API_KEY_PREFIX); the message names the rule, and `what`
 * the place the prefix came from.
 */
export function checkKeyPrefix(prefix: string, what = 'the API key prefix'): string {
  if (!KEY_PREFIX_PATTERN.test(prefix)) {
    throw new ShortsError('invalid_request', `${what} must be 1-32 characters of A-Z, a-z, 0-9, _ and -; got "${prefix}"`);
  }
  return prefix;
}

/**
 * The key a request presents: `X-API-Key`, or `Authorization: Bearer <key>` (what many HTTP clients and
 * MCP hosts send). Both at once must agree, or the request is refused rather than guessed at. Another
 * Authorization scheme (a proxy's Basic credentials) is not a key and is ignored. undefined: no key.
 */
export function presentedKey(headers: { 'x-api-key'?: string | string[]; authorization?: string | string[] }): string | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() || undefined;
  const apiKey = first(headers['x-api-key']);
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(first(headers.authorization) ?? '')?.[1];
  if (apiKey !== undefined && bearer !== undefined && apiKey !== bearer) {
    throw new ShortsError('invalid_api_key', 'X-API-Key and Authorization: Bearer name different keys; send one key');
  }
  return apiKey ?? bearer;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Emails compare case-insensitively here: one person, one account, however they type it. */
function normalizeEmail(email: unknown): string {
  if (typeof email !== 'string') throw new ShortsError('invalid_request', 'email is required');
  const e = email.trim().toLowerCase();
  if (e.length > 254 || !EMAIL_PATTERN.test(e)) throw new ShortsError('invalid_request', `"${email}" is not a valid email address`);
  return e;
}

function checkLimit(name: 'hourly' | 'daily', value: number | undefined): number {
  const range = TIER_LIMITS[name];
  if (value === undefined) return range.default;
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw new ShortsError('invalid_request', `${name} limit must be a whole number from ${range.min} to ${range.max}, got ${value}`);
  }
  return value;
}

function checkCredits(value: number, allowZero: boolean): number {
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new ShortsError('invalid_request', `credits must be a whole number ${allowZero ? '>= 0' : '>= 1'}, got ${value}`);
  }
  return value;
}

export interface NewAccount { email: string; credits?: number; hourlyLimit?: number; dailyLimit?: number; subscription?: boolean }
export interface AccountChanges { hourlyLimit?: number; dailyLimit?: number; subscription?: boolean }

export class AccountStore {
  private readonly now: () => number;

  constructor(readonly port: AccountsPort, opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  async createAccount(opts: NewAccount): Promise<AccountRecord> {
    const email = normalizeEmail(opts.email);
    const created = await this.port.insertAccount({
      id: randomBytes(12).toString('hex'), email,
      subscriptionActive: opts.subscription !== false,
      credits: checkCredits(opts.credits ?? 0, true),
      hourlyLimit: checkLimit('hourly', opts.hourlyLimit),
      dailyLimit: checkLimit('daily', opts.dailyLimit),
      blurBackground: true,
      // Standard Webhooks secret format: "whsec_" + base64 of the raw signing key.
      webhookSecret: `whsec_${randomBytes(32).toString('base64')}`,
      createdAt: this.iso(),
    });
    if (created === 'email_taken') throw new ShortsError('invalid_request', 'an account with this email exists');
    return created;
  }

  findAccountByEmail(email: string): Promise<AccountRecord | undefined> {
    return this.port.findAccountByEmail(email.trim().toLowerCase());
  }

  getAccount(id: string): Promise<AccountRecord | undefined> {
    return this.port.getAccount(id);
  }

  private async requireAccount(id: string): Promise<AccountRecord> {
    return found(id, await this.getAccount(id));
  }

  async addCredits(accountId: string, credits: number): Promise<AccountRecord> {
    checkCredits(credits, false);
    return found(accountId, await this.port.grantCredits(accountId, credits, this.iso()));
  }

  /** Tier changes by the operator (`shorts keys create` on an existing email). */
  async updateAccount(accountId: string, changes: AccountChanges): Promise<AccountRecord> {
    const a = await this.requireAccount(accountId);
    const hourlyLimit = changes.hourlyLimit === undefined ? a.hourlyLimit : checkLimit('hourly', changes.hourlyLimit);
    const dailyLimit = changes.dailyLimit === undefined ? a.dailyLimit : checkLimit('daily', changes.dailyLimit);
    const subscriptionActive = changes.subscription === undefined ? a.subscriptionActive : changes.subscription;
    return found(accountId, await this.port.updateLimits(accountId, { hourlyLimit, dailyLimit, subscriptionActive }));
  }

  async setBlurPreference(accountId: string, blur: boolean): Promise<void> {
    if (!await this.port.setBlurPreference(accountId, blur)) found(accountId, undefined);
  }

  /**
   * Issues a key: `prefix` (SHORTS_API_KEY_PREFIX, checked) + 43 random base62 characters. The plaintext
   * is returned here and nowhere else; the store keeps its hash and the display prefix.
   */
  async createKey(accountId: string, prefix: string = KEY_PREFIX): Promise<{ key: string; keyId: string }> {
    checkKeyPrefix(prefix);
    await this.requireAccount(accountId);
    const key = prefix + base62(randomBytes(32), KEY_BODY_LENGTH);
    const keyId = `key_${randomBytes(8).toString('hex')}`;
    await this.port.insertKey({
      keyId, accountId, keyHash: sha256(key).toString('hex'), prefix: key.slice(0, prefix.length + DISPLAY_RANDOM_CHARS),
      createdAt: this.iso(), revokedAt: null, lastUsedAt: null,
    });
    return { key, keyId };
  }

  listKeys(): Promise<KeyInfo[]> {
    return this.port.listKeys();
  }

  /**
   * Revokes a key named by its full value, its id (`key_…`) or its display prefix. A prefix that
   * matches several keys is refused rather than guessed. Revoking a revoked key changes nothing.
   */
  async revokeKey(keyOrIdOrPrefix: string): Promise<KeyInfo> {
    // `keys list` shows prefixes with a trailing ellipsis; accept them pasted as shown.
    const target = keyOrIdOrPrefix.trim().replace(/(…|\.\.\.)$/, '');
    let match: KeyMatch | null = null;
    if (KEY_PATTERN.test(target)) match = { keyHash: sha256(target).toString('hex') };
    else if (KEY_ID_PATTERN.test(target)) match = { keyId: target };
    // Display prefixes are at most 36 characters, whole keys at least 44: the two cannot be confused.
    else if (target !== '') match = { prefix: target };
    const rows = match ? await this.port.findKeys(match) : [];
    const row = rows[0];
    if (!row) throw new ShortsError('resource_not_found', `no API key matches "${target}"`);
    if (rows.length > 1) {
      throw new ShortsError('invalid_request', `${rows.length} keys start with "${target}"; give the key id (see \`shorts keys list --json\`) or the whole key`);
    }
    return (await this.port.revokeKey(row.keyId, this.iso()))!;
  }

  /** Resolves a presented key (see presentedKey) to its account, or throws the spec's 401 codes. */
  async authenticate(headerValue: string | undefined): Promise<AuthContext> {
    const key = headerValue?.trim() ?? '';
    if (key === '') throw new ShortsError('missing_api_key', 'send your API key in the X-API-Key header (or as Authorization: Bearer <key>)');
    if (!KEY_PATTERN.test(key)) throw new ShortsError('invalid_api_key', 'the API key is not in a valid format');
    const hash = sha256(key);
    const row = await this.port.keyByHash(hash.toString('hex'));
    // The indexed lookup finds the candidate; the final comparison does not leak how much of it matched.
    const stored = row ? Buffer.from(row.keyHash, 'hex') : Buffer.alloc(hash.length);
    const same = stored.length === hash.length && timingSafeEqual(stored, hash);
    if (!row || !same) throw new ShortsError('invalid_api_key', 'the API key was not found');
    if (row.revokedAt !== null) throw new ShortsError('invalid_api_key', 'the API key has been revoked');
    const account = await this.requireAccount(row.accountId);
    const nowMs = this.now();
    if (row.lastUsedAt === null || Date.parse(row.lastUsedAt) <= nowMs - LAST_USED_RESOLUTION_MS) {
      await this.port.touchKey(row.keyId, new Date(nowMs).toISOString());
    }
    return { account, keyId: row.keyId };
  }

  /**
   * Takes one credit for the creation of request `requestId` and runs `create` (the request's insert) in
   * the same unit of work: a creation refused for credit leaves no row, and two creations racing for the
   * last credit cannot both be accepted. See AccountsPort.chargeAndCreate for what `create` may do.
   */
  chargeAndCreate<T>(accountId: string, requestId: string, create: () => T | Promise<T>): Promise<T> {
    return this.port.chargeAndCreate(accountId, requestId, this.iso(), create);
  }

  /** Takes one credit for request `requestId` with nothing else in its unit of work. */
  async chargeCredit(accountId: string, requestId: string): Promise<void> {
    await this.chargeAndCreate(accountId, requestId, () => undefined);
  }

  /**
   * Gives back the credit a request took: at most once, however many times a failure is reported
   * (worker, restart recovery, cancel).
   */
  refundCredit(requestId: string): Promise<boolean> {
    return this.port.refund(requestId, this.iso());
  }
}

function found(id: string, account: AccountRecord | undefined): AccountRecord {
  if (!account) throw new ShortsError('resource_not_found', `account ${id} was not found`);
  return account;
}
