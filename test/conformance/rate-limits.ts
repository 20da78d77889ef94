// Conformance suite of the rate-limits port (src/ports/rate-limits.ts), written against the interface only:
// the counters directly, and the limiter of spec 8 over them with a fake clock (its answers and headers are
// what clients see). Every adapter must pass it unchanged.
import { describe, expect, it } from 'vitest';
import { perTest, type Harness } from './harness.js';
import type { RateLimitsPort, RateWindow } from '../../src/ports/rate-limits.js';
import { RateLimiter } from '../../src/server/rate-limit.js';
import type { AccountRecord } from '../../src/service/accounts.js';

export type RateLimitsHarness = Harness<RateLimitsPort>;

const T0 = Date.parse('2025-06-10T14:20:30.250Z');
const account = (hourlyLimit: number, dailyLimit = 1000): AccountRecord => ({
  id: 'acct_conformance', email: 'limits@example.com', subscriptionActive: true, credits: 0, hourlyLimit, dailyLimit,
  blurBackground: true, webhookSecret: 'whsec_x', createdAt: '2025-01-01T00:00:00.000Z',
});
const win = (scope: string, limit: number, windowStart = 1_000_000_020, windowSec = 60): RateWindow => ({ scope, windowStart, windowSec, limit });

export function rateLimitsConformance(name: string, factory: () => Promise<RateLimitsHarness>): void {
  describe(`rate-limits port conformance: ${name}`, () => {
    const open = perTest(factory);

    it('counts N requests in a window, refuses the next with the counts unchanged', async () => {
      const { port } = await open();
      for (let i = 1; i <= 3; i++) expect(await port.take([win('s', 3)])).toEqual({ taken: true, counts: [i] });
      expect(await port.take([win('s', 3)])).toEqual({ taken: false, counts: [3] });
      expect(await port.take([win('s', 3)])).toEqual({ taken: false, counts: [3] });
      // Another window of the same scope, and another scope, count from zero.
      expect(await port.take([win('s', 3, 1_000_000_080)])).toEqual({ taken: true, counts: [1] });
      expect(await port.take([win('t', 3)])).toEqual({ taken: true, counts: [1] });
    });

    it('counts against every window or none: one full window leaves the others untouched', async () => {
      const { port } = await open();
      await port.take([win('full', 1)]);
      expect(await port.take([win('a', 5), win('full', 1), win('b', 5)])).toEqual({ taken: false, counts: [0, 1, 0] });
      expect(await port.take([win('a', 5), win('b', 5)])).toEqual({ taken: true, counts: [1, 1] });
    });

    it('two instances on one storage share the counters exactly', async () => {
      const h = await open();
      const other = await h.another();
      const takes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : h.port).take([win('shared', 7), win('hour', 100, 1_000_000_000, 3600)])));
      expect(takes.filter((t) => t.taken)).toHaveLength(7);
      expect(takes.filter((t) => t.taken).map((t) => t.counts[0]).sort((x, y) => x! - y!)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(await other.take([win('hour', 100, 1_000_000_000, 3600)])).toEqual({ taken: true, counts: [8] });
    });

    it('prune forgets windows that started before the cut and keeps the others', async () => {
      const { port } = await open();
      await port.take([win('old', 5, 1000)]);
      await port.take([win('new', 5, 2000)]);
      await port.prune(1500);
      expect(await port.take([win('old', 5, 1000)])).toEqual({ taken: true, counts: [1] });
      expect(await port.take([win('new', 5, 2000)])).toEqual({ taken: true, counts: [2] });
    });

    it('the limiter: N pass, N+1 is a 429 with the reset and retryAfter of its window, and the window rolls over', async () => {
      const { port } = await open();
      const clock = { t: T0 };
      const limiter = new RateLimiter(port, { now: () => clock.t, limiters: { statusCheck: { limit: 3, windowSec: 60 } } });
      const acct = account(5, 7);
      for (let i = 0; i < 3; i++) expect((await limiter.check('key_a', acct, 'statusCheck')).error).toBeNull();
      const refused = await limiter.check('key_a', acct, 'statusCheck');
      expect(refused.error?.code).toBe('rate_limit_exceeded');
      expect(refused.error?.details).toEqual({ retryAfter: 30, reset: '2025-06-10T14:21:00.000Z', limit: 'statusCheck' });
      expect(refused.headers).toEqual({
        'X-RateLimit-Limit-Hour': '5', 'X-RateLimit-Remaining-Hour': '2', 'X-RateLimit-Limit-Day': '7', 'X-RateLimit-Remaining-Day': '4',
        'X-RateLimit-Reset': '2025-06-10T15:00:00.000Z', 'Retry-After': '30',
      });
      clock.t = Date.parse('2025-06-10T14:21:00.000Z');
      expect(await limiter.check('key_a', acct, 'statusCheck')).toEqual({
        error: null,
        headers: {
          'X-RateLimit-Limit-Hour': '5', 'X-RateLimit-Remaining-Hour': '1', 'X-RateLimit-Limit-Day': '7', 'X-RateLimit-Remaining-Day': '3',
          'X-RateLimit-Reset': '2025-06-10T15:00:00.000Z',
        },
      });
      // The account's hourly limit, across keys, until the UTC hour.
      await limiter.check('key_b', acct, 'standard');
      const hourly = await limiter.check('key_c', acct, 'listRequests');
      expect(hourly.error?.details).toEqual({ retryAfter: 39 * 60, reset: '2025-06-10T15:00:00.000Z', limit: 'hourly' });
      clock.t = Date.parse('2025-06-10T15:00:00.000Z');
      expect((await limiter.check('key_c', acct, 'listRequests')).headers['X-RateLimit-Remaining-Hour']).toBe('4');
    });

    it('limiters on two instances enforce one limit together', async () => {
      const h = await open();
      const clock = { now: () => T0 };
      const limits = { limiters: { videoCreation: { limit: 4, windowSec: 60 } }, ...clock };
      const [a, b] = [new RateLimiter(h.port, limits), new RateLimiter(await h.another(), limits)];
      const acct = account(2000, 20000);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).check('key_a', acct, 'videoCreation')));
      expect(results.filter((r) => r.error === null)).toHaveLength(4);
      expect(results.filter((r) => r.error?.code === 'rate_limit_exceeded')).toHaveLength(6);
    });
  });
}
