// The writes of the posts table (issue 16): scheduling, canceling, the publisher's claim of due posts,
// its saved progress, and the end of an attempt (published, failed, or retried later). Every change is one
// guarded UPDATE, so two processes (a serve and a `shorts posts run`, or a cancel racing a claim) never both
// win: the status in the WHERE clause decides. Who publishes a post is the holder of its `post` lease
// (issue 22): the claim and every write of the publisher are made only while that lease is still held. Reading lists stays in the request store's listPosts (spec 4.6 filters).
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { PostObject } from '../../api/types.js';
import type { Platform, PostErrorCode, PublishState } from '../../publish/types.js';
import type { Lease } from '../../ports/leases.js';
import { fenced, NOW_MS } from './lease-store.js';

export type PostStatus = PostObject['status'];

/** A post with what the publisher needs besides the API's fields. */
export interface PostRecord {
  id: string;
  /** The API account (`local` in local mode). */
  accountId: string;
  connectedAccountId: string | null;
  platform: Platform;
  status: PostStatus;
  scheduledAt: string;
  publishedAt: string | null;
  url: string | null;
  shortId: string;
  requestId: string;
  title: string;
  description: string;
  accountHandle: string;
  source: 'manual' | 'automation';
  error: string | null;
  errorCode: PostErrorCode | null;
  retryable: boolean | null;
  publishState: PublishState | null;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string | null;
}

interface Row {
  id: string; account_id: string; connected_account_id: string | null; platform: Platform; status: PostStatus; scheduled_at: string;
  published_at: string | null; url: string | null; short_id: string; request_id: string; title: string; description: string;
  account_handle: string; source: 'manual' | 'automation'; error: string | null; error_code: PostErrorCode | null; retryable: number | null;
  publish_state: string | null; attempts: number; next_attempt_at: string | null; created_at: string; updated_at: string | null;
}

