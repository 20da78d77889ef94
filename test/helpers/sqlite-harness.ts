// Today's adapters for the conformance suites: a fresh job-store SQLite file per test (migrated by
// SqliteRequestStore), the adapter under test on its connection, and further adapters on connections of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { SqliteRequestStore } from '../../src/adapters/sqlite/request-store.js';
import type { Harness } from '../conformance/harness.js';

export async function sqliteHarness<P>(adapter: (db: Database.Database) => P): Promise<Harness<P>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-'));
  const file = path.join(dir, 'shorts.db');
  const stores = [new SqliteRequestStore(file)];
  return {
    port: adapter(stores[0]!.db),
    another: async () => {
      const store = new SqliteRequestStore(file);
      stores.push(store);
      return adapter(store.db);
    },
    close: async () => {
      for (const s of stores) s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
