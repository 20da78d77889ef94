// Conformance suite of the accounts port (src/ports/accounts.ts), written against the interface only: every
// adapter, today's SQLite one and any later one, must pass it unchanged. The rules above the port
// (AccountStore: key format, hashing, the 401 cases) are exercised through it, so what a client of the API
// notices is checked together with the storage.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { perTest, type Harness } from './harness.js';
import type { AccountRecord, AccountsPort } from '../../src/ports/accounts.js';
import { AccountStore } from '../../src/service/accounts.js';

export type AccountsHarness = Harness<AccountsPort>;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
  return 'no error';
}

function record(over: Partial<AccountRecord> = {}): AccountRecord {
  const id = over.id ?? createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 24);
  return {
    id, email: `${id}@example.com`, subscriptionActive: true, credits: 0, hourlyLimit: 100, dailyLimit: 1000,
    blurBackground: true, webhookSecret: `whsec_${id}`, createdAt: '2025-01-01T00:00:00.000Z', ...over,
  };
}

export function accountsConformance(name: string, factory: () => Promise<AccountsHarness>): void {
  describe(`accounts port conformance: ${name}`, () => {
    const open = perTest(factory);

    it('stores an account and finds it by id and by email; a second account with the email is refused', async () => {
      const { port } = await open();
      const a = record({ credits: 3 });
      expect(await port.insertAccount(a)).toEqual(a);
      expect(await port.getAccount(a.id)).toEqual(a);
      expect(await port.findAccountByEmail(a.email)).toEqual(a);
      expect(await port.insertAccount(record({ email: a.email }))).toBe('email_taken');
      expect(await port.getAccount('f'.repeat(24))).toBeUndefined();
      expect(await port.findAccountByEmail('nobody@example.com')).toBeUndefined();
    });

    it('grants credits, changes limits and the blur preference; unknown accounts change nothing', async () => {
      const { port } = await open();
      const a = record({ credits: 2 });
      await port.insertAccount(a);
      expect((await port.grantCredits(a.id, 5, '2025-01-02T00:00:00.000Z'))?.credits).toBe(7);
      expect(await port.grantCredits('f'.repeat(24), 5, '2025-01-02T00:00:00.000Z')).toBeUndefined();
      expect(await port.updateLimits(a.id, { hourlyLimit: 500, dailyLimit: 600, subscriptionActive: false }))
        .toMatchObject({ hourlyLimit: 500, dailyLimit: 600, subscriptionActive: false, credits: 7 });
      expect(await port.updateLimits('f'.repeat(24), { hourlyLimit: 1, dailyLimit: 1, subscriptionActive: true })).toBeUndefined();
      expect(await port.setBlurPreference(a.id, false)).toBe(true);
      expect((await port.getAccount(a.id))?.blurBackground).toBe(false);
      expect(await port.setBlurPreference('f'.repeat(24), false)).toBe(false);
    });

    it('keys: created, authenticated by their hash, listed without the key, revoked once for all', async () => {
      const { port } = await open();
      let t = Date.parse('2025-03-01T12:00:00Z');
      const accounts = new AccountStore(port, { now: () => t });
      const a = await accounts.createAccount({ email: 'keys@example.com', credits: 1 });
      const k1 = await accounts.createKey(a.id);
      const k2 = await accounts.createKey(a.id, 'sk_other_');
      expect(await accounts.authenticate(k1.key)).toEqual({ account: a, keyId: k1.keyId });
      expect((await accounts.authenticate(k2.key)).keyId).toBe(k2.keyId);
      // Only the hash is stored and looked up.
      const stored = await port.keyByHash(createHash('sha256').update(k1.key).digest('hex'));
      expect(stored).toMatchObject({ keyId: k1.keyId, accountId: a.id, prefix: k1.key.slice(0, 12), revokedAt: null });
      expect(JSON.stringify(await port.listKeys())).not.toContain(k1.key.slice(12));
      expect((await port.listKeys()).map((k) => [k.keyId, k.email])).toEqual([[k1.keyId, 'keys@example.com'], [k2.keyId, 'keys@example.com']]);
      expect((await port.listKeys())[0]!.lastUsedAt).toBe('2025-03-01T12:00:00.000Z');
      expect(await codeOf(accounts.authenticate(`sk_live_${'0'.repeat(43)}`))).toBe('invalid_api_key');

      t += 60_000;
      expect(await accounts.revokeKey(`${k1.key.slice(0, 12)}…`)).toMatchObject({ keyId: k1.keyId, revokedAt: '2025-03-01T12:01:00.000Z' });
      t += 60_000;
      expect((await accounts.revokeKey(k1.keyId)).revokedAt).toBe('2025-03-01T12:01:00.000Z');
      expect(await codeOf(accounts.authenticate(k1.key))).toBe('invalid_api_key');
      expect((await accounts.authenticate(k2.key)).keyId).toBe(k2.keyId);
      expect(await port.findKeys({ keyId: 'key_0000000000000000' })).toEqual([]);
      expect(await codeOf(accounts.revokeKey('sk_nothing'))).toBe('resource_not_found');
    });

    it('a key revoked through one instance is refused by another at once', async () => {
      const h = await open();
      const other = new AccountStore(await h.another());
      const accounts = new AccountStore(h.port);
      const a = await accounts.createAccount({ email: 'two@example.com' });
      const { key } = await accounts.createKey(a.id);
      expect((await other.authenticate(key)).account.id).toBe(a.id);
      await accounts.revokeKey(key);
      expect(await codeOf(other.authenticate(key))).toBe('invalid_api_key');
    });

    it('chargeAndCreate takes one credit and runs the creation with it; without credit neither happens', async () => {
      const { port } = await open();
      const accounts = new AccountStore(port);
      const a = await accounts.createAccount({ email: 'charge@example.com', credits: 1 });
      const created: string[] = [];
      expect(await accounts.chargeAndCreate(a.id, 'r1', () => { created.push('r1'); return 'made'; })).toBe('made');
      expect((await accounts.getAccount(a.id))?.credits).toBe(0);
      const refused = accounts.chargeAndCreate(a.id, 'r2', () => { created.push('r2'); });
      await expect(refused).rejects.toMatchObject({ code: 'insufficient_credits', details: { creditsRequired: 1, creditsAvailable: 0 } });
      expect(created).toEqual(['r1']);
      expect(await codeOf(accounts.chargeAndCreate('f'.repeat(24), 'r3', () => undefined))).toBe('resource_not_found');
    });

    it('a creation that fails rolls its charge back: the credit stays and there is nothing to refund', async () => {
      const { port } = await open();
      const accounts = new AccountStore(port);
      const a = await accounts.createAccount({ email: 'rollback@example.com', credits: 1 });
      await expect(accounts.chargeAndCreate(a.id, 'r1', () => { throw new Error('insert failed'); })).rejects.toThrow('insert failed');
      expect((await accounts.getAccount(a.id))?.credits).toBe(1);
      expect(await accounts.refundCredit('r1')).toBe(false);
      expect((await accounts.getAccount(a.id))?.credits).toBe(1);
    });

    it('concurrent creations on the last credit through two instances: exactly one is created', async () => {
      const h = await open();
      const first = new AccountStore(h.port);
      const second = new AccountStore(await h.another());
      const a = await first.createAccount({ email: 'race@example.com', credits: 1 });
      for (let round = 0; round < 5; round++) {
        if (round > 0) await first.addCredits(a.id, 1);
        const created: string[] = [];
        const attempts = Array.from({ length: 6 }, (_, i) => {
          const id = `race-${round}-${i}`;
          return (i % 2 === 0 ? first : second).chargeAndCreate(a.id, id, () => { created.push(id); });
        });
        const outcomes = await Promise.allSettled(attempts);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code))
          .toEqual(Array(5).fill('insufficient_credits'));
        expect(created).toHaveLength(1);
        expect((await second.getAccount(a.id))?.credits).toBe(0);
      }
    });

    it('refunds a charged request exactly once, from any instance; never one that was not charged', async () => {
      const h = await open();
      const accounts = new AccountStore(h.port);
      const other = new AccountStore(await h.another());
      const a = await accounts.createAccount({ email: 'refund@example.com', credits: 2 });
      await accounts.chargeCredit(a.id, 'r1');
      expect(await accounts.refundCredit('never-charged')).toBe(false);
      const both = await Promise.all([accounts.refundCredit('r1'), other.refundCredit('r1'), accounts.refundCredit('r1')]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await other.refundCredit('r1')).toBe(false);
      expect((await accounts.getAccount(a.id))?.credits).toBe(2);
    });
  });
}
