// Today's lease adapter: a `leases` table in the job store's SQLite database. Time is SQLite's clock (`NOW_MS`
// below), read inside each statement, so every process on the data dir measures expiry on one clock. A
// released lease keeps its row (expired) so the next owner's token still counts up from the last one, until
// housekeeping prunes it a day later (LeaseStore.prune).
import type Database from 'better-sqlite3';
import { LeaseLost, type Lease, type LeaseHolder, type LeaseKey, type LeaseStore } from '../../ports/leases.js';

/** Milliseconds since the epoch on the database's clock. */
export const NOW_MS = `CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)`;

interface Row { owner: string; token: number; expires_at: number }

export class SqliteLeaseStore implements LeaseStore {
  constructor(private readonly db: Database.Database) {}

  async acquire(key: LeaseKey, owner: string, ttlMs: number): Promise<Lease | null> {
    // One statement: insert when new; otherwise take it only when expired or already ours. A takeover by another
    // owner counts the token up; the holder re-acquiring keeps it.
    const row = this.db.prepare(`INSERT INTO leases (kind, id, owner, token, expires_at) VALUES (@kind, @id, @owner, 1, ${NOW_MS} + @ttl)
      ON CONFLICT (kind, id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
        token = CASE WHEN leases.owner = excluded.owner THEN leases.token ELSE leases.token + 1 END
      WHERE leases.owner = excluded.owner OR leases.expires_at <= ${NOW_MS}
      RETURNING owner, token, expires_at`).get({ kind: key.kind, id: key.id, owner, ttl: Math.ceil(ttlMs) }) as Row | undefined;
    return row ? lease(key, row) : null;
  }

  async renew(l: Lease, ttlMs: number): Promise<Lease | null> {
    // Held means same owner and token: a lease that ran out but that nobody took is still this owner's to extend.
    const row = this.db.prepare(`UPDATE leases SET expires_at = ${NOW_MS} + @ttl
      WHERE kind = @kind AND id = @id AND owner = @owner AND token = @token RETURNING owner, token, expires_at`)
      .get({ ...guardParams(l), ttl: Math.ceil(ttlMs) }) as Row | undefined;
    return row ? lease(l.key, row) : null;
  }

  async release(l: Lease): Promise<boolean> {
    return this.db.prepare(`UPDATE leases SET expires_at = 0 WHERE kind = @kind AND id = @id AND owner = @owner AND token = @token`)
      .run(guardParams(l)).changes === 1;
  }

  async holder(key: LeaseKey): Promise<LeaseHolder | null> {
    const row = this.db.prepare(`SELECT owner, token, expires_at FROM leases WHERE kind = ? AND id = ? AND expires_at > ${NOW_MS}`)
      .get(key.kind, key.id) as Row | undefined;
    return row ? { owner: row.owner, token: row.token, expiresAt: row.expires_at } : null;
  }

  async prune(expiredForMs: number, limit: number): Promise<number> {
    return this.db.prepare(`DELETE FROM leases WHERE rowid IN (SELECT l.rowid FROM leases l WHERE l.expires_at <= ${NOW_MS} - @age
        AND NOT (l.kind = 'request' AND EXISTS (SELECT 1 FROM requests r WHERE r.id = l.id AND r.status IN ('queued', 'processing')))
      LIMIT @limit)`).run({ age: Math.ceil(expiredForMs), limit: Math.max(0, Math.floor(limit)) }).changes;
  }
}

function lease(key: LeaseKey, r: Row): Lease {
  return { key, owner: r.owner, token: r.token, expiresAt: r.expires_at };
}

function guardParams(l: Lease) {
  return { kind: l.key.kind, id: l.key.id, owner: l.owner, token: l.token };
}

/**
 * Runs a write of a store sharing this database only while `lease` is still held, in one IMMEDIATE
 * transaction (the check and the write see the same state; another process's takeover waits for it or
 * comes first): a stale holder's write throws LeaseLost and changes nothing. Without a lease (a write
 * nobody's lease covers) it just runs the write.
 */
export function fenced<T>(db: Database.Database, l: Lease | undefined, write: () => T): T {
  if (!l) return db.transaction(write)();
  return db.transaction(() => {
    if (!stillHeld(db, l)) throw new LeaseLost(l.key);
    return write();
  }).immediate();
}

/** Whether a lease is still held (same owner and token, expired or not: nobody took it over). */
export function stillHeld(db: Database.Database, l: Lease): boolean {
  return db.prepare('SELECT 1 FROM leases WHERE kind = @kind AND id = @id AND owner = @owner AND token = @token').get(guardParams(l)) !== undefined;
}
