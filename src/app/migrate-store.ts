// `shorts db migrate`: brings the configured store's schema up to date without starting anything else. With
// SHORTS_DATABASE_URL, the PostgreSQL database; else the data dir's SQLite file (which opening migrates).
// Both are safe when several processes migrate at once: PostgreSQL under an advisory lock, SQLite under its
// write lock. Without Redis the job queues live in the same PostgreSQL database (BullMQ's backend, schema
// `bullmq`): their tables are brought up to date too, by BullMQ's own migrations.
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createPool } from '../adapters/postgres/database.js';
import { describeDatabaseUrl } from '../adapters/postgres/index.js';
import { migratePostgres } from '../adapters/postgres/migrations.js';
import { SqliteRequestStore } from '../adapters/sqlite/request-store.js';
import { createBullmqJobQueue } from '../adapters/bullmq/job-queue.js';

export interface MigrateOutcome {
  engine: 'postgresql' | 'sqlite';
  /** The database migrated: host:port/database, or the SQLite file. */
  where: string;
  from: number;
  to: number;
}

export async function migrateStore(dataDir: string, databaseUrl: string | undefined, opts: { queuesInDatabase?: boolean } = {}): Promise<MigrateOutcome> {
  if (databaseUrl) {
    const where = describeDatabaseUrl(databaseUrl);
    const pool = createPool(databaseUrl);
    try {
      const outcome = await migratePostgres(pool);
      if (opts.queuesInDatabase) await (await createBullmqJobQueue({ postgresUrl: databaseUrl })).close();
      return { engine: 'postgresql', where, ...outcome };
    } catch (e) {
      // Which database, for the operator (never the URL itself: it may carry a password).
      throw new Error(`${where}: ${(e as Error).message || String(e)}`, { cause: e });
    } finally {
      await pool.end();
    }
  }
  const file = path.join(dataDir, 'shorts.db');
  const from = existsSync(file) ? sqliteVersion(file) : 0;
  const store = new SqliteRequestStore(file);
  try {
    return { engine: 'sqlite', where: file, from, to: store.db.pragma('user_version', { simple: true }) as number };
  } finally {
    await store.close();
  }
}

function sqliteVersion(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}
