// Which driver errors mean the server could not be reached or dropped the connection (so the call may work
// once it is back), as opposed to a statement or a script that failed: the adapters turn the former into the
// port's EngineUnavailable (src/ports/unavailable.ts) with `unavailableIfLost`.
import { EngineUnavailable } from '../ports/unavailable.js';

/** Socket errors of Node: refused, reset, timed out, unresolvable. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's SQLSTATEs of a server going or not there yet: class 08 (connection exception), 57P01-57P03
 * (terminated by a shutdown, a crash, or refused while it starts or stops), 53300 (no connection slot left).
 */
function unavailableSqlState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/** node-postgres's own errors for a connection that died or never came (they carry no code). */
const PG_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed)/;

/** Whether `e`, or an error it wraps (a migration's error naming the setting), says the server is out of reach. */
export function connectionLost(e: unknown): boolean {
  for (let c = e, depth = 0; c instanceof Error && depth < 4; c = c.cause, depth++) if (lost(c)) return true;
  return false;
}

function lost(e: Error): boolean {
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || unavailableSqlState(code))) return true;
  // ioredis: a command that waited through too many reconnections, or was sent on a closed connection.
  if (e.name === 'MaxRetriesPerRequestError' || e.message === 'Connection is closed.') return true;
  return PG_MESSAGES.test(e.message);
}

/** What an adapter of `engine` throws for `e`: the port's EngineUnavailable when the server is out of reach (once), else `e` as it came. */
export function unavailableIfLost(engine: EngineUnavailable['engine'], e: unknown): unknown {
  return connectionLost(e) && !(e instanceof EngineUnavailable) ? new EngineUnavailable(engine, e) : e;
}
