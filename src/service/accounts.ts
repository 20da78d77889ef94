// Accounts, API keys and the credit ledger of `shorts serve`, over the v2 tables of the job store.
// Keys are shown once and stored only as a SHA-256 hash plus a short display prefix (the key's own
// prefix, whatever SHORTS_API_KEY_PREFIX was when it was issued, plus four characters); credits move
// only through single guarded UPDATE statements recorded in credit_ledger, so concurrent creations
// can never spend the same credit twice.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
// Type-only on purpose: the store works on any handle it is given and pulls in no native module itself.
import type Database from 'better-sqlite3';
import { ShortsError } from '../errors.js';

export interface AccountRecord {
  id: string;
  email: string;
  subscriptionActive: boolean;
  credits: number;
  hourlyLimit: number;
  dailyLimit: number;
  blurBackground: boolean;
  webhookSecret: string;
  createdAt: string;
}

export interface AuthContext { account: AccountRecord; keyId: string }

export interface KeyInfo {
  keyId: string;
  prefix: string;
  accountId: string;
  email: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

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

interface AccountRow {
  id: string; email: string; subscription_active: number; credits: number; hourly_limit: number; daily_limit: number;
  blur_background: number; webhook_secret: string; created_at: string;
}
interface KeyRow {
  id: string; account_id: string; key_hash: string; prefix: string; created_at: string; revoked_at: string | null; last_used_at: string | null;
}
type KeyInfoRow = KeyRow & { email: string };

function toAccount(r: AccountRow): AccountRecord {
  return {
    id: r.id, email: r.email, subscriptionActive: r.subscription_active === 1, credits: r.credits,
    hourlyLimit: r.hourly_limit, dailyLimit: r.daily_limit, blurBackground: r.blur_background === 1,
    webhookSecret: r.webhook_secret, createdAt: r.created_at,
  };
}

function toKeyInfo(r: KeyInfoRow): KeyInfo {
  return {
    keyId: r.id, prefix: r.prefix, accountId: r.account_id, email: r.email,
    createdAt: r.created_at, revokedAt: r.revoked_at, lastUsedAt: r.last_used_at,
  };
}

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

