// The idempotency-key port (issue 23): what `POST` answers a client may ask for again. A client that timed
// out on a create (or a batch killed between its create and saving the request id) sends the same
// `Idempotency-Key` again and gets the first answer back instead of a second request and a second charge,
// as payment APIs do. Keys are scoped to the API account that sent them; a record lives 24 hours.
//
// A key goes through three states: claimed (its first request is running, under a hold that expires so a
// process killed mid-request does not block the key for ever), answered (the first answer, replayed to
// every later request with the same fingerprint), or gone (released after an error answer, or expired).

/** The first answer to a key: what is replayed. */
export interface IdempotentAnswer {
  status: number;
  /** The answer's body as sent (JSON text), replayed byte for byte. */
  body: string;
}

export interface IdempotencyScope {
  accountId: string;
  key: string;
}

export type IdempotencyClaim =
  /** This caller runs the request and must `complete` or `release` with this token. */
  | { kind: 'claimed'; token: string }
  /** The key was answered before, for the same request: send that answer again. */
  | { kind: 'replay'; answer: IdempotentAnswer }
  /** The key was used for another request (method, path or body differ). */
  | { kind: 'mismatch' }
  /** The first request with this key is still running (its hold has not expired): wait and ask again. */
  | { kind: 'in_flight' };

export interface IdempotencyStore {
  /**
   * Claims the key for a request with this fingerprint, atomically: of concurrent callers exactly one gets
   * `claimed`. A record older than `ttlMs` counts as absent; a claim whose hold (`holdMs`) expired without an
   * answer (its process died) is taken over with a new token.
   */
  claim(scope: IdempotencyScope, fingerprint: string, opts: { ttlMs: number; holdMs: number }): Promise<IdempotencyClaim>;
  /** Stores the first answer (only while `token` still holds the claim; false when it was taken over). */
  complete(scope: IdempotencyScope, token: string, answer: IdempotentAnswer): Promise<boolean>;
  /** Forgets a claim that ended without an answer worth keeping (an error that changed nothing), so a retry runs again. */
  release(scope: IdempotencyScope, token: string): Promise<void>;
  /** Removes records older than `ttlMs`, at most `limit` of them (a batch; all without); returns how many went. */
  purge(ttlMs: number, limit?: number): Promise<number>;
}

/** How long a key's first answer is replayed (docs/api.md: "within 24 hours"); housekeeping purges older ones. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
