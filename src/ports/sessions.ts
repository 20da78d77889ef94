// The studio's sign-in sessions port (issue 25). A session is what the `shorts_session` cookie stands for:
// an account, the API key it was opened with (null for the local `shorts studio`, which has no key) and
// an expiry. Only a SHA-256 of the cookie's random token is stored, so a copy of the database opens no session.

export interface SessionRecord {
  /** Hex SHA-256 of the cookie's token. */
  tokenHash: string;
  accountId: string;
  /** The key signed in with: revoking it ends the session. null: the local studio's account. */
  keyId: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface SessionsPort {
  create(session: SessionRecord): Promise<void>;
  /** The session with this token hash, unless it has expired by `nowIso`. */
  findByTokenHash(tokenHash: string, nowIso: string): Promise<SessionRecord | undefined>;
  /** Signs out: false when there was no such session. */
  delete(tokenHash: string): Promise<boolean>;
  /** Removes sessions expired by `nowIso`; returns how many went. */
  deleteExpired(nowIso: string): Promise<number>;
}
