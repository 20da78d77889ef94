// The posts port over PostgreSQL's `posts` table. Every status change is one guarded UPDATE … WHERE status …
// RETURNING: under READ COMMITTED a second writer of the same row waits for the first to commit, then
// re-checks the WHERE clause against the new row, so of two processes racing (a claim and a cancel, two
// publishers) exactly one wins. The publisher's writes run through `fenced`, which holds the post's lease row
// for the length of the write: a takeover waits for it, or came first and the write changes nothing.
import { randomBytes } from 'node:crypto';
import type { PostsQuery } from '../../domain/posts-query.js';
import type { PostObject } from '../../api/types.js';
import type { Platform, PostErrorCode, PublishState } from '../../publish/types.js';
import type { Lease } from '../../ports/leases.js';
import { UPLOADED_MARK } from '../../domain/post.js';
import { LOCAL_ACCOUNT, postObject, type NewPost, type PostRecord, type PostScope, type PostStatus, type PostStore, type RetryLaterOptions } from '../../ports/post-store.js';
import { NOW_MS, type PgDatabase } from './database.js';
import { fenced } from './lease-store.js';

type PostRow = {
  id: string; account_id: string; connected_account_id: string | null; platform: Platform; status: PostStatus; scheduled_at: string;
  published_at: string | null; url: string | null; short_id: string; request_id: string; title: string; description: string;
  account_handle: string; source: 'manual' | 'automation'; error: string | null; error_code: PostErrorCode | null; retryable: boolean | null;
  publish_state: PublishState | null; attempts: number; next_attempt_at: string | null; created_at: string; updated_at: string | null;
};

