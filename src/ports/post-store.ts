// The posts port (issue 22): the posts table of issue 16 behind an interface, async so that a server
// database (PostgreSQL) can stand behind it. Today's adapter is src/adapters/sqlite/post-store.ts;
// test/conformance/post-store.ts says what any adapter must do.
//
// Every status change is guarded by the status it starts from, so two processes (a serve and a `shorts posts
// run`, or a cancel racing a claim) never both win. Who publishes a post is the holder of its `post` lease:
// the claim and every write of the publisher take that Lease and, once another process took it over, change
// nothing and reject with LeaseLost (as the request store's fenced writes do).
import type { Lease } from './leases.js';
import type { PostObject, PostsQuery } from '../domain/posts-query.js';
import type { Platform, PostErrorCode, PublishState } from '../domain/post.js';

export type PostStatus = PostObject['status'];

/** What a new post is made of (it starts `scheduled`). */
export interface NewPost {
  /** The API account (`local` in local mode). */
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

/** A post with what the publisher needs besides the API's fields. */
export interface PostRecord extends Omit<NewPost, 'connectedAccountId'> {
  id: string;
  /** Null for posts made before connected accounts (store v7). */
  connectedAccountId: string | null;
  status: PostStatus;
  publishedAt: string | null;
  url: string | null;
  error: string | null;
  errorCode: PostErrorCode | null;
  retryable: boolean | null;
  publishState: PublishState | null;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string | null;
}

/** Which posts a process publishes: `serve` those of API accounts, `shorts posts run` the local account's (`local`). */
export type PostScope = { kind: 'api' } | { kind: 'local' };

/** The API account of local mode: the one scope `local` means. */
export const LOCAL_ACCOUNT = 'local';

export const POST_ID_PATTERN = /^[0-9a-f]{24}$/;

/** The API's Post object (spec 2.4) of a record. */
export function postObject(p: PostRecord): PostObject {
  return {
    id: p.id, platform: p.platform, status: p.status, scheduledAt: p.scheduledAt, publishedAt: p.publishedAt, url: p.url,
    shortId: p.shortId, requestId: p.requestId, title: p.title, account: { handle: p.accountHandle }, source: p.source,
    error: p.error, errorCode: p.errorCode, retryable: p.retryable, createdAt: p.createdAt,
  };
}

export interface RetryLaterOptions {
  /**
   * The attempt just claimed did not really try (the clip was being re-rendered): it is not counted, so a post
   * that waited for a re-render keeps all its retries for the platform.
   */
  uncount?: boolean;
}

export interface PostStore {
  /** A new `scheduled` post with a fresh id (24 hex characters, POST_ID_PATTERN), no attempts yet. */
  insert(p: NewPost): Promise<PostRecord>;
  get(id: string): Promise<PostRecord | undefined>;
  /** Posts of an account (spec 4.6 filters), newest first by the chosen timestamp (then id, descending). */
  listPosts(accountId: string, q: PostsQuery): Promise<{ items: PostObject[]; total: number }>;
  /** Posts made from one clip, newest scheduled first (the `posts` array of a Short object). */
  postsForShort(shortId: string): Promise<PostObject[]>;
  /**
   * scheduled -> canceled, only while it is still scheduled (a publisher that claimed it first wins). The post
   * after, or undefined when it was not scheduled.
   */
  cancel(id: string): Promise<PostRecord | undefined>;
  /**
   * Posts of a scope to take now, whose `post` lease is free: those left `processing` (by a process whose lease
   * expired or that handed them back) first, then scheduled ones that are due, oldest scheduledAt first; none
   * still waiting out a retry. The caller leases one, then claims it. `at`: now (ISO), for tests.
   */
  dueUnleased(scope: PostScope, limit: number, at?: string): Promise<string[]>;
  /**
   * Claims a due post under its lease (taken first by the caller, so two processes never both get it):
   * `processing`, and one more attempt unless it resumes an attempt a stopped process left half-way (a retry
   * wait that ended starts a new one). Undefined when it is not due any more (canceled, published, ...).
   */
  claim(id: string, lease: Lease, at?: string): Promise<PostRecord | undefined>;
  /** The earliest time something of this scope becomes due, or null (the scheduler sleeps until then at most). */
  nextDueAt(scope: PostScope): Promise<string | null>;
  /**
   * The connector's progress, durable when the promise resolves (it is written before a step that must not be
   * repeated). Rejects when nothing was saved: LeaseLost when another process took the post over, an Error
   * when it is not processing any more (its account's posts were failed meanwhile).
   */
  saveState(id: string, lease: Lease, state: PublishState): Promise<void>;
  /** processing -> published; with `lease`, only while it is still held. Undefined when it was not processing. */
  published(id: string, url: string | null, lease?: Lease, at?: string): Promise<PostRecord | undefined>;
  /** The end of a post that will not go out (from one of the `from` statuses, default processing). */
  failed(id: string, failure: { code: PostErrorCode; message: string; retryable: boolean }, lease?: Lease, from?: readonly PostStatus[]): Promise<PostRecord | undefined>;
  /**
   * A retryable failure with attempts left: tried again at `next`. With nothing handed to the platform yet
   * (no saved progress) the post is `scheduled` again and can still be canceled; with progress it stays
   * `processing`, so the next attempt resumes it and a cancel cannot pretend to stop it.
   */
  retryLater(id: string, next: string, lease?: Lease, opts?: RetryLaterOptions): Promise<PostRecord | undefined>;
  /**
   * The saved progress of the newest post of this clip to this connected account on this platform whose upload
   * reached the platform (its state holds UPLOADED_MARK) and whose outcome is not settled: still being published,
   * or failed with a retryable error (processing_timeout, say). A new post of the clip starts from it and checks
   * that upload again instead of uploading a duplicate (issue 23). A published post, or one the platform refused
   * for good (retryable false), is not answered: posting the clip again is then a new upload. Null when there is
   * none. Reads only.
   */
  lastUploadedState(connectedAccountId: string, shortId: string, platform: Platform): Promise<PublishState | null>;
}
