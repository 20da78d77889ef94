// The accounts port over PostgreSQL (accounts, api_keys, credit_ledger). Credits move only in transactions
// that hold the account's row locked (SELECT ... FOR UPDATE) and record the move in credit_ledger, so any
// number of processes on their own Pools can never spend one credit twice; the ledger's unique index on
// (request_id, reason) makes a charge and a refund happen at most once per request.
import { ShortsError } from '../../errors.js';
import type { AccountLimits, AccountRecord, AccountsPort, KeyInfo, KeyMatch, StoredKey } from '../../ports/accounts.js';
import type { PgDatabase } from './database.js';

interface AccountRow {
  id: string; email: string; subscription_active: boolean; credits: number; hourly_limit: number; daily_limit: number;
  blur_background: boolean; webhook_secret: string; created_at: string;
}
interface KeyRow {
  id: string; account_id: string; key_hash: string; prefix: string; created_at: string; revoked_at: string | null; last_used_at: string | null;
}
type KeyInfoRow = KeyRow & { email: string };

const KEY_INFO = 'SELECT k.*, a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id';
const UNIQUE_VIOLATION = '23505';

function toAccount(r: AccountRow): AccountRecord {
  return {
    id: r.id, email: r.email, subscriptionActive: r.subscription_active, credits: r.credits,
    hourlyLimit: r.hourly_limit, dailyLimit: r.daily_limit, blurBackground: r.blur_background,
    webhookSecret: r.webhook_secret, createdAt: r.created_at,
  };
}

function toKeyInfo(r: KeyInfoRow): KeyInfo {
  return {
    keyId: r.id, prefix: r.prefix, accountId: r.account_id, email: r.email,
    createdAt: r.created_at, revokedAt: r.revoked_at, lastUsedAt: r.last_used_at,
  };
}

export class PgAccounts implements AccountsPort {
  /** `db` is shared with the request store, whose insert joins chargeAndCreate's transaction. */
  constructor(private readonly db: PgDatabase) {}

  private async ledger(accountId: string, requestId: string | null, delta: number, reason: 'grant' | 'creation' | 'refund', at: string): Promise<void> {
    await this.db.query('INSERT INTO credit_ledger (account_id, request_id, delta, reason, created_at) VALUES ($1, $2, $3, $4, $5)',
      [accountId, requestId, delta, reason, at]);
  }

  async insertAccount(a: AccountRecord): Promise<AccountRecord | 'email_taken'> {
    try {
      return await this.db.transaction(async () => {
        const row = await this.db.one<AccountRow>(`INSERT INTO accounts (id, email, subscription_active, credits, hourly_limit, daily_limit, blur_background, webhook_secret, created_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`, [a.id, a.email, a.subscriptionActive, a.credits, a.hourlyLimit, a.dailyLimit,
          a.blurBackground, a.webhookSecret, a.createdAt]);
        if (a.credits > 0) await this.ledger(a.id, null, a.credits, 'grant', a.createdAt);
        return toAccount(row!);
      });
    } catch (e) {
      // The unique email is the check: of two processes creating the same email, one gets email_taken.
      if ((e as { code?: string; constraint?: string }).code === UNIQUE_VIOLATION && (e as { constraint?: string }).constraint === 'accounts_email_key') return 'email_taken';
      throw e;
    }
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const row = await this.db.one<AccountRow>('SELECT * FROM accounts WHERE id = $1', [id]);
    return row && toAccount(row);
  }

  async findAccountByEmail(email: string): Promise<AccountRecord | undefined> {
    const row = await this.db.one<AccountRow>('SELECT * FROM accounts WHERE email = $1', [email]);
    return row && toAccount(row);
  }

  async updateLimits(id: string, l: AccountLimits): Promise<AccountRecord | undefined> {
    const row = await this.db.one<AccountRow>('UPDATE accounts SET hourly_limit = $2, daily_limit = $3, subscription_active = $4 WHERE id = $1 RETURNING *',
      [id, l.hourlyLimit, l.dailyLimit, l.subscriptionActive]);
    return row && toAccount(row);
  }

