// The PostgreSQL adapters for the conformance suites: a fresh, migrated database per harness on the test
// file's own server (test/helpers/engines.ts), the adapter under test on one Pool, and further adapters on
// Pools of their own, as other processes would have.
import { createPool, PgDatabase } from '../../src/adapters/postgres/database.js';
import { migratePostgres } from '../../src/adapters/postgres/migrations.js';
import type { Harness } from '../conformance/harness.js';
import type { Postgres } from './engines.js';

/** A fresh migrated database: `db` on one Pool, `another()` a PgDatabase on a second Pool; close() ends them all. */
export async function postgresDatabase(server: Postgres): Promise<{ url: string; db: PgDatabase; another(): PgDatabase; close(): Promise<void> }> {
  const url = await server.createDatabase('conformance');
  const dbs: PgDatabase[] = [];
  const open = () => {
    const db = new PgDatabase(createPool(url));
    dbs.push(db);
    return db;
  };
  const db = open();
  await migratePostgres(db.pool);
  return { url, db, another: open, close: async () => { await Promise.all(dbs.map((d) => d.close())); } };
}

export async function postgresHarness<P>(server: Postgres, adapter: (db: PgDatabase) => P): Promise<Harness<P>> {
  const d = await postgresDatabase(server);
  return { port: adapter(d.db), another: async () => adapter(d.another()), close: d.close };
}
