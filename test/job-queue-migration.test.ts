// Migration v11 (issue 22): an upgraded data dir keeps its live work. The API requests queued or processing and
// the clips of API requests being re-rendered when the previous version stopped become jobs of the queue the
// workers now take work from (a processing one counts the starts it already had); local work stays with the
// `shorts` process that runs it.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { SqliteJobQueue } from '../src/adapters/sqlite/job-queue.js';
import { MIGRATIONS } from '../src/adapters/sqlite/migrations.js';
import { REQUEST_QUEUE, RERENDER_QUEUE } from '../src/engine/jobs.js';

/** The version before the queue's migration (found by its table, so the test holds wherever merges put it). */
const VERSION_BEFORE_QUEUE = MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE jobs'));

describe('migration v11: live work becomes jobs', () => {
  it('enqueues queued and processing API requests and re-renders of API clips, in order, and nothing local or finished', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'queue-migration-')), 'shorts.db');
    const old = new Database(file);
    for (const m of MIGRATIONS.slice(0, VERSION_BEFORE_QUEUE)) old.exec(m);
    old.pragma(`user_version = ${VERSION_BEFORE_QUEUE}`);
    const request = (id: string, origin: string, status: string, createdAt: string, attempts = 0) => old.prepare(`INSERT INTO requests (id, account_id, origin,
      user_email, status, step, options, url, start, "end", created_at, updated_at, attempts) VALUES (?, 'acc', ?, 'a@b.c', ?, ?, '{}', 'u', 0, 60, ?, ?, ?)`)
      .run(id, origin, status, status, createdAt, createdAt, attempts);
    const clip = (id: string, requestId: string, rank: number, recompiling: number, attempts = 0) => old.prepare(`INSERT INTO shorts (id, request_id, rank, title,
      sentence_indexes, reason, description, viral_score, start_ts, end_ts, duration, width, height, recompiling, rerender_attempts)
      VALUES (?, ?, ?, 't', '[0]', 'r', 'd', 50, 0, 10, 10, 1080, 1920, ?, ?)`).run(id, requestId, rank, recompiling, attempts);
    request('processing-api', 'api', 'processing', '2026-01-01T00:00:01Z', 2);
    request('queued-api', 'api', 'queued', '2026-01-01T00:00:02Z');
    request('queued-local', 'local', 'queued', '2026-01-01T00:00:00Z');
    request('processing-local', 'local', 'processing', '2026-01-01T00:00:00Z', 1);
    request('done-api', 'api', 'completed', '2026-01-01T00:00:00Z', 1);
    request('done-local', 'local', 'completed', '2026-01-01T00:00:00Z', 1);
    clip('fresh-edit', 'done-api', 0, 1);
    clip('killed-edit', 'done-api', 1, 1, 1);
    clip('untouched', 'done-api', 2, 0);
    clip('local-edit', 'done-local', 0, 1);
    old.close();

    const store = new SqliteRequestStore(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const queue = new SqliteJobQueue(store.db);
    const takeAll = async (name: string) => {
      const out: [string, number, unknown][] = [];
      for (let job = await queue.take([name], 'w', 60_000); job; job = await queue.take([name], 'w', 60_000)) out.push([job.id, job.attempt, job.data]);
      return out;
    };
    expect(await takeAll(REQUEST_QUEUE)).toEqual([
      ['processing-api', 3, { requestId: 'processing-api' }],
      ['queued-api', 1, { requestId: 'queued-api' }],
    ]);
    expect(await takeAll(RERENDER_QUEUE)).toEqual([
      ['fresh-edit', 1, { requestId: 'done-api', shortId: 'fresh-edit' }],
      ['killed-edit', 2, { requestId: 'done-api', shortId: 'killed-edit' }],
    ]);
    store.close();
  });
});
