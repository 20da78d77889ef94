// Conformance suite of the idempotency-key port (src/ports/idempotency.ts), written against the interface
// only, and of the HTTP rules built on it (src/server/idempotency.ts). Every adapter must pass it unchanged.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { perTest, type Harness } from './harness.js';
import type { IdempotencyStore } from '../../src/ports/idempotency.js';
import { IdempotentRequests } from '../../src/server/idempotency.js';
import { ShortsError } from '../../src/errors.js';

export type IdempotencyHarness = Harness<IdempotencyStore>;

const DAY = 24 * 3600_000;
const LONG = { ttlMs: DAY, holdMs: 60_000 };
const scope = (key: string, accountId = 'acct_a') => ({ accountId, key });
const answer = (n: number) => ({ status: 202, body: JSON.stringify({ data: { requestId: `r${n}` } }) });

export function idempotencyConformance(name: string, factory: () => Promise<IdempotencyHarness>): void {
  describe(`idempotency port conformance: ${name}`, () => {
    const open = perTest(factory);

    it('a new key is claimed; once answered, the same fingerprint gets that answer and another fingerprint is a mismatch', async () => {
      const { port } = await open();
      const first = await port.claim(scope('k1'), 'fp', LONG);
      expect(first.kind).toBe('claimed');
      expect(await port.claim(scope('k1'), 'fp', LONG)).toEqual({ kind: 'in_flight' });
      expect(await port.complete(scope('k1'), (first as { token: string }).token, answer(1))).toBe(true);
      expect(await port.claim(scope('k1'), 'fp', LONG)).toEqual({ kind: 'replay', answer: answer(1) });
      expect(await port.claim(scope('k1'), 'other', LONG)).toEqual({ kind: 'mismatch' });
      // Another account's key of the same name is its own.
      expect((await port.claim(scope('k1', 'acct_b'), 'other', LONG)).kind).toBe('claimed');
    });

    it('of concurrent claims on two instances exactly one is claimed', async () => {
      const h = await open();
      const other = await h.another();
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : h.port).claim(scope('race'), 'fp', LONG)));
      expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
      expect(claims.filter((c) => c.kind === 'in_flight')).toHaveLength(19);
    });

    it('a released claim is free again; a claim whose hold expired is taken over and the old token can no longer answer', async () => {
      const { port } = await open();
      const a = await port.claim(scope('k2'), 'fp', LONG) as { kind: 'claimed'; token: string };
      await port.release(scope('k2'), a.token);
      const b = await port.claim(scope('k2'), 'fp', { ttlMs: DAY, holdMs: 30 }) as { kind: 'claimed'; token: string };
      expect(b.kind).toBe('claimed');
      await sleep(60);
      const c = await port.claim(scope('k2'), 'fp', LONG) as { kind: 'claimed'; token: string };
      expect(c.kind).toBe('claimed');
      expect(c.token).not.toBe(b.token);
      expect(await port.complete(scope('k2'), b.token, answer(2))).toBe(false);
      await port.release(scope('k2'), b.token); // a stale release takes nothing away from the new holder
      expect(await port.claim(scope('k2'), 'fp', LONG)).toEqual({ kind: 'in_flight' });
      expect(await port.complete(scope('k2'), c.token, answer(3))).toBe(true);
      expect(await port.claim(scope('k2'), 'fp', LONG)).toEqual({ kind: 'replay', answer: answer(3) });
    });

    it('an answer older than the window counts as absent (even for another body) and purge removes it', async () => {
      const { port } = await open();
      const a = await port.claim(scope('k3'), 'fp', LONG) as { kind: 'claimed'; token: string };
      await port.complete(scope('k3'), a.token, answer(4));
      await sleep(40);
      expect((await port.claim(scope('k3'), 'new body', { ttlMs: 20, holdMs: 60_000 })).kind).toBe('claimed');
      const kept = await port.claim(scope('k4'), 'fp', LONG) as { kind: 'claimed'; token: string };
      await port.complete(scope('k4'), kept.token, answer(5));
      await sleep(40);
      expect(await port.purge(20)).toBe(2);
      expect((await port.claim(scope('k4'), 'fp', LONG)).kind).toBe('claimed');
    });

    it('purges a batch at a time when given a limit, the oldest past the window only', async () => {
      const { port } = await open();
      for (const k of ['p1', 'p2', 'p3']) {
        const c = await port.claim(scope(k), 'fp', LONG) as { kind: 'claimed'; token: string };
        await port.complete(scope(k), c.token, answer(6));
      }
      await sleep(400);
      const live = await port.claim(scope('p4'), 'fp', LONG) as { kind: 'claimed'; token: string };
      await port.complete(scope('p4'), live.token, answer(7));
      expect(await port.purge(300, 2)).toBe(2);
      expect(await port.purge(300, 2)).toBe(1);
      expect(await port.purge(300, 2)).toBe(0);
      expect(await port.claim(scope('p4'), 'fp', LONG)).toEqual({ kind: 'replay', answer: answer(7) });
    });

    it('the HTTP rules: one run for concurrent duplicates, all get the first answer; errors are not kept; another body is idempotency_key_reused', async () => {
      const { port } = await open();
      const requests = new IdempotentRequests(port);
      let runs = 0;
      const run = async () => { runs++; await sleep(50); return answer(runs); };
      const answers = await Promise.all(Array.from({ length: 10 }, () => requests.answer(scope('http'), 'fp', run)));
      expect(runs).toBe(1);
      expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
      expect(new Set(answers.map((a) => a.answer.body))).toEqual(new Set([answer(1).body]));

      await expect(requests.answer(scope('http'), 'another body', run)).rejects.toMatchObject({ code: 'idempotency_key_reused' });

      const failing = async () => { runs++; throw new ShortsError('insufficient_credits', 'no credits'); };
      await expect(requests.answer(scope('err'), 'fp', failing)).rejects.toBeInstanceOf(ShortsError);
      const refused = async () => { runs++; return { status: 403, body: '{"error":{}}' }; };
      expect((await requests.answer(scope('err'), 'fp', refused)).answer.status).toBe(403);
      // Neither error was kept: the third try runs and its success is what is replayed from now on.
      const before = runs;
      expect(await requests.answer(scope('err'), 'fp', run)).toEqual({ answer: answer(before + 1), replayed: false });
      expect(runs).toBe(before + 1);
      expect((await requests.answer(scope('err'), 'fp', run)).replayed).toBe(true);
    });
  });
}
