// `shorts db migrate` as users run it (the built CLI, a real process): PostgreSQL when SHORTS_DATABASE_URL is
// set (twice, and two at once), the data dir's SQLite store otherwise, and a clear failure for a database that
// cannot be reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PG_MIGRATIONS } from '../src/adapters/postgres/migrations.js';
import { MIGRATIONS } from '../src/adapters/sqlite/migrations.js';
import { cliEnv, runCli } from './helpers/cli.js';
import { freePort, startPostgres, type Postgres } from './helpers/engines.js';

let server: Postgres;
beforeAll(async () => { server = await startPostgres(); }, 60_000);
afterAll(async () => { await server?.close(); });

async function versions(url: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version as number);
  } finally {
    await c.end();
  }
}

describe('shorts db migrate', () => {
  it('migrates a fresh PostgreSQL database once, then finds it up to date', async () => {
    const url = await server.createDatabase('cli');
    const env = cliEnv({ SHORTS_DATABASE_URL: url });
    const first = await runCli(['db', 'migrate'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^PostgreSQL 127\\.0\\.0\\.1:${server.port}/cli_\\S+: migrated from schema version 0 to ${PG_MIGRATIONS.length}\\n$`));
    const second = await runCli(['db', 'migrate', '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ engine: 'postgresql', from: PG_MIGRATIONS.length, to: PG_MIGRATIONS.length });
    expect(await versions(url)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
  }, 60_000);

  it('two processes migrating one fresh database at once: one migrates, the other finds it done', async () => {
    const url = await server.createDatabase('cli_two');
    const env = cliEnv({ SHORTS_DATABASE_URL: url });
    const both = await Promise.all([runCli(['db', 'migrate'], env), runCli(['db', 'migrate'], env)]);
    expect(both.map((r) => r.code)).toEqual([0, 0]);
    const out = both.map((r) => r.stdout).sort();
    expect(out[0]).toContain(`migrated from schema version 0 to ${PG_MIGRATIONS.length}`);
    expect(out[1]).toContain(`up to date (schema version ${PG_MIGRATIONS.length})`);
    expect(await versions(url)).toEqual(PG_MIGRATIONS.map((_, i) => i + 1));
  }, 60_000);

  it('an unreachable database: a message naming it (never its password) and exit 1', async () => {
    const port = await freePort(); // nothing listens there
    const r = await runCli(['db', 'migrate'], cliEnv({ SHORTS_DATABASE_URL: `postgresql://shorts:s3cret@127.0.0.1:${port}/shorts` }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`could not migrate the PostgreSQL database of SHORTS_DATABASE_URL: 127.0.0.1:${port}/shorts: connect ECONNREFUSED`);
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(r.stderr).not.toContain('s3cret');
    expect(r.stdout).toBe('');
  }, 60_000);

  it('a URL that is not postgresql:// is a usage error', async () => {
    const r = await runCli(['db', 'migrate'], cliEnv({ SHORTS_DATABASE_URL: 'mysql://127.0.0.1/shorts' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SHORTS_DATABASE_URL must be a postgresql:// URL');
  }, 60_000);

  it('without SHORTS_DATABASE_URL: the data dir\'s SQLite store, created and migrated, then up to date', async () => {
    const env = cliEnv();
    delete env.SHORTS_DATABASE_URL;
    const first = await runCli(['db', 'migrate'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`SQLite ${env.SHORTS_DATA_DIR}/shorts.db: migrated from schema version 0 to ${MIGRATIONS.length}\n`);
    const second = await runCli(['db', 'migrate'], env);
    expect(second.stdout).toBe(`SQLite ${env.SHORTS_DATA_DIR}/shorts.db: up to date (schema version ${MIGRATIONS.length})\n`);
  }, 60_000);
});
