// What the PostgreSQL state gives beyond the port suites: a request's credit and its row commit together,
// across processes (each its own Pool), and the adapters carry on after the server restarts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPostgresState, type PostgresState } from '../src/adapters/postgres/index.js';
import { AccountStore } from '../src/service/accounts.js';
import type { NewRequest } from '../src/ports/request-store.js';
import type { CreateRequest } from '../src/domain/request.js';
import { startPostgres, type Postgres } from './helpers/engines.js';

let server: Postgres;
beforeAll(async () => { server = await startPostgres(); }, 60_000);
afterAll(async () => { await server?.close(); });

const dataDir = () => mkdtempSync(path.join(os.tmpdir(), 'shorts-pg-state-'));
const request = (accountId: string): NewRequest => ({
  id: randomBytes(12).toString('hex'), accountId, origin: 'api', userEmail: 'a@example.com', url: 'https://cdn.example.com/a.mp4', start: 0, end: 60,
  options: { source: { kind: 'fileUrl', url: 'https://cdn.example.com/a.mp4' }, start: 0, end: 60 } as unknown as CreateRequest,
});

/** Two processes' state on one fresh database: each its own Pool. */
async function twoProcesses(): Promise<[PostgresState, PostgresState]> {
  const url = await server.createDatabase('state');
  return Promise.all([createPostgresState(url, { dataDir: dataDir() }), createPostgresState(url, { dataDir: dataDir() })]);
}

