// The writes of the posts table (issue 16): scheduling, canceling, the publisher's claim of due posts,
// its saved progress, and the end of an attempt (published, failed, or retried later). Every change is one
// guarded UPDATE, so two processes (a serve and a `shorts posts run`, or a cancel racing a claim) never both
// win: the status in the WHERE clause decides. Reading lists stays in JobStore.listPosts (spec 4.6 filters).
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { PostObject } from '../api/types.js';
import type { Platform, PostErrorCode, PublishState } from '../publish/types.js';

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
  runnerPid: number | null;
  createdAt: string;
  updatedAt: string | null;
}

interface Row {
  id: string; account_id: string; connected_account_id: string | null; platform: Platform; status: PostStatus; scheduled_at: string;
  published_at: string | null; url: string | null; short_id: string; request_id: string; title: string; description: string;
  account_handle: string; source: 'manual' | 'automation'; error: string | null; error_code: PostErrorCode | null; retryable: number | null;
  publish_state: string | null; attempts: number; next_attempt_at: string | null; runner_pid: number | null; created_at: string; updated_at: string | null;
}

function toRecord(r: Row): PostRecord {
  return {
    id: r.id, accountId: r.account_id, connectedAccountId: r.connected_account_id, platform: r.platform, status: r.status,
    scheduledAt: r.scheduled_at, publishedAt: r.published_at, url: r.url, shortId: r.short_id, requestId: r.request_id, title: r.title,
    description: r.description, accountHandle: r.account_handle, source: r.source, error: r.error, errorCode: r.error_code,
    retryable: r.retryable === null ? null : r.retryable === 1, publishState: r.publish_state ? JSON.parse(r.publish_state) as PublishState : null,
    attempts: r.attempts, nextAttemptAt: r.next_attempt_at, runnerPid: r.runner_pid, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}

/** The API's Post object (spec 2.4) of a row of the posts table (JobStore's lists read through this too). */
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
   * Takes the posts due now for this process: scheduled and due (and past any retry wait) become
   * `processing` with the runner's pid and one more attempt; posts left `processing` by a process that is gone
   * (`orphan(pid)` true), or waiting out a retry with progress kept (runner_pid NULL), are taken over as they
   * are. One statement per post, guarded by its status and runner, so two processes never take the same post.
   */
  claimDue(pid: number, scope: PostScope, orphan: (runnerPid: number, postId: string) => boolean, limit: number, at = now()): PostRecord[] {
    const claimed: PostRecord[] = [];
    const params = { local: LOCAL_ACCOUNT, at, limit };
    const take = this.db.prepare(`UPDATE posts SET status = 'processing', runner_pid = @pid, attempts = attempts + 1, next_attempt_at = NULL,
        updated_at = @at WHERE id = @id AND status = 'scheduled' RETURNING *`);
    const retake = this.db.prepare(`UPDATE posts SET runner_pid = @pid, attempts = attempts + @more, next_attempt_at = NULL, updated_at = @at
        WHERE id = @id AND status = 'processing' AND runner_pid IS @old RETURNING *`);
    this.db.transaction(() => {
      const due = this.db.prepare(`SELECT id FROM posts WHERE status = 'scheduled' AND ${scopeClause(scope)}
          AND scheduled_at <= @at AND (next_attempt_at IS NULL OR next_attempt_at <= @at) ORDER BY scheduled_at, id LIMIT @limit`)
        .all(params) as { id: string }[];
      for (const { id } of due) {
        const row = take.get({ id, pid, at }) as Row | undefined;
        if (row) claimed.push(toRecord(row));
      }
      const left = limit - claimed.length;
      if (left <= 0) return;
      const stale = this.db.prepare(`SELECT id, runner_pid AS pid, next_attempt_at AS next FROM posts WHERE status = 'processing' AND ${scopeClause(scope)}
          ORDER BY scheduled_at, id`).all(params) as { id: string; pid: number | null; next: string | null }[];
      const taken = new Set(claimed.map((p) => p.id));
      for (const s of stale) {
        if (claimed.length >= limit) break;
        // Just taken above: this process holds it now, it is no orphan.
        if (taken.has(s.id)) continue;
        // A retry wait ends at next_attempt_at (a new attempt); a dead runner's publish is resumed (the same attempt).
        const waiting = s.pid === null;
        if (waiting ? s.next !== null && s.next > at : !orphan(s.pid!, s.id)) continue;
        const row = retake.get({ id: s.id, pid, old: s.pid, more: waiting ? 1 : 0, at }) as Row | undefined;
        if (row) claimed.push(toRecord(row));
      }
    })();
    return claimed;
  }

  /** The earliest time something of this scope becomes due (the scheduler sleeps until then at most). */
  nextDueAt(scope: PostScope): string | null {
    const row = this.db.prepare(`SELECT MIN(COALESCE(next_attempt_at, scheduled_at)) AS at FROM posts
      WHERE ${scopeClause(scope)} AND ((status = 'scheduled') OR (status = 'processing' AND runner_pid IS NULL))`).get({ local: LOCAL_ACCOUNT }) as { at: string | null };
    return row.at;
  }

  /** The connector's progress, written before it takes a step that must not be repeated (synchronous: it is on disk when this returns). */
  saveState(id: string, pid: number, state: PublishState): void {
    this.db.prepare(`UPDATE posts SET publish_state = @state, updated_at = @at WHERE id = @id AND status = 'processing' AND runner_pid = @pid`)
      .run({ id, pid, state: JSON.stringify(state), at: now() });
  }

  published(id: string, url: string | null, at = now()): PostRecord | undefined {
    const row = this.db.prepare(`UPDATE posts SET status = 'published', published_at = @at, url = @url, error = NULL, error_code = NULL,
        retryable = NULL, runner_pid = NULL, next_attempt_at = NULL, updated_at = @at WHERE id = @id AND status = 'processing' RETURNING *`)
      .get({ id, url, at }) as Row | undefined;
    return row && toRecord(row);
  }

  /** The end of a post that will not go out; `retryable` as spec 7.3 says for the code. */
  failed(id: string, code: PostErrorCode, message: string, retryable: boolean, from: readonly PostStatus[] = ['processing']): PostRecord | undefined {
    const row = this.db.prepare(`UPDATE posts SET status = 'failed', error = @message, error_code = @code, retryable = @retryable,
        runner_pid = NULL, next_attempt_at = NULL, updated_at = @at WHERE id = @id AND status IN (SELECT value FROM json_each(@from)) RETURNING *`)
      .get({ id, code, message, retryable: retryable ? 1 : 0, from: JSON.stringify(from), at: now() }) as Row | undefined;
    return row && toRecord(row);
  }

  /**
   * A retryable failure with attempts left: tried again at `next`. With nothing handed to the platform yet
   * (no saved progress) the post is `scheduled` again and can still be canceled; with progress (a session,
   * a container, an accepted upload that may still go live) it stays `processing`, runner released, so the
   * next attempt resumes it and a cancel cannot pretend to stop it.
   */
  retryLater(id: string, next: string): PostRecord | undefined {
    const row = this.db.prepare(`UPDATE posts SET status = CASE WHEN publish_state IS NULL THEN 'scheduled' ELSE 'processing' END,
        runner_pid = NULL, next_attempt_at = @next, updated_at = @at WHERE id = @id AND status = 'processing' RETURNING *`)
      .get({ id, next, at: now() }) as Row | undefined;
    return row && toRecord(row);
  }

  /** Gives a post back when its process stops on purpose (shutdown): the next start resumes it at once. */
  release(id: string, pid: number): void {
    this.db.prepare(`UPDATE posts SET runner_pid = NULL, next_attempt_at = NULL, attempts = MAX(attempts - 1, 0), updated_at = @at
      WHERE id = @id AND status = 'processing' AND runner_pid = @pid`).run({ id, pid, at: now() });
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
