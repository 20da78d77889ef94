// Accounts, keys and credits over a real SQLite file: validation, key format and hashing, the 401
// cases of spec 5, and credits under real concurrency (worker threads, one connection each).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { AccountStore, TIER_LIMITS, presentedKey } from '../src/service/accounts.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { ShortsError } from '../src/errors.js';

function open(now?: () => number): { accounts: AccountStore; store: SqliteRequestStore; file: string } {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'accounts-')), 'shorts.db');
  const store = new SqliteRequestStore(file);
  return { accounts: new AccountStore(new SqliteAccounts(store.db), { now }), store, file };
}

async function codeOf(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof ShortsError) return e.code;
    throw e;
  }
  return 'no error';
}

describe('accounts', () => {
  it('creates an account with the default tier, a subscription, blur on and a Standard Webhooks secret', async () => {
    const { accounts } = open();
    const a = await accounts.createAccount({ email: 'Ada@Example.com', credits: 5 });
    expect(a).toMatchObject({ email: 'ada@example.com', credits: 5, subscriptionActive: true, blurBackground: true, hourlyLimit: 100, dailyLimit: 1000 });
    expect(a.id).toMatch(/^[0-9a-f]{24}$/);
    expect(a.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.webhookSecret.slice(6), 'base64')).toHaveLength(32);
    expect(await accounts.getAccount(a.id)).toEqual(a);
    expect(await accounts.findAccountByEmail('ada@example.com')).toEqual(a);
  });

  it('records the initial credits and later grants in the ledger', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'a@example.com', credits: 3 });
    expect((await accounts.addCredits(a.id, 7)).credits).toBe(10);
    const rows = store.db.prepare('SELECT delta, reason FROM credit_ledger WHERE account_id = ? ORDER BY id').all(a.id);
    expect(rows).toEqual([{ delta: 3, reason: 'grant' }, { delta: 7, reason: 'grant' }]);
  });

  it('accepts tier limits up to 2000/hour and 20000/day and no subscription', async () => {
    const { accounts } = open();
    const a = await accounts.createAccount({ email: 'big@example.com', hourlyLimit: TIER_LIMITS.hourly.max, dailyLimit: TIER_LIMITS.daily.max, subscription: false });
    expect(a).toMatchObject({ hourlyLimit: 2000, dailyLimit: 20000, subscriptionActive: false, credits: 0 });
  });

  it('rejects a bad email, out-of-range limits, bad credits and a duplicate email with invalid_request', async () => {
    const { accounts } = open();
    for (const email of ['', 'no-at-sign', 'a@', '@b.com', 'a b@c.com', 'a@b..com']) {
      expect(await codeOf(() => accounts.createAccount({ email }))).toBe('invalid_request');
    }
    expect(await codeOf(() => accounts.createAccount({ email: 'a@example.com', hourlyLimit: 2001 }))).toBe('invalid_request');
    expect(await codeOf(() => accounts.createAccount({ email: 'a@example.com', hourlyLimit: 0 }))).toBe('invalid_request');
    expect(await codeOf(() => accounts.createAccount({ email: 'a@example.com', dailyLimit: 20001 }))).toBe('invalid_request');
    expect(await codeOf(() => accounts.createAccount({ email: 'a@example.com', dailyLimit: 1.5 }))).toBe('invalid_request');
    expect(await codeOf(() => accounts.createAccount({ email: 'a@example.com', credits: -1 }))).toBe('invalid_request');
    const a = await accounts.createAccount({ email: 'a@example.com' });
    await expect(accounts.createAccount({ email: 'A@example.com' })).rejects.toThrow('an account with this email exists');
    expect(await codeOf(() => accounts.addCredits(a.id, 0))).toBe('invalid_request');
    expect(await codeOf(() => accounts.addCredits('f'.repeat(24), 1))).toBe('resource_not_found');
  });

  it('updates limits, subscription and the blur preference', async () => {
    const { accounts } = open();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    expect(await accounts.updateAccount(a.id, { hourlyLimit: 500, subscription: false })).toMatchObject({ hourlyLimit: 500, dailyLimit: 1000, subscriptionActive: false });
    expect(await codeOf(() => accounts.updateAccount(a.id, { dailyLimit: 0 }))).toBe('invalid_request');
    await accounts.setBlurPreference(a.id, false);
    expect((await accounts.getAccount(a.id))!.blurBackground).toBe(false);
    expect(await codeOf(() => accounts.setBlurPreference('f'.repeat(24), true))).toBe('resource_not_found');
  });
});

