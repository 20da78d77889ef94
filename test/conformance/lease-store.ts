// The LeaseStore conformance suite (issue 22): written against the port only, so every adapter (SQLite today,
// PostgreSQL or Redis later) runs it unchanged. Expiry is measured on the store's clock: the suite only ever
// compares a lease's expiresAt with other values the store returned, and waits real time for a TTL to pass.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { FIRST_TOKEN, type LeaseKey, type LeaseStore } from '../../src/ports/leases.js';

export type LeaseStoreFactory = () => Promise<{ port: LeaseStore; close: () => Promise<void> }>;

export function leaseStoreConformance(name: string, factory: LeaseStoreFactory): void {
  describe(`LeaseStore conformance: ${name}`, () => {
    let port: LeaseStore;
    let close: () => Promise<void>;
    const key = (): LeaseKey => ({ kind: 'request', id: randomUUID() });

    beforeEach(async () => {
      ({ port, close } = await factory());
    });
    afterEach(async () => {
      await close();
    });

    it('acquires a free key, and refuses it to another owner while it is held', async () => {
      const k = key();
      const a = await port.acquire(k, 'owner-a', 10_000);
      expect(a).toMatchObject({ key: k, owner: 'owner-a', token: FIRST_TOKEN });
      expect(await port.acquire(k, 'owner-b', 10_000)).toBeNull();
      expect(await port.holder(k)).toMatchObject({ owner: 'owner-a', token: a!.token });
    });

    it('keys of different kinds with one id are different leases', async () => {
      const id = randomUUID();
      expect(await port.acquire({ kind: 'request', id }, 'owner-a', 10_000)).not.toBeNull();
      expect(await port.acquire({ kind: 'post', id }, 'owner-b', 10_000)).not.toBeNull();
    });

    it('lets the same owner acquire again: same token, later expiry', async () => {
      const k = key();
      const first = await port.acquire(k, 'owner-a', 1_000);
      const again = await port.acquire(k, 'owner-a', 60_000);
      expect(again).toMatchObject({ owner: 'owner-a', token: first!.token });
      expect(again!.expiresAt).toBeGreaterThan(first!.expiresAt);
    });

    it('hands an expired lease to another owner with a new fencing token', async () => {
      const k = key();
      const a = await port.acquire(k, 'owner-a', 150);
      await sleep(400);
      expect(await port.holder(k)).toBeNull();
      const b = await port.acquire(k, 'owner-b', 10_000);
      expect(b).toMatchObject({ owner: 'owner-b' });
      expect(b!.token).not.toBe(a!.token);
      expect(await port.holder(k)).toMatchObject({ owner: 'owner-b', token: b!.token });
    });

    it('is not taken over before its TTL has passed (expiry is measured by the store)', async () => {
      const k = key();
      const a = await port.acquire(k, 'owner-a', 1_500);
      await sleep(300);
      expect(await port.acquire(k, 'owner-b', 10_000)).toBeNull();
      // The expiry is on the store's clock: TTL after the store's time of acquiring.
      const held = await port.holder(k);
      expect(held!.expiresAt).toBe(a!.expiresAt);
      await sleep(1_500);
      expect(await port.acquire(k, 'owner-b', 10_000)).not.toBeNull();
    });

    it('renews a lease for its holder, pushing its expiry past the original TTL', async () => {
      const k = key();
      const a = await port.acquire(k, 'owner-a', 400);
      await sleep(200);
      const renewed = await port.renew(a!, 10_000);
      expect(renewed).toMatchObject({ owner: 'owner-a', token: a!.token });
      expect(renewed!.expiresAt).toBeGreaterThan(a!.expiresAt);
      await sleep(400);
      expect(await port.acquire(k, 'owner-b', 10_000)).toBeNull();
    });

    it('refuses renewal, release and a token match to a stale owner once another took over', async () => {
      const k = key();
      const stale = await port.acquire(k, 'owner-a', 150);
      await sleep(400);
      const fresh = await port.acquire(k, 'owner-b', 10_000);
      expect(fresh).not.toBeNull();
      expect(await port.renew(stale!, 10_000)).toBeNull();
      expect(await port.release(stale!)).toBe(false);
      expect(await port.holder(k)).toMatchObject({ owner: 'owner-b', token: fresh!.token });
    });

    it('refuses a renewal by the same owner with an old token (a takeover and back)', async () => {
      const k = key();
      const first = await port.acquire(k, 'owner-a', 150);
      await sleep(400);
      const other = await port.acquire(k, 'owner-b', 150);
      await sleep(400);
      const back = await port.acquire(k, 'owner-a', 10_000);
      expect(new Set([first!.token, other!.token, back!.token]).size).toBe(3);
      expect(await port.renew(first!, 10_000)).toBeNull();
      expect(await port.renew(back!, 10_000)).not.toBeNull();
    });

    it('release frees the key at once for another owner, whose token differs', async () => {
      const k = key();
      const a = await port.acquire(k, 'owner-a', 60_000);
      expect(await port.release(a!)).toBe(true);
      expect(await port.holder(k)).toBeNull();
      const b = await port.acquire(k, 'owner-b', 60_000);
      expect(b).not.toBeNull();
      expect(b!.token).not.toBe(a!.token);
      expect(await port.release(a!)).toBe(false);
    });

    it('gives a key to exactly one of many concurrent acquirers', async () => {
      const k = key();
      const owners = Array.from({ length: 12 }, (_, i) => `owner-${i}`);
      const results = await Promise.all(owners.map((o) => port.acquire(k, o, 10_000)));
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await port.holder(k)).toMatchObject({ owner: winners[0]!.owner });
    });

    it('gives an expired key to exactly one of many concurrent acquirers', async () => {
      const k = key();
      await port.acquire(k, 'owner-old', 100);
      await sleep(300);
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => port.acquire(k, `owner-${i}`, 10_000)));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it('knows no holder for a key never acquired', async () => {
      expect(await port.holder(key())).toBeNull();
    });

    it('prunes leases expired or released long enough ago, a batch at a time: their keys start over; a live one stays', async () => {
      const [ran, died, released, live, recent] = [key(), key(), key(), key(), key()];
      await port.acquire(ran, 'owner-a', 1);
      await port.acquire(died, 'owner-a', 1);
      await port.release((await port.acquire(released, 'owner-a', 10_000))!);
      const held = (await port.acquire(live, 'owner-a', 10_000))!;
      await sleep(400);
      await port.acquire(recent, 'owner-a', 1);
      expect(await port.prune(300, 2)).toBe(2);
      expect(await port.prune(300, 2)).toBe(1);
      expect(await port.prune(300, 2)).toBe(0);
      // Forgotten: another owner's lease is a first one, not a takeover (a kept row would count the token up).
      expect(await port.acquire(ran, 'owner-b', 10_000)).toMatchObject({ token: FIRST_TOKEN });
      expect((await port.acquire(recent, 'owner-b', 10_000))!.token).not.toBe(FIRST_TOKEN);
      expect(await port.holder(live)).toMatchObject({ owner: 'owner-a', token: held.token });
      expect(await port.renew(held, 10_000)).not.toBeNull();
    });
  });
}