function postOfRow(r: PostRow): PostRecord {
  return {
    id: r.id, accountId: r.account_id, connectedAccountId: r.connected_account_id, platform: r.platform, status: r.status,
    scheduledAt: r.scheduled_at, publishedAt: r.published_at, url: r.url, shortId: r.short_id, requestId: r.request_id, title: r.title,
    description: r.description, accountHandle: r.account_handle, source: r.source, error: r.error, errorCode: r.error_code,
    retryable: r.retryable, publishState: r.publish_state, attempts: r.attempts, nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

const now = () => new Date().toISOString();
const scopeClause = (scope: PostScope, param: string) => (scope.kind === 'local' ? `account_id = ${param}` : `account_id <> ${param}`);
const first = (rows: PostRow[]) => (rows[0] ? postOfRow(rows[0]) : undefined);
/** A post whose `post` lease somebody holds now (on the database's clock). */
const leased = (post: string) => `EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'post' AND l.id = ${post}.id AND l.expires_at > ${NOW_MS})`;

/** The INSERT of a new scheduled post (the automation adapter inserts through it inside its own transaction). */
export async function insertPost(db: PgDatabase, p: NewPost): Promise<PostRecord> {
  const at = now();
  const rows = await db.query<PostRow>(`INSERT INTO posts (id, account_id, connected_account_id, platform, status, scheduled_at, short_id, request_id,
      title, description, account_handle, source, created_at, updated_at)
    VALUES ($1, $2, $3, $4, 'scheduled', $5, $6, $7, $8, $9, $10, $11, $12, $12) RETURNING *`,
  [randomBytes(12).toString('hex'), p.accountId, p.connectedAccountId, p.platform, p.scheduledAt, p.shortId, p.requestId, p.title,
    p.description, p.accountHandle, p.source, at]);
  return postOfRow(rows[0]!);
}

export class PgPostStore implements PostStore {
  constructor(private readonly db: PgDatabase) {}

  async insert(p: NewPost): Promise<PostRecord> {
    return insertPost(this.db, p);
  }

  async get(id: string): Promise<PostRecord | undefined> {
    return first(await this.db.query<PostRow>('SELECT * FROM posts WHERE id = $1', [id]));
  }

  async listPosts(accountId: string, q: PostsQuery): Promise<{ items: PostObject[]; total: number }> {
    const column = q.date === 'published' ? 'published_at' : 'scheduled_at';
    const params: unknown[] = [accountId];
    const where = ['account_id = $1'];
    const filter = (sql: string, value: string | undefined) => {
      if (!value) return;
      params.push(value);
      where.push(`${sql} $${params.length}`);
    };
    filter('status =', q.status);
    filter('platform =', q.platform);
    filter('source =', q.source);
    filter('request_id =', q.requestId);
    filter('short_id =', q.shortId);
    filter(`${column} >=`, q.since);
    filter(`${column} <=`, q.until);
    const clause = where.join(' AND ');
    const total = await this.db.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM posts WHERE ${clause}`, params);
    const rows = await this.db.query<PostRow>(`SELECT * FROM posts WHERE ${clause}
      ORDER BY ${column} DESC NULLS LAST, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, q.limit, (q.page - 1) * q.limit]);
    return { items: rows.map((r) => postObject(postOfRow(r))), total: total[0]!.n };
  }

  async postsForShort(shortId: string): Promise<PostObject[]> {
    const r = await this.db.query<PostRow>('SELECT * FROM posts WHERE short_id = $1 ORDER BY scheduled_at DESC, id DESC', [shortId]);
    return r.map((row) => postObject(postOfRow(row)));
  }

  async cancel(id: string): Promise<PostRecord | undefined> {
    return first(await this.db.query<PostRow>(`UPDATE posts SET status = 'canceled', next_attempt_at = NULL, updated_at = $2
      WHERE id = $1 AND status = 'scheduled' RETURNING *`, [id, now()]));
  }

  async dueUnleased(scope: PostScope, limit: number, at = now()): Promise<string[]> {
    const r = await this.db.query<{ id: string }>(`SELECT id FROM posts p WHERE ${scopeClause(scope, '$1')} AND status IN ('scheduled', 'processing')
        AND (status = 'processing' OR scheduled_at <= $2) AND (next_attempt_at IS NULL OR next_attempt_at <= $2) AND NOT ${leased('p')}
      ORDER BY status = 'processing' DESC, scheduled_at, id LIMIT $3`, [LOCAL_ACCOUNT, at, limit]);
    return r.map((row) => row.id);
  }

  async claim(id: string, lease: Lease, at = now()): Promise<PostRecord | undefined> {
    return fenced(this.db, lease, async () => first(await this.db.query<PostRow>(`UPDATE posts SET
        attempts = attempts + CASE WHEN status = 'scheduled' OR next_attempt_at IS NOT NULL THEN 1 ELSE 0 END,
        status = 'processing', next_attempt_at = NULL, updated_at = $2
      WHERE id = $1 AND (status = 'processing' OR (status = 'scheduled' AND scheduled_at <= $2))
        AND (next_attempt_at IS NULL OR next_attempt_at <= $2) RETURNING *`, [id, at])));
  }

  async nextDueAt(scope: PostScope): Promise<string | null> {
    const r = await this.db.query<{ at: string | null }>(`SELECT MIN(COALESCE(next_attempt_at, scheduled_at)) AS at FROM posts p
      WHERE ${scopeClause(scope, '$1')} AND (status = 'scheduled' OR (status = 'processing' AND NOT ${leased('p')}))`, [LOCAL_ACCOUNT]);
    return r[0]?.at ?? null;
  }

  async saveState(id: string, lease: Lease, state: PublishState): Promise<void> {
    const saved = await fenced(this.db, lease, () => this.db.query(`UPDATE posts SET publish_state = $2, updated_at = $3
      WHERE id = $1 AND status = 'processing' RETURNING id`,
      [id, JSON.stringify(state), now()]));
    if (saved.length !== 1) throw new Error(`post ${id} is not being published any more; its progress was not saved`);
  }

  async published(id: string, url: string | null, lease?: Lease, at = now()): Promise<PostRecord | undefined> {
    return fenced(this.db, lease, async () => first(await this.db.query<PostRow>(`UPDATE posts SET status = 'published', published_at = $3, url = $2,
        error = NULL, error_code = NULL, retryable = NULL, next_attempt_at = NULL, updated_at = $3 WHERE id = $1 AND status = 'processing' RETURNING *`,
    [id, url, at])));
  }

  async failed(id: string, f: { code: PostErrorCode; message: string; retryable: boolean }, lease?: Lease, from: readonly PostStatus[] = ['processing']): Promise<PostRecord | undefined> {
    return fenced(this.db, lease, async () => first(await this.db.query<PostRow>(`UPDATE posts SET status = 'failed', error = $2, error_code = $3,
        retryable = $4, next_attempt_at = NULL, updated_at = $6 WHERE id = $1 AND status = ANY($5::text[]) RETURNING *`,
    [id, f.message, f.code, f.retryable, [...from], now()])));
  }

  async retryLater(id: string, next: string, lease?: Lease, opts: RetryLaterOptions = {}): Promise<PostRecord | undefined> {
    return fenced(this.db, lease, async () => first(await this.db.query<PostRow>(`UPDATE posts SET
        status = CASE WHEN publish_state IS NULL THEN 'scheduled' ELSE 'processing' END,
        next_attempt_at = $2, updated_at = $3, attempts = GREATEST(0, attempts - $4) WHERE id = $1 AND status = 'processing' RETURNING *`,
    [id, next, now(), opts.uncount ? 1 : 0])));
  }

  async lastUploadedState(connectedAccountId: string, shortId: string, platform: Platform): Promise<PublishState | null> {
    // A mark set to JSON null is no mark (as SQLite's json_extract reads it).
    const r = await this.db.query<{ publish_state: PublishState }>(`SELECT publish_state FROM posts WHERE connected_account_id = $1 AND short_id = $2
        AND platform = $3 AND (status = 'processing' OR (status = 'failed' AND retryable)) AND COALESCE(jsonb_typeof(publish_state -> $4), 'null') <> 'null'
      ORDER BY created_at DESC, seq DESC LIMIT 1`, [connectedAccountId, shortId, platform, UPLOADED_MARK]);
    return r[0]?.publish_state ?? null;
  }
}