describe('API keys', () => {
  it('issues sk_live_ keys of 43 base62 characters, different every time', async () => {
    const { accounts } = open();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const keys = await Promise.all(Array.from({ length: 20 }, () => accounts.createKey(a.id)));
    for (const { key, keyId } of keys) {
      expect(key).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
      expect(keyId).toMatch(/^key_[0-9a-f]{16}$/);
    }
    expect(new Set(keys.map((k) => k.key)).size).toBe(20);
    expect(await codeOf(() => accounts.createKey('f'.repeat(24)))).toBe('resource_not_found');
  });

  it('stores only the SHA-256 of a key and a 12-character display prefix, never the key', async () => {
    const { accounts, store, file } = open();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const { key, keyId } = await accounts.createKey(a.id);
    const row = store.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(keyId) as Record<string, unknown>;
    expect(row.key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(row.prefix).toBe(key.slice(0, 12));
    const secretPart = key.slice(12);
    for (const value of Object.values(row)) expect(String(value)).not.toContain(secretPart);
    store.close();
    // Not in the file either (WAL checkpointed on close).
    expect(readFileSync(file).includes(Buffer.from(secretPart))).toBe(false);
  });

  it('lists keys with their account email and never the key', async () => {
    const { accounts } = open();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const b = await accounts.createAccount({ email: 'b@example.com' });
    const k1 = await accounts.createKey(a.id);
    const k2 = await accounts.createKey(b.id);
    const list = await accounts.listKeys();
    expect(list.map((k) => [k.keyId, k.email, k.accountId, k.revokedAt, k.lastUsedAt])).toEqual([
      [k1.keyId, 'a@example.com', a.id, null, null], [k2.keyId, 'b@example.com', b.id, null, null],
    ]);
    expect(JSON.stringify(list)).not.toContain(k1.key.slice(12));
  });

  it('revokes by whole key, by id or by listed prefix; idempotently; unknown is resource_not_found', async () => {
    let t = Date.parse('2025-01-01T00:00:00Z');
    const { accounts } = open(() => t);
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const [k1, k2, k3] = [await accounts.createKey(a.id), await accounts.createKey(a.id), await accounts.createKey(a.id)];
    expect(await accounts.revokeKey(k1.key)).toMatchObject({ keyId: k1.keyId, revokedAt: '2025-01-01T00:00:00.000Z' });
    expect((await accounts.revokeKey(k2.keyId)).revokedAt).not.toBeNull();
    expect((await accounts.revokeKey(`${k3.key.slice(0, 12)}…`)).keyId).toBe(k3.keyId);
    t += 60_000;
    // Revoking again keeps the first revocation time.
    expect((await accounts.revokeKey(k1.key)).revokedAt).toBe('2025-01-01T00:00:00.000Z');
    expect(await codeOf(() => accounts.revokeKey('sk_live_zzzz'))).toBe('resource_not_found');
    expect(await codeOf(() => accounts.revokeKey(`sk_live_${'0'.repeat(43)}`))).toBe('resource_not_found');
    expect(await codeOf(() => accounts.revokeKey('nonsense'))).toBe('resource_not_found');
  });

  it('issues keys under another prefix (SHORTS_API_KEY_PREFIX); keys of every prefix keep working', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const old = await accounts.createKey(a.id);
    const migrated = await accounts.createKey(a.id, 'sk_ssemble_');
    const longest = await accounts.createKey(a.id, `${'P'.repeat(31)}-`);
    expect(migrated.key).toMatch(/^sk_ssemble_[0-9A-Za-z]{43}$/);
    expect(longest.key).toMatch(/^P{31}-[0-9A-Za-z]{43}$/);
    for (const k of [old, migrated, longest]) expect((await accounts.authenticate(k.key)).keyId).toBe(k.keyId);
    // The display prefix is the key's own prefix plus four characters, whatever its length.
    const prefixes = Object.fromEntries((await accounts.listKeys()).map((k) => [k.keyId, k.prefix]));
    expect(prefixes).toEqual({ [old.keyId]: old.key.slice(0, 12), [migrated.keyId]: migrated.key.slice(0, 15), [longest.keyId]: longest.key.slice(0, 36) });
    const row = store.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(migrated.keyId) as Record<string, unknown>;
    expect(row.key_hash).toBe(createHash('sha256').update(migrated.key).digest('hex'));
    for (const value of Object.values(row)) expect(String(value)).not.toContain(migrated.key.slice(15));
    expect((await accounts.revokeKey(`${migrated.key.slice(0, 15)}…`)).keyId).toBe(migrated.keyId);
    expect(await codeOf(() => accounts.authenticate(migrated.key))).toBe('invalid_api_key');
    expect((await accounts.authenticate(old.key)).keyId).toBe(old.keyId);
  });

  it('refuses a key prefix outside 1-32 of A-Z a-z 0-9 _ - before issuing anything', async () => {
    const { accounts } = open();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    for (const bad of ['', 'P'.repeat(33), 'sk live_', 'sk.live_', 'clé_', 'sk_live_\n']) {
      expect(await codeOf(() => accounts.createKey(a.id, bad)), JSON.stringify(bad)).toBe('invalid_request');
    }
    expect(await accounts.listKeys()).toEqual([]);
  });

  it('refuses a prefix shared by several keys instead of guessing', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const k1 = await accounts.createKey(a.id);
    const k2 = await accounts.createKey(a.id);
    store.db.prepare('UPDATE api_keys SET prefix = ? WHERE id = ?').run(k1.key.slice(0, 12), k2.keyId);
    expect(await codeOf(() => accounts.revokeKey(k1.key.slice(0, 12)))).toBe('invalid_request');
    expect((await accounts.listKeys()).every((k) => k.revokedAt === null)).toBe(true);
  });
});

