// The RequestStore conformance suite against today's adapter (the job store's SQLite file), with the SQLite
// lease store on the same connection for the fenced writes.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { requestStoreConformance } from './conformance/request-store.js';

requestStoreConformance('SQLite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-requests-'));
  const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  return {
    port: store,
    leases: new SqliteLeaseStore(store.db),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
