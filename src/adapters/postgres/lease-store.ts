// The lease port over the `leases` table. Expiry is on the database server's clock (NOW_MS, read inside each
// statement), one clock for every process whatever machine it runs on. A released lease keeps its row
// (expired) so the next owner's token still counts up from the last one, until housekeeping prunes it a day
// later (LeaseStore.prune).
import { LeaseLost, type Lease, type LeaseHolder, type LeaseKey, type LeaseStore } from '../../ports/leases.js';
import { NOW_MS, type PgDatabase } from './database.js';

interface Row { owner: string; token: number; expires_at: number }

export class PgLeaseStore implements LeaseStore {
  constructor(private readonly db: PgDatabase) {}

  async acquire(key: LeaseKey, owner: string, ttlMs: number): Promise<Lease | null> {
    // One statement: insert when new; otherwise take it only when expired or already ours (ON CONFLICT re-reads
    // a row another acquirer just changed, so of concurrent acquirers exactly one gets it). A takeover by
    // another owner counts the token up; the holder re-acquiring keeps it.
    const row = await this.db.one<Row>(`INSERT INTO leases AS l (kind, id, owner, token, expires_at) VALUES ($1, $2, $3, 1, ${NOW_MS} + $4)
      ON CONFLICT (kind, id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
        token = CASE WHEN l.owner = excluded.owner THEN l.token ELSE l.token + 1 END
      WHERE l.owner = excluded.owner OR l.expires_at <= ${NOW_MS}
      RETURNING owner, token, expires_at`, [key.kind, key.id, owner, Math.ceil(ttlMs)]);
    return row ? lease(key, row) : null;
  }

  async renew(l: Lease, ttlMs: number): Promise<Lease | null> {
    // Held means same owner and token: a lease that ran out but that nobody took is still this owner's to extend.
    const row = await this.db.one<Row>(`UPDATE leases SET expires_at = ${NOW_MS} + $5
      WHERE kind = $1 AND id = $2 AND owner = $3 AND token = $4 RETURNING owner, token, expires_at`, [...guard(l), Math.ceil(ttlMs)]);
    return row ? lease(l.key, row) : null;
  }

  async release(l: Lease): Promise<boolean> {
    return (await this.db.query('UPDATE leases SET expires_at = 0 WHERE kind = $1 AND id = $2 AND owner = $3 AND token = $4 RETURNING 1', guard(l))).length === 1;
  }

  async holder(key: LeaseKey): Promise<LeaseHolder | null> {
    const row = await this.db.one<Row>(`SELECT owner, token, expires_at FROM leases WHERE kind = $1 AND id = $2 AND expires_at > ${NOW_MS}`, [key.kind, key.id]);
    return row ? { owner: row.owner, token: row.token, expiresAt: row.expires_at } : null;
  }

  async prune(expiredForMs: number, limit: number): Promise<number> {
    // SKIP LOCKED: a row a fenced write is reading (FOR SHARE) is left to the next pass, which waits for nobody.
    return (await this.db.query(`DELETE FROM leases WHERE (kind, id) IN (SELECT l.kind, l.id FROM leases l WHERE l.expires_at <= ${NOW_MS} - $1
        AND NOT (l.kind = 'request' AND EXISTS (SELECT 1 FROM requests r WHERE r.id = l.id AND r.status IN ('queued', 'processing')))
      LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1`, [Math.ceil(expiredForMs), Math.max(0, Math.floor(limit))])).length;
  }
}

function lease(key: LeaseKey, r: Row): Lease {
  return { key, owner: r.owner, token: r.token, expiresAt: r.expires_at };
}

function guard(l: Lease): [string, string, string, number] {
  return [l.key.kind, l.key.id, l.owner, l.token];
}

/**
 * Runs a write of a store sharing this database only while `lease` is still held, in one transaction: the
 * lease row is read FOR SHARE, so a takeover (an UPDATE of that row) waits for this write to commit or comes
 * before it; a stale holder's write throws LeaseLost and changes nothing. Without a lease it just runs the
 * write as one transaction.
 */
export function fenced<T>(db: PgDatabase, l: Lease | undefined, write: () => Promise<T>): Promise<T> {
  return db.transaction(async () => {
    if (l && !(await db.one('SELECT 1 FROM leases WHERE kind = $1 AND id = $2 AND owner = $3 AND token = $4 FOR SHARE', guard(l)))) {
      throw new LeaseLost(l.key);
    }
    return write();
  });
}
