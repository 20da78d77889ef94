// The idempotency-key port over the idempotency_keys table of the store's SQLite file. A claim reads the
// key's row and writes it in one IMMEDIATE transaction, so of two connections (two `serve` processes on one
// data dir) racing for a new key exactly one claims it.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { IdempotencyClaim, IdempotencyScope, IdempotencyStore, IdempotentAnswer } from '../../ports/idempotency.js';

interface Row { fingerprint: string; token: string; created_at: number; held_until: number; answer_status: number | null; answer_body: string | null }

export class SqliteIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Database.Database, private readonly now: () => number = Date.now) {}

  async claim(scope: IdempotencyScope, fingerprint: string, opts: { ttlMs: number; holdMs: number }): Promise<IdempotencyClaim> {
    return this.db.transaction((): IdempotencyClaim => {
      const now = this.now();
      const row = this.db.prepare('SELECT * FROM idempotency_keys WHERE account_id = ? AND key = ?').get(scope.accountId, scope.key) as Row | undefined;
      const live = row && row.created_at > now - opts.ttlMs ? row : undefined;
      if (live && live.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (live && live.answer_status !== null) return { kind: 'replay', answer: { status: live.answer_status, body: live.answer_body ?? '' } };
      if (live && live.held_until > now) return { kind: 'in_flight' };
      // New, expired, or a claim whose process died before answering: this caller runs the request.
      const token = randomUUID();
      this.db.prepare(`INSERT INTO idempotency_keys (account_id, key, fingerprint, token, created_at, held_until)
        VALUES (@accountId, @key, @fingerprint, @token, @now, @held)
        ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = @fingerprint, token = @token, created_at = @now,
          held_until = @held, answer_status = NULL, answer_body = NULL`)
        .run({ ...scope, fingerprint, token, now, held: now + opts.holdMs });
      return { kind: 'claimed', token };
    }).immediate();
  }

  async complete(scope: IdempotencyScope, token: string, answer: IdempotentAnswer): Promise<boolean> {
    const r = this.db.prepare(`UPDATE idempotency_keys SET answer_status = ?, answer_body = ?
      WHERE account_id = ? AND key = ? AND token = ? AND answer_status IS NULL`).run(answer.status, answer.body, scope.accountId, scope.key, token);
    return r.changes === 1;
  }

  async release(scope: IdempotencyScope, token: string): Promise<void> {
    this.db.prepare('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND token = ? AND answer_status IS NULL')
      .run(scope.accountId, scope.key, token);
  }

  async purge(ttlMs: number, limit?: number): Promise<number> {
    // LIMIT -1: no limit.
    return this.db.prepare(`DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE created_at <= ? LIMIT ?)`)
      .run(this.now() - ttlMs, limit === undefined ? -1 : Math.max(0, Math.floor(limit))).changes;
  }
}
