// Everything a process keeps in PostgreSQL (SHORTS_DATABASE_URL), on one Pool: the state adapters, built on one
// PgDatabase so a unit of work of one (chargeAndCreate) carries the writes of another (the request insert).
import { createPool, PgDatabase } from './database.js';
import { migratePostgres } from './migrations.js';
import { PgAccounts } from './accounts.js';
import { PgIdempotencyStore } from './idempotency.js';
import { PgLeaseStore } from './lease-store.js';
import { PgRateLimits } from './rate-limits.js';
import { PgRequestStore } from './request-store.js';
import { PgWebhookDeliveries } from './webhook-deliveries.js';
import { PgSessions } from './sessions.js';
import { createPostgresPostsPorts, type PostgresPostsPorts } from './posts-ports.js';

export interface PostgresStateOptions {
  /** This process's scratch data dir (the request store's `dataDir`: job folders, caches). */
  dataDir: string;
  /** Brings the schema up to date first (default true; safe when several processes start at once). */
  migrate?: boolean;
  /**
   * Hears connection errors outside any query (the server restarted, an idle connection dropped): the Pool
   * reconnects on the next query. Default: one line on stderr per dropped connection.
   */
  onConnectionError?: (e: Error) => void;
}

export interface PostgresState extends PostgresPostsPorts {
  db: PgDatabase;
  requests: PgRequestStore;
  accounts: PgAccounts;
  leases: PgLeaseStore;
  idempotency: PgIdempotencyStore;
  sessions: PgSessions;
  webhookDeliveries: PgWebhookDeliveries;
  /** The SQL counters, for deployments without Redis. */
  rateLimits: PgRateLimits;
  ping(): Promise<string>;
  /** Ends the Pool: call once, after the adapters' last use. */
  close(): Promise<void>;
}

/**
 * Builds the adapters at once (a process's composition root is synchronous); the schema is brought up to date
 * before the first statement any of them runs (`db.ready()` waits for it, and says why it failed).
 */
export function createPostgresState(url: string, opts: PostgresStateOptions): PostgresState {
  const pool = createPool(url, opts.onConnectionError ?? ((e) => process.stderr.write(`PostgreSQL connection lost (${e.message}); the next query reconnects\n`)));
  const db = new PgDatabase(pool, opts.migrate ?? true ? (p) => migratePostgres(p).catch((e: unknown) => {
    // The first statement of a process meets an unreachable or missing database here: its error says which one
    // (never the URL itself, which may carry a password) and which setting names it.
    throw new Error(`the PostgreSQL database of SHORTS_DATABASE_URL (${describeDatabaseUrl(url)}) cannot be used: ${(e as Error).message || String(e)}`, { cause: e });
  }) : undefined);
  const requests = new PgRequestStore(db, opts.dataDir);
  return {
    db,
    requests,
    // Posts, connected accounts and automation rules: `posts`, `connectedAccounts`, `automationRules`.
    ...createPostgresPostsPorts(db, requests),
    accounts: new PgAccounts(db),
    leases: new PgLeaseStore(db),
    idempotency: new PgIdempotencyStore(db),
    sessions: new PgSessions(db),
    webhookDeliveries: new PgWebhookDeliveries(db),
    rateLimits: new PgRateLimits(db),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}

/** Where a URL points, for messages: host, port and database, never the password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}
