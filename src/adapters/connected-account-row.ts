// The `connected_accounts` row as both SQL schemas keep it (SQLite and PostgreSQL: text columns alike, scopes
// space-separated), and the port's record of it.
import type { Platform } from '../publish/types.js';
import type { ConnectedAccountRecord } from '../ports/connected-accounts-store.js';

export type ConnectedAccountRow = {
  id: string; account_id: string; platform: Platform; handle: string; platform_user_id: string | null;
  access_token: string; refresh_token: string | null; expires_at: string | null; refresh_expires_at: string | null;
  scopes: string | null; status: 'active' | 'expired'; created_at: string; updated_at: string;
};

export function connectedAccountOfRow(r: ConnectedAccountRow): ConnectedAccountRecord {
  return {
    id: r.id, accountId: r.account_id, platform: r.platform, handle: r.handle, platformUserId: r.platform_user_id,
    accessToken: r.access_token, refreshToken: r.refresh_token, expiresAt: r.expires_at, refreshExpiresAt: r.refresh_expires_at,
    scopes: r.scopes ? r.scopes.split(' ').filter(Boolean) : [], status: r.status, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

export const scopesColumn = (scopes: string[]) => scopes.join(' ') || null;
