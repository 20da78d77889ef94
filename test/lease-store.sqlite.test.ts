// The LeaseStore conformance suite against today's adapter: a `leases` table in the job store's SQLite file.
// Processes racing for one key on separate connections: test/concurrency.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { leaseStoreConformance } from './conformance/lease-store.js';

leaseStoreConformance('SQLite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-leases-'));
  const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  return {
    port: new SqliteLeaseStore(store.db),
    close: async () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
