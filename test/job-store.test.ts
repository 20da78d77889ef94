import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteLeaseStore } from '../src/adapters/sqlite/lease-store.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { type ShortRecord } from '../src/ports/request-store.js';
import { MIGRATIONS } from '../src/adapters/sqlite/migrations.js';
import { validateCreateRequest } from '../src/service/create-request.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';

const options = validateCreateRequest({ fileUrl: 'https://cdn.example.com/a.mp4', start: 0, end: 120 }, {
  allowLocalFile: false, templateExists: () => true, defaultTemplateId: DEFAULT_TEMPLATE.templateId, supportedFeatures: new Set(),
});

function store(): { s: SqliteRequestStore; file: string } {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'store-')), 'shorts.db');
  return { s: new SqliteRequestStore(file), file };
}

function insert(s: SqliteRequestStore, id: string, origin: 'api' | 'local' = 'api') {
  return s.insertRequest({ id, accountId: 'acc', origin, userEmail: 'a@example.com', options, url: 'https://cdn.example.com/a.mp4', start: 0, end: 120 });
}

describe('JobStore (real SQLite file)', async () => {
  it('stores a request queued at progress 0 and reads it back after reopening', async () => {
    const { s, file } = store();
    await insert(s, 'a'.repeat(24));
    await s.close();
    const again = new SqliteRequestStore(file);
    expect(await again.getRequest('a'.repeat(24))).toMatchObject({ status: 'queued', step: 'queued', progress: 0, options });
  });

  it('moves through steps without ever moving progress backwards', async () => {
    const { s } = store();
    const id = 'b'.repeat(24);
    await insert(s, id);
    expect(await s.advance(id, 'fetching_video', 20)).toBe(true);
    await s.setProgress(id, 35);
    expect(await s.getRequest(id)).toMatchObject({ status: 'processing', step: 'fetching_video', progress: 35 });
    await s.advance(id, 'transcribing_audio', 40);
    await s.setProgress(id, 30);
    expect((await s.getRequest(id))!.progress).toBe(40);
  });

  it('lets only one terminal transition win, so a late worker cannot overwrite a cancel', async () => {
    const { s } = store();
    const id = 'c'.repeat(24);
    await insert(s, id);
    await s.advance(id, 'fetching_video', 20);
    expect(await s.finish(id, 'cancelled')).toBe(true);
    expect(await s.finish(id, 'completed')).toBe(false);
    expect(await s.advance(id, 'finalizing', 80)).toBe(false);
    expect(await s.getRequest(id)).toMatchObject({ status: 'cancelled', step: 'cancelled', failureReason: null });
  });

  it('keeps failureReason only on failed requests', async () => {
    const { s } = store();
    const id = 'd'.repeat(24);
    await insert(s, id);
    await s.finish(id, 'failed', 'video download failed');
    expect(await s.getRequest(id)).toMatchObject({ status: 'failed', failureReason: 'video download failed' });
  });

  it('lists per account and origin with status filter, sort and pagination', async () => {
    const { s } = store();
    for (let i = 0; i < 5; i++) await insert(s, String(i).repeat(24), i === 4 ? 'local' : 'api');
    await s.finish('0'.repeat(24), 'failed', 'x');
    const page1 = await s.listRequests({ accountId: 'acc', origin: 'api', sortBy: 'createdAt', sortOrder: 'desc', page: 1, limit: 2 });
    expect(page1.total).toBe(4);
    expect(page1.items.map((r) => r.id[0])).toEqual(['3', '2']);
    const asc = await s.listRequests({ accountId: 'acc', origin: 'api', sortBy: 'createdAt', sortOrder: 'asc', page: 2, limit: 2 });
    expect(asc.items.map((r) => r.id[0])).toEqual(['2', '3']);
    const failed = await s.listRequests({ accountId: 'acc', origin: 'api', status: 'failed', sortBy: 'createdAt', sortOrder: 'desc', page: 1, limit: 20 });
    expect(failed.items.map((r) => r.id[0])).toEqual(['0']);
  });

  it('replaces the shorts of a request in rank order', async () => {
    const { s } = store();
    const id = 'e'.repeat(24);
    await insert(s, id);
    const short = (rank: number) => ({
      id: `00000000-0000-4000-8000-00000000000${rank}`, requestId: id, rank, title: `t${rank}`, sentenceIndexes: [rank], reason: 'r',
      description: 'd #x', viralScore: 70 - rank, startTimestamp: rank, endTimestamp: rank + 30, duration: 30, width: 1080, height: 1920,
      recompiling: false, error: rank === 1, errorMessage: rank === 1 ? 'encoder failed' : null, fileKey: rank === 1 ? null : 'x.mp4',
    });
    await s.replaceShorts(id, [short(1), short(0)]);
    expect((await s.listShorts(id)).map((x) => [x.rank, x.error, x.errorMessage])).toEqual([[0, false, null], [1, true, 'encoder failed']]);
  });

  it('keeps the layout each clip got, and migrates clips stored before it to null', async () => {
    // A database as the previous version left it (schema v4), holding one finished clip.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'store-')), 'shorts.db');
    const old = new Database(file);
    for (const m of MIGRATIONS.slice(0, 4)) old.exec(m);
    old.pragma('user_version = 4');
    const id = 'f'.repeat(24);
    old.prepare(`INSERT INTO requests (id, account_id, origin, user_email, status, step, options, url, start, "end", created_at, updated_at)
      VALUES (?, 'acc', 'api', 'a@example.com', 'completed', 'completed', ?, 'https://cdn.example.com/a.mp4', 0, 120, 't', 't')`).run(id, JSON.stringify(options));
    old.prepare(`INSERT INTO shorts (id, request_id, rank, title, sentence_indexes, reason, description, viral_score, start_ts, end_ts, duration, width, height)
      VALUES ('old', ?, 0, 'old clip', '[0]', 'r', 'd', 50, 0, 30, 30, 1080, 1920)`).run(id);
    old.close();

    const s = new SqliteRequestStore(file);
    expect(s.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect((await s.listShorts(id)).map((x) => [x.id, x.layout])).toEqual([['old', null]]);

    const base: Omit<ShortRecord, 'id' | 'rank'> = {
      requestId: id, title: 't', sentenceIndexes: [0], reason: 'r', description: 'd', viralScore: 60, startTimestamp: 0, endTimestamp: 30,
      duration: 30, width: 1080, height: 1920, recompiling: false, error: false, errorMessage: null, fileKey: 'x.mp4',
    };
    await s.replaceShorts(id, [
      { ...base, id: 'a', rank: 0, layout: 'split' },
      { ...base, id: 'b', rank: 1, layout: 'screen' },
      { ...base, id: 'c', rank: 2, layout: 'fit' },
      // A record built without the field (an engine that does not know it yet) stores null, not a guess.
      { ...base, id: 'd', rank: 3 },
    ]);
    await s.close();
    const again = new SqliteRequestStore(file);
    expect((await again.listShorts(id)).map((x) => [x.id, x.layout])).toEqual([['a', 'split'], ['b', 'screen'], ['c', 'fit'], ['d', null]]);
    await again.close();
  });

  it('re-renders one clip at a time, only on a completed request, and keeps what a restart needs (issue 14)', async () => {
    const { s, file } = store();
    const id = 'e'.repeat(24);
    await insert(s, id);
    const clip: ShortRecord = {
      id: 'c1', requestId: id, rank: 0, title: 'T', sentenceIndexes: [0, 1], reason: 'r', description: 'd', viralScore: 50,
      startTimestamp: 10, endTimestamp: 40, duration: 30, width: 1080, height: 1920, recompiling: false, error: false, errorMessage: null, fileKey: 'x/01-c1.mp4',
    };
    await s.replaceShorts(id, [clip]);
    expect(await s.startRerender(id, 'c1', { end: 35 })).toBe('not_completed');
    await s.advance(id, 'finalizing', 80);
    await s.finish(id, 'completed');
    expect(await s.startRerender(id, 'nope', { end: 35 })).toBe('busy'); // no such clip: nothing marked
    expect(await s.startRerender(id, 'c1', { end: 35, captionEdits: { words: [{ word: 1, text: 'Hi' }], subtitles: null } })).toBe('started');
    expect(await s.startRerender(id, 'c1', { end: 20 })).toBe('busy');
    // What a restarted server needs: the clip still recompiling, with its pending change and no runner.
    await s.close();
    const again = new SqliteRequestStore(file);
    expect(await again.listRerendering()).toMatchObject([{ id: 'c1', origin: 'api', recompiling: true, pendingEdit: { end: 35 }, leased: false }]);
    const leases = new SqliteLeaseStore(again.db);
    expect(await again.claimRerender('c1', (await leases.acquire({ kind: 'rerender', id: 'c1' }, 'runner-a', 60_000))!)).toBe(1);
    expect(await again.claimRerender('c1', (await leases.acquire({ kind: 'rerender', id: 'c1' }, 'runner-a', 60_000))!)).toBe(2);
    await again.abandonRerender('c1', 'the source could not be downloaded');
    expect(await again.getShort(id, 'c1')).toMatchObject({ recompiling: false, pendingEdit: null, editError: 'the source could not be downloaded', endTimestamp: 40, duration: 30 });
    expect(await again.startRerender(id, 'c1', { start: 12 })).toBe('started');
    expect(await again.getShort(id, 'c1')).toMatchObject({ recompiling: true, editError: null });
    await again.finishRerender('c1', { title: 'New', reason: 'r2', sentenceIndexes: [1], startTimestamp: 12, endTimestamp: 40, duration: 28, layout: 'fit', fileKey: 'x/01-c1.mp4', coverKey: null, edit: { start: 12 } });
    expect(await again.getShort(id, 'c1')).toMatchObject({
      recompiling: false, pendingEdit: null, editError: null, title: 'New', sentenceIndexes: [1], startTimestamp: 12, duration: 28, layout: 'fit', edit: { start: 12 },
    });
    expect(await again.listRerendering()).toEqual([]);
  });
});
