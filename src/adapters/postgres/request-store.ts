// The request store port over PostgreSQL. Every state change is one statement or one transaction, so a crash
// leaves the old or the new state. The data dir is this process's scratch space for job folders (its
// `jobs/<id>/` artifacts), not where state lives.
import path from 'node:path';
import type { Lease } from '../../ports/leases.js';
import type { HeatmapPoint } from '../../domain/source.js';
import type { ResolvedLayout } from '../../domain/layout.js';
import type { TimeAdjustment } from '../../domain/time.js';
import type { ClipEdit, CreateRequest, RequestStatus, SentenceRecord, Step } from '../../domain/request.js';
import type { CreatedIn, ListQuery, NewRequest, RequestRecord, RequestStore, RerenderResult, ShortRecord } from '../../ports/request-store.js';
import { NOW_MS, type PgDatabase } from './database.js';
import { fenced } from './lease-store.js';

interface RequestRow {
  id: string; account_id: string; origin: 'api' | 'local'; created_in: CreatedIn; user_email: string; is_demo: boolean; status: RequestStatus;
  step: Step; progress: number; options: CreateRequest; url: string; title: string; start: number; end: number;
  time_adjustment: TimeAdjustment | null; heatmap: HeatmapPoint[]; sentences: SentenceRecord[]; failure_reason: string | null;
  warnings: string[]; detected_language: string | null; created_at: string; updated_at: string; started_at: string | null; finished_at: string | null;
}
interface ShortRow {
  id: string; request_id: string; rank: number; title: string; sentence_indexes: number[]; reason: string; description: string;
  viral_score: number; start_ts: number; end_ts: number; duration: number; width: number; height: number;
  recompiling: boolean; error: boolean; error_message: string | null; file_key: string | null; cover_key: string | null; layout: ResolvedLayout | null;
  edit: ClipEdit | null; pending_edit: ClipEdit | null; edit_error: string | null;
}

const now = () => new Date().toISOString();
/** jsonb parameters go as JSON text: node-postgres would send a JS array as a PostgreSQL array. */
const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
const LIVE = `status IN ('queued', 'processing')`;

function requestOfRow(r: RequestRow): RequestRecord {
  return {
    id: r.id, accountId: r.account_id, origin: r.origin, createdIn: r.created_in, userEmail: r.user_email, isDemo: r.is_demo,
    status: r.status, step: r.step, progress: r.progress, options: r.options, url: r.url, title: r.title, start: r.start, end: r.end,
    timeAdjustment: r.time_adjustment, heatmap: r.heatmap, sentences: r.sentences, failureReason: r.failure_reason,
    warnings: r.warnings, detectedLanguage: r.detected_language,
    createdAt: r.created_at, updatedAt: r.updated_at, startedAt: r.started_at, finishedAt: r.finished_at,
  };
}

function shortOfRow(r: ShortRow): ShortRecord {
  return {
    id: r.id, requestId: r.request_id, rank: r.rank, title: r.title, sentenceIndexes: r.sentence_indexes, reason: r.reason,
    description: r.description, viralScore: r.viral_score, startTimestamp: r.start_ts, endTimestamp: r.end_ts, duration: r.duration,
    width: r.width, height: r.height, recompiling: r.recompiling, error: r.error, errorMessage: r.error_message,
    fileKey: r.file_key, coverKey: r.cover_key, layout: r.layout, edit: r.edit, pendingEdit: r.pending_edit, editError: r.edit_error,
  };
}

export class PgRequestStore implements RequestStore {
  readonly dataDir: string;

  /** `db` is shared with the accounts adapter: an insert inside its chargeAndCreate joins the charge's transaction. */
  constructor(private readonly db: PgDatabase, dataDir: string) {
    this.dataDir = path.resolve(dataDir);
  }

  /** The Pool is the process's, closed by whoever made it (createPostgresState), not by one of its adapters. */
  async close(): Promise<void> {}

  ping(): Promise<string> {
    return this.db.ping();
  }

  async insertRequest(n: NewRequest): Promise<RequestRecord> {
    const t = now();
    const row = await this.db.one<RequestRow>(`INSERT INTO requests (id, account_id, origin, created_in, user_email, status, step, progress, options, url, start, "end", created_at, updated_at)
      VALUES ($1, $2, $3, $10, $4, 'queued', 'queued', 0, $5, $6, $7, $8, $9, $9) RETURNING *`,
    [n.id, n.accountId, n.origin, n.userEmail, json(n.options), n.url, n.start, n.end, t, n.createdIn ?? 'api']);
    return requestOfRow(row!);
  }

  async getRequest(id: string): Promise<RequestRecord | undefined> {
    const row = await this.db.one<RequestRow>('SELECT * FROM requests WHERE id = $1', [id]);
    return row && requestOfRow(row);
  }

  async requestStatus(id: string): Promise<RequestStatus | undefined> {
    return (await this.db.one<{ status: RequestStatus }>('SELECT status FROM requests WHERE id = $1', [id]))?.status;
  }