  async setBlurPreference(id: string, blur: boolean): Promise<boolean> {
    return (await this.db.query('UPDATE accounts SET blur_background = $2 WHERE id = $1 RETURNING 1', [id, blur])).length > 0;
  }

  async grantCredits(id: string, credits: number, at: string): Promise<AccountRecord | undefined> {
    return this.db.transaction(async () => {
      const row = await this.db.one<AccountRow>('UPDATE accounts SET credits = credits + $2 WHERE id = $1 RETURNING *', [id, credits]);
      if (!row) return undefined;
      await this.ledger(id, null, credits, 'grant', at);
      return toAccount(row);
    });
  }

  async insertKey(k: StoredKey): Promise<void> {
    await this.db.query('INSERT INTO api_keys (id, account_id, key_hash, prefix, created_at, revoked_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [k.keyId, k.accountId, k.keyHash, k.prefix, k.createdAt, k.revokedAt, k.lastUsedAt]);
  }

  async listKeys(): Promise<KeyInfo[]> {
    return (await this.db.query<KeyInfoRow>(`${KEY_INFO} ORDER BY k.created_at, k.seq`)).map(toKeyInfo);
  }

  async findKeys(match: KeyMatch): Promise<KeyInfo[]> {
    const [column, value] = 'keyHash' in match ? ['key_hash', match.keyHash] : 'keyId' in match ? ['id', match.keyId] : ['prefix', match.prefix];
    return (await this.db.query<KeyInfoRow>(`${KEY_INFO} WHERE k.${column} = $1 ORDER BY k.created_at, k.seq`, [value])).map(toKeyInfo);
  }

  async keyByHash(keyHash: string): Promise<StoredKey | undefined> {
    const r = await this.db.one<KeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
    return r && { keyId: r.id, accountId: r.account_id, keyHash: r.key_hash, prefix: r.prefix, createdAt: r.created_at, revokedAt: r.revoked_at, lastUsedAt: r.last_used_at };
  }

  async revokeKey(keyId: string, at: string): Promise<KeyInfo | undefined> {
    await this.db.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [keyId, at]);
    const row = await this.db.one<KeyInfoRow>(`${KEY_INFO} WHERE k.id = $1`, [keyId]);
    return row && toKeyInfo(row);
  }

  async touchKey(keyId: string, at: string): Promise<void> {
    await this.db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [keyId, at]);
  }

  /**
   * The account's row stays locked (FOR UPDATE) from the check to COMMIT, so concurrent creations on it, from
   * any process, take turns: the one after the last credit finds none. `create` runs inside this transaction:
   * adapters on the same PgDatabase (the request store's insert) write on its connection.
   */
  async chargeAndCreate<T>(accountId: string, requestId: string, at: string, create: () => T | Promise<T>): Promise<T> {
    return this.db.transaction(async () => {
      const account = await this.db.one<{ credits: number }>('SELECT credits FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if (!account) throw new ShortsError('resource_not_found', `account ${accountId} was not found`);
      if (account.credits < 1) {
        throw new ShortsError('insufficient_credits', 'no credits left: each creation costs 1 credit', { creditsRequired: 1, creditsAvailable: 0 });
      }
      await this.db.query('UPDATE accounts SET credits = credits - 1 WHERE id = $1', [accountId]);
      await this.ledger(accountId, requestId, -1, 'creation', at);
      return create();
    });
  }

  async refund(requestId: string, at: string): Promise<boolean> {
    return this.db.transaction(async () => {
      const charge = await this.db.one<{ account_id: string }>(`SELECT account_id FROM credit_ledger WHERE request_id = $1 AND reason = 'creation'`, [requestId]);
      if (!charge) return false;
      // A second refunder (another process) waits on the first one's uncommitted ledger row, then inserts nothing.
      const refunded = await this.db.query(`INSERT INTO credit_ledger (account_id, request_id, delta, reason, created_at)
        VALUES ($1, $2, 1, 'refund', $3) ON CONFLICT DO NOTHING RETURNING 1`, [charge.account_id, requestId, at]);
      if (refunded.length === 0) return false;
      await this.db.query('UPDATE accounts SET credits = credits + 1 WHERE id = $1', [charge.account_id]);
      return true;
    });
  }
}
