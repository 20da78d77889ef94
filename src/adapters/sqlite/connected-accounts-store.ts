// The connected accounts port over the `connected_accounts` table (store v7, unique on account, platform and
// handle). The tokens arrive sealed: this adapter never sees one in clear. Units of work are transactions on
// the job store's connection (deleting an account cancels its scheduled posts; expiring one fails its
// pending posts), so another process sees all of one or none of it.
import type Database from 'better-sqlite3';
import type { Platform } from '../../publish/types.js';
import type { AccountTokensWrite, ConnectedAccountRecord, ConnectedAccountsStore, RefreshWrite } from '../../ports/connected-accounts-store.js';
import { connectedAccountOfRow, scopesColumn, type ConnectedAccountRow } from '../connected-account-row.js';

export class SqliteConnectedAccountsStore implements ConnectedAccountsStore {
  constructor(private readonly db: Database.Database) {}

  private row(id: string): ConnectedAccountRecord | undefined {
    const r = this.db.prepare('SELECT * FROM connected_accounts WHERE id = ?').get(id) as ConnectedAccountRow | undefined;
    return r && connectedAccountOfRow(r);
  }

  async get(id: string): Promise<ConnectedAccountRecord | undefined> {
    return this.row(id);
  }

  async list(accountId: string, platform?: Platform): Promise<ConnectedAccountRecord[]> {
    const rows = platform
      ? this.db.prepare('SELECT * FROM connected_accounts WHERE account_id = ? AND platform = ? ORDER BY created_at, id').all(accountId, platform)
      : this.db.prepare('SELECT * FROM connected_accounts WHERE account_id = ? ORDER BY created_at, id').all(accountId);
    return (rows as ConnectedAccountRow[]).map(connectedAccountOfRow);
  }

  async findByHandle(accountId: string, platform: Platform, handle: string): Promise<ConnectedAccountRecord | undefined> {
    const r = this.db.prepare('SELECT * FROM connected_accounts WHERE account_id = ? AND platform = ? AND handle = ?').get(accountId, platform, handle) as ConnectedAccountRow | undefined;
    return r && connectedAccountOfRow(r);
  }

  async holderOf(platform: Platform, platformUserId: string): Promise<string | undefined> {
    const r = this.db.prepare('SELECT account_id FROM connected_accounts WHERE platform = ? AND platform_user_id = ? ORDER BY created_at, id LIMIT 1')
      .get(platform, platformUserId) as { account_id: string } | undefined;
    return r?.account_id;
  }

  async upsert(key: { accountId: string; platform: Platform; handle: string }, newId: string, fields: { platformUserId: string | null; at: string },
    seal: (id: string) => AccountTokensWrite): Promise<ConnectedAccountRecord> {
    return this.db.transaction(() => {
      const existing = this.db.prepare('SELECT id FROM connected_accounts WHERE account_id = ? AND platform = ? AND handle = ?')
        .get(key.accountId, key.platform, key.handle) as { id: string } | undefined;
      const id = existing?.id ?? newId;
      const t = seal(id);
      const values = {
        id, ...key, platformUserId: fields.platformUserId, access: t.accessToken, refresh: t.refreshToken, expiresAt: t.expiresAt,
        refreshExpiresAt: t.refreshExpiresAt, scopes: scopesColumn(t.scopes), now: fields.at,
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
      return this.row(id)!;
    }).immediate();
  }

  async remove(accountId: string, id: string, at: string): Promise<{ canceledPosts: number } | null> {
    return this.db.transaction(() => {
      const r = this.row(id);
      if (!r || r.accountId !== accountId) return null;
      const canceled = this.db.prepare(`UPDATE posts SET status = 'canceled', next_attempt_at = NULL, updated_at = ?
        WHERE connected_account_id = ? AND status = 'scheduled'`).run(at, id).changes;
      this.db.prepare('DELETE FROM connected_accounts WHERE id = ?').run(id);
      return { canceledPosts: canceled };
    }).immediate();
  }

  async saveRefreshed(id: string, w: RefreshWrite): Promise<void> {
    this.db.prepare(`UPDATE connected_accounts SET access_token = @access, refresh_token = COALESCE(@refresh, refresh_token),
      expires_at = @expiresAt, refresh_expires_at = COALESCE(@refreshExpiresAt, refresh_expires_at), scopes = COALESCE(@scopes, scopes),
      platform_user_id = COALESCE(platform_user_id, @platformUserId), status = 'active', updated_at = @now WHERE id = @id`).run({
      id, access: w.accessToken, refresh: w.refreshToken, expiresAt: w.expiresAt, refreshExpiresAt: w.refreshExpiresAt,
      scopes: w.scopes ? scopesColumn(w.scopes) : null, platformUserId: w.platformUserId, now: w.at,
    });
  }

  async expire(id: string, message: string, at: string): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare(`UPDATE connected_accounts SET status = 'expired', updated_at = ? WHERE id = ?`).run(at, id);
      this.db.prepare(`UPDATE posts SET status = 'failed', error = ?, error_code = 'auth_expired', retryable = 0, next_attempt_at = NULL,
        updated_at = ? WHERE connected_account_id = ? AND status IN ('scheduled', 'processing')`).run(message, at, id);
    }).immediate();
  }

  async expiringBy(limit: string): Promise<string[]> {
    return (this.db.prepare(`SELECT id FROM connected_accounts WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ?`)
      .all(limit) as { id: string }[]).map((x) => x.id);
  }
}
