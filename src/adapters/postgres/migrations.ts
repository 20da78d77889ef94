// The PostgreSQL schema, as numbered migrations recorded in `schema_migrations`. Version 1 is the SQLite
// store at its v13 (src/adapters/sqlite/migrations.ts) less its `jobs` table: in distributed mode BullMQ owns
// the jobs. Record shapes are the ports': timestamps the adapters hand over as ISO-8601 text stay text (they
// sort as they read, and come back byte for byte), millisecond clocks are bigint, JSON is jsonb, flags boolean.
// `seq` columns give rows the insertion order SQLite's rowid gave (ties of equal timestamps).
import type pg from 'pg';
import { PgDatabase } from './database.js';

export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE requests (
     id text PRIMARY KEY,
     seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
     account_id text NOT NULL,
     origin text NOT NULL CHECK (origin IN ('api', 'local')),
     user_email text NOT NULL,
     is_demo boolean NOT NULL DEFAULT false,
     status text NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'failed', 'cancelled')),
     step text NOT NULL,
     progress double precision NOT NULL DEFAULT 0,
     options jsonb NOT NULL,
     url text NOT NULL,
     title text NOT NULL DEFAULT '',
     start double precision NOT NULL,
     "end" double precision NOT NULL,
     time_adjustment jsonb,
     heatmap jsonb NOT NULL DEFAULT '[]',
     sentences jsonb NOT NULL DEFAULT '[]',
     failure_reason text,
     warnings jsonb NOT NULL DEFAULT '[]',
     detected_language text,
     attempts integer NOT NULL DEFAULT 0,
     created_at text NOT NULL,
     updated_at text NOT NULL,
     started_at text,
     finished_at text
   );
   CREATE INDEX requests_account ON requests (account_id, origin, created_at);
   CREATE INDEX requests_status ON requests (status, created_at);

   CREATE TABLE shorts (
     id text PRIMARY KEY,
     request_id text NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
     rank integer NOT NULL,
     title text NOT NULL,
     sentence_indexes jsonb NOT NULL,
     reason text NOT NULL,
     description text NOT NULL,
     viral_score double precision NOT NULL,
     start_ts double precision NOT NULL,
     end_ts double precision NOT NULL,
     duration double precision NOT NULL,
     width integer NOT NULL,
     height integer NOT NULL,
     recompiling boolean NOT NULL DEFAULT false,
     error boolean NOT NULL DEFAULT false,
     error_message text,
     file_key text,
     cover_key text,
     layout text,
     edit jsonb,
     edit_error text,
     pending_edit jsonb,
     rerender_attempts integer NOT NULL DEFAULT 0
   );
   CREATE INDEX shorts_request ON shorts (request_id, rank);

   CREATE TABLE connected_accounts (
     id text PRIMARY KEY,
     account_id text NOT NULL,
     platform text NOT NULL CHECK (platform IN ('video_site', 'photo_site', 'short_video_site')),
     handle text NOT NULL,
     platform_user_id text,
     access_token text NOT NULL,
     refresh_token text,
     expires_at text,
     refresh_expires_at text,
     scopes text,
     status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired')),
     created_at text NOT NULL,
     updated_at text NOT NULL,
     UNIQUE (account_id, platform, handle)
   );

   CREATE TABLE posts (
     id text PRIMARY KEY,
     seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
     account_id text NOT NULL,
     platform text NOT NULL CHECK (platform IN ('video_site', 'photo_site', 'short_video_site')),
     status text NOT NULL CHECK (status IN ('scheduled', 'processing', 'published', 'failed', 'canceled')),
     scheduled_at text NOT NULL,
     published_at text,
     url text,
     short_id text NOT NULL,
     request_id text NOT NULL,
     title text NOT NULL,
     account_handle text NOT NULL,
     source text NOT NULL CHECK (source IN ('manual', 'automation')),
     error text,
     error_code text,
     retryable boolean,
     created_at text NOT NULL,
     connected_account_id text,
     description text NOT NULL DEFAULT '',
     publish_state jsonb,
     attempts integer NOT NULL DEFAULT 0,
     next_attempt_at text,
     updated_at text
   );
   CREATE INDEX posts_account ON posts (account_id, scheduled_at);
   CREATE INDEX posts_due ON posts (status, scheduled_at);
   CREATE INDEX posts_short ON posts (short_id);
   -- Automation schedules a clip to a connected account at most once (SQLite v12).
   CREATE UNIQUE INDEX posts_automation_once ON posts (connected_account_id, short_id)
     WHERE source = 'automation' AND status IN ('scheduled', 'processing');

   CREATE TABLE automation_rules (
     id text PRIMARY KEY,
     account_id text NOT NULL,
     connected_account_id text NOT NULL REFERENCES connected_accounts (id) ON DELETE CASCADE,
     min_viral_score integer NOT NULL,
     slots jsonb NOT NULL,
     timezone text NOT NULL DEFAULT 'UTC',
     enabled boolean NOT NULL DEFAULT true,
     created_at text NOT NULL
   );

   CREATE TABLE accounts (
     id text PRIMARY KEY,
     email text NOT NULL UNIQUE,
     subscription_active boolean NOT NULL DEFAULT true,
     credits integer NOT NULL DEFAULT 0 CHECK (credits >= 0),
     hourly_limit integer NOT NULL DEFAULT 100,
     daily_limit integer NOT NULL DEFAULT 1000,
     blur_background boolean NOT NULL DEFAULT true,
     webhook_secret text NOT NULL,
     created_at text NOT NULL
   );
   CREATE TABLE api_keys (
     id text PRIMARY KEY,
     seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
     account_id text NOT NULL REFERENCES accounts (id),
     key_hash text NOT NULL UNIQUE,
     prefix text NOT NULL,
     created_at text NOT NULL,
     revoked_at text,
     last_used_at text
   );
   CREATE INDEX api_keys_prefix ON api_keys (prefix);
   CREATE TABLE credit_ledger (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     account_id text NOT NULL REFERENCES accounts (id),
     request_id text,
     delta integer NOT NULL,
     reason text NOT NULL CHECK (reason IN ('grant', 'creation', 'refund')),
     created_at text NOT NULL
   );
   -- A request is charged once and refunded once, whichever process asks.
   CREATE UNIQUE INDEX credit_once_per_request ON credit_ledger (request_id, reason) WHERE request_id IS NOT NULL;

   CREATE TABLE rate_counters (
     scope text NOT NULL,
     window_start bigint NOT NULL,
     count integer NOT NULL,
     PRIMARY KEY (scope, window_start)
   );
   CREATE INDEX rate_counters_window ON rate_counters (window_start);

   CREATE TABLE webhook_attempts (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     message_id text NOT NULL,
     request_id text NOT NULL,
     event text NOT NULL,
     url text NOT NULL,
     attempt integer NOT NULL,
     started_at text NOT NULL,
     duration_ms integer,
     status_code integer,
     error text,
     delivered boolean NOT NULL DEFAULT false
   );
   CREATE INDEX webhook_attempts_request ON webhook_attempts (request_id, message_id, attempt);

   -- Ownership (issue 22): expires_at in milliseconds on the database server's clock.
   CREATE TABLE leases (
     kind text NOT NULL,
     id text NOT NULL,
     owner text NOT NULL,
     token bigint NOT NULL,
     expires_at bigint NOT NULL,
     PRIMARY KEY (kind, id)
   );

   CREATE TABLE idempotency_keys (
     account_id text NOT NULL,
     key text NOT NULL,
     fingerprint text NOT NULL,
     token text NOT NULL,
     created_at bigint NOT NULL,
     held_until bigint NOT NULL,
     answer_status integer,
     -- text, not jsonb: the answer is replayed byte for byte.
     answer_body text,
     PRIMARY KEY (account_id, key)
   );
   CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);`,
  // v2 (issue 25): the web studio; SQLite's v14.
  `ALTER TABLE requests ADD COLUMN created_in text NOT NULL DEFAULT 'api' CHECK (created_in IN ('api', 'studio'));
   CREATE TABLE sessions (
     token_hash text PRIMARY KEY,
     account_id text NOT NULL,
     key_id text,
     created_at text NOT NULL,
     expires_at text NOT NULL
   );
   CREATE INDEX sessions_expires ON sessions (expires_at);`,
];

/**
 * Any constant shared by every shortwright process ('shor'): the transaction-level advisory lock that makes
 * concurrent migrations of one database take turns (the later ones then find the work done).
 */
const MIGRATION_LOCK = 0x73686f72;

export interface MigrationResult { from: number; to: number }

/**
 * Brings the database to the latest version in one transaction under an advisory lock: several processes
 * starting at once migrate it once, and a failed migration leaves the previous version whole.
 */
export async function migratePostgres(pool: pg.Pool): Promise<MigrationResult> {
  const db = new PgDatabase(pool);
  return db.transaction(async () => {
    await db.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const from = (await db.one<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations'))?.v ?? 0;
    if (from > PG_MIGRATIONS.length) {
      throw new Error(`the database is at schema version ${from}, newer than this shortwright knows (${PG_MIGRATIONS.length}): upgrade shortwright`);
    }
    for (let v = from; v < PG_MIGRATIONS.length; v++) {
      await db.query(PG_MIGRATIONS[v]!);
      await db.query('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
    }
    return { from, to: PG_MIGRATIONS.length };
  });
}
