// The lease port (issue 22 point 3): who runs a request, a re-render, a post or an automation run is the
// owner of its lease, never a process id. A lease has an expiry on the store's clock (one clock for every
// process, whatever machine or PID namespace it runs in) that its holder's heartbeat pushes forward; another
// owner takes it only once it has expired, and each takeover changes the fencing token, so the writes that
// finish a step can be made conditional on (owner, token) still being the lease's.

export type LeaseKind = 'request' | 'clip' | 'rerender' | 'post' | 'automation' | 'batch';

export interface LeaseKey {
  kind: LeaseKind;
  id: string;
}

export interface Lease {
  key: LeaseKey;
  owner: string;
  /**
   * Fencing number: FIRST_TOKEN for the first lease ever taken on a key, then changed on every takeover by
   * another owner (never on a renewal or a same-owner re-acquire).
   */
  token: number;
  /** Milliseconds since the epoch, on the store's clock. */
  expiresAt: number;
}

/** The token of the first lease ever taken on a key: a larger one means another owner held it before. */
export const FIRST_TOKEN = 1;

/** Who holds a key now (an unexpired lease). */
export type LeaseHolder = Pick<Lease, 'owner' | 'token' | 'expiresAt'>;

export interface LeaseStore {
  /**
   * Takes the key for `owner` for `ttlMs`: succeeds when it is free, expired, or already held by this owner
   * (then it is extended, same token). Null when another owner holds it. Atomic: of concurrent acquirers of a
   * free key exactly one gets it.
   */
  acquire(key: LeaseKey, owner: string, ttlMs: number): Promise<Lease | null>;
  /** Extends a lease still held (same owner and token); null when it was taken over (the holder must stop). */
  renew(lease: Lease, ttlMs: number): Promise<Lease | null>;
  /** Frees a lease still held, so another owner may take it at once; false when it was not held any more. */
  release(lease: Lease): Promise<boolean>;
  /** The current unexpired holder of a key, or null when it is free. */
  holder(key: LeaseKey): Promise<LeaseHolder | null>;
  /**
   * Forgets at most `limit` leases released, or expired at least `expiredForMs` ago; returns how many went.
   * A forgotten key is as if never acquired: its next lease has FIRST_TOKEN again, and its old holder can
   * neither renew it nor pass a fenced write (no holder goes that long without a heartbeat and keeps working).
   * A live request's lease is kept whatever its age: its token tells a local runner whether another process
   * had the request before it (src/client/local-client.ts).
   */
  prune(expiredForMs: number, limit: number): Promise<number>;
}

/** How long an expired lease is remembered before housekeeping forgets it (a released one goes at the next pass). */
export const KEEP_EXPIRED_LEASES_MS = 24 * 3600_000;

/**
 * The abort reason (and error) of work whose lease another owner took over: that work stops without a
 * finishing write, because the new owner does it.
 */
export class LeaseLost extends Error {
  constructor(readonly key: LeaseKey) {
    super(`the lease on ${key.kind} ${key.id} was taken over by another process`);
    this.name = 'LeaseLost';
  }
}

export function leaseName(key: LeaseKey): string {
  return `${key.kind}:${key.id}`;
}