function toRecord(r: Row): PostRecord {
  return {
    id: r.id, accountId: r.account_id, connectedAccountId: r.connected_account_id, platform: r.platform, status: r.status,
    scheduledAt: r.scheduled_at, publishedAt: r.published_at, url: r.url, shortId: r.short_id, requestId: r.request_id, title: r.title,
    description: r.description, accountHandle: r.account_handle, source: r.source, error: r.error, errorCode: r.error_code,
    retryable: r.retryable === null ? null : r.retryable === 1, publishState: r.publish_state ? JSON.parse(r.publish_state) as PublishState : null,
    attempts: r.attempts, nextAttemptAt: r.next_attempt_at, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** The API's Post object (spec 2.4) of a row of the posts table (the request store.s post lists read through this too). */
export function postOfRow(row: unknown): PostObject {
  return postObject(toRecord(row as Row));
}

/** The API's Post object (spec 2.4) of a record. */
export function postObject(p: PostRecord): PostObject {
  return {
    id: p.id, platform: p.platform, status: p.status, scheduledAt: p.scheduledAt, publishedAt: p.publishedAt, url: p.url,
    shortId: p.shortId, requestId: p.requestId, title: p.title, account: { handle: p.accountHandle }, source: p.source,
    error: p.error, errorCode: p.errorCode, retryable: p.retryable, createdAt: p.createdAt,
  };
}

export interface NewPost {
  accountId: string;
  connectedAccountId: string;
  platform: Platform;
  scheduledAt: string;
  shortId: string;
  requestId: string;
  title: string;
  description: string;
  accountHandle: string;
  source: 'manual' | 'automation';
}

/** Which posts a process publishes: `serve` those of API accounts, `shorts posts run` the local account's. */
export type PostScope = { kind: 'api' } | { kind: 'local' };

const LOCAL_ACCOUNT = 'local';
const scopeClause = (scope: PostScope) => (scope.kind === 'local' ? 'account_id = @local' : 'account_id <> @local');

export const POST_ID_PATTERN = /^[0-9a-f]{24}$/;

const now = () => new Date().toISOString();

export class PostStore {
  constructor(readonly db: Database.Database) {}

  insert(p: NewPost): PostRecord {
    const id = randomBytes(12).toString('hex');
    const at = now();
    const row = this.db.prepare(`INSERT INTO posts (id, account_id, connected_account_id, platform, status, scheduled_at, short_id, request_id,
        title, description, account_handle, source, created_at, updated_at)
      VALUES (@id, @accountId, @connectedAccountId, @platform, 'scheduled', @scheduledAt, @shortId, @requestId, @title, @description,
        @accountHandle, @source, @at, @at) RETURNING *`).get({ ...p, id, at }) as Row;
    return toRecord(row);
  }

  get(id: string): PostRecord | undefined {
    const row = this.db.prepare('SELECT * FROM posts WHERE id = ?').get(id) as Row | undefined;
    return row && toRecord(row);
  }

  /**
   * scheduled -> canceled, only while it is still scheduled (a publisher that claimed it first wins; the
   * caller then answers 409 with the status it found). Returns the post after, or undefined when it was not scheduled.
   */
  cancel(id: string): PostRecord | undefined {
    const row = this.db.prepare(`UPDATE posts SET status = 'canceled', next_attempt_at = NULL, updated_at = @at
      WHERE id = @id AND status = 'scheduled' RETURNING *`).get({ id, at: now() }) as Row | undefined;
    return row && toRecord(row);
  }

  /**
   * Posts to take now, oldest first, whose `post` lease is free: scheduled and due (and past any retry wait),
   * and posts left `processing` by a process whose lease expired or that handed them back, or waiting out a
   * retry with progress kept, once that wait is over. The caller leases one, then claims it.
   */
  dueUnleased(scope: PostScope, limit: number, at = now()): string[] {
    return (this.db.prepare(`SELECT id FROM posts p WHERE ${scopeClause(scope)} AND status IN ('scheduled', 'processing')
        AND (status = 'processing' OR scheduled_at <= @at) AND (next_attempt_at IS NULL OR next_attempt_at <= @at)
        AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'post' AND l.id = p.id AND l.expires_at > ${NOW_MS})
      ORDER BY status = 'processing' DESC, scheduled_at, id LIMIT @limit`).all({ local: LOCAL_ACCOUNT, at, limit }) as { id: string }[]).map((r) => r.id);
  }

  /**
   * Claims a due post under its lease (taken first by the caller, so two processes never both get it):
   * `processing`, and one more attempt unless it resumes an attempt a stopped process left half-way (a retry
   * wait that ended starts a new one). Undefined when it is not due any more (canceled, published, ...).
   */
  claim(id: string, lease: Lease, at = now()): PostRecord | undefined {
    const row = fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET
        attempts = attempts + CASE WHEN status = 'scheduled' OR next_attempt_at IS NOT NULL THEN 1 ELSE 0 END,
        status = 'processing', next_attempt_at = NULL, updated_at = @at
      WHERE id = @id AND (status = 'processing' OR (status = 'scheduled' AND scheduled_at <= @at))
        AND (next_attempt_at IS NULL OR next_attempt_at <= @at) RETURNING *`).get({ id, at }) as Row | undefined);
    return row && toRecord(row);
  }

  /** The earliest time something of this scope becomes due (the scheduler sleeps until then at most). */
  nextDueAt(scope: PostScope): string | null {
    const row = this.db.prepare(`SELECT MIN(COALESCE(next_attempt_at, scheduled_at)) AS at FROM posts p
      WHERE ${scopeClause(scope)} AND ((status = 'scheduled') OR (status = 'processing'
        AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.kind = 'post' AND l.id = p.id AND l.expires_at > ${NOW_MS})))`).get({ local: LOCAL_ACCOUNT }) as { at: string | null };
    return row.at;
  }

  /** The connector's progress, written before it takes a step that must not be repeated (synchronous: it is on disk when this returns). */
  /**
   * Throws when nothing was saved (the connector must not take the step): LeaseLost when another process took
   * the post over, an Error when it is not processing any more (its account's posts were failed meanwhile).
   */
  saveState(id: string, lease: Lease, state: PublishState): void {
    const r = fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET publish_state = @state, updated_at = @at WHERE id = @id AND status = 'processing'`)
      .run({ id, state: JSON.stringify(state), at: now() }));
    if (r.changes !== 1) throw new Error(`post ${id} is not being published any more; its progress was not saved`);
  }

  /** With `lease`, only while it is still held (LeaseLost: another process publishes it now). */
  published(id: string, url: string | null, at = now(), lease?: Lease): PostRecord | undefined {
    const row = fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET status = 'published', published_at = @at, url = @url, error = NULL, error_code = NULL,
        retryable = NULL, next_attempt_at = NULL, updated_at = @at WHERE id = @id AND status = 'processing' RETURNING *`)
      .get({ id, url, at }) as Row | undefined);
    return row && toRecord(row);
  }

  /** The end of a post that will not go out; `retryable` as spec 7.3 says for the code. */
  failed(id: string, code: PostErrorCode, message: string, retryable: boolean, from: readonly PostStatus[] = ['processing'], lease?: Lease): PostRecord | undefined {
    const row = fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET status = 'failed', error = @message, error_code = @code, retryable = @retryable,
        next_attempt_at = NULL, updated_at = @at WHERE id = @id AND status IN (SELECT value FROM json_each(@from)) RETURNING *`)
      .get({ id, code, message, retryable: retryable ? 1 : 0, from: JSON.stringify(from), at: now() }) as Row | undefined);
    return row && toRecord(row);
  }

  /**
   * A retryable failure with attempts left: tried again at `next`. With nothing handed to the platform yet
   * (no saved progress) the post is `scheduled` again and can still be canceled; with progress (a session,
   * a container, an accepted upload that may still go live) it stays `processing` (the publisher then hands
   * its lease back), so the next attempt resumes it and a cancel cannot pretend to stop it.
   */
  retryLater(id: string, next: string, lease?: Lease): PostRecord | undefined {
    const row = fenced(this.db, lease, () => this.db.prepare(`UPDATE posts SET status = CASE WHEN publish_state IS NULL THEN 'scheduled' ELSE 'processing' END,
        next_attempt_at = @next, updated_at = @at WHERE id = @id AND status = 'processing' RETURNING *`)
      .get({ id, next, at: now() }) as Row | undefined);
    return row && toRecord(row);
  }

  /** Posts of one connected account still to go out (scheduled or processing). */
  pendingForConnectedAccount(connectedAccountId: string): PostRecord[] {
    return (this.db.prepare(`SELECT * FROM posts WHERE connected_account_id = ? AND status IN ('scheduled', 'processing')`)
      .all(connectedAccountId) as Row[]).map(toRecord);
  }

  /** Is any post of this connected account at exactly this time (not canceled or failed)? One post per automation slot. */
  slotTaken(connectedAccountId: string, at: string): boolean {
    return this.db.prepare(`SELECT 1 FROM posts WHERE connected_account_id = ? AND scheduled_at = ? AND status IN ('scheduled', 'processing', 'published') LIMIT 1`)
      .get(connectedAccountId, at) !== undefined;
  }

  /** Has automation ever made a post of this clip for this connected account (canceled ones count: the user said no)? */
  hasAutomationPost(connectedAccountId: string, shortId: string): boolean {
    return this.db.prepare(`SELECT 1 FROM posts WHERE connected_account_id = ? AND short_id = ? AND source = 'automation' LIMIT 1`)
      .get(connectedAccountId, shortId) !== undefined;
  }
}
