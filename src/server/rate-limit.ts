// Rate limits of spec 8: per-key endpoint limiters (8.1) and per-account hourly and daily limits (8.2),
// with the X-RateLimit-* headers of 8.3.
//
// Windows are fixed and aligned to the clock: a window of W seconds starts at a multiple of W since
// the Unix epoch, so the minute limiters reset on the UTC minute, the 15-minute limiter on the quarter
// hour, the hourly limit on the UTC hour and the daily limit at UTC midnight. Fixed windows make
// `X-RateLimit-Reset` and `retryAfter` exact, and cost one counter per scope and window in the
// rate-limits port (src/ports/rate-limits.ts; today rows of the job store's SQLite file, so counts
// survive a restart of `shorts serve`).
//
// A request passes only if every layer has room; the port counts it against all of them or none, so a
// request refused by one layer consumes nothing from the others and two processes sharing the counters
// cannot both take the last slot.
import { ShortsError } from '../errors.js';
import type { RateLimitsPort } from '../ports/rate-limits.js';
import type { AccountRecord } from '../service/accounts.js';
import type { LimiterName } from '../api/routes.js';
import { ENDPOINT_LIMITERS, type LimiterSpec } from '../api/limits.js';

export type { LimiterName };
export { ENDPOINT_LIMITERS, type LimiterSpec };


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

  constructor(private readonly counters: RateLimitsPort, opts: RateLimiterOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.limiters = { ...ENDPOINT_LIMITERS, ...opts.limiters };
    this.oldestWindowSec = Math.max(DAY, ...Object.values(this.limiters).map((l) => l.windowSec));
  }

  /**
   * Counts one request of `keyId` on `limiter` against both layers. Returns the 8.3 headers (after
   * counting this request) and, when a limit is exhausted, the 429 error to send instead.
   */
  async check(keyId: string, account: AccountRecord, limiter: LimiterName, opts: { accountLimits?: boolean } = {}): Promise<RateCheck> {
    const nowMs = this.now();
    const nowSec = Math.floor(nowMs / 1000);
    const endpoint = this.limiters[limiter];
    const counters: Counter[] = [this.counter(`key:${keyId}:${limiter}`, limiter, endpoint.limit, endpoint.windowSec, nowSec)];
    // The account's hourly and daily limits (8.2) are the API's. The studio's page loads and live refreshes are
    // not API calls (a review session makes hundreds an hour; the default hourly limit is 100): a studio session
    // counts against its key's endpoint limiters only, which still bound abuse; credits bound what it creates.
    const accountLimits = opts.accountLimits ?? true;
    if (accountLimits) {
      counters.push(
        this.counter(`acct:${account.id}:hour`, 'hourly', account.hourlyLimit, HOUR, nowSec),
        this.counter(`acct:${account.id}:day`, 'daily', account.dailyLimit, DAY, nowSec),
      );
    }
    const { taken, counts } = await this.counters.take(counters);
    counters.forEach((c, i) => { c.count = counts[i]!; });
    await this.maybePrune(nowMs, nowSec);

    const headers: Record<string, string> = {};
    if (accountLimits) {
      const [, hour, day] = counters as [Counter, Counter, Counter];
      Object.assign(headers, {
        'X-RateLimit-Limit-Hour': String(hour.limit),
        'X-RateLimit-Remaining-Hour': String(Math.max(0, hour.limit - hour.count)),
        'X-RateLimit-Limit-Day': String(day.limit),
        'X-RateLimit-Remaining-Day': String(Math.max(0, day.limit - day.count)),
        'X-RateLimit-Reset': new Date((hour.windowStart + HOUR) * 1000).toISOString(),
      });
    }
    if (taken) return { headers, error: null };

    // Refused, the counts are those before this request: the layers at their limit are the full ones.
    const exhausted = counters.filter((c) => c.count >= c.limit);
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
  private async maybePrune(nowMs: number, nowSec: number): Promise<void> {
    if (nowMs - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = nowMs;
    await this.counters.prune(nowSec - this.oldestWindowSec);
  }
}
