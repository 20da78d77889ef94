// Schema migrations, applied in order; PRAGMA user_version records how far a database has come.
import { copyFileSync, existsSync, linkSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { checkBlobKey, coverKeyOf } from '../../ports/blob-store.js';

export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE requests (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     origin TEXT NOT NULL CHECK (origin IN ('api', 'local')),
     user_email TEXT NOT NULL,
     is_demo INTEGER NOT NULL DEFAULT 0,
     status TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'completed', 'failed', 'cancelled')),
     step TEXT NOT NULL,
     progress REAL NOT NULL DEFAULT 0,
     options TEXT NOT NULL,
     url TEXT NOT NULL,
     title TEXT NOT NULL DEFAULT '',
     start REAL NOT NULL,
     "end" REAL NOT NULL,
     time_adjustment TEXT,
     heatmap TEXT NOT NULL DEFAULT '[]',
     sentences TEXT NOT NULL DEFAULT '[]',
     failure_reason TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT,
     runner_pid INTEGER
   );
   CREATE INDEX requests_account ON requests (account_id, origin, created_at);
   CREATE INDEX requests_status ON requests (status, created_at);
   CREATE TABLE shorts (
     id TEXT PRIMARY KEY,
     request_id TEXT NOT NULL REFERENCES requests (id) ON DELETE CASCADE,
     rank INTEGER NOT NULL,
     title TEXT NOT NULL,
     sentence_indexes TEXT NOT NULL,
     reason TEXT NOT NULL,
     description TEXT NOT NULL,
     viral_score REAL NOT NULL,
     start_ts REAL NOT NULL,
     end_ts REAL NOT NULL,
     duration REAL NOT NULL,
     width INTEGER NOT NULL,
     height INTEGER NOT NULL,
     recompiling INTEGER NOT NULL DEFAULT 0,
     error INTEGER NOT NULL DEFAULT 0,
     error_message TEXT,
     file_path TEXT
   );
   CREATE INDEX shorts_request ON shorts (request_id, rank);
   CREATE TABLE posts (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     platform TEXT NOT NULL CHECK (platform IN ('video_site', 'photo_site', 'short_video_site')),
     status TEXT NOT NULL CHECK (status IN ('scheduled', 'processing', 'published', 'failed', 'canceled')),
     scheduled_at TEXT NOT NULL,
     published_at TEXT,
     url TEXT,
     short_id TEXT NOT NULL,
     request_id TEXT NOT NULL,
     title TEXT NOT NULL,
     account_handle TEXT NOT NULL,
     source TEXT NOT NULL CHECK (source IN ('manual', 'automation')),
     error TEXT,
     error_code TEXT,
     retryable INTEGER,
     created_at TEXT NOT NULL
   );
   CREATE INDEX posts_account ON posts (account_id, scheduled_at);`,
  // v2: accounts, keys, credits, rate limits and webhook deliveries for `shorts serve`.
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     email TEXT NOT NULL UNIQUE,
     subscription_active INTEGER NOT NULL DEFAULT 1,
     credits INTEGER NOT NULL DEFAULT 0 CHECK (credits >= 0),
     hourly_limit INTEGER NOT NULL DEFAULT 100,
     daily_limit INTEGER NOT NULL DEFAULT 1000,
     blur_background INTEGER NOT NULL DEFAULT 1,
     webhook_secret TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts (id),
     key_hash TEXT NOT NULL UNIQUE,
     prefix TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT,
     last_used_at TEXT
   );
   CREATE TABLE credit_ledger (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     account_id TEXT NOT NULL REFERENCES accounts (id),
     request_id TEXT,
     delta INTEGER NOT NULL,
     reason TEXT NOT NULL CHECK (reason IN ('grant', 'creation', 'refund')),
     created_at TEXT NOT NULL
   );
   CREATE UNIQUE INDEX credit_once_per_request ON credit_ledger (request_id, reason) WHERE request_id IS NOT NULL;
   CREATE TABLE rate_counters (
     scope TEXT NOT NULL,
     window_start INTEGER NOT NULL,
     count INTEGER NOT NULL,
     PRIMARY KEY (scope, window_start)
   );
   CREATE TABLE webhook_attempts (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     message_id TEXT NOT NULL,
     request_id TEXT NOT NULL,
     event TEXT NOT NULL,
     url TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     started_at TEXT NOT NULL,
     duration_ms INTEGER,
     status_code INTEGER,
     error TEXT,
     delivered INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX webhook_attempts_request ON webhook_attempts (request_id, message_id, attempt);`,
  // v3: how many times a worker has started a request, so a job that keeps crashing its process fails
  // with a reason instead of looping forever across restarts.
  `ALTER TABLE requests ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;`,
  // v4 (issue 11): warnings a request earned while it ran (a JSON array of sentences, e.g. speech that does
  // not sound like the requested language) and the language detected for `language: auto`.
  `ALTER TABLE requests ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]';
   ALTER TABLE requests ADD COLUMN detected_language TEXT;`,
  // v5 (issue 13): the layout each clip really got (fill, fit, square, split, screen), so the detail can
  // say why a clip looks the way it does. Clips rendered before this version have none (NULL).
  `ALTER TABLE shorts ADD COLUMN layout TEXT;`,
  // v6 (issue 14): re-rendering one clip. `edit` keeps the per-clip changes already applied (JSON ClipEdit),
  // `pending_edit` the one being rendered while `recompiling` is 1 (so a restarted server resumes it), and
  // which process runs it and how many times one has started it (a re-render that keeps killing its process
  // is given up, the previous clip kept), and why the last re-render failed (the clip then is as before).
  `ALTER TABLE shorts ADD COLUMN edit TEXT;
   ALTER TABLE shorts ADD COLUMN edit_error TEXT;
   ALTER TABLE shorts ADD COLUMN pending_edit TEXT;
   ALTER TABLE shorts ADD COLUMN rerender_pid INTEGER;
   ALTER TABLE shorts ADD COLUMN rerender_attempts INTEGER NOT NULL DEFAULT 0;`,
  // v7 (issue 16): posting clips. Connected platform accounts per API account (tokens encrypted with
  // SHORTS_SECRET_KEY); a post's link to the account it goes out on, its caption, the publish progress a
  // restarted process resumes from (connector state: upload session, container, publish id) so nothing is
  // posted twice, retries with backoff, the process publishing it; and automation rules.
  `CREATE TABLE connected_accounts (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     platform TEXT NOT NULL CHECK (platform IN ('video_site', 'photo_site', 'short_video_site')),
     handle TEXT NOT NULL,
     platform_user_id TEXT,
     access_token TEXT NOT NULL,
     refresh_token TEXT,
     expires_at TEXT,
     refresh_expires_at TEXT,
     scopes TEXT,
     status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'expired')),
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     UNIQUE (account_id, platform, handle)
   );
   ALTER TABLE posts ADD COLUMN connected_account_id TEXT;
   ALTER TABLE posts ADD COLUMN description TEXT NOT NULL DEFAULT '';
   ALTER TABLE posts ADD COLUMN publish_state TEXT;
   ALTER TABLE posts ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE posts ADD COLUMN next_attempt_at TEXT;
   ALTER TABLE posts ADD COLUMN runner_pid INTEGER;
   ALTER TABLE posts ADD COLUMN updated_at TEXT;
   CREATE INDEX posts_due ON posts (status, scheduled_at);
   CREATE INDEX posts_short ON posts (short_id);
   CREATE TABLE automation_rules (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     connected_account_id TEXT NOT NULL REFERENCES connected_accounts (id) ON DELETE CASCADE,
     min_viral_score INTEGER NOT NULL,
     slots TEXT NOT NULL,
     timezone TEXT NOT NULL DEFAULT 'UTC',
     enabled INTEGER NOT NULL DEFAULT 1,
     created_at TEXT NOT NULL
   );`,
  // v8 (issue 22): clips are blobs. `file_path` (an absolute path) becomes `file_key`, a blob store key (the
  // path relative to the data dir: jobs/<requestId>/clips/01-<shortId>.mp4), and `cover_key` says whether a
  // cover was made, so reads no longer look at the disk. MIGRATION_STEPS[8] converts the rows.
  `ALTER TABLE shorts RENAME COLUMN file_path TO file_key;
   ALTER TABLE shorts ADD COLUMN cover_key TEXT;`,
  // v9 (issue 22): ownership is a lease (owner per process start, expiry on the database's clock, a fencing
  // token), no longer a process id, whose column goes.
  `CREATE TABLE leases (
     kind TEXT NOT NULL,
     id TEXT NOT NULL,
     owner TEXT NOT NULL,
     token INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     PRIMARY KEY (kind, id)
   );
   ALTER TABLE requests DROP COLUMN runner_pid;
   ALTER TABLE shorts DROP COLUMN rerender_pid;
   ALTER TABLE posts DROP COLUMN runner_pid;`,
  // v10 (issue 23): idempotency keys. The first answer to a POST sent with an `Idempotency-Key`, per API
  // account, replayed to a retry for 24 hours; `answer_status` NULL while the first request still runs (its
  // claim held until `held_until`, so a process killed mid-request does not block the key).
  `CREATE TABLE idempotency_keys (
     account_id TEXT NOT NULL,
     key TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     token TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     held_until INTEGER NOT NULL,
     answer_status INTEGER,
     answer_body TEXT,
     PRIMARY KEY (account_id, key)
   );
   CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);`,
  // v11 (issue 22): the job queue (src/adapters/sqlite/job-queue.ts). Workers take jobs from here instead of
  // polling the requests and clips; what an upgraded data dir has live is enqueued, so nothing is lost: queued
  // API requests wait, processing ones are active under no lock (a stopped holder: the next taker resumes them
  // with one more attempt, counted from the starts the request already had), and clips of API requests being
  // re-rendered likewise. Queue names and job shapes are those of src/engine/jobs.ts at this version.
  `CREATE TABLE jobs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     queue TEXT NOT NULL,
     id TEXT NOT NULL,
     data TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('waiting', 'active', 'completed', 'failed', 'cancelled')),
     run_at INTEGER NOT NULL,
     attempts INTEGER NOT NULL,
     attempts_made INTEGER NOT NULL DEFAULT 0,
     backoff TEXT,
     lock_token TEXT,
     locked_until INTEGER,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     failed_reason TEXT,
     UNIQUE (queue, id)
   );
   CREATE INDEX jobs_due ON jobs (state, queue, run_at, seq);
   INSERT INTO jobs (queue, id, data, state, run_at, attempts, attempts_made, locked_until)
     SELECT 'requests', id, json_object('requestId', id), CASE status WHEN 'queued' THEN 'waiting' ELSE 'active' END, 0, 3,
       CASE status WHEN 'queued' THEN 0 ELSE attempts END, CASE status WHEN 'queued' THEN NULL ELSE 0 END
     FROM requests WHERE origin = 'api' AND status IN ('queued', 'processing') ORDER BY created_at, rowid;
   INSERT INTO jobs (queue, id, data, state, run_at, attempts, attempts_made, locked_until)
     SELECT 'rerenders', s.id, json_object('requestId', s.request_id, 'shortId', s.id), CASE s.rerender_attempts WHEN 0 THEN 'waiting' ELSE 'active' END,
       0, 3, s.rerender_attempts, CASE s.rerender_attempts WHEN 0 THEN NULL ELSE 0 END
     FROM shorts s JOIN requests r ON r.id = s.request_id WHERE r.origin = 'api' AND s.recompiling = 1 ORDER BY r.updated_at, s.rank;`,
  // v12 (issue 23): automation schedules a clip to a connected account at most once. Applying the rules is one
  // transaction already; this uniqueness rule is the store's own guarantee, whatever the adapter's isolation.
  // A data dir from before may hold a second scheduled automation post of a clip (the old check-then-insert
  // race): the later one is canceled, saying why, before the rule is made.
  `UPDATE posts SET status = 'canceled', next_attempt_at = NULL, error = 'a second automation post of the same clip to the same account (canceled on upgrade)'
     WHERE source = 'automation' AND status = 'scheduled' AND EXISTS (SELECT 1 FROM posts o WHERE o.source = 'automation'
       AND o.connected_account_id = posts.connected_account_id AND o.short_id = posts.short_id AND o.status IN ('scheduled', 'processing')
       AND (o.created_at < posts.created_at OR (o.created_at = posts.created_at AND o.id < posts.id)));
   CREATE UNIQUE INDEX posts_automation_once ON posts (connected_account_id, short_id) WHERE source = 'automation' AND status IN ('scheduled', 'processing');`,
  // v13 (issue 24): flows (JobQueue.enqueueFlow). A parent job is a waiting one with children left to end; each
  // child names its parent. No state is added (the state CHECK stays): `waiting-children` is waiting with
  // pending_children > 0, never due.
  `ALTER TABLE jobs ADD COLUMN parent_queue TEXT;
   ALTER TABLE jobs ADD COLUMN parent_id TEXT;
   ALTER TABLE jobs ADD COLUMN pending_children INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX jobs_parent ON jobs (parent_queue, parent_id);`,
  // v14 (issue 25): the web studio. Where a request was made (`origin` keeps meaning who runs it: the studio's
  // run on the server's queue, origin 'api'), so the API's list leaves the studio's out; and the studio's
  // sign-in sessions, kept as a SHA-256 of the cookie's token.
  `ALTER TABLE requests ADD COLUMN created_in TEXT NOT NULL DEFAULT 'api' CHECK (created_in IN ('api', 'studio'));
   CREATE TABLE sessions (
     token_hash TEXT PRIMARY KEY,
     account_id TEXT NOT NULL,
     key_id TEXT,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL
   );
   CREATE INDEX sessions_expires ON sessions (expires_at);`,
  // v15: ended jobs are kept a day, then removed (src/adapters/sqlite/job-queue.ts): when each ended (NULL while
  // live), indexed for that removal. Those that ended before this version count from the upgrade. Milliseconds
  // on the database's clock, as run_at.
  `ALTER TABLE jobs ADD COLUMN ended_at INTEGER;
   UPDATE jobs SET ended_at = CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) WHERE state IN ('completed', 'failed', 'cancelled');
   CREATE INDEX jobs_ended ON jobs (queue, ended_at);`,
];

