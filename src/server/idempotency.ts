// Idempotency keys on the API's state-changing POSTs (issue 23), as payment APIs have them: a client sends
// `Idempotency-Key: <its own unique string>`; the first request with it runs, and every later one with the
// same key, method, path and body gets the first answer back (`Idempotent-Replayed: true`) without running
// again: no second request, no second charge. The same key with another body is 409
// `idempotency_key_reused`; a duplicate arriving while the first still runs waits for its answer.
// Only success answers are kept: an error changed nothing, so a retry with the key runs again.
// Answers past the window are purged by the housekeeping of the processes that run workers (src/engine/housekeeping.ts).
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShortsError } from '../errors.js';
import { IDEMPOTENCY_TTL_MS, type IdempotencyScope, type IdempotencyStore, type IdempotentAnswer } from '../ports/idempotency.js';

/**
 * How long a first request holds its key before another may take it over: longer than any POST runs (a
 * create waits at most ~30 s on the source's URL check), short enough that a process killed mid-request
 * frees the key the same morning.
 */
const HOLD_MS = 5 * 60_000;
/** How long a duplicate waits for the first request's answer before it is told to retry. */
const WAIT_MS = 60_000;
const POLL_MS = 100;

/** Printable ASCII without spaces, like the keys clients make (UUIDs, digests, "batch-<item>-<try>"). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The request's key, null when it sent none; 400 `invalid_request` for one that is empty, too long or not printable ASCII. */
export function idempotencyKeyOf(headers: http.IncomingHttpHeaders): string | null {
  const raw = headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? raw.join(',') : raw;
  if (!KEY_PATTERN.test(key)) {
    throw new ShortsError('invalid_request', 'the Idempotency-Key header must be 1 to 255 printable ASCII characters without spaces', { parameter: 'Idempotency-Key' });
  }
  return key;
}

/** What makes two requests "the same": method, path and the body's JSON with its keys in a fixed order. */
export function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Runs POSTs under their keys; one per server (it also knows which keys this process is answering right now). */
export class IdempotentRequests {
  /** Keys whose first request runs in this process: a duplicate here waits on it instead of polling the store. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly store: IdempotencyStore) {}

  /** The first answer to this key (running `run` to get it when there is none yet), and whether it was replayed. */
  async answer(scope: IdempotencyScope, fingerprint: string, run: () => Promise<IdempotentAnswer>): Promise<{ answer: IdempotentAnswer; replayed: boolean }> {
    const name = `${scope.accountId}\n${scope.key}`;
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const claim = await this.store.claim(scope, fingerprint, { ttlMs: IDEMPOTENCY_TTL_MS, holdMs: HOLD_MS });
      if (claim.kind === 'replay') return { answer: claim.answer, replayed: true };
      if (claim.kind === 'mismatch') {
        throw new ShortsError('idempotency_key_reused', 'this Idempotency-Key was used for a different request (method, path or body) in the last 24 hours; use a new key for a new request', { parameter: 'Idempotency-Key' });
      }
      if (claim.kind === 'in_flight') {
        if (Date.now() >= deadline) {
          throw new ShortsError('idempotency_key_in_use', 'the first request with this Idempotency-Key is still running; retry it later with the same key', { parameter: 'Idempotency-Key' });
        }
        const here = this.running.get(name);
        await (here ? here.catch(() => {}) : sleep(POLL_MS));
        continue;
      }
      const first = this.runFirst(scope, claim.token, run);
      this.running.set(name, first);
      try {
        return { answer: await first, replayed: false };
      } finally {
        if (this.running.get(name) === first) this.running.delete(name);
      }
    }
  }

  private async runFirst(scope: IdempotencyScope, token: string, run: () => Promise<IdempotentAnswer>): Promise<IdempotentAnswer> {
    let answer: IdempotentAnswer;
    try {
      answer = await run();
    } catch (e) {
      await this.store.release(scope, token);
      throw e;
    }
    if (answer.status >= 200 && answer.status < 300) await this.store.complete(scope, token, answer);
    else await this.store.release(scope, token);
    return answer;
  }
}
