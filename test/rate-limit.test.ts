// Spec 8.1-8.3 over a real SQLite file with tiny limits and a fake clock: separate per-key endpoint
// pools, account hourly/daily limits across keys, both layers, headers, retry timing, window resets.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { AccountStore, type AccountRecord } from '../src/service/accounts.js';
import { ENDPOINT_LIMITERS, RateLimiter, type LimiterName, type RateCheck } from '../src/server/rate-limit.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { SqliteRateLimits } from '../src/adapters/sqlite/rate-limits.js';

const T0 = Date.parse('2025-06-10T14:20:30.250Z');

async function setup(opts: { hourly?: number; daily?: number; limiters?: Partial<typeof ENDPOINT_LIMITERS> } = {}) {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'rate-')), 'shorts.db');
  const store = new SqliteRequestStore(file);
  const accounts = new AccountStore(new SqliteAccounts(store.db));
  const account = await accounts.createAccount({ email: 'a@example.com', hourlyLimit: opts.hourly ?? 100, dailyLimit: opts.daily ?? 1000 });
  const clock = { t: T0 };
  const limiter = new RateLimiter(new SqliteRateLimits(store.db), { now: () => clock.t, limiters: opts.limiters });
  const hit = (name: LimiterName, keyId = 'key_a', acct: AccountRecord = account) => limiter.check(keyId, acct, name);
  return { store, accounts, account, clock, limiter, hit, file };
}

