// The request store port over SQLite (better-sqlite3). Every state change is one short transaction, so a
// crash leaves either the old or the new state, never a half-written one. better-sqlite3 is synchronous:
// each method does its work before it returns its (settled) promise.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { MIGRATIONS, MIGRATION_STEPS } from './migrations.js';
import type { Lease } from '../../ports/leases.js';
import { fenced, NOW_MS } from './lease-store.js';
import type { HeatmapPoint } from '../../domain/source.js';
import type { ResolvedLayout } from '../../domain/layout.js';
import type { TimeAdjustment } from '../../domain/time.js';
import type { ClipEdit, RequestStatus, SentenceRecord, Step, CreateRequest } from '../../domain/request.js';
import type { CreatedIn, ListQuery, NewRequest, RequestRecord, RequestStore, RerenderResult, ShortRecord } from '../../ports/request-store.js';

/** How long a statement waits for another process's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 15_000;

export interface RequestRow {
  id: string; account_id: string; origin: 'api' | 'local'; created_in: CreatedIn; user_email: string; is_demo: number; status: RequestStatus;
  step: Step; progress: number; options: string; url: string; title: string; start: number; end: number;
  time_adjustment: string | null; heatmap: string; sentences: string; failure_reason: string | null;
  warnings: string; detected_language: string | null; created_at: string; updated_at: string; started_at: string | null; finished_at: string | null;
}
export interface ShortRow {
  id: string; request_id: string; rank: number; title: string; sentence_indexes: string; reason: string; description: string;
  viral_score: number; start_ts: number; end_ts: number; duration: number; width: number; height: number;
  recompiling: number; error: number; error_message: string | null; file_key: string | null; cover_key: string | null; layout: ResolvedLayout | null;
  edit: string | null; pending_edit: string | null; edit_error: string | null;
}

const now = () => new Date().toISOString();

/** Also read by the automation adapter, which applies rules to a request inside its own transaction. */
export function requestOfRow(r: RequestRow): RequestRecord {
  return {
    id: r.id, accountId: r.account_id, origin: r.origin, createdIn: r.created_in, userEmail: r.user_email, isDemo: r.is_demo === 1,
    status: r.status, step: r.step, progress: r.progress, options: JSON.parse(r.options) as CreateRequest,
    url: r.url, title: r.title, start: r.start, end: r.end,
    timeAdjustment: r.time_adjustment ? (JSON.parse(r.time_adjustment) as TimeAdjustment) : null,
    heatmap: JSON.parse(r.heatmap) as HeatmapPoint[], sentences: JSON.parse(r.sentences) as SentenceRecord[],
    failureReason: r.failure_reason, warnings: JSON.parse(r.warnings) as string[], detectedLanguage: r.detected_language,
    createdAt: r.created_at, updatedAt: r.updated_at,
    startedAt: r.started_at, finishedAt: r.finished_at,
  };
}

export function shortOfRow(r: ShortRow): ShortRecord {
  return {
    id: r.id, requestId: r.request_id, rank: r.rank, title: r.title,
    sentenceIndexes: JSON.parse(r.sentence_indexes) as number[], reason: r.reason, description: r.description,
    viralScore: r.viral_score, startTimestamp: r.start_ts, endTimestamp: r.end_ts, duration: r.duration,
    width: r.width, height: r.height, recompiling: r.recompiling === 1, error: r.error === 1,
    errorMessage: r.error_message, fileKey: r.file_key, coverKey: r.cover_key, layout: r.layout,
    edit: r.edit ? (JSON.parse(r.edit) as ClipEdit) : null,
    pendingEdit: r.pending_edit ? (JSON.parse(r.pending_edit) as ClipEdit) : null,
    editError: r.edit_error,
  };
}

export class SqliteRequestStore implements RequestStore {
  readonly db: Database.Database;
  /** The data directory the store lives in: its `jobs/<id>/` folders hold each request's artifacts. */
  readonly dataDir: string;

  constructor(file: string) {
    this.dataDir = path.dirname(path.resolve(file));
    mkdirSync(path.dirname(file), { recursive: true });
    // The busy timeout is set by the constructor, before the first statement: any number of `shorts`
    // processes may open one data dir at once (issue 15), and a writer waits for another's short transaction
    // instead of failing with SQLITE_BUSY. 15 s covers a loaded 2-core CI machine.
    this.db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    // WAL lets `shorts status` read while a worker writes.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.migrate();
  }

