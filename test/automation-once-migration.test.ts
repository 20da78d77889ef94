// Migration v12 (issue 23): automation posts a clip to a connected account at most once, as a rule of the store.
// A data dir from before the rule may hold a second scheduled automation post of a clip (the old
// check-then-insert race between two processes): on upgrade the later one is canceled, saying why, and the
// earlier one goes out; manual posts and other clips are untouched.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { MIGRATIONS } from '../src/adapters/sqlite/migrations.js';

const VERSION_BEFORE_RULE = MIGRATIONS.findIndex((m) => m.includes('posts_automation_once'));

describe('migration v12: one live automation post per clip and connected account', () => {
  it('cancels the later duplicate of an upgraded data dir and then refuses a new one', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'automation-once-')), 'shorts.db');
    const old = new Database(file);
    for (const m of MIGRATIONS.slice(0, VERSION_BEFORE_RULE)) old.exec(m);
    old.pragma(`user_version = ${VERSION_BEFORE_RULE}`);
    const post = (id: string, shortId: string, source: string, status: string, createdAt: string) => old.prepare(`INSERT INTO posts (id, account_id,
      connected_account_id, platform, status, scheduled_at, short_id, request_id, title, account_handle, source, created_at)
      VALUES (?, 'acc', 'ca_1', 'video_site', ?, '2030-01-01T09:00:00.000Z', ?, 'req', 't', 'chan', ?, ?)`).run(id, status, shortId, source, createdAt);
    post('first', 'clip', 'automation', 'scheduled', '2026-01-01T00:00:01Z');
    post('second', 'clip', 'automation', 'scheduled', '2026-01-01T00:00:02Z');
    post('by-hand', 'clip', 'manual', 'scheduled', '2026-01-01T00:00:03Z');
    post('other-clip', 'other', 'automation', 'scheduled', '2026-01-01T00:00:04Z');
    old.close();

    const store = new SqliteRequestStore(file);
    const rows = store.db.prepare('SELECT id, status, error FROM posts ORDER BY created_at').all() as { id: string; status: string; error: string | null }[];
    expect(rows).toEqual([
      { id: 'first', status: 'scheduled', error: null },
      { id: 'second', status: 'canceled', error: 'a second automation post of the same clip to the same account (canceled on upgrade)' },
      { id: 'by-hand', status: 'scheduled', error: null },
      { id: 'other-clip', status: 'scheduled', error: null },
    ]);
    expect(() => store.db.prepare(`INSERT INTO posts (id, account_id, connected_account_id, platform, status, scheduled_at, short_id, request_id,
      title, account_handle, source, created_at) VALUES ('third', 'acc', 'ca_1', 'video_site', 'scheduled', '2030-01-02T09:00:00.000Z', 'clip', 'req',
      't', 'chan', 'automation', '2026-01-02T00:00:00Z')`).run()).toThrow(/UNIQUE/);
    void store.close();
  });
});
