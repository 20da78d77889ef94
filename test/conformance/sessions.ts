// Conformance suite of the studio sessions port (src/ports/sessions.ts), written against the interface only.
// Every adapter must pass it unchanged.
import { describe, expect, it } from 'vitest';
import { perTest, type Harness } from './harness.js';
import type { SessionRecord, SessionsPort } from '../../src/ports/sessions.js';

export type SessionsHarness = Harness<SessionsPort>;

const T0 = '2026-01-01T00:00:00.000Z';
const session = (n: number, expiresAt: string, keyId: string | null = `key_${n}`): SessionRecord =>
  ({ tokenHash: n.toString(16).padStart(64, '0'), accountId: `acct_${n}`, keyId, createdAt: T0, expiresAt });

export function sessionsConformance(name: string, factory: () => Promise<SessionsHarness>): void {
  describe(`sessions port conformance: ${name}`, () => {
    const open = perTest(factory);

    it('finds a session by its token hash until it expires, from another instance too; a keyless session keeps its null key', async () => {
      const h = await open();
      await h.port.create(session(1, '2026-01-15T00:00:00.000Z'));
      await h.port.create(session(2, '2026-01-15T00:00:00.000Z', null));
      const other = await h.another();
      expect(await other.findByTokenHash(session(1, '').tokenHash, '2026-01-14T23:59:59.999Z')).toEqual(session(1, '2026-01-15T00:00:00.000Z'));
      expect(await other.findByTokenHash(session(2, '').tokenHash, T0)).toEqual(session(2, '2026-01-15T00:00:00.000Z', null));
      expect(await h.port.findByTokenHash(session(1, '').tokenHash, '2026-01-15T00:00:00.000Z')).toBeUndefined();
      expect(await h.port.findByTokenHash(session(3, '').tokenHash, T0)).toBeUndefined();
    });

    it('delete signs one session out (false the second time); deleteExpired removes only the expired ones', async () => {
      const { port } = await open();
      await port.create(session(1, '2026-01-02T00:00:00.000Z'));
      await port.create(session(2, '2026-01-03T00:00:00.000Z'));
      await port.create(session(3, '2026-01-04T00:00:00.000Z'));
      expect(await port.delete(session(1, '').tokenHash)).toBe(true);
      expect(await port.delete(session(1, '').tokenHash)).toBe(false);
      expect(await port.findByTokenHash(session(1, '').tokenHash, T0)).toBeUndefined();
      expect(await port.deleteExpired('2026-01-03T00:00:00.000Z')).toBe(1);
      expect(await port.findByTokenHash(session(2, '').tokenHash, T0)).toBeUndefined();
      expect((await port.findByTokenHash(session(3, '').tokenHash, T0))?.accountId).toBe('acct_3');
    });

    it('a token hash is one session: a second create with it is refused', async () => {
      const { port } = await open();
      await port.create(session(1, '2026-01-02T00:00:00.000Z'));
      await expect(port.create(session(1, '2026-01-05T00:00:00.000Z'))).rejects.toThrow();
    });
  });
}
