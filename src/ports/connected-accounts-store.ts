// The connected accounts port (issue 22): the platform accounts an API account posts as (issue 16), as
// stored. Storage only: the rules (validation, handles, refresh policy) and the token encryption live in
// src/posts/connected-accounts.ts above every adapter, so the store only ever sees ciphertext. Today's
// adapter is src/adapters/sqlite/connected-accounts-store.ts; test/conformance/connected-accounts-store.ts
// says what any adapter must do.
import type { Platform } from '../domain/post.js';

export interface ConnectedAccountRecord {
  id: string;
  /** The API account it belongs to. */
  accountId: string;
  platform: Platform;
  /** Without `@`. */
  handle: string;
  platformUserId: string | null;
  /** Sealed (token-box ciphertext), never the token itself. */
  accessToken: string;
  refreshToken: string | null;
  expiresAt: string | null;
  refreshExpiresAt: string | null;
  scopes: string[];
  status: 'active' | 'expired';
  createdAt: string;
  updatedAt: string;
}

/** What a connect (or reconnect) stores; the sealed tokens are bound to the account's id, hence `seal(id)`. */
export interface AccountTokensWrite {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: string | null;
  refreshExpiresAt: string | null;
  scopes: string[];
}

/** What a successful refresh stores: null fields keep what was there (a refresh token that did not rotate). */
export interface RefreshWrite {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: string | null;
  refreshExpiresAt: string | null;
  scopes: string[] | null;
  platformUserId: string | null;
  at: string;
}

export interface ConnectedAccountsStore {
  get(id: string): Promise<ConnectedAccountRecord | undefined>;
  /** The API account's connected accounts, oldest first (then by id), optionally of one platform. */
  list(accountId: string, platform?: Platform): Promise<ConnectedAccountRecord[]>;
  findByHandle(accountId: string, platform: Platform, handle: string): Promise<ConnectedAccountRecord | undefined>;
  /** The API account holding the platform account with this platform id; the oldest holder when several do. */
  holderOf(platform: Platform, platformUserId: string): Promise<string | undefined>;
  /**
   * Saves an account by (accountId, platform, handle), as one unit of work: a new one gets `newId`; an existing
   * one (a reconnect) keeps its id and creation time, gets the new tokens and becomes `active` again (its
   * platformUserId is kept when none is given). `seal` is called once with the id the row will have, inside the
   * unit of work, and must be pure (it encrypts the tokens for that id).
   */
  upsert(key: { accountId: string; platform: Platform; handle: string }, newId: string, fields: { platformUserId: string | null; at: string },
    seal: (id: string) => AccountTokensWrite): Promise<ConnectedAccountRecord>;
  /**
   * Deletes an account of this API account (its automation rules go with it) and cancels its `scheduled` posts
   * in the same unit of work. How many were canceled, or null when there is no such account of this API account.
   */
  remove(accountId: string, id: string, at: string): Promise<{ canceledPosts: number } | null>;
  /** Stores refreshed tokens and makes the account active. */
  saveRefreshed(id: string, w: RefreshWrite): Promise<void>;
  /**
   * Marks the account `expired` and fails its scheduled and processing posts with `auth_expired` (not retryable,
   * `message` as their error) in the same unit of work.
   */
  expire(id: string, message: string, at: string): Promise<void>;
  /** Active accounts whose access token ends at or before `limit` (ISO), for the scheduler's refresh pass. */
  expiringBy(limit: string): Promise<string[]>;
}