/** n requests one after the other. */
async function times(n: number, f: () => Promise<RateCheck>): Promise<RateCheck[]> {
  const out: RateCheck[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
}

const tiny = { statusCheck: { limit: 3, windowSec: 60 }, listRequests: { limit: 2, windowSec: 60 }, standard: { limit: 2, windowSec: 900 } };

describe('rate limits (spec 8)', () => {
  it('uses the spec limits by default', async () => {
    expect(ENDPOINT_LIMITERS).toEqual({
      videoCreation: { limit: 500, windowSec: 60 }, statusCheck: { limit: 500, windowSec: 60 },
      listRequests: { limit: 500, windowSec: 60 }, standard: { limit: 1000, windowSec: 900 }, posts: { limit: 500, windowSec: 60 },
    });
  });

  it('sends the 8.3 headers after counting the request, with the reset at the next UTC hour', async () => {
    const { hit } = await setup({ hourly: 5, daily: 7 });
    expect(await hit('statusCheck')).toEqual({
      error: null,
      headers: {
        'X-RateLimit-Limit-Hour': '5', 'X-RateLimit-Remaining-Hour': '4',
        'X-RateLimit-Limit-Day': '7', 'X-RateLimit-Remaining-Day': '6',
        'X-RateLimit-Reset': '2025-06-10T15:00:00.000Z',
      },
    });
    expect((await hit('listRequests')).headers['X-RateLimit-Remaining-Hour']).toBe('3');
  });

  it('an exhausted endpoint limiter gives 429 naming it, with retryAfter to the end of its minute', async () => {
    const { hit } = await setup({ limiters: tiny });
    (await times(3, () => hit('statusCheck'))).forEach((r) => expect(r.error).toBeNull());
    const r = await hit('statusCheck');
    expect(r.error?.code).toBe('rate_limit_exceeded');
    expect(r.error?.httpStatus).toBe(429);
    expect(r.error?.message).toMatch(/^the Status check limiter allows 3 requests per minute/);
    // 14:20:30.250 -> the minute window ends at 14:21:00, 29.75 s away: 30 whole seconds.
    expect(r.error?.details).toEqual({ retryAfter: 30, reset: '2025-06-10T14:21:00.000Z', limit: 'statusCheck' });
    expect(r.headers['Retry-After']).toBe('30');
    // Headers come with the 429 too, and the refused request was not counted.
    expect(r.headers['X-RateLimit-Remaining-Hour']).toBe('97');
  });

  it('limiters are separate pools: exhausting one leaves the others untouched', async () => {
    const { hit } = await setup({ limiters: tiny });
    await times(3, () => hit('statusCheck'));
    expect((await hit('statusCheck')).error).not.toBeNull();
    expect((await hit('listRequests')).error).toBeNull();
    expect((await hit('standard')).error).toBeNull();
    expect((await hit('videoCreation')).error).toBeNull();
  });

  it('endpoint limiters count per key: a second key of the same account has its own pool', async () => {
    const { hit } = await setup({ limiters: tiny });
    await times(3, () => hit('statusCheck', 'key_a'));
    expect((await hit('statusCheck', 'key_a')).error).not.toBeNull();
    expect((await hit('statusCheck', 'key_b')).error).toBeNull();
  });

  it('the hourly account limit counts every endpoint and every key together', async () => {
    const { hit } = await setup({ hourly: 4 });
    await hit('statusCheck', 'key_a');
    await hit('listRequests', 'key_b');
    await hit('standard', 'key_a');
    expect((await hit('posts', 'key_c')).headers['X-RateLimit-Remaining-Hour']).toBe('0');
    const r = await hit('videoCreation', 'key_d');
    expect(r.error?.message).toMatch(/^hourly limit of 4 requests reached/);
    // 14:20:30.250 -> 15:00:00: 2369.75 s, rounded up.
    expect(r.error?.details).toEqual({ retryAfter: 2370, reset: '2025-06-10T15:00:00.000Z', limit: 'hourly' });
  });

  it('the daily limit holds across hours and resets at UTC midnight', async () => {
    const { hit, clock } = await setup({ hourly: 10, daily: 3 });
    await times(3, () => hit('statusCheck'));
    clock.t = Date.parse('2025-06-10T18:00:00Z');
    const r = await hit('statusCheck');
    expect(r.error?.message).toMatch(/^daily limit of 3 requests reached/);
    expect(r.error?.details).toEqual({ retryAfter: 6 * 3600, reset: '2025-06-11T00:00:00.000Z', limit: 'daily' });
    expect(r.headers).toMatchObject({ 'X-RateLimit-Remaining-Hour': '10', 'X-RateLimit-Remaining-Day': '0', 'X-RateLimit-Reset': '2025-06-10T19:00:00.000Z' });
    clock.t = Date.parse('2025-06-11T00:00:00Z');
    expect(await hit('statusCheck')).toMatchObject({ error: null, headers: { 'X-RateLimit-Remaining-Day': '2' } });
  });

  it('both layers must pass, and a request refused by one consumes nothing from the other', async () => {
    const { hit, store } = await setup({ hourly: 5, limiters: tiny });
    await times(3, () => hit('statusCheck'));
    // Refused by the endpoint limiter: the account counters do not move.
    (await times(4, () => hit('statusCheck'))).forEach((r) => {
      expect(r.error?.details?.limit).toBe('statusCheck');
      expect(r.headers['X-RateLimit-Remaining-Hour']).toBe('2');
    });
    await hit('listRequests');
    await hit('listRequests');
    // Account exhausted; refused requests do not count against the standard limiter either.
    expect((await hit('standard')).error?.details?.limit).toBe('hourly');
    expect((await hit('standard')).error?.details?.limit).toBe('hourly');
    const counts = Object.fromEntries((store.db.prepare('SELECT scope, count FROM rate_counters').all() as { scope: string; count: number }[])
      .map((r) => [r.scope, r.count]));
    const id = (store.db.prepare('SELECT id FROM accounts').get() as { id: string }).id;
    expect(counts).toEqual({
      'key:key_a:statusCheck': 3, 'key:key_a:listRequests': 2,
      [`acct:${id}:hour`]: 5, [`acct:${id}:day`]: 5,
    });
  });

  it('with several limits exhausted, retryAfter waits for the last of them', async () => {
    const { hit } = await setup({ hourly: 3, limiters: tiny });
    await times(3, () => hit('statusCheck'));
    const r = await hit('statusCheck');
    expect(r.error?.details).toMatchObject({ limit: 'hourly', reset: '2025-06-10T15:00:00.000Z' });
  });

  it('windows reset: the minute limiter at the next minute, the 15-minute one at the quarter hour, the hourly at the hour', async () => {
    const { hit, clock } = await setup({ hourly: 8, limiters: tiny });
    await times(3, () => hit('statusCheck'));
    await times(2, () => hit('standard'));
    expect((await hit('statusCheck')).error).not.toBeNull();
    clock.t = Date.parse('2025-06-10T14:20:59.999Z');
    expect((await hit('statusCheck')).error).not.toBeNull();
    clock.t = Date.parse('2025-06-10T14:21:00.000Z');
    expect((await hit('statusCheck')).error).toBeNull();
    const s = await hit('standard');
    expect(s.error?.message).toMatch(/^the Standard limiter allows 2 requests per 15 minutes/);
    expect(s.error?.details).toEqual({ retryAfter: 9 * 60, reset: '2025-06-10T14:30:00.000Z', limit: 'standard' });
    clock.t = Date.parse('2025-06-10T14:30:00Z');
    expect((await hit('standard')).error).toBeNull();
    await times(2, () => hit('listRequests'));
    expect((await hit('posts')).error?.details?.limit).toBe('hourly');
    clock.t = Date.parse('2025-06-10T15:00:00Z');
    const r = await hit('posts');
    expect(r).toMatchObject({ error: null, headers: { 'X-RateLimit-Remaining-Hour': '7', 'X-RateLimit-Remaining-Day': '991', 'X-RateLimit-Reset': '2025-06-10T16:00:00.000Z' } });
  });

  it('retryAfter is at least 1 second, even in the last instant of a window', async () => {
    const { hit, clock } = await setup({ limiters: tiny });
    clock.t = Date.parse('2025-06-10T14:20:59.900Z');
    await times(3, () => hit('statusCheck'));
    expect((await hit('statusCheck')).error?.details?.retryAfter).toBe(1);
  });

  it('counts survive a restart (a new limiter on the same file)', async () => {
    const { hit, store, account, clock } = await setup({ limiters: tiny });
    await times(3, () => hit('statusCheck'));
    const again = new RateLimiter(new SqliteRateLimits(store.db), { now: () => clock.t, limiters: tiny });
    expect((await again.check('key_a', account, 'statusCheck')).error?.code).toBe('rate_limit_exceeded');
  });

  it('prunes finished windows but keeps every window still counting', async () => {
    const { hit, store, clock } = await setup({ limiters: tiny });
    await hit('statusCheck');
    clock.t += 2 * 86400_000;
    await hit('standard');
    const scopes = (store.db.prepare('SELECT scope, window_start FROM rate_counters').all() as { scope: string }[]).map((r) => r.scope).sort();
    expect(scopes).toEqual(expect.arrayContaining(['key:key_a:standard']));
    expect(scopes.filter((s) => s.endsWith(':statusCheck'))).toEqual([]);
    expect(scopes).toHaveLength(3);
  });

  it('uses the account record it is given, so a tier change applies at once', async () => {
    const { hit, accounts, account } = await setup({ hourly: 1 });
    await hit('statusCheck');
    expect((await hit('statusCheck')).error).not.toBeNull();
    const upgraded = await accounts.updateAccount(account.id, { hourlyLimit: 2000 });
    expect(await hit('statusCheck', 'key_a', upgraded)).toMatchObject({ error: null, headers: { 'X-RateLimit-Limit-Hour': '2000', 'X-RateLimit-Remaining-Hour': '1998' } });
  });
});
