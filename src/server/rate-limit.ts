// Rate limits of spec 8: per-key endpoint limiters (8.1) and per-account hourly and daily limits (8.2),
// with the X-RateLimit-* headers of 8.3.
//
// Windows are fixed and aligned to the clock: a window of W seconds starts at a multiple of W since
// the Unix epoch, so the minute limiters reset on the UTC minute, the 15-minute limiter on the quarter
// hour, the hourly limit on the UTC hour and the daily limit at UTC midnight. Fixed windows make
// `X-RateLimit-Reset` and `retryAfter` exact, and cost one row per scope and window in rate_counters
// (so counts survive a restart of `shorts serve`).
//
// A request passes only if every layer has room; the counters are read and, only then, all
// incremented in one IMMEDIATE transaction, so a request refused by one layer consumes nothing from
// the others and two processes on one database cannot both take the last slot.
import type Database from 'better-sqlite3';
import { ShortsError } from '../errors.js';
import type { AccountRecord } from '../service/accounts.js';
import type { LimiterName } from '../api/routes.js';

export type { LimiterName };

export interface LimiterSpec { limit: number; windowSec: number }

export const ENDPOINT_LIMITERS: Record<LimiterName, LimiterSpec> = {
  videoCreation: { limit: 500, windowSec: 60 },
  statusCheck: { limit: 500, windowSec: 60 },
  listRequests: { limit: 500, windowSec: 60 },
  standard: { limit: 1000, windowSec: 900 },
  posts: { limit: 500, windowSec: 60 },
};

/** Names as the spec writes them, for 429 messages. */
const LIMITER_LABELS: Record<LimiterName, string> = {
  videoCreation: 'the Video creation limiter',
  statusCheck: 'the Status check limiter',
  listRequests: 'the List requests limiter',
  standard: 'the Standard limiter',
  posts: 'the posts limit',
};

export interface RateCheck { headers: Record<string, string>; error: ShortsError | null }

export interface RateLimiterOptions {
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
  limiters?: Partial<Record<LimiterName, LimiterSpec>>;
}

const HOUR = 3600;
const DAY = 86400;
/** Finished windows are deleted at most this often (by the injected clock). */
const PRUNE_EVERY_MS = 60_000;

interface Counter {
  scope: string;
  /** What a 429 names in details.limit: 'hourly', 'daily' or the limiter's name. */
  name: string;
  limit: number;
  windowSec: number;
  windowStart: number;
  count: number;
}

function per(windowSec: number): string {
  if (windowSec === 60) return 'per minute';
  if (windowSec === HOUR) return 'per hour';
  if (windowSec % 60 === 0) return `per ${windowSec / 60} minutes`;
  return `per ${windowSec} seconds`;
}

export class RateLimiter {
  private readonly now: () => number;
  private readonly limiters: Record<LimiterName, LimiterSpec>;
  private readonly oldestWindowSec: number;
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(private readonly db: Database.Database, opts: RateLimiterOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.limiters = { ...ENDPOINT_LIMITERS, ...opts.limiters };
    this.oldestWindowSec = Math.max(DAY, ...Object.values(this.limiters).map((l) => l.windowSec));
  }

  /**
   * Counts one request of `keyId` on `limiter` against both layers. Returns the 8.3 headers (after
   * counting this request) and, when a limit is exhausted, the 429 error to send instead.
   */
  check(keyId: string, account: AccountRecord, limiter: LimiterName): RateCheck {
    const nowMs = this.now();
    const nowSec = Math.floor(nowMs / 1000);
    const endpoint = this.limiters[limiter];
    const counters: Counter[] = [
      this.counter(`key:${keyId}:${limiter}`, limiter, endpoint.limit, endpoint.windowSec, nowSec),
      this.counter(`acct:${account.id}:hour`, 'hourly', account.hourlyLimit, HOUR, nowSec),
      this.counter(`acct:${account.id}:day`, 'daily', account.dailyLimit, DAY, nowSec),
    ];
    const read = this.db.prepare('SELECT count FROM rate_counters WHERE scope = ? AND window_start = ?').pluck();
    const bump = this.db.prepare(`INSERT INTO rate_counters (scope, window_start, count) VALUES (?, ?, 1)
      ON CONFLICT (scope, window_start) DO UPDATE SET count = count + 1`);
    const exhausted = this.db.transaction((): Counter[] => {
      for (const c of counters) c.count = (read.get(c.scope, c.windowStart) as number | undefined) ?? 0;
      const full = counters.filter((c) => c.count >= c.limit);
      if (full.length === 0) {
        for (const c of counters) {
          bump.run(c.scope, c.windowStart);
          c.count += 1;
        }
      }
      return full;
    }).immediate();
    this.maybePrune(nowMs, nowSec);

    const [, hour, day] = counters as [Counter, Counter, Counter];
    const hourReset = new Date((hour.windowStart + HOUR) * 1000).toISOString();
    const headers: Record<string, string> = {
      'X-RateLimit-Limit-Hour': String(hour.limit),
      'X-RateLimit-Remaining-Hour': String(Math.max(0, hour.limit - hour.count)),
      'X-RateLimit-Limit-Day': String(day.limit),
      'X-RateLimit-Remaining-Day': String(Math.max(0, day.limit - day.count)),
      'X-RateLimit-Reset': hourReset,
    };
    if (exhausted.length === 0) return { headers, error: null };

    // With several limits exhausted, the request can succeed only after the last of them resets.
    const blocking = exhausted.reduce((a, b) => (b.windowStart + b.windowSec > a.windowStart + a.windowSec ? b : a));
    const resetSec = blocking.windowStart + blocking.windowSec;
    const retryAfter = Math.max(1, Math.ceil((resetSec * 1000 - nowMs) / 1000));
    const reset = new Date(resetSec * 1000).toISOString();
    headers['Retry-After'] = String(retryAfter);
    const message = blocking.name === 'hourly' || blocking.name === 'daily'
      ? `${blocking.name} limit of ${blocking.limit} requests reached; try again after ${reset}`
      : `${LIMITER_LABELS[blocking.name as LimiterName]} allows ${blocking.limit} requests ${per(blocking.windowSec)}; try again after ${reset}`;
    return { headers, error: new ShortsError('rate_limit_exceeded', message, { retryAfter, reset, limit: blocking.name }) };
  }

  private counter(scope: string, name: string, limit: number, windowSec: number, nowSec: number): Counter {
    return { scope, name, limit, windowSec, windowStart: nowSec - (nowSec % windowSec), count: 0 };
  }

  /** Deletes windows that ended before the longest window now open; nothing still counting is touched. */
  private maybePrune(nowMs: number, nowSec: number): void {
    if (nowMs - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = nowMs;
    this.db.prepare('DELETE FROM rate_counters WHERE window_start < ?').run(nowSec - this.oldestWindowSec);
  }
}
