// The studio sessions port over the sessions table of the store's SQLite file.
import type Database from 'better-sqlite3';
import type { SessionRecord, SessionsPort } from '../../ports/sessions.js';

interface Row { token_hash: string; account_id: string; key_id: string | null; created_at: string; expires_at: string }

const ofRow = (r: Row): SessionRecord => ({ tokenHash: r.token_hash, accountId: r.account_id, keyId: r.key_id, createdAt: r.created_at, expiresAt: r.expires_at });

export class SqliteSessions implements SessionsPort {
  constructor(private readonly db: Database.Database) {}

  async create(s: SessionRecord): Promise<void> {
    this.db.prepare('INSERT INTO sessions (token_hash, account_id, key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(s.tokenHash, s.accountId, s.keyId, s.createdAt, s.expiresAt);
  }

  async findByTokenHash(tokenHash: string, nowIso: string): Promise<SessionRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM sessions WHERE token_hash = ? AND expires_at > ?').get(tokenHash, nowIso) as Row | undefined;
    return row && ofRow(row);
  }

  async delete(tokenHash: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM sessions WHERE token_hash = ?').run(tokenHash).changes === 1;
  }

  async deleteExpired(nowIso: string): Promise<number> {
    return this.db.prepare('DELETE FROM sessions WHERE expires_at <= ?').run(nowIso).changes;
  }
}
