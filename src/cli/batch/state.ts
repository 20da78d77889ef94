// batch.json: the report a CI job reads and the state a re-run resumes from, one file. It is rewritten
// after every change through a temp file and a rename, so a kill -9 at any moment leaves either the
// previous or the next complete version, never half of one.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from '../cli-error.js';
import { SOURCE_FIELDS, sourceOf, type PlannedItem } from './items.js';

export const STATE_FILE = 'batch.json';
export const STATE_VERSION = 1;

/**
 * pending: not started yet. running: a request is (or was, when the process died) working on it.
 * completed: clips written. failed: the create was refused or the request failed (reason given).
 * cancelled: the request was cancelled from outside (`shorts cancel`, the API). interrupted: stopped by
 * Ctrl-C, or found `running` after the batch process died; a re-run continues it.
 */
export type ItemStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

export interface ClipRecord {
  rank: number;
  id: string;
  title: string;
  viralScore: number;
  start: number;
  end: number;
  duration: number;
  /** The MP4 and its cover, relative to the batch folder (null when the clip failed to render). */
  file: string | null;
  cover: string | null;
  /** Why this one clip failed to render (the others are still there). */
  error?: string;
}

export interface ItemRecord {
  /** Digest of the source, range and options: the item's identity across runs. */
  digest: string;
  /** Its folder, relative to the batch folder (or absolute when a manifest's `out` put it elsewhere). */
  out: string;
  /** Where the item came from: a path given on the command line, or "manifest.csv line 4". */
  origin: string;
  source: { kind: 'file' | 'fileUrl' | 'url'; value: string };
  /** The range asked for (null: the whole source, local mode). */
  start: number | null;
  end: number | null;
  /** Every create option sent besides the source and range, under its API name. */
  options: Record<string, unknown>;
  status: ItemStatus;
  requestId: string | null;
  /**
   * Remote: the Idempotency-Key of the item's current try, saved before its create is sent (issue 23). A
   * batch killed after the server made the request but before its id was saved sends the same key on the
   * re-run and gets that request back, not a second one and a second charge. A new try gets a new key.
   * Absent in state files written before it existed.
   */
  idempotencyKey?: string | null;
  /** Earlier requests of this item (a failed try, an interrupted one), oldest first. */
  previousRequestIds: string[];
  attempts: number;
  clips: ClipRecord[];
  failureReason: string | null;
  warnings: string[];
  /** Seconds of source the request covers (its range), once known: the unit of the progress ETA. */
  sourceSeconds: number | null;
  timings: { startedAt: string | null; finishedAt: string | null; seconds: number | null };
}

export interface BatchTotals {
  items: number;
  completed: number;
  failed: number;
  cancelled: number;
  interrupted: number;
  pending: number;
  running: number;
  clips: number;
  /** Seconds of source in completed items. */
  sourceSeconds: number;
}

export interface BatchState {
  version: typeof STATE_VERSION;
  mode: 'local' | 'remote';
  /** Items run at once (local) or requests in flight (remote), as last run. */
  concurrency: number;
  createdAt: string;
  /** When the last run started and finished (null while it runs, or when it died). */
  runStartedAt: string;
  finishedAt: string | null;
  updatedAt: string;
  items: ItemRecord[];
  totals: BatchTotals;
}

export function newItemRecord(item: PlannedItem): ItemRecord {
  const body = item.body as Record<string, unknown>;
  const kind = SOURCE_FIELDS.find((f) => typeof body[f] === 'string' && body[f] !== '') ?? 'file';
  const options: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!(SOURCE_FIELDS as readonly string[]).includes(k) && k !== 'start' && k !== 'end') options[k] = v;
  return {
    digest: item.key,
    out: item.name,
    origin: item.origin,
    source: { kind, value: sourceOf(item.body) },
    start: typeof body.start === 'number' ? body.start : null,
    end: typeof body.end === 'number' ? body.end : null,
    options,
    status: 'pending',
    requestId: null,
    idempotencyKey: null,
    previousRequestIds: [],
    attempts: 0,
    clips: [],
    failureReason: null,
    warnings: [],
    sourceSeconds: typeof body.start === 'number' && typeof body.end === 'number' ? body.end - body.start : null,
    timings: { startedAt: null, finishedAt: null, seconds: null },
  };
}

export function totalsOf(items: readonly ItemRecord[]): BatchTotals {
  const count = (s: ItemStatus) => items.filter((i) => i.status === s).length;
  return {
    items: items.length,
    completed: count('completed'),
    failed: count('failed'),
    cancelled: count('cancelled'),
    interrupted: count('interrupted'),
    pending: count('pending'),
    running: count('running'),
    clips: items.reduce((n, i) => n + i.clips.filter((c) => c.file !== null).length, 0),
    sourceSeconds: round(items.filter((i) => i.status === 'completed').reduce((n, i) => n + (i.sourceSeconds ?? 0), 0)),
  };
}

export function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/** The saved state of a batch folder, or null when there is none yet. */
export function loadState(dir: string): BatchState | null {
  const file = path.join(dir, STATE_FILE);
  if (!existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`${file} is not readable JSON (${(e as Error).message}); move it away to start the batch afresh`, EXIT.failure);
  }
  const state = parsed as Partial<BatchState> | null;
  if (!state || state.version !== STATE_VERSION || !Array.isArray(state.items)) {
    throw new CliError(`${file} is not a shorts batch state (version ${STATE_VERSION}); move it away to start the batch afresh`, EXIT.failure);
  }
  return state as BatchState;
}

/** Writes the state (totals refreshed) atomically: a temp file in the same folder, then a rename over the old one. */
export function saveState(dir: string, state: BatchState): void {
  state.updatedAt = new Date().toISOString();
  state.totals = totalsOf(state.items);
  const file = path.join(dir, STATE_FILE);
  const tmp = path.join(dir, `.${STATE_FILE}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
