// The posts port over the `posts` table of the job store's SQLite file (issue 16). Every change is one guarded
// UPDATE (the status in the WHERE clause decides races); the publisher's writes run through `fenced`, in an
// IMMEDIATE transaction that checks the post's lease first. better-sqlite3 is synchronous: each method does
// its work before it returns its (settled) promise.
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { PostsQuery } from '../../domain/posts-query.js';
import type { PostObject } from '../../api/types.js';
import type { Platform, PostErrorCode, PublishState } from '../../publish/types.js';
import type { Lease } from '../../ports/leases.js';
import { UPLOADED_MARK } from '../../domain/post.js';
import { LOCAL_ACCOUNT, postObject, type NewPost, type PostRecord, type PostScope, type PostStatus, type PostStore, type RetryLaterOptions } from '../../ports/post-store.js';
import { fenced, NOW_MS } from './lease-store.js';

export interface PostRow {
  id: string; account_id: string; connected_account_id: string | null; platform: Platform; status: PostStatus; scheduled_at: string;
  published_at: string | null; url: string | null; short_id: string; request_id: string; title: string; description: string;
  account_handle: string; source: 'manual' | 'automation'; error: string | null; error_code: PostErrorCode | null; retryable: number | null;
  publish_state: string | null; attempts: number; next_attempt_at: string | null; created_at: string; updated_at: string | null;
}

