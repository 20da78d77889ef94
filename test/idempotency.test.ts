// Idempotency keys against a real `shorts serve` on loopback (issue 23): a client that lost the answer to a
// create sends it again with its Idempotency-Key and gets the same request back, charged once; a batch
// killed between its create and saving the request id does the same on its re-run.
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteClient } from '../src/client/remote-client.js';
import { SAMPLE, startCli } from './helpers/cli.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

let serve: ServeProcess;
let cdn: Loopback;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shorts-idem-'));
  // No workers: these tests are about the API's answers, not the clips (the requests stay queued).
  const env = serveEnv({ SHORTS_DATA_DIR: dataDir, SHORTS_WORKERS: '0' });
  serve = await startServe(env);
  cdn = await loopback(fileHandler(SAMPLE));
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await cdn?.close();
});

/** The account's credits as the ledger has them (the serve's own SQLite file, read beside it). */
function credits(accountId: string): number {
  const db = new Database(path.join(dataDir, 'shorts.db'), { readonly: true });
  try {
    return (db.prepare('SELECT credits FROM accounts WHERE id = ?').get(accountId) as { credits: number }).credits;
  } finally {
    db.close();
  }
}

/**
 * A loopback proxy in front of the server: every request reaches the server; its answer is dropped (the
 * connection destroyed, as a load balancer timing out would) when `drop(method, answer)` says so.
 */
async function startProxy(drop: (method: string | undefined, answer: string) => boolean): Promise<http.Server> {
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const upstream = await fetch(`${serve.url}${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: req.method === 'POST' ? Buffer.concat(chunks) : undefined });
      const text = await upstream.text();
      if (drop(req.method, text)) return res.destroy();
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  return proxy;
}

async function post(key: string, pathname: string, body: unknown, idempotencyKey?: string) {
  const res = await fetch(`${serve.api}${pathname}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
}

describe('Idempotency-Key on POST /shorts/create', () => {
  it('50 concurrent identical creates with one key: one request, one credit, 50 identical answers', async () => {
    const { key, accountId } = await createKey(serve.env, ['--hourly-limit', '2000']);
    const body = { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80, maxShorts: 1 };
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(key, '/shorts/create', body, 'create-once-7f3a')));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(49);
    const list = await api(serve.api, key, 'GET', '/shorts');
    expect(list.json.data.pagination.totalCount).toBe(1);
    expect(list.json.data.requests[0].requestId).toBe(JSON.parse(answers[0]!.text).data.requestId);
    expect(credits(accountId)).toBe(4);

    // The same key with another body: refused, nothing made or charged.
    const other = await post(key, '/shorts/create', { ...body, maxShorts: 2 }, 'create-once-7f3a');
    expect(other.status).toBe(409);
    expect(JSON.parse(other.text).error.code).toBe('idempotency_key_reused');
    // Without a key, a create is a new request as before; a malformed key is refused.
    expect((await post(key, '/shorts/create', body)).status).toBe(202);
    const bad = await post(key, '/shorts/create', body, 'has spaces in it');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).error).toMatchObject({ code: 'invalid_request', details: { parameter: 'Idempotency-Key' } });
    expect(credits(accountId)).toBe(3);
    // Keys are per account: another account's same key is its own request.
    const second = await createKey(serve.env);
    const theirs = await post(second.key, '/shorts/create', body, 'create-once-7f3a');
    expect(theirs.status).toBe(202);
    expect(JSON.parse(theirs.text).data.requestId).not.toBe(JSON.parse(answers[0]!.text).data.requestId);
  }, 60_000);

  it('an error answer is not kept: a create refused for lack of credits runs again with the same key once credits are added', async () => {
    const { key, accountId } = await createKey(serve.env, ['--credits', '0']);
    const body = { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80 };
    const refused = await post(key, '/shorts/create', body, 'topped-up');
    expect(JSON.parse(refused.text).error.code).toBe('insufficient_credits');
    expect((await api(serve.api, key, 'GET', '/shorts')).json.data.pagination.totalCount).toBe(0);
    const db = new Database(path.join(dataDir, 'shorts.db'));
    db.prepare('UPDATE accounts SET credits = 1 WHERE id = ?').run(accountId);
    db.close();
    const ran = await post(key, '/shorts/create', body, 'topped-up');
    expect(ran.status).toBe(202);
    expect(ran.replayed).toBeNull();
    expect(credits(accountId)).toBe(0);
  }, 60_000);

  it('the remote client retries a create whose answer was lost, under one key: one request', async () => {
    const { key, accountId } = await createKey(serve.env);
    // A proxy that passes the first create to the server and then drops the connection, as a load balancer timing out would.
    let creates = 0;
    const proxy = await startProxy((method) => method === 'POST' && ++creates === 1);
    const client = new RemoteClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, apiKey: key });
    try {
      const created = await client.create({ fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80 });
      expect(creates).toBe(2);
      const list = await api(serve.api, key, 'GET', '/shorts');
      expect(list.json.data.pagination.totalCount).toBe(1);
      expect(list.json.data.requests[0].requestId).toBe(created.requestId);
      expect(credits(accountId)).toBe(4);
    } finally {
      client.close();
      proxy.closeAllConnections();
      proxy.close();
    }
  }, 60_000);
});

