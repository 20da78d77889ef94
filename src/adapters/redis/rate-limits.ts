// The rate-limits port over Redis (issue 24: spec 8's limits exact across any number of API processes),
// counted by rate-limiter-flexible's RateLimiterRedis: each counter is one Redis key incremented by the
// library's atomic Lua script, so no two processes can both take a window's last slot.
//
// Windows stay fixed and clock-aligned (src/server/rate-limit.ts decides them): the window's start is part of
// the key, so a new window is a new counter, and the window's length is the key's TTL (set on its first
// increment, so the key outlives its window and Redis forgets it without a prune).
//
// All or none without a transaction across keys: every window is consumed at once, and when one refuses
// (or Redis fails half-way) the increments already made are taken back (the library's reward). Admission is
// exact — a request is let in only if each of its increments stayed within its limit, and those are never
// taken back. The one difference from the single transaction of the SQLite adapter: while a refused request
// holds its increments (one round trip), a concurrent request may find a window full whose slot is then
// given back, and be refused where the transaction would have let it in. It errs towards refusing, never
// towards admitting more than the limit.
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitsPort, RateTake, RateWindow } from '../../ports/rate-limits.js';
import { unavailableIfLost } from '../connection-lost.js';

export interface RedisRateLimitsOptions {
  /** Prefix of every key (several deployments or tests on one Redis database keep apart). */
  prefix?: string;
}

/** One consume's result: the count after it, whether it was within the limit, or Redis's error. */
type Consumed = { count: number; within: boolean } | { error: unknown };

export class RedisRateLimits implements RateLimitsPort {
  private readonly prefix: string;
  /** One library limiter per limit and window length (its `points` and `duration`); the key names the window. */
  private readonly limiters = new Map<string, RateLimiterRedis>();

  constructor(private readonly client: Redis, opts: RedisRateLimitsOptions = {}) {
    this.prefix = opts.prefix ?? 'shorts:rate';
  }

  async take(windows: readonly RateWindow[]): Promise<RateTake> {
    const consumed = await Promise.all(windows.map((w) => this.consume(w)));
    const failed = consumed.find((c): c is { error: unknown } => 'error' in c);
    const counted = consumed.map((c) => ('error' in c ? null : c));
    if (!failed && counted.every((c) => c!.within)) return { taken: true, counts: counted.map((c) => c!.count) };
    // Refused (or Redis failed on one): give back every increment made, refused ones included.
    await Promise.all(windows.map((w, i) => (counted[i] ? this.limiter(w).reward(this.key(w), 1) : undefined)));
    // Redis down past the client's reconnection attempts (its offline queue holds a command through a short restart).
    if (failed) throw unavailableIfLost('Redis', failed.error);
    // The counts before this request; one a concurrent request pushed past its limit reads as full.
    return { taken: false, counts: counted.map((c, i) => Math.min(c!.count - 1, windows[i]!.limit)) };
  }

  async prune(beforeSec: number): Promise<void> {
    // Keys expire with their windows; this only forgets them sooner. SCAN walks the keyspace in small steps
    // (never blocking Redis), and the window start leads each key so it is read without a lookup.
    const start = `${this.prefix}:`;
    let cursor = '0';
    do {
      const [next, keys] = await this.client.scan(cursor, 'MATCH', `${start}*`, 'COUNT', 500);
      cursor = next;
      const old = keys.filter((k) => Number(k.slice(start.length).split(':', 1)[0]) < beforeSec);
      if (old.length > 0) await this.client.unlink(...old);
    } while (cursor !== '0');
  }

  private async consume(w: RateWindow): Promise<Consumed> {
    try {
      const res = await this.limiter(w).consume(this.key(w), 1);
      return { count: res.consumedPoints, within: true };
    } catch (e) {
      // The library rejects with its result (not an Error) when the increment went past the limit.
      if (e instanceof RateLimiterRes) return { count: e.consumedPoints, within: false };
      return { error: e };
    }
  }

  /** `<window start>:<scope>` under the limiter's prefix: a new window is a new key. */
  private key(w: RateWindow): string {
    return `${w.windowStart}:${w.scope}`;
  }

  private limiter(w: RateWindow): RateLimiterRedis {
    const id = `${w.limit}/${w.windowSec}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.client, keyPrefix: this.prefix, points: w.limit, duration: w.windowSec });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