export function postOfRow(r: PostRow): PostRecord {
  return {
    id: r.id, accountId: r.account_id, connectedAccountId: r.connected_account_id, platform: r.platform, status: r.status,
    scheduledAt: r.scheduled_at, publishedAt: r.published_at, url: r.url, shortId: r.short_id, requestId: r.request_id, title: r.title,
    description: r.description, accountHandle: r.account_handle, source: r.source, error: r.error, errorCode: r.error_code,
    retryable: r.retryable === null ? null : r.retryable === 1, publishState: r.publish_state ? JSON.parse(r.publish_state) as PublishState : null,
    attempts: r.attempts, nextAttemptAt: r.next_attempt_at, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

const scopeClause = (scope: PostScope) => (scope.kind === 'local' ? 'account_id = @local' : 'account_id <> @local');
const now = () => new Date().toISOString();
const maybe = (r: unknown) => (r ? postOfRow(r as PostRow) : undefined);

/** The INSERT of a new scheduled post (the automation adapter inserts through it inside its own transaction). */
export function insertPost(db: Database.Database, p: NewPost): PostRecord {
  const at = now();
  return postOfRow(db.prepare(`INSERT INTO posts (id, account_id, connected_account_id, platform, status, scheduled_at, short_id, request_id,
      title, description, account_handle, source, created_at, updated_at)
    VALUES (@id, @accountId, @connectedAccountId, @platform, 'scheduled', @scheduledAt, @shortId, @requestId, @title, @description,
      @accountHandle, @source, @at, @at) RETURNING *`).get({ ...p, id: randomBytes(12).toString('hex'), at }) as PostRow);
}

export class SqlitePostStore implements PostStore {
  constructor(private readonly db: Database.Database) {}

  async insert(p: NewPost): Promise<PostRecord> {
    return insertPost(this.db, p);
  }

  async get(id: string): Promise<PostRecord | undefined> {
    return maybe(this.db.prepare('SELECT * FROM posts WHERE id = ?').get(id));
  }

  async listPosts(accountId: string, q: PostsQuery): Promise<{ items: PostObject[]; total: number }> {
    const column = q.date === 'published' ? 'published_at' : 'scheduled_at';
    const where = ['account_id = @accountId'];
    if (q.status) where.push('status = @status');
    if (q.platform) where.push('platform = @platform');
    if (q.source) where.push('source = @source');
    if (q.requestId) where.push('request_id = @requestId');
    if (q.shortId) where.push('short_id = @shortId');
    if (q.since) where.push(`${column} >= @since`);
    if (q.until) where.push(`${column} <= @until`);
    const clause = where.join(' AND ');
    const params = { accountId, status: q.status, platform: q.platform, source: q.source, requestId: q.requestId, shortId: q.shortId, since: q.since, until: q.until };
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM posts WHERE ${clause}`).get(params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM posts WHERE ${clause} ORDER BY ${column} DESC, id DESC LIMIT @limit OFFSET @offset`)
      .all({ ...params, limit: q.limit, offset: (q.page - 1) * q.limit }) as PostRow[];
    return { items: rows.map((r) => postObject(postOfRow(r))), total };
  }

  async postsForShort(shortId: string): Promise<PostObject[]> {
    return (this.db.prepare('SELECT * FROM posts WHERE short_id = ? ORDER BY scheduled_at DESC, id DESC').all(shortId) as PostRow[])
      .map((r) => postObject(postOfRow(r)));
  }

  async cancel(id: string): Promise<PostRecord | undefined> {
    return maybe(this.db.prepare(`UPDATE posts SET status = 'canceled', next_attempt_at = NULL, updated_at = @at
      WHERE id = @id AND status = 'scheduled' RETURNING *`).get({ id, at: now() }));
  }

  async dueUnleased(scope: PostScope, limit: number, at = now()): Promise<string[]> {
    return (this.db.prepare(`SELECT id FROM posts p WHERE ${scopeClause(scope)} AND status IN ('scheduled', 'processing')
        AND (status = 'processing' OR scheduled_at <= @at) AND (next_attempt_at IS NULL OR next_attempt_at <= @at)
        AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'post' AND l.id = p.id AND l.expires_at > ${NOW_MS})
      ORDER BY status = 'processing' DESC, scheduled_at, id LIMIT @limit`).all({ local: LOCAL_ACCOUNT, at, limit }) as { id: string }[]).map((r) => r.id);
  }

  async claim(id: string, lease: Lease, at = now()): Promise<PostRecord | undefined> {
    return maybe(fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET
        attempts = attempts + CASE WHEN status = 'scheduled' OR next_attempt_at IS NOT NULL THEN 1 ELSE 0 END,
        status = 'processing', next_attempt_at = NULL, updated_at = @at
      WHERE id = @id AND (status = 'processing' OR (status = 'scheduled' AND scheduled_at <= @at))
        AND (next_attempt_at IS NULL OR next_attempt_at <= @at) RETURNING *`).get({ id, at })));
  }

  async nextDueAt(scope: PostScope): Promise<string | null> {
    const row = this.db.prepare(`SELECT MIN(COALESCE(next_attempt_at, scheduled_at)) AS at FROM posts p
      WHERE ${scopeClause(scope)} AND ((status = 'scheduled') OR (status = 'processing'
        AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'post' AND l.id = p.id AND l.expires_at > ${NOW_MS})))`).get({ local: LOCAL_ACCOUNT }) as { at: string | null };
    return row.at;
  }

  async saveState(id: string, lease: Lease, state: PublishState): Promise<void> {
    const r = fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET publish_state = @state, updated_at = @at WHERE id = @id AND status = 'processing'`)
      .run({ id, state: JSON.stringify(state), at: now() }));
    if (r.changes !== 1) throw new Error(`post ${id} is not being published any more; its progress was not saved`);
  }

  async published(id: string, url: string | null, lease?: Lease, at = now()): Promise<PostRecord | undefined> {
    return maybe(fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET status = 'published', published_at = @at, url = @url, error = NULL,
        error_code = NULL, retryable = NULL, next_attempt_at = NULL, updated_at = @at WHERE id = @id AND status = 'processing' RETURNING *`)
      .get({ id, url, at })));
  }

  async failed(id: string, f: { code: PostErrorCode; message: string; retryable: boolean }, lease?: Lease, from: readonly PostStatus[] = ['processing']): Promise<PostRecord | undefined> {
    return maybe(fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET status = 'failed', error = @message, error_code = @code, retryable = @retryable,
        next_attempt_at = NULL, updated_at = @at WHERE id = @id AND status IN (SELECT value FROM json_each(@from)) RETURNING *`)
      .get({ id, code: f.code, message: f.message, retryable: f.retryable ? 1 : 0, from: JSON.stringify(from), at: now() })));
  }

  async retryLater(id: string, next: string, lease?: Lease, opts: RetryLaterOptions = {}): Promise<PostRecord | undefined> {
    return maybe(fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET status = CASE WHEN publish_state IS NULL THEN 'scheduled' ELSE 'processing' END,
        next_attempt_at = @next, updated_at = @at, attempts = MAX(0, attempts - @uncount) WHERE id = @id AND status = 'processing' RETURNING *`)
      .get({ id, next, at: now(), uncount: opts.uncount ? 1 : 0 })));
  }

  async lastUploadedState(connectedAccountId: string, shortId: string, platform: Platform): Promise<PublishState | null> {
    const row = this.db.prepare(`SELECT publish_state FROM posts WHERE connected_account_id = @connectedAccountId AND short_id = @shortId
        AND platform = @platform AND (status = 'processing' OR (status = 'failed' AND retryable = 1))
        AND json_extract(publish_state, @mark) IS NOT NULL
      ORDER BY created_at DESC, rowid DESC LIMIT 1`).get({ connectedAccountId, shortId, platform, mark: `$.${UPLOADED_MARK}` }) as { publish_state: string } | undefined;
    return row ? JSON.parse(row.publish_state) as PublishState : null;
  }
}