/**
 * Data steps run after the SQL of the same version (1-based, as user_version after it), in its transaction,
 * for changes SQL cannot make alone: they know the data dir.
 */
export const MIGRATION_STEPS: Readonly<Record<number, (db: Database.Database, dataDir: string) => void>> = {
  8: clipPathsToKeys,
};

/**
 * v8: absolute clip paths to keys. A path under the data dir becomes its relative path (the file stays where
 * it is). A path elsewhere (a data dir moved or copied, its database pointing at the old place) becomes
 * the key its clip has in this data dir, jobs/<requestId>/clips/<its file name>: when the file is not there
 * but still at the old path, it is imported (hard-linked, else copied) with its cover, so the clip keeps
 * working; when it is nowhere, the key is kept all the same and the clip is missing as it was before.
 */
function clipPathsToKeys(db: Database.Database, dataDir: string): void {
  const root = path.resolve(dataDir);
  const rows = db.prepare('SELECT id, request_id AS requestId, file_key AS file FROM shorts WHERE file_key IS NOT NULL').all() as { id: string; requestId: string; file: string }[];
  const update = db.prepare('UPDATE shorts SET file_key = ?, cover_key = ? WHERE id = ?');
  for (const row of rows) {
    const old = path.resolve(root, row.file);
    const inside = path.relative(root, old).split(path.sep).join('/');
    const key = asKey(inside) ?? asKey(`jobs/${row.requestId}/clips/${path.basename(old)}`) ?? `jobs/${row.requestId}/clips/${row.id}.mp4`;
    if (key !== inside) importFile(old, path.join(root, key));
    const cover = coverKeyOf(key);
    if (key !== inside) importFile(coverKeyOf(old), path.join(root, cover));
    update.run(key, isFile(path.join(root, cover)) ? cover : null, row.id);
  }
}

function asKey(candidate: string): string | null {
  try {
    checkBlobKey(candidate);
    return candidate;
  } catch {
    return null;
  }
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}

function importFile(from: string, to: string): void {
  if (isFile(to) || !isFile(from)) return;
  mkdirSync(path.dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}
