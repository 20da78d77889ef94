// Migration v8 (issue 22): a database whose clips are absolute paths, as every version before left it, is
// opened by this one: clips under the data dir become keys where they are; clips elsewhere (a data dir
// moved or copied) are brought into it and keep working; the links the user gets are to the same bytes.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { MIGRATIONS } from '../src/adapters/sqlite/migrations.js';
import { Service } from '../src/service/service.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

const RID = 'a'.repeat(24);
const VERSION_BEFORE_KEYS = 7;

function writeFile(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe('migration v8: clip paths become blob keys', () => {
  it('converts paths under the data dir, imports clips from elsewhere, and links the same bytes', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'keys-data-'));
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'keys-old-'));
    const file = path.join(dataDir, 'shorts.db');
    const old = new Database(file);
    for (const m of MIGRATIONS.slice(0, VERSION_BEFORE_KEYS)) old.exec(m);
    old.pragma(`user_version = ${VERSION_BEFORE_KEYS}`);
    old.prepare(`INSERT INTO requests (id, account_id, origin, user_email, status, step, options, url, start, "end", created_at, updated_at)
      VALUES (?, 'local', 'local', 'me@localhost', 'completed', 'completed', '{}', '/talk.mp4', 0, 60, 't', 't')`).run(RID);
    const clip = (id: string, rank: number, filePath: string | null) => old.prepare(`INSERT INTO shorts (id, request_id, rank, title, sentence_indexes, reason,
      description, viral_score, start_ts, end_ts, duration, width, height, error, file_path) VALUES (?, ?, ?, 't', '[0]', 'r', 'd', 50, 0, 10, 10, 1080, 1920, ?, ?)`)
      .run(id, RID, rank, filePath === null ? 1 : 0, filePath);
    const inside = writeFile(path.join(dataDir, 'jobs', RID, 'clips', '01-in.mp4'), 'clip in');
    writeFile(path.join(dataDir, 'jobs', RID, 'clips', '01-in.jpg'), 'cover in');
    const noCover = writeFile(path.join(dataDir, 'jobs', RID, 'clips', '02-bare.mp4'), 'clip bare');
    const moved = writeFile(path.join(elsewhere, 'jobs', RID, 'clips', '03-out.mp4'), 'clip out');
    writeFile(path.join(elsewhere, 'jobs', RID, 'clips', '03-out.jpg'), 'cover out');
    clip('in', 0, inside);
    clip('bare', 1, noCover);
    clip('out', 2, moved);
    clip('gone', 3, path.join(elsewhere, 'nowhere', '04-gone.mp4'));
    clip('failed', 4, null);
    old.close();

    const store = new SqliteRequestStore(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    const keys = Object.fromEntries((await store.listShorts(RID)).map((s) => [s.id, [s.fileKey, s.coverKey ?? null]]));
    expect(keys).toEqual({
      in: [`jobs/${RID}/clips/01-in.mp4`, `jobs/${RID}/clips/01-in.jpg`],
      bare: [`jobs/${RID}/clips/02-bare.mp4`, null],
      out: [`jobs/${RID}/clips/03-out.mp4`, `jobs/${RID}/clips/03-out.jpg`],
      gone: [`jobs/${RID}/clips/04-gone.mp4`, null],
      failed: [null, null],
    });
    // The clip from elsewhere now lives in this data dir too (its old file is left alone).
    expect(readFileSync(path.join(dataDir, 'jobs', RID, 'clips', '03-out.mp4'), 'utf8')).toBe('clip out');
    expect(existsSync(moved)).toBe(true);

    // What a user sees: links to the same bytes as before, a cover link only where there is a cover.
    const detail = await new Service(store, { blobs: new FsBlobStore(store.dataDir) }).detail({ id: 'local', email: 'me@localhost' }, RID);
    const byId = Object.fromEntries(detail.shorts.map((s) => [s.id, s]));
    expect(readFileSync(fileURLToPath(byId.in!.video_url), 'utf8')).toBe('clip in');
    expect(readFileSync(fileURLToPath(byId.in!.thumbnail_url!), 'utf8')).toBe('cover in');
    expect(byId.bare!.thumbnail_url).toBeUndefined();
    expect(readFileSync(fileURLToPath(byId.out!.video_url), 'utf8')).toBe('clip out');
    expect(readFileSync(fileURLToPath(byId.out!.thumbnail_url!), 'utf8')).toBe('cover out');
    expect(byId.failed!.video_url).toBe('');
    store.close();
  });
});
