// The rate-limits port over the rate_counters table, for deployments without Redis (with Redis the shared
// counters are rate-limiter-flexible's). A take is one transaction: the windows' rows are made to exist, then
// locked (FOR UPDATE, always in the same order so two takes never deadlock), read, and only if every one has
// room all incremented; a concurrent take on any of them waits for the COMMIT and reads the new counts.
import type { RateLimitsPort, RateTake, RateWindow } from '../../ports/rate-limits.js';
import type { PgDatabase } from './database.js';

const byKey = (a: RateWindow, b: RateWindow) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.windowStart - b.windowStart);
const keyOf = (scope: string, windowStart: number) => `${windowStart} ${scope}`;

export class PgRateLimits implements RateLimitsPort {
  constructor(private readonly db: PgDatabase) {}

  async take(windows: readonly RateWindow[]): Promise<RateTake> {
    if (windows.length === 0) return { taken: true, counts: [] };
    const sorted = [...windows].sort(byKey);
    const scopes = sorted.map((w) => w.scope);
    const starts = sorted.map((w) => w.windowStart);
    return this.db.transaction(async () => {
      // A row that does not exist cannot be locked: create it at zero first (the lock order is the sorted one).
      await this.db.query(`INSERT INTO rate_counters (scope, window_start, count)
        SELECT s, w, 0 FROM unnest($1::text[], $2::bigint[]) AS t (s, w) ORDER BY s, w ON CONFLICT DO NOTHING`, [scopes, starts]);
      const rows = await this.db.query<{ scope: string; window_start: number; count: number }>(`SELECT scope, window_start, count FROM rate_counters
        WHERE (scope, window_start) IN (SELECT * FROM unnest($1::text[], $2::bigint[])) ORDER BY scope, window_start FOR UPDATE`, [scopes, starts]);
      const found = new Map(rows.map((r) => [keyOf(r.scope, r.window_start), r.count]));
      const counts = windows.map((w) => found.get(keyOf(w.scope, w.windowStart)) ?? 0);
      if (windows.some((w, i) => counts[i]! >= w.limit)) return { taken: false, counts };
      await this.db.query(`UPDATE rate_counters SET count = count + 1
        WHERE (scope, window_start) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))`, [scopes, starts]);
      return { taken: true, counts: counts.map((c) => c + 1) };
    });
  }

  async prune(beforeSec: number): Promise<void> {
    await this.db.query('DELETE FROM rate_counters WHERE window_start < $1', [beforeSec]);
  }
}
