// The connected accounts port over PostgreSQL's `connected_accounts` table (unique on account, platform and
// handle). The tokens arrive sealed: this adapter never sees one in clear. Each unit of work is one
// transaction (deleting an account cancels its scheduled posts; expiring one fails its pending posts), so
// another process sees all of it or none.
import type { Platform } from '../../publish/types.js';
import type { AccountTokensWrite, ConnectedAccountRecord, ConnectedAccountsStore, RefreshWrite } from '../../ports/connected-accounts-store.js';
import { connectedAccountOfRow, scopesColumn, type ConnectedAccountRow } from '../connected-account-row.js';
import type { PgDatabase } from './database.js';

const one = (rows: ConnectedAccountRow[]) => (rows[0] ? connectedAccountOfRow(rows[0]) : undefined);

export class PgConnectedAccountsStore implements ConnectedAccountsStore {
  constructor(private readonly db: PgDatabase) {}

  async get(id: string): Promise<ConnectedAccountRecord | undefined> {
    return one(await this.db.query<ConnectedAccountRow>('SELECT * FROM connected_accounts WHERE id = $1', [id]));
  }

  async list(accountId: string, platform?: Platform): Promise<ConnectedAccountRecord[]> {
    const r = platform
      ? await this.db.query<ConnectedAccountRow>('SELECT * FROM connected_accounts WHERE account_id = $1 AND platform = $2 ORDER BY created_at, id', [accountId, platform])
      : await this.db.query<ConnectedAccountRow>('SELECT * FROM connected_accounts WHERE account_id = $1 ORDER BY created_at, id', [accountId]);
    return r.map(connectedAccountOfRow);
  }

  async findByHandle(accountId: string, platform: Platform, handle: string): Promise<ConnectedAccountRecord | undefined> {
    return one(await this.db.query<ConnectedAccountRow>('SELECT * FROM connected_accounts WHERE account_id = $1 AND platform = $2 AND handle = $3', [accountId, platform, handle]));
  }

  async holderOf(platform: Platform, platformUserId: string): Promise<string | undefined> {
    const r = await this.db.query<{ account_id: string }>(`SELECT account_id FROM connected_accounts WHERE platform = $1 AND platform_user_id = $2
      ORDER BY created_at, id LIMIT 1`, [platform, platformUserId]);
    return r[0]?.account_id;
  }

  async upsert(key: { accountId: string; platform: Platform; handle: string }, newId: string, fields: { platformUserId: string | null; at: string },
    seal: (id: string) => AccountTokensWrite): Promise<ConnectedAccountRecord> {
    return this.db.transaction(async () => {
      // The tokens are sealed for the id the row ends with, so that id is settled before anything is written: the
      // existing row, locked, or the new id, inserted unless another process inserted the key meanwhile (then its
      // row is the one to update, and the tokens are sealed again for it; `seal` is pure).
      for (;;) {
        const existing = await this.db.query<{ id: string }>('SELECT id FROM connected_accounts WHERE account_id = $1 AND platform = $2 AND handle = $3 FOR UPDATE',
          [key.accountId, key.platform, key.handle]);
        const id = existing[0]?.id ?? newId;
        const t = seal(id);
        const values = [id, fields.platformUserId, t.accessToken, t.refreshToken, t.expiresAt, t.refreshExpiresAt, scopesColumn(t.scopes), fields.at];
        if (existing[0]) {
          return one(await this.db.query<ConnectedAccountRow>(`UPDATE connected_accounts SET platform_user_id = COALESCE($2, platform_user_id), access_token = $3,
            refresh_token = $4, expires_at = $5, refresh_expires_at = $6, scopes = $7, status = 'active', updated_at = $8 WHERE id = $1 RETURNING *`, values))!;
        }
        const made = one(await this.db.query<ConnectedAccountRow>(`INSERT INTO connected_accounts (id, platform_user_id, access_token, refresh_token, expires_at,
            refresh_expires_at, scopes, created_at, updated_at, account_id, platform, handle, status)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11, 'active') ON CONFLICT (account_id, platform, handle) DO NOTHING RETURNING *`,
        [...values, key.accountId, key.platform, key.handle]));
        if (made) return made;
      }
    });
  }

  async remove(accountId: string, id: string, at: string): Promise<{ canceledPosts: number } | null> {
    return this.db.transaction(async () => {
      const held = await this.db.query('SELECT 1 FROM connected_accounts WHERE id = $1 AND account_id = $2 FOR UPDATE', [id, accountId]);
      if (held.length === 0) return null;
      const canceled = await this.db.query(`UPDATE posts SET status = 'canceled', next_attempt_at = NULL, updated_at = $1
        WHERE connected_account_id = $2 AND status = 'scheduled' RETURNING id`, [at, id]);
      // Its automation rules go with it (ON DELETE CASCADE).
      await this.db.query('DELETE FROM connected_accounts WHERE id = $1', [id]);
      return { canceledPosts: canceled.length };
    });
  }

  async saveRefreshed(id: string, w: RefreshWrite): Promise<void> {
    await this.db.query(`UPDATE connected_accounts SET access_token = $2, refresh_token = COALESCE($3, refresh_token), expires_at = $4,
      refresh_expires_at = COALESCE($5, refresh_expires_at), scopes = COALESCE($6, scopes), platform_user_id = COALESCE(platform_user_id, $7),
      status = 'active', updated_at = $8 WHERE id = $1`,
    [id, w.accessToken, w.refreshToken, w.expiresAt, w.refreshExpiresAt, w.scopes ? scopesColumn(w.scopes) : null, w.platformUserId, w.at]);
  }

  async expire(id: string, message: string, at: string): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.query(`UPDATE connected_accounts SET status = 'expired', updated_at = $2 WHERE id = $1`, [id, at]);
      await this.db.query(`UPDATE posts SET status = 'failed', error = $2, error_code = 'auth_expired', retryable = false, next_attempt_at = NULL,
        updated_at = $3 WHERE connected_account_id = $1 AND status IN ('scheduled', 'processing')`, [id, message, at]);
    });
  }

  async expiringBy(limit: string): Promise<string[]> {
    const r = await this.db.query<{ id: string }>(`SELECT id FROM connected_accounts WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= $1`, [limit]);
    return r.map((x) => x.id);
  }
}