  constructor(readonly db: Database.Database, opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  createAccount(opts: NewAccount): AccountRecord {
    const email = normalizeEmail(opts.email);
    const hourly = checkLimit('hourly', opts.hourlyLimit);
    const daily = checkLimit('daily', opts.dailyLimit);
    const credits = checkCredits(opts.credits ?? 0, true);
    const id = randomBytes(12).toString('hex');
    // Standard Webhooks secret format: "whsec_" + base64 of the raw signing key.
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const t = this.iso();
    this.db.transaction(() => {
      if (this.findAccountByEmail(email)) throw new ShortsError('invalid_request', 'an account with this email exists');
      this.db.prepare(`INSERT INTO accounts (id, email, subscription_active, credits, hourly_limit, daily_limit, blur_background, webhook_secret, created_at)
        VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)`).run(id, email, opts.subscription === false ? 0 : 1, credits, hourly, daily, secret, t);
      if (credits > 0) this.ledger(id, null, credits, 'grant', t);
    }).immediate();
    return this.getAccount(id)!;
  }

  findAccountByEmail(email: string): AccountRecord | undefined {
    const row = this.db.prepare('SELECT * FROM accounts WHERE email = ?').get(email.trim().toLowerCase()) as AccountRow | undefined;
    return row && toAccount(row);
  }

  getAccount(id: string): AccountRecord | undefined {
    const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
    return row && toAccount(row);
  }

  private requireAccount(id: string): AccountRecord {
    const a = this.getAccount(id);
    if (!a) throw new ShortsError('resource_not_found', `account ${id} was not found`);
    return a;
  }

  addCredits(accountId: string, credits: number): AccountRecord {
    checkCredits(credits, false);
    this.db.transaction(() => {
      const r = this.db.prepare('UPDATE accounts SET credits = credits + ? WHERE id = ?').run(credits, accountId);
      if (r.changes === 0) throw new ShortsError('resource_not_found', `account ${accountId} was not found`);
      this.ledger(accountId, null, credits, 'grant', this.iso());
    }).immediate();
    return this.requireAccount(accountId);
  }

  /** Tier changes by the operator (`shorts keys create` on an existing email). */
  updateAccount(accountId: string, changes: AccountChanges): AccountRecord {
    const a = this.requireAccount(accountId);
    const hourly = changes.hourlyLimit === undefined ? a.hourlyLimit : checkLimit('hourly', changes.hourlyLimit);
    const daily = changes.dailyLimit === undefined ? a.dailyLimit : checkLimit('daily', changes.dailyLimit);
    const sub = changes.subscription === undefined ? a.subscriptionActive : changes.subscription;
    this.db.prepare('UPDATE accounts SET hourly_limit = ?, daily_limit = ?, subscription_active = ? WHERE id = ?')
      .run(hourly, daily, sub ? 1 : 0, accountId);
    return this.requireAccount(accountId);
  }

  setBlurPreference(accountId: string, blur: boolean): void {
    const r = this.db.prepare('UPDATE accounts SET blur_background = ? WHERE id = ?').run(blur ? 1 : 0, accountId);
    if (r.changes === 0) throw new ShortsError('resource_not_found', `account ${accountId} was not found`);
  }

  /**
   * Issues a key: `prefix` (SHORTS_API_KEY_PREFIX, checked) + 43 random base62 characters. The plaintext
   * is returned here and nowhere else; the database keeps its hash and the display prefix.
   */
  createKey(accountId: string, prefix: string = KEY_PREFIX): { key: string; keyId: string } {
    checkKeyPrefix(prefix);
    this.requireAccount(accountId);
    const key = prefix + base62(randomBytes(32), KEY_BODY_LENGTH);
    const keyId = `key_${randomBytes(8).toString('hex')}`;
    this.db.prepare('INSERT INTO api_keys (id, account_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(keyId, accountId, sha256(key).toString('hex'), key.slice(0, prefix.length + DISPLAY_RANDOM_CHARS), this.iso());
    return { key, keyId };
  }

  listKeys(): KeyInfo[] {
    const rows = this.db.prepare(`SELECT k.*, a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id
      ORDER BY k.created_at, k.rowid`).all() as KeyInfoRow[];
    return rows.map(toKeyInfo);
  }

  /**
   * Revokes a key named by its full value, its id (`key_…`) or its display prefix. A prefix that
   * matches several keys is refused rather than guessed. Revoking a revoked key changes nothing.
   */
  revokeKey(keyOrIdOrPrefix: string): KeyInfo {
    // `keys list` shows prefixes with a trailing ellipsis; accept them pasted as shown.
    const target = keyOrIdOrPrefix.trim().replace(/(…|\.\.\.)$/, '');
    const select = `SELECT k.*, a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id`;
    let rows: KeyInfoRow[];
    if (KEY_PATTERN.test(target)) rows = this.db.prepare(`${select} WHERE k.key_hash = ?`).all(sha256(target).toString('hex')) as KeyInfoRow[];
    else if (KEY_ID_PATTERN.test(target)) rows = this.db.prepare(`${select} WHERE k.id = ?`).all(target) as KeyInfoRow[];
    // Display prefixes are at most 36 characters, whole keys at least 44: the two cannot be confused.
    else if (target !== '') rows = this.db.prepare(`${select} WHERE k.prefix = ?`).all(target) as KeyInfoRow[];
    else rows = [];
    const row = rows[0];
    if (!row) throw new ShortsError('resource_not_found', `no API key matches "${target}"`);
    if (rows.length > 1) {
      throw new ShortsError('invalid_request', `${rows.length} keys start with "${target}"; give the key id (see \`shorts keys list --json\`) or the whole key`);
    }
    this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.iso(), row.id);
    const after = this.db.prepare(`${select} WHERE k.id = ?`).get(row.id) as KeyInfoRow;
    return toKeyInfo(after);
  }

  /** Resolves a presented key (see presentedKey) to its account, or throws the spec's 401 codes. */
  authenticate(headerValue: string | undefined): AuthContext {
    const key = headerValue?.trim() ?? '';
    if (key === '') throw new ShortsError('missing_api_key', 'send your API key in the X-API-Key header (or as Authorization: Bearer <key>)');
    if (!KEY_PATTERN.test(key)) throw new ShortsError('invalid_api_key', 'the API key is not in a valid format');
    const hash = sha256(key);
    const row = this.db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(hash.toString('hex')) as KeyRow | undefined;
    // The indexed lookup finds the candidate; the final comparison does not leak how much of it matched.
    const stored = row ? Buffer.from(row.key_hash, 'hex') : Buffer.alloc(hash.length);
    const same = stored.length === hash.length && timingSafeEqual(stored, hash);
    if (!row || !same) throw new ShortsError('invalid_api_key', 'the API key was not found');
    if (row.revoked_at !== null) throw new ShortsError('invalid_api_key', 'the API key has been revoked');
    const account = this.requireAccount(row.account_id);
    const nowMs = this.now();
    if (row.last_used_at === null || Date.parse(row.last_used_at) <= nowMs - LAST_USED_RESOLUTION_MS) {
      this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(new Date(nowMs).toISOString(), row.id);
    }
    return { account, keyId: row.id };
  }

  /**
   * Takes one credit for an accepted creation. The guarded UPDATE is the whole check: it changes a
   * row only while credits remain, so two connections racing for the last credit cannot both win.
   * Safe to call inside a caller's transaction (it becomes a savepoint there).
   */
  chargeCredit(accountId: string, requestId: string): void {
    this.db.transaction(() => {
      const r = this.db.prepare('UPDATE accounts SET credits = credits - 1 WHERE id = ? AND credits > 0').run(accountId);
      if (r.changes === 0) {
        if (!this.getAccount(accountId)) throw new ShortsError('resource_not_found', `account ${accountId} was not found`);
        throw new ShortsError('insufficient_credits', 'no credits left: each creation costs 1 credit', { creditsRequired: 1, creditsAvailable: 0 });
      }
      this.ledger(accountId, requestId, -1, 'creation', this.iso());
    }).immediate();
  }

  /**
   * Gives back the credit a request took. The unique index on (request_id, reason) makes it happen
   * at most once, however many times a failure is reported (worker, restart recovery, cancel).
   */
  refundCredit(requestId: string): boolean {
    return this.db.transaction(() => {
      const charge = this.db.prepare(`SELECT account_id FROM credit_ledger WHERE request_id = ? AND reason = 'creation'`)
        .get(requestId) as { account_id: string } | undefined;
      if (!charge) return false;
      const r = this.db.prepare(`INSERT INTO credit_ledger (account_id, request_id, delta, reason, created_at)
        VALUES (?, ?, 1, 'refund', ?) ON CONFLICT DO NOTHING`).run(charge.account_id, requestId, this.iso());
      if (r.changes === 0) return false;
      this.db.prepare('UPDATE accounts SET credits = credits + 1 WHERE id = ?').run(charge.account_id);
      return true;
    }).immediate();
  }

  private ledger(accountId: string, requestId: string | null, delta: number, reason: 'grant' | 'creation' | 'refund', at: string): void {
    this.db.prepare('INSERT INTO credit_ledger (account_id, request_id, delta, reason, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(accountId, requestId, delta, reason, at);
  }
}