describe('authenticate (spec 5)', () => {
  async function setup() {
    let t = Date.parse('2025-03-01T12:00:00Z');
    const o = open(() => t);
    const account = await o.accounts.createAccount({ email: 'a@example.com', credits: 1 });
    const { key, keyId } = await o.accounts.createKey(account.id);
    return { ...o, account, key, keyId, tick: (ms: number) => { t += ms; } };
  }

  it('no header or an empty one is missing_api_key', async () => {
    const { accounts } = await setup();
    expect(await codeOf(() => accounts.authenticate(undefined))).toBe('missing_api_key');
    expect(await codeOf(() => accounts.authenticate(''))).toBe('missing_api_key');
    expect(await codeOf(() => accounts.authenticate('   '))).toBe('missing_api_key');
  });

  it('a malformed key is invalid_api_key: wrong prefix, length or characters', async () => {
    const { accounts, key } = await setup();
    for (const bad of ['hello', key.replace('sk_live_', 'sk_test_'), key.slice(0, -1), `${key}x`, `${key.slice(0, -1)}-`, key.slice(8)]) {
      expect(await codeOf(() => accounts.authenticate(bad))).toBe('invalid_api_key');
    }
  });

  it('the presented key: X-API-Key or Authorization: Bearer; both must agree; other schemes are no key', async () => {
    const { accounts, key, keyId } = await setup();
    expect(presentedKey({ 'x-api-key': key })).toBe(key);
    expect(presentedKey({ authorization: `Bearer ${key}` })).toBe(key);
    expect(presentedKey({ authorization: `bearer   ${key} ` })).toBe(key);
    expect(presentedKey({ 'x-api-key': key, authorization: `Bearer ${key}` })).toBe(key);
    expect(presentedKey({ 'x-api-key': key, authorization: 'Basic dXNlcjpwYXNz' })).toBe(key);
    expect(presentedKey({ authorization: 'Basic dXNlcjpwYXNz' })).toBeUndefined();
    expect(presentedKey({ authorization: 'Bearer' })).toBeUndefined();
    expect(presentedKey({})).toBeUndefined();
    expect(await codeOf(() => presentedKey({ 'x-api-key': key, authorization: `Bearer ${key}x` }))).toBe('invalid_api_key');
    expect((await accounts.authenticate(presentedKey({ authorization: `Bearer ${key}` }))).keyId).toBe(keyId);
    expect(await codeOf(() => accounts.authenticate(presentedKey({ authorization: 'Basic dXNlcjpwYXNz' })))).toBe('missing_api_key');
  });

  it('an unknown well-formed key is invalid_api_key', async () => {
    const { accounts, key } = await setup();
    const other = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    expect(await codeOf(() => accounts.authenticate(other))).toBe('invalid_api_key');
  });

  it('a good key returns its account and key id; a revoked one is invalid_api_key', async () => {
    const { accounts, key, keyId, account } = await setup();
    expect(await accounts.authenticate(key)).toEqual({ account, keyId });
    expect((await accounts.authenticate(` ${key} `)).keyId).toBe(keyId);
    await accounts.revokeKey(keyId);
    expect(await codeOf(() => accounts.authenticate(key))).toBe('invalid_api_key');
  });

  it('records last use at most once a minute', async () => {
    const { accounts, key, tick } = await setup();
    const lastUsed = async () => (await accounts.listKeys())[0]!.lastUsedAt;
    await accounts.authenticate(key);
    expect(await lastUsed()).toBe('2025-03-01T12:00:00.000Z');
    tick(30_000);
    await accounts.authenticate(key);
    expect(await lastUsed()).toBe('2025-03-01T12:00:00.000Z');
    tick(30_000);
    await accounts.authenticate(key);
    expect(await lastUsed()).toBe('2025-03-01T12:01:00.000Z');
  });
});