  /**
   * Brings the schema up to date. Each step runs under BEGIN IMMEDIATE (the write lock taken first) and
   * reads user_version again inside it: two processes opening a fresh data dir at once would otherwise both
   * see version 0 and the second fail with "table requests already exists" (issue 15).
   */
  private migrate(): void {
    const current = () => this.db.pragma('user_version', { simple: true }) as number;
    if (current() >= MIGRATIONS.length) return;
    for (let v = 0; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        if (current() !== v) return; // already applied, by us or by another process while we waited
        this.db.exec(MIGRATIONS[v]!);
        MIGRATION_STEPS[v + 1]?.(this.db, this.dataDir);
        this.db.pragma(`user_version = ${v + 1}`);
      }).immediate();
    }
  }

  async ping(): Promise<string> {
    this.db.prepare('SELECT 1').get();
    return 'sqlite ok';
  }

  close(): Promise<void> {
    this.db.close(); // before the promise, as with insertRequest: callers that cannot await (process exit) may rely on it
    return Promise.resolve();
  }

  insertRequest(n: NewRequest): Promise<RequestRecord> {
    const t = now();
    this.db.prepare(`INSERT INTO requests (id, account_id, origin, created_in, user_email, status, step, progress, options, url, start, "end", created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, 'queued', 'queued', 0, ?, ?, ?, ?, ?, ?)`)
      .run(n.id, n.accountId, n.origin, n.createdIn ?? 'api', n.userEmail, JSON.stringify(n.options), n.url, n.start, n.end, t, t);
    // Not `async`: a failed INSERT throws here, inside the caller's transaction (chargeAndCreate rolls back).
    return Promise.resolve(this.requestRow(n.id)!);
  }

  private requestRow(id: string): RequestRecord | undefined {
    const row = this.db.prepare('SELECT * FROM requests WHERE id = ?').get(id) as RequestRow | undefined;
    return row ? requestOfRow(row) : undefined;
  }

  async getRequest(id: string): Promise<RequestRecord | undefined> {
    return this.requestRow(id);
  }

  /** Just the status (cheap: the local client polls it every half second for a foreground job). */
  async requestStatus(id: string): Promise<RequestStatus | undefined> {
    return (this.db.prepare('SELECT status FROM requests WHERE id = ?').get(id) as { status: RequestStatus } | undefined)?.status;
  }

  async listRequests(q: ListQuery): Promise<{ items: RequestRecord[]; total: number }> {
    const where = ['account_id = @accountId'];
    if (q.origin) where.push('origin = @origin');
    if (q.createdIn) where.push('created_in = @createdIn');
    if (q.status) where.push('status = @status');
    const clause = where.join(' AND ');
    const params = { accountId: q.accountId, origin: q.origin, createdIn: q.createdIn, status: q.status };
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM requests WHERE ${clause}`).get(params) as { n: number }).n;
    const column = q.sortBy === 'updatedAt' ? 'updated_at' : 'created_at';
    const order = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
    const rows = this.db.prepare(`SELECT * FROM requests WHERE ${clause} ORDER BY ${column} ${order}, rowid ${order} LIMIT @limit OFFSET @offset`)
      .all({ ...params, limit: q.limit, offset: (q.page - 1) * q.limit }) as RequestRow[];
    return { items: rows.map(requestOfRow), total };
  }

  /**
   * Moves a live request to a step; progress never goes backwards. Returns false if it is no longer live;
   * throws LeaseLost when `lease` (the runner's) was taken over.
   */
  async advance(id: string, step: Step, progress: number, lease?: Lease): Promise<boolean> {
    const r = fenced(this.db, lease, () => this.db.prepare(`UPDATE requests SET step = ?, progress = MAX(progress, ?), updated_at = ?,
        status = 'processing', started_at = COALESCE(started_at, ?)
      WHERE id = ? AND status IN ('queued', 'processing')`).run(step, progress, now(), now(), id));
    return r.changes === 1;
  }

  /** Finer progress inside the current step (never backwards). */
  async setProgress(id: string, progress: number): Promise<void> {
    this.db.prepare(`UPDATE requests SET progress = MAX(progress, ?), updated_at = ? WHERE id = ? AND status = 'processing'`)
      .run(Math.min(99, progress), now(), id);
  }

  async saveSourceFacts(id: string, facts: { title: string; heatmap: HeatmapPoint[]; start: number; end: number; timeAdjustment: TimeAdjustment | null }): Promise<void> {
    this.db.prepare(`UPDATE requests SET title = ?, heatmap = ?, start = ?, "end" = ?, time_adjustment = ?, updated_at = ? WHERE id = ?`)
      .run(facts.title, JSON.stringify(facts.heatmap), facts.start, facts.end,
        facts.timeAdjustment ? JSON.stringify(facts.timeAdjustment) : null, now(), id);
  }

  async saveSentences(id: string, sentences: SentenceRecord[]): Promise<void> {
    this.db.prepare('UPDATE requests SET sentences = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(sentences), now(), id);
  }

  /** Adds a warning once (a resumed job that earns it again does not repeat it). */
  async addWarning(id: string, warning: string): Promise<void> {
    this.db.transaction(() => {
      const row = this.db.prepare('SELECT warnings FROM requests WHERE id = ?').get(id) as { warnings: string } | undefined;
      if (!row) return;
      const list = JSON.parse(row.warnings) as string[];
      if (list.includes(warning)) return;
      this.db.prepare('UPDATE requests SET warnings = ?, updated_at = ? WHERE id = ?').run(JSON.stringify([...list, warning]), now(), id);
    })();
  }

  async saveDetectedLanguage(id: string, language: string): Promise<void> {
    this.db.prepare('UPDATE requests SET detected_language = ?, updated_at = ? WHERE id = ?').run(language, now(), id);
  }

  /** The request's clips, all at once; with `lease`, only while it is still held (else LeaseLost, nothing written). */
  async replaceShorts(requestId: string, shorts: ShortRecord[], lease?: Lease): Promise<void> {
    fenced(this.db, lease, () => {
      this.db.prepare('DELETE FROM shorts WHERE request_id = ?').run(requestId);
      const ins = this.db.prepare(`INSERT INTO shorts (id, request_id, rank, title, sentence_indexes, reason, description, viral_score,
          start_ts, end_ts, duration, width, height, recompiling, error, error_message, file_key, cover_key, layout)
        VALUES (@id, @requestId, @rank, @title, @sentenceIndexes, @reason, @description, @viralScore, @startTimestamp,
          @endTimestamp, @duration, @width, @height, @recompiling, @error, @errorMessage, @fileKey, @coverKey, @layout)`);
      for (const s of shorts) {
        ins.run({ ...s, sentenceIndexes: JSON.stringify(s.sentenceIndexes), recompiling: s.recompiling ? 1 : 0, error: s.error ? 1 : 0, coverKey: s.coverKey ?? null, layout: s.layout ?? null });
      }
    });
  }

  async listShorts(requestId: string): Promise<ShortRecord[]> {
    return (this.db.prepare('SELECT * FROM shorts WHERE request_id = ? ORDER BY rank').all(requestId) as ShortRow[]).map(shortOfRow);
  }

  async getShort(requestId: string, shortId: string): Promise<ShortRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM shorts WHERE id = ? AND request_id = ?').get(shortId, requestId) as ShortRow | undefined;
    return row && shortOfRow(row);
  }

  async findShort(shortId: string): Promise<ShortRecord | undefined> {
    const row = this.db.prepare('SELECT * FROM shorts WHERE id = ?').get(shortId) as ShortRow | undefined;
    return row && shortOfRow(row);
  }

  /**
   * Marks a clip as re-rendering with the change to make (issue 14), in one transaction: only a clip of a
   * completed request, and only one re-render of a clip at a time (two callers racing: one wins). Who renders
   * it is the holder of its `rerender` lease (a worker, or the local `shorts edit` that asked).
   */
  async startRerender(requestId: string, shortId: string, edit: ClipEdit): Promise<'started' | 'busy' | 'not_completed'> {
    return this.db.transaction(() => {
      const r = this.db.prepare('SELECT status FROM requests WHERE id = ?').get(requestId) as { status: RequestStatus } | undefined;
      if (r?.status !== 'completed') return 'not_completed' as const;
      const u = this.db.prepare(`UPDATE shorts SET recompiling = 1, pending_edit = ?, rerender_attempts = 0, edit_error = NULL
        WHERE id = ? AND request_id = ? AND recompiling = 0`).run(JSON.stringify(edit), shortId, requestId);
      return u.changes === 1 ? 'started' as const : 'busy' as const;
    })();
  }

  /**
   * Starts a pending re-render under its lease (taken by the caller first: of two servers exactly one gets
   * it); returns how many times one has been started (this one included), or null when it is not pending any
   * more. LeaseLost when the lease was taken over meanwhile.
   */
  async claimRerender(shortId: string, lease: Lease): Promise<number | null> {
    const row = fenced(this.db, lease, () => this.db.prepare(`UPDATE shorts SET rerender_attempts = rerender_attempts + 1
      WHERE id = @shortId AND recompiling = 1 RETURNING rerender_attempts AS n`).get({ shortId }) as { n: number } | undefined);
    return row?.n ?? null;
  }

  /**
   * The new clip is in place: its facts change and `recompiling` goes false in the same transaction (with
   * `lease`, only while it is still held: else LeaseLost and nothing changes).
   */
  async finishRerender(shortId: string, r: RerenderResult, lease?: Lease): Promise<void> {
    fenced(this.db, lease, () => {
      const row = this.db.prepare(`UPDATE shorts SET title = @title, reason = @reason, sentence_indexes = @sentenceIndexes, start_ts = @startTimestamp,
          end_ts = @endTimestamp, duration = @duration, layout = @layout, edit = @edit, file_key = @fileKey, cover_key = @coverKey, error = 0, error_message = NULL,
          recompiling = 0, pending_edit = NULL
        WHERE id = @id RETURNING request_id`).get({
        ...r, id: shortId, sentenceIndexes: JSON.stringify(r.sentenceIndexes), edit: JSON.stringify(r.edit), layout: r.layout ?? null,
      }) as { request_id: string } | undefined;
      if (row) this.db.prepare('UPDATE requests SET updated_at = ? WHERE id = ?').run(now(), row.request_id);
    });
  }

  /** A re-render that failed or was given up: the clip stays as it was (its previous MP4 was never replaced). */
  async abandonRerender(shortId: string, why: string, lease?: Lease): Promise<void> {
    fenced(this.db, lease, () => this.db.prepare('UPDATE shorts SET recompiling = 0, pending_edit = NULL, edit_error = ? WHERE id = ?').run(why, shortId));
  }

  /**
   * Clips marked re-rendering, with their request's origin and whether a live lease holds the re-render
   * (the local client settles the unleased ones of local requests, whose `shorts edit` was killed).
   */
  async listRerendering(): Promise<(ShortRecord & { origin: 'api' | 'local'; leased: boolean })[]> {
    const rows = this.db.prepare(`SELECT s.*, r.origin AS origin, EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'rerender' AND l.id = s.id
        AND l.expires_at > ${NOW_MS}) AS leased FROM shorts s JOIN requests r ON r.id = s.request_id
      WHERE s.recompiling = 1 ORDER BY r.updated_at, s.rank`).all() as (ShortRow & { origin: 'api' | 'local'; leased: number })[];
    return rows.map((row) => ({ ...shortOfRow(row), origin: row.origin, leased: row.leased === 1 }));
  }

  /**
   * Terminal transitions happen only from a live state, so a late worker cannot overwrite a cancel. With
   * `lease` (the runner's), only while it is still held: a stale runner's write throws LeaseLost.
   */
  async finish(id: string, status: 'completed' | 'failed' | 'cancelled', failureReason: string | null = null, lease?: Lease): Promise<boolean> {
    const progress = status === 'completed' ? 100 : null;
    const r = fenced(this.db, lease, () => this.db.prepare(`UPDATE requests SET status = ?, step = ?, progress = COALESCE(?, progress), failure_reason = ?,
        updated_at = ?, finished_at = ? WHERE id = ? AND status IN ('queued', 'processing')`)
      .run(status, status, progress, status === 'failed' ? failureReason : null, now(), now(), id));
    return r.changes === 1;
  }

  /**
   * A worker starts (or resumes) a live request under its lease: processing, one more start counted. Undefined
   * when it is not live any more; LeaseLost when the lease was lost.
   */
  async startRun(id: string, lease: Lease): Promise<RequestRecord | undefined> {
    const row = fenced(this.db, lease, () => this.db.prepare(`UPDATE requests SET status = 'processing', attempts = attempts + 1, updated_at = @now
      WHERE id = @id AND status IN ('queued', 'processing') RETURNING *`).get({ id, now: now() }) as RequestRow | undefined);
    return row && requestOfRow(row);
  }

  /** Requests of an origin left `processing` with no live lease: their runner was killed or stopped (orphan scans). */
  async listOrphaned(origin: 'api' | 'local'): Promise<string[]> {
    return (this.db.prepare(`SELECT id FROM requests r WHERE status = 'processing' AND origin = ? AND NOT EXISTS (SELECT 1 FROM leases l
        WHERE l.kind = 'request' AND l.id = r.id AND l.expires_at > ${NOW_MS}) ORDER BY created_at, rowid`).all(origin) as { id: string }[]).map((r) => r.id);
  }

  /** Seconds of processing per second of requested range over recent completed API jobs (null: none yet). */
  async measuredSecondsPerSourceSecond(sample = 20): Promise<number | null> {
    const row = this.db.prepare(`SELECT AVG((julianday(finished_at) - julianday(started_at)) * 86400.0 / ("end" - start)) AS rate
      FROM (SELECT * FROM requests WHERE status = 'completed' AND origin = 'api' AND started_at IS NOT NULL
            ORDER BY finished_at DESC LIMIT ?)`).get(sample) as { rate: number | null };
    return row.rate;
  }

  /** Requests that were live when the process stopped (restart recovery). */
  async listLive(): Promise<RequestRecord[]> {
    return (this.db.prepare(`SELECT * FROM requests WHERE status IN ('queued', 'processing') ORDER BY created_at, rowid`).all() as RequestRow[]).map(requestOfRow);
  }
}