describe('shorts batch (remote) killed between its create and saving the request id', () => {
  it('the re-run sends the saved key and gets the same request: no second request, no second charge', async () => {
    const { key, accountId } = await createKey(serve.env, ['--hourly-limit', '2000']);
    const work = mkdtempSync(path.join(os.tmpdir(), 'shorts-idem-batch-'));
    const manifest = path.join(work, 'talks.jsonl');
    writeFileSync(manifest, `${JSON.stringify({ fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 80, maxShorts: 1 })}\n`);
    const out = path.join(work, 'out');
    // The killed run's hold on the batch folder lapses after the lease's TTL: a short one here.
    const env = { ...serve.env, SHORTS_POLL_INTERVAL_MS: '100', SHORTS_LEASE_TTL: '2' };

    // First run, through a proxy that lets the create reach the server and kills the batch before the answer gets back.
    let firstId: string | null = null;
    let batch: ReturnType<typeof startCli> | undefined;
    const proxy = await startProxy((method, text) => {
      if (method !== 'POST') return false;
      firstId = JSON.parse(text).data.requestId;
      batch!.child.kill('SIGKILL');
      return true;
    });
    try {
      batch = startCli(['--remote', `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, '--api-key', key, 'batch', '--manifest', manifest, '--out', out], env);
      const killed = await batch.done;
      expect(killed.signal).toBe('SIGKILL');
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
    expect(firstId).toMatch(/^[0-9a-f]{24}$/);
    const crashed = JSON.parse(readFileSync(path.join(out, 'batch.json'), 'utf8'));
    expect(crashed.items[0]).toMatchObject({ status: 'running', requestId: null, idempotencyKey: expect.any(String) });
    expect(credits(accountId)).toBe(4);

    // The re-run, straight to the server: it takes up the request the killed run made.
    const rerun = startCli(['--remote', serve.url, '--api-key', key, 'batch', '--manifest', manifest, '--out', out], env);
    const state = await until(async () => (existsSync(path.join(out, 'batch.json')) ? JSON.parse(readFileSync(path.join(out, 'batch.json'), 'utf8')) : null),
      (s) => s?.items[0]?.requestId !== null && s?.items[0]?.requestId !== undefined, 30_000, 100);
    expect(state.items[0].requestId).toBe(firstId);
    expect(state.items[0].previousRequestIds).toEqual([]);
    expect(credits(accountId)).toBe(4);
    expect((await api(serve.api, key, 'GET', '/shorts')).json.data.pagination.totalCount).toBe(1);
    // No worker runs it here: cancel it, and the batch ends with the item cancelled.
    await api(serve.api, key, 'DELETE', `/shorts/${firstId}`);
    const ended = await rerun.done;
    expect(ended.code).not.toBe(0);
    expect(JSON.parse(readFileSync(path.join(out, 'batch.json'), 'utf8')).items[0]).toMatchObject({ status: 'cancelled', requestId: firstId });
  }, 120_000);
});