describe('credits', () => {
  it('charges one credit per creation with a ledger row, then refuses with insufficient_credits', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'a@example.com', credits: 2 });
    await accounts.chargeCredit(a.id, 'r1');
    await accounts.chargeCredit(a.id, 'r2');
    expect((await accounts.getAccount(a.id))!.credits).toBe(0);
    expect(await codeOf(() => accounts.chargeCredit(a.id, 'r3'))).toBe('insufficient_credits');
    const rows = store.db.prepare(`SELECT request_id, delta FROM credit_ledger WHERE reason = 'creation' ORDER BY id`).all();
    expect(rows).toEqual([{ request_id: 'r1', delta: -1 }, { request_id: 'r2', delta: -1 }]);
    expect(await codeOf(() => accounts.chargeCredit('f'.repeat(24), 'r4'))).toBe('resource_not_found');
  });

  it('a failed charge inside a caller transaction rolls back with it (Service.create inserts and charges together)', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'a@example.com', credits: 0 });
    const insert = () => {
      store.db.prepare(`INSERT INTO credit_ledger (account_id, request_id, delta, reason, created_at) VALUES (?, 'x', 0, 'grant', 'now')`).run(a.id);
    };
    expect(await codeOf(() => accounts.chargeAndCreate(a.id, 'x', insert))).toBe('insufficient_credits');
    expect(store.db.prepare(`SELECT COUNT(*) AS n FROM credit_ledger WHERE request_id = 'x'`).get()).toEqual({ n: 0 });
  });

  it('refunds a charged request exactly once, and never one that was not charged', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'a@example.com', credits: 1 });
    await accounts.chargeCredit(a.id, 'r1');
    expect(await accounts.refundCredit('never-charged')).toBe(false);
    expect(await accounts.refundCredit('r1')).toBe(true);
    expect(await accounts.refundCredit('r1')).toBe(false);
    expect((await accounts.getAccount(a.id))!.credits).toBe(1);
    // A second connection (a restarted server's recovery) cannot refund it again either.
    const other = new AccountStore(new SqliteAccounts(new Database(store.db.name)));
    expect(await other.refundCredit('r1')).toBe(false);
    expect((await accounts.getAccount(a.id))!.credits).toBe(1);
    expect(store.db.prepare(`SELECT delta FROM credit_ledger WHERE request_id = 'r1' AND reason = 'refund'`).all()).toEqual([{ delta: 1 }]);
  });

  it('two connections see one balance: the second cannot spend what the first took', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'a@example.com', credits: 1 });
    const second = new AccountStore(new SqliteAccounts(new Database(store.db.name)));
    // Both read the balance first, as a check-then-update implementation would.
    expect((await accounts.getAccount(a.id))!.credits).toBe(1);
    expect((await second.getAccount(a.id))!.credits).toBe(1);
    await second.chargeCredit(a.id, 'from-second');
    expect(await codeOf(() => accounts.chargeCredit(a.id, 'from-first'))).toBe('insufficient_credits');
  });

  it('concurrent creations on the last credit from separate threads and connections: exactly one succeeds', async () => {
    const { accounts, store } = open();
    const a = await accounts.createAccount({ email: 'race@example.com', credits: 1 });
    const workers = 4;
    const rounds = 15;
    const dir = transpileForWorkers();
    const shared = new SharedArrayBuffer(8); // [round released, workers ready]
    const flags = new Int32Array(shared);
    const results = new Map<number, { ok: boolean; code: string }[]>();
    const threads = Array.from({ length: workers }, (_, index) => {
      const w = new Worker(path.join(dir, 'race-worker.mjs'), { workerData: { file: store.db.name, accountId: a.id, shared, index, rounds } });
      w.on('message', (m: { round: number; ok: boolean; code: string }) => {
        const list = results.get(m.round) ?? [];
        list.push(m);
        results.set(m.round, list);
      });
      return w;
    });
    const until = async (cond: () => boolean) => {
      while (!cond()) await new Promise((r) => setTimeout(r, 2));
    };
    try {
      for (let round = 1; round <= rounds; round++) {
        if (round > 1) await accounts.addCredits(a.id, 1);
        expect((await accounts.getAccount(a.id))!.credits).toBe(1);
        await until(() => Atomics.load(flags, 1) >= workers * round);
        Atomics.store(flags, 0, round);
        Atomics.notify(flags, 0);
        await until(() => (results.get(round)?.length ?? 0) === workers);
        const outcomes = results.get(round)!;
        expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
        expect(outcomes.filter((o) => !o.ok).map((o) => o.code)).toEqual(Array(workers - 1).fill('insufficient_credits'));
        expect((await accounts.getAccount(a.id))!.credits).toBe(0);
      }
    } finally {
      await Promise.all(threads.map((t) => t.terminate()));
    }
    const charged = store.db.prepare(`SELECT COUNT(*) AS n FROM credit_ledger WHERE reason = 'creation'`).get();
    expect(charged).toEqual({ n: rounds });
  }, 60_000);
});

