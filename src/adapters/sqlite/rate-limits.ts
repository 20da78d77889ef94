// The rate-limits port over the rate_counters table of the job store's SQLite file: one row per scope and
// window (so counts survive a restart of `shorts serve`). The counters are read and, only then, all
// incremented in one IMMEDIATE transaction, so two connections cannot both take the last slot.
import type Database from 'better-sqlite3';
import type { RateLimitsPort, RateTake, RateWindow } from '../../ports/rate-limits.js';

export class SqliteRateLimits implements RateLimitsPort {
  private readonly read: Database.Statement;
  private readonly bump: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.read = db.prepare('SELECT count FROM rate_counters WHERE scope = ? AND window_start = ?').pluck();
    this.bump = db.prepare(`INSERT INTO rate_counters (scope, window_start, count) VALUES (?, ?, 1)
      ON CONFLICT (scope, window_start) DO UPDATE SET count = count + 1`);
  }

  async take(windows: readonly RateWindow[]): Promise<RateTake> {
    return this.db.transaction((): RateTake => {
      const counts = windows.map((w) => (this.read.get(w.scope, w.windowStart) as number | undefined) ?? 0);
      if (windows.some((w, i) => counts[i]! >= w.limit)) return { taken: false, counts };
      for (const w of windows) this.bump.run(w.scope, w.windowStart);
      return { taken: true, counts: counts.map((c) => c + 1) };
    }).immediate();
  }

  async prune(beforeSec: number): Promise<void> {
    this.db.prepare('DELETE FROM rate_counters WHERE window_start < ?').run(beforeSec);
  }
}
