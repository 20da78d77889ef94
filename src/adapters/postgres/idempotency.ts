// The idempotency-key port over the idempotency_keys table. A claim decides on the key's row locked FOR
// UPDATE, or inserts it: of concurrent claimers (any process) one inserts or takes over, and the others wait
// for its COMMIT and then see its claim.
import { randomUUID } from 'node:crypto';
import type { IdempotencyClaim, IdempotencyScope, IdempotencyStore, IdempotentAnswer } from '../../ports/idempotency.js';
import type { PgDatabase } from './database.js';

interface Row { fingerprint: string; token: string; created_at: number; held_until: number; answer_status: number | null; answer_body: string | null }

export class PgIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: PgDatabase, private readonly now: () => number = Date.now) {}

  async claim(scope: IdempotencyScope, fingerprint: string, opts: { ttlMs: number; holdMs: number }): Promise<IdempotencyClaim> {
    for (;;) {
      const claim = await this.db.transaction(async (): Promise<IdempotencyClaim | 'raced'> => {
        const now = this.now();
        const token = randomUUID();
        const row = await this.db.one<Row>('SELECT * FROM idempotency_keys WHERE account_id = $1 AND key = $2 FOR UPDATE', [scope.accountId, scope.key]);
        if (!row) {
          const inserted = await this.db.query(`INSERT INTO idempotency_keys (account_id, key, fingerprint, token, created_at, held_until)
            VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1`, [scope.accountId, scope.key, fingerprint, token, now, now + opts.holdMs]);
          // Another claimer inserted the key meanwhile: look again, at its row.
          return inserted.length === 1 ? { kind: 'claimed', token } : 'raced';
        }
        const live = row.created_at > now - opts.ttlMs ? row : undefined;
        if (live && live.fingerprint !== fingerprint) return { kind: 'mismatch' };
        if (live && live.answer_status !== null) return { kind: 'replay', answer: { status: live.answer_status, body: live.answer_body ?? '' } };
        if (live && live.held_until > now) return { kind: 'in_flight' };
        // Expired, or a claim whose process died before answering: this caller runs the request.
        await this.db.query(`UPDATE idempotency_keys SET fingerprint = $3, token = $4, created_at = $5, held_until = $6, answer_status = NULL, answer_body = NULL
          WHERE account_id = $1 AND key = $2`, [scope.accountId, scope.key, fingerprint, token, now, now + opts.holdMs]);
        return { kind: 'claimed', token };
      });
      if (claim !== 'raced') return claim;
    }
  }

  async complete(scope: IdempotencyScope, token: string, answer: IdempotentAnswer): Promise<boolean> {
    return (await this.db.query(`UPDATE idempotency_keys SET answer_status = $4, answer_body = $5
      WHERE account_id = $1 AND key = $2 AND token = $3 AND answer_status IS NULL RETURNING 1`,
    [scope.accountId, scope.key, token, answer.status, answer.body])).length === 1;
  }

  async release(scope: IdempotencyScope, token: string): Promise<void> {
    await this.db.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND token = $3 AND answer_status IS NULL',
      [scope.accountId, scope.key, token]);
  }

  async purge(ttlMs: number, limit?: number): Promise<number> {
    // LIMIT NULL: no limit. SKIP LOCKED: a key a claim has locked right now is left to the next pass.
    return (await this.db.query(`DELETE FROM idempotency_keys WHERE (account_id, key) IN (SELECT account_id, key FROM idempotency_keys
      WHERE created_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1`, [this.now() - ttlMs, limit === undefined ? null : Math.max(0, Math.floor(limit))])).length;
  }
}
