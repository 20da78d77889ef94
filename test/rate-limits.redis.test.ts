// The rate-limits port's conformance suite against the Redis adapter (rate-limiter-flexible over ioredis) on a
// real redis-server, and spec 8's limits exact across API processes: adapter instances with clients of their
// own (as two `serve` processes have) hammering one window admit exactly its limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis as RedisClient } from 'ioredis';
import { RedisRateLimits } from '../src/adapters/redis/rate-limits.js';
import type { RateWindow } from '../src/ports/rate-limits.js';
import { rateLimitsConformance } from './conformance/rate-limits.js';
import { startRedis, type Redis } from './helpers/engines.js';

let redis: Redis;
beforeAll(async () => { redis = await startRedis(); }, 60_000);
afterAll(async () => { await redis?.close(); });

let harnesses = 0;
/** Adapters on one Redis database under a key prefix of their own, each with its own client; closed together. */
function redisHarness() {
  const prefix = `t${++harnesses}`;
  const clients: RedisClient[] = [];
  const open = () => {
    const client = new RedisClient(redis.database(1));
    client.on('error', () => {}); // refused reconnections while the server restarts (the test below)
    clients.push(client);
    return new RedisRateLimits(client, { prefix });
  };
  return { port: open(), another: async () => open(), close: async () => { for (const c of clients) c.disconnect(); } };
}

rateLimitsConformance('Redis', async () => redisHarness());

describe('Redis rate limits across processes', () => {
  it('four instances with their own connections, 200 concurrent takes on a window of 25: exactly 25 pass, counted 1..25', async () => {
    const h = redisHarness();
    try {
      const instances = [h.port, await h.another(), await h.another(), await h.another()];
      const nowSec = Math.floor(Date.now() / 1000);
      const minute: RateWindow = { scope: 'key:k1:videoCreation', windowStart: nowSec - (nowSec % 60), windowSec: 60, limit: 25 };
      const hour: RateWindow = { scope: 'acct:a1:hour', windowStart: nowSec - (nowSec % 3600), windowSec: 3600, limit: 1000 };
      const takes = await Promise.all(Array.from({ length: 200 }, (_, i) => instances[i % 4]!.take([minute, hour])));
      const passed = takes.filter((t) => t.taken);
      expect(passed).toHaveLength(25);
      expect(passed.map((t) => t.counts[0]).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      // Refused requests took nothing from the hour: it counted the 25 only.
      expect(await instances[1]!.take([hour])).toEqual({ taken: true, counts: [26] });
      // The window's key lives no longer than the window (the TTL is its length): Redis forgets it by itself.
      const reader = new RedisClient(redis.database(1));
      const ttl = await reader.pttl(`t${harnesses}:${minute.windowStart}:${minute.scope}`);
      reader.disconnect();
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await h.close();
    }
  });

  it('a take during a Redis restart waits for the reconnection and is counted there; counting goes on after it', async () => {
    const h = redisHarness();
    try {
      const w: RateWindow = { scope: 'down', windowStart: 1_000_000_000, windowSec: 60, limit: 5 };
      expect((await h.port.take([w])).taken).toBe(true);
      await redis.stop();
      const during = h.port.take([w]);
      await redis.start();
      // Held in the client's offline queue through the restart, then counted on the fresh (in-memory) server.
      expect(await during).toEqual({ taken: true, counts: [1] });
      expect(await h.port.take([w])).toEqual({ taken: true, counts: [2] });
    } finally {
      await h.close();
    }
  }, 60_000);
});
