// Waiting on several remote requests within the account's hourly budget (spec 8.2/8.3): a loopback server
// answering the status endpoint the way the spec's rate limits do — every call counted against an hourly
// budget that resets at a fixed time, the 8.3 headers on every answer, 429 once it is spent — and the real
// RemoteClient waiting on three requests at once with a short poll interval.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteClient } from '../src/client/remote-client.js';
import { PollPacer } from '../src/client/poll-pacer.js';

interface Budgeted { url: string; calls: number; refused: number; close: () => Promise<void> }

/** A status endpoint with an hourly budget of `limit` calls whose "hour" lasts `windowMs`; requests finish at `doneAfterMs`. */
function budgetedServer(limit: number, windowMs: number, doneAfterMs: number): Promise<Budgeted> {
  const start = Date.now();
  let windowStart = start, used = 0;
  const state: Budgeted = { url: '', calls: 0, refused: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const now = Date.now();
    while (now >= windowStart + windowMs) { windowStart += windowMs; used = 0; }
    state.calls++;
    const over = used >= limit;
    if (!over) used++;
    const reset = new Date(windowStart + windowMs).toISOString();
    const headers = {
      'content-type': 'application/json', 'x-ratelimit-limit-hour': String(limit), 'x-ratelimit-remaining-hour': String(limit - used),
      'x-ratelimit-limit-day': '1000', 'x-ratelimit-remaining-day': '900', 'x-ratelimit-reset': reset,
    };
    if (over) {
      state.refused++;
      res.writeHead(429, headers).end(JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'hourly limit reached',
        details: { retryAfter: Math.ceil((windowStart + windowMs - now) / 1000), reset, limit: 'hourly' } } }));
      return;
    }
    const id = /\/shorts\/([^/]+)\/status/.exec(req.url ?? '')?.[1] ?? '?';
    const done = now - start >= doneAfterMs;
    res.writeHead(200, headers).end(JSON.stringify({ data: { _id: id, status: done ? 'completed' : 'processing', progress: done ? 100 : 50 } }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    state.close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
    resolve(state);
  }));
}

let server: Budgeted | undefined;
afterEach(async () => { await server?.close(); server = undefined; });

describe('remote waits share the hourly budget', () => {
  it('three requests waited for at once are polled within what is left of the hour: no 429, all completed', async () => {
    // 20 calls per 4 s "hour"; the requests take 3 s. At the 50 ms interval three waits would make ~180 calls.
    server = await budgetedServer(20, 4000, 3000);
    const client = new RemoteClient({ baseUrl: server.url, apiKey: 'sk_test', pollIntervalMs: 50 });
    const outcomes = await Promise.all(['a1', 'b2', 'c3'].map((id) => client.wait(id)));
    expect(outcomes.map((o) => o.status)).toEqual(['completed', 'completed', 'completed']);
    expect(server.refused).toBe(0);
    // The reserve (10 % of the limit, at least 2) is left for the downloads and creates that follow.
    expect(server.calls).toBeLessThanOrEqual(20 - 2 + 3);
  });

  it('without the headers (another server), the configured interval holds', () => {
    const pacer = new PollPacer();
    pacer.enter();
    pacer.observe({ 'content-type': 'application/json' });
    expect(pacer.delayMs(10_000)).toBe(10_000);
  });

  it('with only the reserve left, the next check comes after the reset; a fresh hour restores the interval', () => {
    const pacer = new PollPacer();
    const now = Date.parse('2026-11-24T20:30:00Z');
    const hour = (remaining: number, reset: string) => ({ 'x-ratelimit-limit-hour': '100', 'x-ratelimit-remaining-hour': String(remaining), 'x-ratelimit-reset': reset });
    pacer.enter();
    pacer.observe(hour(8, '2026-11-24T21:00:00Z'));
    expect(pacer.delayMs(10_000, now)).toBe(30 * 60_000 + 1000);
    // 40 left (30 after the reserve of 10) for 30 minutes, two requests waited for: a check each per 30 min * 2 / 30 = 2 min.
    pacer.enter();
    pacer.observe(hour(40, '2026-11-24T22:00:00Z'));
    expect(pacer.delayMs(10_000, Date.parse('2026-11-24T21:30:00Z'))).toBe(120_000);
    pacer.observe(hour(99, '2026-11-24T23:00:00Z'));
    expect(pacer.delayMs(10_000, Date.parse('2026-11-24T22:59:00Z'))).toBe(10_000);
  });
});
