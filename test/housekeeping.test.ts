// The housekeeping pass (src/engine/housekeeping.ts) on a real SQLite store: what is past its retention goes,
// batch after batch; what is live stays.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteIdempotencyStore } from '../src/adapters/sqlite/idempotency.js';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { Housekeeping } from '../src/engine/housekeeping.js';

const DAY = 24 * 3600_000;
const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });
const tmp = () => { const d = mkdtempSync(path.join(os.tmpdir(), 'housekeeping-')); dirs.push(d); return d; };

describe('housekeeping', () => {
  it('forgets released leases and idempotency keys past their window in batches, keeping a held lease and a fresh key', async () => {
    const store = new SqliteRequestStore(path.join(tmp(), 'shorts.db'));
    try {
      const leases = new SqliteLeaseStore(store.db);
      for (let i = 0; i < 5; i++) await leases.release((await leases.acquire({ kind: 'clip', id: `c${i}` }, 'w1', 60_000))!);
      const held = (await leases.acquire({ kind: 'clip', id: 'busy' }, 'w1', 60_000))!;
      // Keys answered two days ago (the store's clock then), and one answered now.
      const twoDaysAgo = new SqliteIdempotencyStore(store.db, () => Date.now() - 2 * DAY);
      const keys = new SqliteIdempotencyStore(store.db);
      for (const [s, key] of [[twoDaysAgo, 'k1'], [twoDaysAgo, 'k2'], [twoDaysAgo, 'k3'], [keys, 'fresh']] as const) {
        const claim = await s.claim({ accountId: 'a', key }, 'fp', { ttlMs: DAY, holdMs: 60_000 }) as { token: string };
        await s.complete({ accountId: 'a', key }, claim.token, { status: 202, body: key });
      }
      const lines: string[] = [];
      const pass = await new Housekeeping({ leases, idempotency: keys, log: (l) => lines.push(l), batch: 2 }).pass();
      expect(pass).toEqual({ leases: 5, idempotencyKeys: 3 });
      expect(lines).toEqual([expect.stringContaining('forgot 5 long-expired lease(s) and 3 idempotency key(s)')]);
      expect(await leases.holder({ kind: 'clip', id: 'busy' })).toMatchObject({ owner: 'w1', token: held.token });
      expect(await keys.claim({ accountId: 'a', key: 'fresh' }, 'fp', { ttlMs: DAY, holdMs: 60_000 })).toMatchObject({ kind: 'replay' });
      expect(store.db.prepare('SELECT count(*) AS n FROM idempotency_keys').get()).toEqual({ n: 1 });
    } finally {
      store.close();
    }
  });

});
