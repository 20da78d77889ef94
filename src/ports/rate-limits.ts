// The rate-limits port: the counters behind spec 8's limits. The limiter (src/server/rate-limit.ts)
// decides which counters a request touches, their limits and their fixed, clock-aligned windows; the
// port only counts, atomically across every process sharing it. Today's adapter is
// src/adapters/sqlite/rate-limits.ts.

/** One counter of one window: `scope` names what is counted (a key's limiter, an account's hour or day). */
export interface RateWindow {
  scope: string;
  /** Start of the window, in seconds since the Unix epoch: a (scope, windowStart) pair is one counter. */
  windowStart: number;
  /** Length of the window in seconds; after windowStart + windowSec the counter is never read again. */
  windowSec: number;
  /** The most requests the window admits. */
  limit: number;
}

export interface RateTake {
  /** true when every counter had room: each was incremented by one. false: none was. */
  taken: boolean;
  /** Each counter's count after this call, in the order given. */
  counts: number[];
}

export interface RateLimitsPort {
  /**
   * Counts one request against all `windows` at once, or against none: atomically reads every counter
   * and, only if each is below its limit, increments them all. Two callers (in any process) cannot both
   * take a window's last slot.
   */
  take(windows: readonly RateWindow[]): Promise<RateTake>;
  /** Forgets counters of windows that started before `beforeSec` (seconds since the epoch). */
  prune(beforeSec: number): Promise<void>;
}