  async listRequests(q: ListQuery): Promise<{ items: RequestRecord[]; total: number }> {
    const params: unknown[] = [q.accountId];
    const where = ['account_id = $1'];
    if (q.origin) where.push(`origin = $${params.push(q.origin)}`);
    if (q.createdIn) where.push(`created_in = $${params.push(q.createdIn)}`);
    if (q.status) where.push(`status = $${params.push(q.status)}`);
    const clause = where.join(' AND ');
    const total = (await this.db.one<{ n: number }>(`SELECT count(*) AS n FROM requests WHERE ${clause}`, params))!.n;
    const column = q.sortBy === 'updatedAt' ? 'updated_at' : 'created_at';
    const order = q.sortOrder === 'asc' ? 'ASC' : 'DESC';
    const rows = await this.db.query<RequestRow>(`SELECT * FROM requests WHERE ${clause} ORDER BY ${column} ${order}, seq ${order}
      LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, q.limit, (q.page - 1) * q.limit]);
    return { items: rows.map(requestOfRow), total };
  }

  async advance(id: string, step: Step, progress: number, lease?: Lease): Promise<boolean> {
    const t = now();
    const rows = await fenced(this.db, lease, () => this.db.query(`UPDATE requests SET step = $2, progress = GREATEST(progress, $3), updated_at = $4,
        status = 'processing', started_at = COALESCE(started_at, $4) WHERE id = $1 AND ${LIVE} RETURNING 1`, [id, step, progress, t]));
    return rows.length === 1;
  }

  async setProgress(id: string, progress: number): Promise<void> {
    await this.db.query(`UPDATE requests SET progress = GREATEST(progress, $2), updated_at = $3 WHERE id = $1 AND status = 'processing'`,
      [id, Math.min(99, progress), now()]);
  }

  async saveSourceFacts(id: string, facts: { title: string; heatmap: HeatmapPoint[]; start: number; end: number; timeAdjustment: TimeAdjustment | null }): Promise<void> {
    await this.db.query(`UPDATE requests SET title = $2, heatmap = $3, start = $4, "end" = $5, time_adjustment = $6, updated_at = $7 WHERE id = $1`,
      [id, facts.title, json(facts.heatmap), facts.start, facts.end, json(facts.timeAdjustment), now()]);
  }

  async saveSentences(id: string, sentences: SentenceRecord[]): Promise<void> {
    await this.db.query('UPDATE requests SET sentences = $2, updated_at = $3 WHERE id = $1', [id, json(sentences), now()]);
  }

  async addWarning(id: string, warning: string): Promise<void> {
    // The condition is re-checked on the locked row, so two processes adding the same warning add it once.
    await this.db.query(`UPDATE requests SET warnings = warnings || jsonb_build_array($2::text), updated_at = $3
      WHERE id = $1 AND NOT warnings @> jsonb_build_array($2::text)`, [id, warning, now()]);
  }

  async saveDetectedLanguage(id: string, language: string): Promise<void> {
    await this.db.query('UPDATE requests SET detected_language = $2, updated_at = $3 WHERE id = $1', [id, language, now()]);
  }

  async replaceShorts(requestId: string, shorts: ShortRecord[], lease?: Lease): Promise<void> {
    await fenced(this.db, lease, async () => {
      await this.db.query('DELETE FROM shorts WHERE request_id = $1', [requestId]);
      for (const s of shorts) {
        await this.db.query(`INSERT INTO shorts (id, request_id, rank, title, sentence_indexes, reason, description, viral_score,
            start_ts, end_ts, duration, width, height, recompiling, error, error_message, file_key, cover_key, layout)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
        [s.id, requestId, s.rank, s.title, json(s.sentenceIndexes), s.reason, s.description, s.viralScore, s.startTimestamp,
          s.endTimestamp, s.duration, s.width, s.height, s.recompiling, s.error, s.errorMessage, s.fileKey, s.coverKey ?? null, s.layout ?? null]);
      }
    });
  }

  async listShorts(requestId: string): Promise<ShortRecord[]> {
    return (await this.db.query<ShortRow>('SELECT * FROM shorts WHERE request_id = $1 ORDER BY rank', [requestId])).map(shortOfRow);
  }

  async getShort(requestId: string, shortId: string): Promise<ShortRecord | undefined> {
    const row = await this.db.one<ShortRow>('SELECT * FROM shorts WHERE id = $1 AND request_id = $2', [shortId, requestId]);
    return row && shortOfRow(row);
  }

  async findShort(shortId: string): Promise<ShortRecord | undefined> {
    const row = await this.db.one<ShortRow>('SELECT * FROM shorts WHERE id = $1', [shortId]);
    return row && shortOfRow(row);
  }

  async startRerender(requestId: string, shortId: string, edit: ClipEdit): Promise<'started' | 'busy' | 'not_completed'> {
    return this.db.transaction(async () => {
      // FOR SHARE: the request cannot change state (be deleted with its clips) until this decision commits.
      const r = await this.db.one<{ status: RequestStatus }>('SELECT status FROM requests WHERE id = $1 FOR SHARE', [requestId]);
      if (r?.status !== 'completed') return 'not_completed' as const;
      // Of two racing callers the second waits for the first's row lock and then finds recompiling set.
      const u = await this.db.query(`UPDATE shorts SET recompiling = true, pending_edit = $1, rerender_attempts = 0, edit_error = NULL
        WHERE id = $2 AND request_id = $3 AND NOT recompiling RETURNING 1`, [json(edit), shortId, requestId]);
      return u.length === 1 ? 'started' as const : 'busy' as const;
    });
  }

  async claimRerender(shortId: string, lease: Lease): Promise<number | null> {
    const row = await fenced(this.db, lease, () => this.db.one<{ n: number }>(`UPDATE shorts SET rerender_attempts = rerender_attempts + 1
      WHERE id = $1 AND recompiling RETURNING rerender_attempts AS n`, [shortId]));
    return row?.n ?? null;
  }

  async finishRerender(shortId: string, r: RerenderResult, lease?: Lease): Promise<void> {
    await fenced(this.db, lease, async () => {
      const row = await this.db.one<{ request_id: string }>(`UPDATE shorts SET title = $2, reason = $3, sentence_indexes = $4, start_ts = $5,
          end_ts = $6, duration = $7, layout = $8, edit = $9, file_key = $10, cover_key = $11, error = false, error_message = NULL,
          recompiling = false, pending_edit = NULL
        WHERE id = $1 RETURNING request_id`, [shortId, r.title, r.reason, json(r.sentenceIndexes), r.startTimestamp, r.endTimestamp, r.duration,
        r.layout ?? null, json(r.edit), r.fileKey, r.coverKey]);
      if (row) await this.db.query('UPDATE requests SET updated_at = $2 WHERE id = $1', [row.request_id, now()]);
    });
  }

  async abandonRerender(shortId: string, why: string, lease?: Lease): Promise<void> {
    await fenced(this.db, lease, () => this.db.query('UPDATE shorts SET recompiling = false, pending_edit = NULL, edit_error = $2 WHERE id = $1', [shortId, why]));
  }

  async listRerendering(): Promise<(ShortRecord & { origin: 'api' | 'local'; leased: boolean })[]> {
    const rows = await this.db.query<ShortRow & { origin: 'api' | 'local'; leased: boolean }>(`SELECT s.*, r.origin AS origin,
        EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'rerender' AND l.id = s.id AND l.expires_at > ${NOW_MS}) AS leased
      FROM shorts s JOIN requests r ON r.id = s.request_id WHERE s.recompiling ORDER BY r.updated_at, s.rank`);
    return rows.map((row) => ({ ...shortOfRow(row), origin: row.origin, leased: row.leased }));
  }

  async finish(id: string, status: 'completed' | 'failed' | 'cancelled', failureReason: string | null = null, lease?: Lease): Promise<boolean> {
    const t = now();
    const rows = await fenced(this.db, lease, () => this.db.query(`UPDATE requests SET status = $2, step = $2, progress = COALESCE($3, progress),
        failure_reason = $4, updated_at = $5, finished_at = $5 WHERE id = $1 AND ${LIVE} RETURNING 1`,
    [id, status, status === 'completed' ? 100 : null, status === 'failed' ? failureReason : null, t]));
    return rows.length === 1;
  }

  async startRun(id: string, lease: Lease): Promise<RequestRecord | undefined> {
    const row = await fenced(this.db, lease, () => this.db.one<RequestRow>(`UPDATE requests SET status = 'processing', attempts = attempts + 1, updated_at = $2
      WHERE id = $1 AND ${LIVE} RETURNING *`, [id, now()]));
    return row && requestOfRow(row);
  }

  async listOrphaned(origin: 'api' | 'local'): Promise<string[]> {
    return (await this.db.query<{ id: string }>(`SELECT id FROM requests r WHERE status = 'processing' AND origin = $1 AND NOT EXISTS (SELECT 1 FROM leases l
        WHERE l.kind = 'request' AND l.id = r.id AND l.expires_at > ${NOW_MS}) ORDER BY created_at, seq`, [origin])).map((r) => r.id);
  }

  async measuredSecondsPerSourceSecond(sample = 20): Promise<number | null> {
    const row = await this.db.one<{ rate: number | null }>(`SELECT avg(extract(epoch FROM (finished_at::timestamptz - started_at::timestamptz)) / ("end" - start))::float8 AS rate
      FROM (SELECT * FROM requests WHERE status = 'completed' AND origin = 'api' AND started_at IS NOT NULL
            ORDER BY finished_at DESC LIMIT $1) recent`, [sample]);
    return row?.rate ?? null;
  }

  async listLive(): Promise<RequestRecord[]> {
    return (await this.db.query<RequestRow>(`SELECT * FROM requests WHERE ${LIVE} ORDER BY created_at, seq`)).map(requestOfRow);
  }
}
