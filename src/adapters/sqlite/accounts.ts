// The accounts port over the v2 tables of the job store's SQLite file (accounts, api_keys,
// credit_ledger). Credits move only through single guarded UPDATE statements recorded in credit_ledger,
// inside IMMEDIATE transactions, so two connections can never spend the same credit twice. Each method
// does its work synchronously when called (better-sqlite3), before the promise it returns settles.
// Type-only on purpose: the adapter works on any handle it is given and pulls in no native module itself.
import type Database from 'better-sqlite3';
import { ShortsError } from '../../errors.js';
import type { AccountLimits, AccountRecord, AccountsPort, KeyInfo, KeyMatch, StoredKey } from '../../ports/accounts.js';

interface AccountRow {
  id: string; email: string; subscription_active: number; credits: number; hourly_limit: number; daily_limit: number;
  blur_background: number; webhook_secret: string; created_at: string;
}
interface KeyRow {
  id: string; account_id: string; key_hash: string; prefix: string; created_at: string; revoked_at: string | null; last_used_at: string | null;
}
type KeyInfoRow = KeyRow & { email: string };

const KEY_INFO = 'SELECT k.*, a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id';

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

export class SqliteAccounts implements AccountsPort {
  constructor(private readonly db: Database.Database) {}

  private account(id: string): AccountRecord | undefined {
    const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
    return row && toAccount(row);
  }

  private ledger(accountId: string, requestId: string | null, delta: number, reason: 'grant' | 'creation' | 'refund', at: string): void {
    this.db.prepare('INSERT INTO credit_ledger (account_id, request_id, delta, reason, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(accountId, requestId, delta, reason, at);
  }

  async insertAccount(a: AccountRecord): Promise<AccountRecord | 'email_taken'> {
    return this.db.transaction((): AccountRecord | 'email_taken' => {
      if (this.db.prepare('SELECT 1 FROM accounts WHERE email = ?').get(a.email)) return 'email_taken';
      this.db.prepare(`INSERT INTO accounts (id, email, subscription_active, credits, hourly_limit, daily_limit, blur_background, webhook_secret, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(a.id, a.email, a.subscriptionActive ? 1 : 0, a.credits, a.hourlyLimit, a.dailyLimit,
        a.blurBackground ? 1 : 0, a.webhookSecret, a.createdAt);
      if (a.credits > 0) this.ledger(a.id, null, a.credits, 'grant', a.createdAt);
      return this.account(a.id)!;
    }).immediate();
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    return this.account(id);
  }

  async findAccountByEmail(email: string): Promise<AccountRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM accounts WHERE email = ?').get(email) as AccountRow | undefined;
    return row && toAccount(row);
  }

  async updateLimits(id: string, l: AccountLimits): Promise<AccountRecord | undefined> {
    this.db.prepare('UPDATE accounts SET hourly_limit = ?, daily_limit = ?, subscription_active = ? WHERE id = ?')
      .run(l.hourlyLimit, l.dailyLimit, l.subscriptionActive ? 1 : 0, id);
    return this.account(id);
  }

  async setBlurPreference(id: string, blur: boolean): Promise<boolean> {
    return this.db.prepare('UPDATE accounts SET blur_background = ? WHERE id = ?').run(blur ? 1 : 0, id).changes > 0;
  }

  async grantCredits(id: string, credits: number, at: string): Promise<AccountRecord | undefined> {
    return this.db.transaction(() => {
      if (this.db.prepare('UPDATE accounts SET credits = credits + ? WHERE id = ?').run(credits, id).changes === 0) return undefined;
      this.ledger(id, null, credits, 'grant', at);
      return this.account(id);
    }).immediate();
  }

  async insertKey(k: StoredKey): Promise<void> {
    this.db.prepare('INSERT INTO api_keys (id, account_id, key_hash, prefix, created_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(k.keyId, k.accountId, k.keyHash, k.prefix, k.createdAt, k.revokedAt, k.lastUsedAt);
  }

  async listKeys(): Promise<KeyInfo[]> {
    return (this.db.prepare(`${KEY_INFO} ORDER BY k.created_at, k.rowid`).all() as KeyInfoRow[]).map(toKeyInfo);
  }

  async findKeys(match: KeyMatch): Promise<KeyInfo[]> {
    const [column, value] = 'keyHash' in match ? ['key_hash', match.keyHash] : 'keyId' in match ? ['id', match.keyId] : ['prefix', match.prefix];
    return (this.db.prepare(`${KEY_INFO} WHERE k.${column} = ? ORDER BY k.created_at, k.rowid`).all(value) as KeyInfoRow[]).map(toKeyInfo);
  }

  async keyByHash(keyHash: string): Promise<StoredKey | undefined> {
    const r = this.db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(keyHash) as KeyRow | undefined;
    return r && { keyId: r.id, accountId: r.account_id, keyHash: r.key_hash, prefix: r.prefix, createdAt: r.created_at, revokedAt: r.revoked_at, lastUsedAt: r.last_used_at };
  }

  async revokeKey(keyId: string, at: string): Promise<KeyInfo | undefined> {
    this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, keyId);
    const row = this.db.prepare(`${KEY_INFO} WHERE k.id = ?`).get(keyId) as KeyInfoRow | undefined;
    return row && toKeyInfo(row);
  }

  async touchKey(keyId: string, at: string): Promise<void> {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, keyId);
  }

  /**
   * The guarded UPDATE is the whole check: it changes a row only while credits remain, so two connections
   * racing for the last credit cannot both win. Inside a caller's transaction it becomes a savepoint.
   */
  async chargeAndCreate<T>(accountId: string, requestId: string, at: string, create: () => T | Promise<T>): Promise<T> {
    // better-sqlite3 refuses a transaction function that returns a promise: the result is carried out of it.
    let created!: T | Promise<T>;
    this.db.transaction((): void => {
      const r = this.db.prepare('UPDATE accounts SET credits = credits - 1 WHERE id = ? AND credits > 0').run(accountId);
      if (r.changes === 0) {
        if (!this.account(accountId)) throw new ShortsError('resource_not_found', `account ${accountId} was not found`);
        throw new ShortsError('insufficient_credits', 'no credits left: each creation costs 1 credit', { creditsRequired: 1, creditsAvailable: 0 });
      }
      this.ledger(accountId, requestId, -1, 'creation', at);
      // The SQLite request store writes before it returns its promise (and throws rather than rejects), so
      // its write is inside this transaction; the promise is only awaited after COMMIT.
      created = create();
    }).immediate();
    return created;
  }

  /** The unique index on (request_id, reason) makes a refund happen at most once, from any connection. */
  async refund(requestId: string, at: string): Promise<boolean> {
    return this.db.transaction(() => {
      const charge = this.db.prepare(`SELECT account_id FROM credit_ledger WHERE request_id = ? AND reason = 'creation'`)
        .get(requestId) as { account_id: string } | undefined;
      if (!charge) return false;
      const r = this.db.prepare(`INSERT INTO credit_ledger (account_id, request_id, delta, reason, created_at)
        VALUES (?, ?, 1, 'refund', ?) ON CONFLICT DO NOTHING`).run(charge.account_id, requestId, at);
      if (r.changes === 0) return false;
      this.db.prepare('UPDATE accounts SET credits = credits + 1 WHERE id = ?').run(charge.account_id);
      return true;
    }).immediate();
  }
}
