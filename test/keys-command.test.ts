// `shorts keys create|list|revoke`, called as plain functions (and once through commander) on a
// temporary database, with stdout and stderr captured.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { AccountStore } from '../src/service/accounts.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { keysCreateCommand, keysListCommand, keysRevokeCommand, registerKeysCommand } from '../src/cli/commands/keys.js';
import { CliError } from '../src/cli/cli-error.js';

function tempDb(): string {
  return path.join(mkdtempSync(path.join(os.tmpdir(), 'keys-')), 'shorts.db');
}

function openAccounts(file = tempDb()): AccountStore {
  return new AccountStore(new SqliteAccounts(new SqliteRequestStore(file).db));
}

/** Runs fn with process.stdout/stderr captured. */
async function capture(fn: () => Promise<number>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { stdout += String(chunk); return true; });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { stderr += String(chunk); return true; });
  try {
    const code = await fn();
    return { code, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

afterEach(() => { vi.restoreAllMocks(); });

describe('shorts keys create', () => {
  it('--json prints exactly {key, accountId} and creates the account with its credits and limits', async () => {
    const accounts = openAccounts();
    const r = await capture(() => keysCreateCommand(accounts, { email: 'a@example.com', credits: '5', hourlyLimit: '200', dailyLimit: '3000', json: true }));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect(Object.keys(out)).toEqual(['key', 'accountId']);
    expect(out.key).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(await accounts.getAccount(out.accountId!)).toMatchObject({ email: 'a@example.com', credits: 5, hourlyLimit: 200, dailyLimit: 3000, subscriptionActive: true });
    expect((await accounts.authenticate(out.key)).account.id).toBe(out.accountId);
  });

  it('prints the key alone on stdout, and the account summary on stderr', async () => {
    const accounts = openAccounts();
    const r = await capture(() => keysCreateCommand(accounts, { email: 'b@example.com', subscription: false }));
    expect(r.stdout).toMatch(/^sk_live_[0-9A-Za-z]{43}\n$/);
    expect(r.stderr).toMatch(/created account [0-9a-f]{24} \(b@example\.com\): 0 credits, 100\/hour, 1000\/day, subscription inactive/);
    expect(r.stderr).toMatch(/shown only this once/);
  });

  it('an existing email gets another key on the same account, plus the credits given', async () => {
    const accounts = openAccounts();
    const first = JSON.parse((await capture(() => keysCreateCommand(accounts, { email: 'a@example.com', credits: '2', json: true }))).stdout) as { key: string; accountId: string };
    const second = JSON.parse((await capture(() => keysCreateCommand(accounts, { email: 'A@example.com', credits: '3', json: true }))).stdout) as { key: string; accountId: string };
    expect(second.accountId).toBe(first.accountId);
    expect(second.key).not.toBe(first.key);
    expect((await accounts.getAccount(first.accountId))!.credits).toBe(5);
    expect(await accounts.listKeys()).toHaveLength(2);
  });

  it('rejects a non-numeric --credits with a usage error and a bad email with invalid_request', async () => {
    const accounts = openAccounts();
    await expect(capture(() => keysCreateCommand(accounts, { email: 'a@example.com', credits: 'lots' }))).rejects.toMatchObject({ exitCode: 2 });
    await expect(capture(() => keysCreateCommand(accounts, { email: 'a@example.com', hourlyLimit: '-5' }))).rejects.toBeInstanceOf(CliError);
    await expect(capture(() => keysCreateCommand(accounts, { email: 'a@example.com', hourlyLimit: '5000' }))).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(capture(() => keysCreateCommand(accounts, { email: 'not-an-email' }))).rejects.toMatchObject({ code: 'invalid_request', exitCode: 2 });
    expect(await accounts.listKeys()).toEqual([]);
  });
});

describe('SHORTS_API_KEY_PREFIX', () => {
  it('sets the prefix of new keys; `keys list` shows that prefix plus four characters; older keys still work', async () => {
    const accounts = openAccounts();
    const old = JSON.parse((await capture(() => keysCreateCommand(accounts, { email: 'a@example.com', json: true }, {}))).stdout) as { key: string };
    const r = await capture(() => keysCreateCommand(accounts, { email: 'a@example.com' }, { SHORTS_API_KEY_PREFIX: 'sk_ssemble_' }));
    expect(r.stdout).toMatch(/^sk_ssemble_[0-9A-Za-z]{43}\n$/);
    const key = r.stdout.trim();
    const table = (await capture(() => keysListCommand(accounts, {}))).stdout;
    expect(table).toContain(`${key.slice(0, 15)}…`);
    expect(table).toContain(`${old.key.slice(0, 12)}…`);
    expect(table).not.toContain(key.slice(15));
    expect((await accounts.authenticate(key)).account.email).toBe('a@example.com');
    expect((await accounts.authenticate(old.key)).account.email).toBe('a@example.com');
    // A blank setting is the default, like every SHORTS_* setting.
    expect((await capture(() => keysCreateCommand(accounts, { email: 'a@example.com' }, { SHORTS_API_KEY_PREFIX: ' ' }))).stdout).toMatch(/^sk_live_/);
  });

  it('an invalid prefix is a usage error naming the rule, before any account or key is made', async () => {
    const accounts = openAccounts();
    for (const bad of ['sk live_', 'P'.repeat(33), 'sk/ssemble_', 'ключ_']) {
      const e = await capture(() => keysCreateCommand(accounts, { email: 'new@example.com', credits: '5' }, { SHORTS_API_KEY_PREFIX: bad })).catch((x: unknown) => x);
      expect(e, bad).toBeInstanceOf(CliError);
      expect(e).toMatchObject({ exitCode: 2, message: expect.stringMatching(/SHORTS_API_KEY_PREFIX must be 1-32 characters of A-Z, a-z, 0-9, _ and -/) });
    }
    expect(await accounts.findAccountByEmail('new@example.com')).toBeUndefined();
    expect(await accounts.listKeys()).toEqual([]);
  });
});

describe('shorts keys list and revoke', () => {
  it('lists prefixes and emails, never the key; --json gives the key records', async () => {
    const accounts = openAccounts();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const { key } = await accounts.createKey(a.id);
    const table = await capture(() => keysListCommand(accounts, {}));
    expect(table.stdout).toContain(`${key.slice(0, 12)}…`);
    expect(table.stdout).toContain('a@example.com');
    expect(table.stdout).toContain('never');
    expect(table.stdout).not.toContain(key.slice(12));
    const json = JSON.parse((await capture(() => keysListCommand(accounts, { json: true }))).stdout) as { prefix: string; email: string }[];
    expect(json).toMatchObject([{ prefix: key.slice(0, 12), email: 'a@example.com', revokedAt: null }]);
    expect(JSON.stringify(json)).not.toContain(key.slice(12));
  });

  it('revokes by the listed prefix; the key stops working; an unknown prefix is resource_not_found', async () => {
    const accounts = openAccounts();
    const a = await accounts.createAccount({ email: 'a@example.com' });
    const { key } = await accounts.createKey(a.id);
    const r = await capture(() => keysRevokeCommand(accounts, `${key.slice(0, 12)}…`, {}));
    expect(r.stdout).toMatch(new RegExp(`^revoked ${key.slice(0, 12)}… \\(a@example\\.com\\) at \\d{4}-`));
    await expect(accounts.authenticate(key)).rejects.toThrow(expect.objectContaining({ code: 'invalid_api_key' }));
    const json = JSON.parse((await capture(() => keysRevokeCommand(accounts, key, { json: true }))).stdout) as { revokedAt: string };
    expect(json.revokedAt).toMatch(/^\d{4}-/);
    await expect(capture(() => keysRevokeCommand(accounts, 'sk_live_0000', {}))).rejects.toMatchObject({ code: 'resource_not_found' });
  });
});

describe('registerKeysCommand', () => {
  it('wires the flags through commander, opens and closes the store for each command', async () => {
    const file = tempDb();
    let opened = 0;
    let closed = 0;
    const codes: number[] = [];
    const program = new Command('shorts').exitOverride();
    registerKeysCommand(program, () => {
      opened++;
      const store = new SqliteRequestStore(file);
      return { accounts: new AccountStore(new SqliteAccounts(store.db)), close: () => { closed++; store.close(); } };
    }, (c) => codes.push(c));
    const made = await capture(async () => {
      await program.parseAsync(['keys', 'create', '--email', 'c@example.com', '--credits', '4', '--hourly-limit', '300', '--no-subscription', '--json'], { from: 'user' });
      return 0;
    });
    const { accountId } = JSON.parse(made.stdout) as { accountId: string };
    // Again on the existing account without --no-subscription: its subscription stays as it was.
    await capture(async () => {
      await program.parseAsync(['keys', 'create', '--email', 'c@example.com', '--json'], { from: 'user' });
      return 0;
    });
    const accounts = openAccounts(file);
    expect(await accounts.getAccount(accountId)).toMatchObject({ credits: 4, hourlyLimit: 300, dailyLimit: 1000, subscriptionActive: false });
    expect(await accounts.listKeys()).toHaveLength(2);
    expect([opened, closed, codes]).toEqual([2, 2, [0, 0]]);
  });
});
