// The studio sessions port over the sessions table.
import type { SessionRecord, SessionsPort } from '../../ports/sessions.js';
import type { PgDatabase } from './database.js';

interface Row { token_hash: string; account_id: string; key_id: string | null; created_at: string; expires_at: string }

const ofRow = (r: Row): SessionRecord => ({ tokenHash: r.token_hash, accountId: r.account_id, keyId: r.key_id, createdAt: r.created_at, expiresAt: r.expires_at });

export class PgSessions implements SessionsPort {
  constructor(private readonly db: PgDatabase) {}

  async create(s: SessionRecord): Promise<void> {
    await this.db.query('INSERT INTO sessions (token_hash, account_id, key_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
      [s.tokenHash, s.accountId, s.keyId, s.createdAt, s.expiresAt]);
  }

  async findByTokenHash(tokenHash: string, nowIso: string): Promise<SessionRecord | undefined> {
    const row = await this.db.one<Row>('SELECT * FROM sessions WHERE token_hash = $1 AND expires_at > $2', [tokenHash, nowIso]);
    return row && ofRow(row);
  }

  async delete(tokenHash: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM sessions WHERE token_hash = $1 RETURNING 1', [tokenHash])).length === 1;
  }

  async deleteExpired(nowIso: string): Promise<number> {
    return (await this.db.query('DELETE FROM sessions WHERE expires_at <= $1 RETURNING 1', [nowIso])).length;
  }
}
