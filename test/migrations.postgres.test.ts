// The PostgreSQL schema: migrated once however many processes start on a fresh database at the same time,
// and a second run finds it up to date.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createPool } from '../src/adapters/postgres/database.js';
import { migratePostgres, PG_MIGRATIONS } from '../src/adapters/postgres/migrations.js';
import { startPostgres, type Postgres } from './helpers/engines.js';

let server: Postgres;
beforeAll(async () => { server = await startPostgres(); }, 60_000);
afterAll(async () => { await server?.close(); });

describe('PostgreSQL migrations', () => {
  it('five concurrent migrations of a fresh database (five Pools, as five processes) migrate it once', async () => {
    const url = await server.createDatabase('migrate');
    const pools = Array.from({ length: 5 }, () => createPool(url));
    try {
      const results = await Promise.all(pools.map((p) => migratePostgres(p)));
      const latest = PG_MIGRATIONS.length;
      expect(results.filter((r) => r.from === 0)).toHaveLength(1);
      expect(results.filter((r) => r.from === latest)).toHaveLength(4);
      expect(results.every((r) => r.to === latest)).toBe(true);
      const { rows } = await pools[0]!.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(Array.from({ length: latest }, (_, i) => i + 1));
      expect(await migratePostgres(pools[1]!)).toEqual({ from: latest, to: latest });
      // Every table of the SQLite store but its job queue (BullMQ owns jobs in distributed mode).
      const tables = (await pools[0]!.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)).rows.map((r) => r.table_name);
      expect(tables).toEqual(['accounts', 'api_keys', 'automation_rules', 'connected_accounts', 'credit_ledger', 'idempotency_keys', 'leases',
        'posts', 'rate_counters', 'requests', 'schema_migrations', 'sessions', 'shorts', 'webhook_attempts']);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('refuses a database from a newer shortwright, changing nothing', async () => {
    const url = await server.createDatabase('newer');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [PG_MIGRATIONS.length + 1]);
      const pool = createPool(url);
      await expect(migratePostgres(pool)).rejects.toThrow(/newer than this shortwright knows/);
      await pool.end();
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`);
      expect(rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
  });
});
