// Schema migrations, applied in order; PRAGMA user_version records how far a database has come.
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
];
