// Why a job's work stops without failing its request: a server shutting down (ShutdownSignal, the abort reason a
// worker's stop gives), a cancel (AbortedError), or a lease another process took over (issue 22). Every piece of
// the engine that runs a request's work (request-run.ts, clip-jobs.ts, rerender.ts, clip-render.ts) asks here
// which of them it is, so they all tell them apart the same way.
import { LeaseLost } from '../ports/leases.js';
import { AbortedError } from '../media/process.js';

/**
 * Abort reason for a server shutting down: the request is neither cancelled nor failed, it stays
 * `processing` with its checkpoints so the next start resumes it.
 */
export class ShutdownSignal extends Error {
  constructor() {
    super('the server is shutting down');
    this.name = 'ShutdownSignal';
  }
}

/** Whether work stopped because another process took its lease over (the keeper aborted it, or a write was refused). */
export function lostLease(e: unknown, signal: AbortSignal): boolean {
  return e instanceof LeaseLost || (signal.aborted && signal.reason instanceof LeaseLost);
}

/** Errors no retry may hold back: a cancel, a shutdown, a lease another process took. */
export function passesThrough(signal: AbortSignal): (e: unknown) => boolean {
  return (e) => e instanceof AbortedError || lostLease(e, signal);
}