describe('PostgreSQL state: credits', () => {
  it('20 concurrent creations through two Pools on an account\'s last credit: exactly one request exists and is charged', async () => {
    const [a, b] = await twoProcesses();
    try {
      const accounts = [new AccountStore(a.accounts), new AccountStore(b.accounts)];
      const account = await accounts[0]!.createAccount({ email: 'last-credit@example.com', credits: 1 });
      const attempts = Array.from({ length: 20 }, (_, i) => {
        const state = i % 2 ? b : a;
        const n = request(account.id);
        return accounts[i % 2]!.chargeAndCreate(account.id, n.id, () => state.requests.insertRequest(n));
      });
      const outcomes = await Promise.allSettled(attempts);
      const made = outcomes.filter((o): o is PromiseFulfilledResult<Awaited<typeof attempts[number]>> => o.status === 'fulfilled');
      expect(made).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(Array(19).fill('insufficient_credits'));
      const listed = await b.requests.listRequests({ accountId: account.id, sortBy: 'createdAt', sortOrder: 'asc', page: 1, limit: 100 });
      expect(listed.items.map((r) => r.id)).toEqual([made[0]!.value.id]);
      expect((await accounts[1]!.getAccount(account.id))?.credits).toBe(0);
      // Refunded once, whichever process asks first.
      const refunds = await Promise.all([accounts[0]!.refundCredit(made[0]!.value.id), accounts[1]!.refundCredit(made[0]!.value.id)]);
      expect(refunds.filter(Boolean)).toHaveLength(1);
      expect((await accounts[0]!.getAccount(account.id))?.credits).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('a creation that fails after its insert (the job could not be queued) leaves neither the request nor the charge', async () => {
    const [a, b] = await twoProcesses();
    try {
      const accounts = new AccountStore(a.accounts);
      const account = await accounts.createAccount({ email: 'rollback@example.com', credits: 1 });
      const n = request(account.id);
      await expect(accounts.chargeAndCreate(account.id, n.id, async () => {
        await a.requests.insertRequest(n);
        // Inside the unit of work, the row is there for this transaction only.
        expect(await a.requests.getRequest(n.id)).toMatchObject({ id: n.id });
        expect(await b.requests.getRequest(n.id)).toBeUndefined();
        throw new Error('queue unavailable');
      })).rejects.toThrow('queue unavailable');
      expect(await a.requests.getRequest(n.id)).toBeUndefined();
      expect((await accounts.getAccount(account.id))?.credits).toBe(1);
      expect(await accounts.refundCredit(n.id)).toBe(false);
      // A read started inside the unit of work but finished after it runs outside it, on the Pool.
      let late: Promise<unknown> | undefined;
      await accounts.chargeAndCreate(account.id, n.id, async () => {
        await a.requests.insertRequest(n);
        late = sleep(50).then(() => a.requests.getRequest(n.id));
      });
      expect(await late).toMatchObject({ id: n.id, status: 'queued' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);
});

describe('PostgreSQL state: units of work inside units of work', () => {
  it('a write that fails inside a creation undoes only itself when the creation goes on (a savepoint)', async () => {
    const [a, b] = await twoProcesses();
    try {
      const accounts = new AccountStore(a.accounts);
      const account = await accounts.createAccount({ email: 'nested@example.com', credits: 1 });
      const n = request(account.id);
      const clip = { id: 'c1', requestId: 'no-such-request', rank: 0, title: 't', sentenceIndexes: [0], reason: 'r', description: 'd', viralScore: 1,
        startTimestamp: 0, endTimestamp: 1, duration: 1, width: 1080, height: 1920, recompiling: false, error: false, errorMessage: null, fileKey: null };
      await accounts.chargeAndCreate(account.id, n.id, async () => {
        await a.requests.insertRequest(n);
        // Clips of a request that does not exist break the foreign key: that write alone is rolled back.
        await expect(a.requests.replaceShorts('no-such-request', [clip])).rejects.toThrow(/foreign key/);
        await a.requests.addWarning(n.id, 'still writable');
      });
      expect(await b.requests.getRequest(n.id)).toMatchObject({ id: n.id, warnings: ['still writable'] });
      expect((await accounts.getAccount(account.id))?.credits).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);
});

describe('PostgreSQL state: the server restarts', () => {
  it('an error surfaces for what ran while it was down, the process stays up, and every adapter works again after', async () => {
    const url = await server.createDatabase('restart');
    const connectionErrors: Error[] = [];
    const state = await createPostgresState(url, { dataDir: dataDir(), onConnectionError: (e) => connectionErrors.push(e) });
    try {
      const accounts = new AccountStore(state.accounts);
      const account = await accounts.createAccount({ email: 'restart@example.com', credits: 3 });
      const first = request(account.id);
      await accounts.chargeAndCreate(account.id, first.id, () => state.requests.insertRequest(first));
      const lease = (await state.leases.acquire({ kind: 'request', id: first.id }, 'worker-a', 60_000))!;
      // Idle pooled connections exist, and one transaction is open (waiting on its creation) when the server dies.
      await Promise.all([state.requests.getRequest(first.id), state.requests.listLive(), state.ping()]);
      const second = request(account.id);
      const midway = accounts.chargeAndCreate(account.id, second.id, async () => {
        await state.requests.insertRequest(second);
        await sleep(1_500);
      });
      await sleep(300);
      // 'fast' rolls back the open transaction and drops every client like a crash would, but keeps what was
      // committed: the test server runs with synchronous_commit=off, so an immediate stop may lose the last
      // commits (the lease above, once in CI) — a loss a real server with durable commits does not have.
      await server.stop('fast');
      await expect(midway).rejects.toThrow();
      await expect(state.requests.getRequest(first.id)).rejects.toThrow();
      await server.start();

      expect(await state.ping()).toMatch(/^postgresql \d+/);
      expect(await state.requests.getRequest(first.id)).toMatchObject({ id: first.id, status: 'queued' });
      expect(await state.requests.getRequest(second.id)).toBeUndefined();
      expect((await accounts.getAccount(account.id))?.credits).toBe(2);
      expect(await state.requests.advance(first.id, 'fetching_video', 10, lease)).toBe(true);
      expect(await state.leases.renew(lease, 60_000)).toMatchObject({ owner: 'worker-a', token: lease.token });
      const third = request(account.id);
      await accounts.chargeAndCreate(account.id, third.id, () => state.requests.insertRequest(third));
      expect((await accounts.getAccount(account.id))?.credits).toBe(1);
      expect((await state.rateLimits.take([{ scope: 's', windowStart: 0, windowSec: 60, limit: 1 }])).taken).toBe(true);
      expect(connectionErrors.length).toBeGreaterThan(0);
    } finally {
      await state.close();
    }
  }, 90_000);
});
