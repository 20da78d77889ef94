import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import type { Resolver } from '../src/net/url-guard.js';
import { signWebhook, verifyWebhook, WebhookSender, type WebhookEvent } from '../src/server/webhooks.js';
import { SqliteWebhookDeliveries } from '../src/adapters/sqlite/webhook-deliveries.js';
import { installTripwire, type Tripwire } from './helpers/socket-tripwire.js';

const SECRET = `whsec_${Buffer.from('a test signing key of 32 bytes!!').toString('base64')}`;

interface Received { at: number; method: string; url: string; headers: IncomingHttpHeaders; body: string }

/** A loopback receiver whose answer to each request is scripted by the test. */
class Receiver {
  received: Received[] = [];
  /** Status per request in order; the last one repeats. 'hang' never answers. */
  script: (number | 'hang')[] = [200];
  private held = new Set<ServerResponse>();
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = this.received.push({ at: performance.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = this.script[Math.min(n - 1, this.script.length - 1)]!;
      if (answer === 'hang') return void this.held.add(res);
      res.writeHead(answer, answer >= 300 && answer < 400 ? { location: '/elsewhere' } : { 'content-type': 'text/plain' });
      res.end(answer >= 200 && answer < 300 ? 'ok' : 'no');
    });
  });
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }
  url(p = '/hook'): string { return `http://127.0.0.1:${this.port}${p}`; }
  reset(script: (number | 'hang')[]): void {
    for (const res of this.held) res.destroy();
    this.held.clear();
    this.received = [];
    this.script = script;
  }
  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

function event(requestId = 'a'.repeat(24)): WebhookEvent {
  return {
    event: 'shorts.completed', requestId, status: 'completed', timestamp: '2025-01-01T00:00:00.000Z',
    data: { shorts: [{ id: 'b'.repeat(24), title: 'A clip', video_url: 'https://media.example/x.mp4', duration: 31.5, viral_score: 8.4 }] },
  };
}

const local = { allowPrivate: true };
const fast = { delaysMs: [0, 20, 20], timeoutMs: 2000, guard: local };

let dir: string;
let store: SqliteRequestStore;
let receiver: Receiver;
let tripwire: Tripwire;

beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
  tripwire = installTripwire();
});
afterAll(async () => {
  tripwire.dispose();
  await receiver.stop();
});
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-webhooks-'));
  store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  receiver.reset([200]);
  tripwire.reset();
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('signWebhook / verifyWebhook', () => {
  const body = JSON.stringify(event());
  const now = new Date('2025-01-01T00:00:10Z');
  const ts = Math.floor(now.getTime() / 1000);
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': signWebhook(SECRET, 'msg_1', ts, body) };

  it('signs HMAC-SHA256 of "id.timestamp.body" with the base64-decoded secret, as v1,<base64>', async () => {
    // Reference value computed independently: the Standard Webhooks scheme with the raw key bytes.
    const expected = createHmac('sha256', Buffer.from('a test signing key of 32 bytes!!')).update(`msg_1.${ts}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('accepts a genuine delivery and refuses a changed body, another secret, or a stale timestamp', async () => {
    expect(verifyWebhook(SECRET, headers, body, 300, now)).toBe(true);
    expect(verifyWebhook(SECRET, new Headers(headers), body, 300, now)).toBe(true);
    expect(verifyWebhook(SECRET, headers, body.replace('A clip', 'B clip'), 300, now)).toBe(false);
    expect(verifyWebhook(`whsec_${Buffer.from('another key').toString('base64')}`, headers, body, 300, now)).toBe(false);
    expect(verifyWebhook(SECRET, headers, body, 300, new Date(now.getTime() + 301_000))).toBe(false);
    expect(verifyWebhook(SECRET, { ...headers, 'webhook-id': 'msg_2' }, body, 300, now)).toBe(false);
  });

  it('accepts any matching entry of a space-separated signature list (key rotation)', async () => {
    const rotated = { ...headers, 'webhook-signature': `v1,bm90IGl0 ${headers['webhook-signature']}` };
    expect(verifyWebhook(SECRET, rotated, body, 300, now)).toBe(true);
  });
});

describe('WebhookSender.deliver', () => {
  it('POSTs the event as signed JSON and stops at the first 2xx', async () => {
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), fast);
    const ev = event();
    const result = await sender.deliver(receiver.url(), SECRET, ev);
    expect(result).toMatchObject({ delivered: true, attempts: 1 });
    expect(result.messageId).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got).toMatchObject({ method: 'POST', url: '/hook' });
    expect(got.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'shortwright', 'webhook-id': result.messageId });
    expect(JSON.parse(got.body)).toEqual(ev);
    expect(verifyWebhook(SECRET, got.headers, got.body)).toBe(true);
    expect(await sender.attempts(ev.requestId)).toEqual([
      { messageId: result.messageId, attempt: 1, startedAt: expect.any(String), durationMs: expect.any(Number), statusCode: 200, error: null, delivered: true },
    ]);
  });

  it('accepts any 2xx as the acknowledgement', async () => {
    receiver.reset([204]);
    await expect(new WebhookSender(new SqliteWebhookDeliveries(store.db), fast).deliver(receiver.url(), SECRET, event())).resolves.toMatchObject({ delivered: true, attempts: 1 });
  });

  it('retries after failures with the spec timing: immediately, after 1 s, after 3 s', async () => {
    receiver.reset([500, 503, 200]);
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), { guard: local }); // the real default delays
    const ev = event();
    const result = await sender.deliver(receiver.url(), SECRET, ev);
    expect(result).toMatchObject({ delivered: true, attempts: 3 });
    const [a1, a2, a3] = receiver.received;
    expect(a2!.at - a1!.at).toBeGreaterThanOrEqual(900);
    expect(a3!.at - a2!.at).toBeGreaterThanOrEqual(2900);
    // One message id for every attempt; each attempt signed afresh and valid.
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([result.messageId]));
    for (const r of receiver.received) expect(verifyWebhook(SECRET, r.headers, r.body)).toBe(true);
    expect((await sender.attempts(ev.requestId)).map((a) => [a.attempt, a.statusCode, a.error, a.delivered])).toEqual([
      [1, 500, 'HTTP 500', false], [2, 503, 'HTTP 503', false], [3, 200, null, true],
    ]);
  });

  it('gives up after 3 failed attempts without throwing, recording each one', async () => {
    receiver.reset([500]);
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), fast);
    const ev = event();
    await expect(sender.deliver(receiver.url(), SECRET, ev)).resolves.toMatchObject({ delivered: false, attempts: 3 });
    expect(receiver.received).toHaveLength(3);
    expect((await sender.attempts(ev.requestId)).map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect((await sender.attempts(ev.requestId)).every((a) => !a.delivered && a.statusCode === 500)).toBe(true);
  });

  it('times out an attempt the receiver never answers, and retries it', async () => {
    receiver.reset(['hang', 'hang', 200]);
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), { ...fast, timeoutMs: 300 });
    const ev = event();
    await expect(sender.deliver(receiver.url(), SECRET, ev)).resolves.toMatchObject({ delivered: true, attempts: 3 });
    const attempts = await sender.attempts(ev.requestId);
    expect(attempts.slice(0, 2).map((a) => a.statusCode)).toEqual([null, null]);
    for (const a of attempts.slice(0, 2)) expect(a.error).toMatch(/timeout|timed out/i);
    expect(attempts[2]).toMatchObject({ statusCode: 200, delivered: true });
  });

  it('abandons a receiver that never answers after 3 timed-out attempts', async () => {
    receiver.reset(['hang']);
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), { ...fast, timeoutMs: 200 });
    await expect(sender.deliver(receiver.url(), SECRET, event())).resolves.toMatchObject({ delivered: false, attempts: 3 });
    expect(receiver.received).toHaveLength(3);
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    receiver.reset([302]);
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), fast);
    const ev = event();
    await expect(sender.deliver(receiver.url(), SECRET, ev)).resolves.toMatchObject({ delivered: false, attempts: 3 });
    expect(receiver.received.map((r) => r.url)).toEqual(['/hook', '/hook', '/hook']);
    expect((await sender.attempts(ev.requestId)).map((a) => a.statusCode)).toEqual([302, 302, 302]);
  });

  it('records a refused connection as a failed attempt and retries', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), fast);
    const ev = event();
    await expect(sender.deliver(`http://127.0.0.1:${port}/hook`, SECRET, ev)).resolves.toMatchObject({ delivered: false, attempts: 3 });
    expect((await sender.attempts(ev.requestId)).map((a) => a.error)).toEqual([expect.stringMatching(/ECONNREFUSED/), expect.stringMatching(/ECONNREFUSED/), expect.stringMatching(/ECONNREFUSED/)]);
  });

  it('refuses at delivery a URL that resolves to a private address, without connecting', async () => {
    const calls: string[] = [];
    const resolver: Resolver = async (host) => { calls.push(host); return ['10.1.2.3']; };
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), { ...fast, guard: { allowPrivate: true, resolver } });
    const ev = event();
    await expect(sender.deliver(`http://hooks.test:${receiver.port}/hook`, SECRET, ev)).resolves.toMatchObject({ delivered: false, attempts: 3 });
    expect(calls).toEqual(['hooks.test', 'hooks.test', 'hooks.test']);
    expect(tripwire.opened).toBe(0);
    expect((await sender.attempts(ev.requestId)).map((a) => a.error)).toEqual(Array(3).fill('refused by the URL guard: hooks.test resolves to a private network address; only public addresses are allowed'));
  });

  it('refuses loopback at delivery unless private URLs are allowed', async () => {
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), { ...fast, guard: { allowPrivate: false } });
    await expect(sender.deliver(receiver.url(), SECRET, event())).resolves.toMatchObject({ delivered: false, attempts: 3 });
    expect(receiver.received).toEqual([]);
  });

  it('checks the address again at every attempt and connects only to what it checked (DNS rebinding)', async () => {
    receiver.reset([500]);
    const answers = [['127.0.0.1'], ['10.1.2.3'], ['127.0.0.1']];
    const resolver: Resolver = async () => answers.shift() ?? [];
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), { ...fast, guard: { allowPrivate: true, resolver } });
    const ev = event();
    // hooks.test exists only in this resolver: reaching the receiver proves the connection was pinned.
    await expect(sender.deliver(`http://hooks.test:${receiver.port}/hook`, SECRET, ev)).resolves.toMatchObject({ delivered: false, attempts: 3 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]!.headers.host).toBe(`hooks.test:${receiver.port}`);
    expect((await sender.attempts(ev.requestId)).map((a) => [a.statusCode, a.error?.startsWith('refused by the URL guard') ?? false])).toEqual([
      [500, false], [null, true], [500, false],
    ]);
    expect(tripwire.refused).toEqual([]);
  });

  it('stops between attempts when its signal is aborted', async () => {
    receiver.reset([500]);
    const sender = new WebhookSender(new SqliteWebhookDeliveries(store.db), { delaysMs: [0, 5000, 5000], guard: local });
    const ac = new AbortController();
    const pending = sender.deliver(receiver.url(), SECRET, event(), ac.signal);
    setTimeout(() => ac.abort(), 100);
    await expect(pending).resolves.toMatchObject({ delivered: false, attempts: 1 });
  });
});