/**
 * Worker threads cannot load TypeScript, so the modules under test are transpiled (types only
 * stripped, same code) into a temporary folder beside a worker that races chargeCredit.
 */
function transpileForWorkers(): string {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'accounts-race-'));
  for (const folder of ['service', 'adapters/sqlite']) mkdirSync(path.join(dir, folder), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  // The same relative layout as src/, so accounts.ts's import of ../errors.js resolves.
  for (const name of ['service/accounts', 'adapters/sqlite/accounts', 'errors']) {
    const source = readFileSync(path.join(root, 'src', `${name}.ts`), 'utf8');
    const out = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    writeFileSync(path.join(dir, `${name}.js`), out.outputText);
  }
  const sqlite = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
  writeFileSync(path.join(dir, 'race-worker.mjs'), `
    import { parentPort, workerData } from 'node:worker_threads';
    import Database from ${JSON.stringify(sqlite)};
    import { AccountStore } from './service/accounts.js';
    import { SqliteAccounts } from './adapters/sqlite/accounts.js';
    const { file, accountId, shared, index, rounds } = workerData;
    const flags = new Int32Array(shared);
    const db = new Database(file);
    db.pragma('busy_timeout = 10000');
    const accounts = new AccountStore(new SqliteAccounts(db));
    for (let round = 1; round <= rounds; round++) {
      Atomics.add(flags, 1, 1);
      Atomics.wait(flags, 0, round - 1);
      try {
        await accounts.chargeCredit(accountId, 'req-' + round + '-' + index);
        parentPort.postMessage({ round, ok: true, code: '' });
      } catch (e) {
        parentPort.postMessage({ round, ok: false, code: e.code ?? String(e) });
      }
    }
  `);
  return dir;
}
