// Runs a batch: merges the planned items with the saved state, then works through what is left with at
// most N items at once (locally N jobs in this process, each one's heavy work in its own ffmpeg/whisper.cpp
// children; remotely N requests in flight), saving the state after every change.
import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CreateBody, ShortsClient } from '../../client/shorts-client.js';
import type { CreateResponse, RequestDetail, StatusResponse } from '../../api/types.js';
import { ShortsError, rateLimitWaitSec } from '../../errors.js';
import { writeOutFolder } from '../out-folder.js';
import { probeMedia } from '../../media/probe.js';
import { uniqueName, type PlannedItem } from './items.js';
import { Throughput, type ProgressSink } from './progress.js';
import { newItemRecord, round, saveState, STATE_VERSION, totalsOf, type BatchState, type ClipRecord, type ItemRecord } from './state.js';

/** Joins what the command asks for with what an earlier run of it left (null: none). */
export function mergeState(plan: readonly PlannedItem[], saved: BatchState | null, mode: 'local' | 'remote', concurrency: number): { state: BatchState; dropped: ItemRecord[] } {
  const now = new Date().toISOString();
  const old = new Map((saved?.items ?? []).map((i) => [i.digest, i]));
  const keptOut = new Set<string>();
  for (const p of plan) {
    const kept = old.get(p.key);
    if (kept) keptOut.add(kept.out.toLowerCase());
  }
  const items = plan.map((p) => {
    const kept = old.get(p.key);
    if (!kept) {
      // A kept item keeps its folder; a new one does not move into it (their files would mix).
      const record = newItemRecord(p);
      record.out = keptOut.has(record.out.toLowerCase()) ? uniqueName(record.out, keptOut) : record.out;
      keptOut.add(record.out.toLowerCase());
      return record;
    }
    old.delete(p.key);
    // Found `running`: the process that ran it is gone (this one holds the folder's lock now).
    if (kept.status === 'running') kept.status = 'interrupted';
    kept.origin = p.origin;
    return kept;
  });
  const state: BatchState = {
    version: STATE_VERSION,
    mode,
    concurrency,
    createdAt: saved?.createdAt ?? now,
    runStartedAt: now,
    finishedAt: null,
    updatedAt: now,
    items,
    totals: totalsOf(items),
  };
  return { state, dropped: [...old.values()] };
}

/** Whether a re-run works on an item: anything not finished, and failures only when asked to. */
export function shouldRun(item: ItemRecord, retryFailed: boolean): boolean {
  if (item.status === 'completed') return false;
  if (item.status === 'failed' || item.status === 'cancelled') return retryFailed;
  return true;
}

export interface RunOptions {
  client: ShortsClient;
  /** The batch folder (absolute): batch.json and the items' folders. */
  dir: string;
  concurrency: number;
  retryFailed: boolean;
  /** Aborted by Ctrl-C: running requests are cancelled and their items left `interrupted`. */
  signal: AbortSignal;
  progress: ProgressSink;
  /** Called with the run's throughput tracker once it exists (the progress display reads it). */
  onThroughput?: (t: Throughput) => void;
}

export async function runBatch(state: BatchState, opts: RunOptions): Promise<void> {
  const { client, dir, signal, progress } = opts;
  const save = () => saveState(dir, state);
  const queue = state.items.filter((i) => shouldRun(i, opts.retryFailed));
  const throughput = new Throughput(queue);
  opts.onThroughput?.(throughput);
  progress.begin({ total: state.items.length, toRun: queue.length, alreadyDone: state.items.filter((i) => i.status === 'completed').length, concurrency: opts.concurrency, folder: dir });
  save();
  const gate = new CreateGate(progress);
  let next = 0;
  const worker = async () => {
    while (!signal.aborted && next < queue.length) {
      const item = queue[next++]!;
      await runItem(item, { ...opts, save, throughput, gate });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, queue.length)) }, worker));
  state.finishedAt = new Date().toISOString();
  save();
  progress.end();
}

interface ItemContext extends RunOptions { save: () => void; throughput: Throughput; gate: CreateGate }

async function runItem(item: ItemRecord, ctx: ItemContext): Promise<void> {
  const { client, signal, progress, throughput } = ctx;
  const startedMs = Date.now();
  item.status = 'running';
  item.attempts++;
  item.failureReason = null;
  item.warnings = [];
  item.timings = { startedAt: new Date(startedMs).toISOString(), finishedAt: null, seconds: null };
  throughput.started(item);
  progress.itemStarted(item);
  try {
    if (item.sourceSeconds === null) await sizeFromSource(item, signal).then(() => throughput.sized(item));
    let id = await earlierRequest(item, client);
    // A try without a request yet sends one create under one key, kept from a run killed before it saved the id.
    if (id === null && client.mode === 'remote') item.idempotencyKey ??= randomUUID();
    // Saved once the earlier request is judged (and before the create goes out, with its key): `running`
    // with a requestId always names the live try.
    ctx.save();
    if (id === null) {
      const created = await ctx.gate.create(client, bodyOf(item), signal, item.idempotencyKey ?? undefined);
      id = created.requestId;
      item.requestId = id;
      const adjusted = created.timeAdjustment?.adjusted;
      if (adjusted) {
        item.sourceSeconds = round(adjusted.end - adjusted.start);
        throughput.sized(item);
        item.warnings.push(`range adjusted to the video's length: ${adjusted.start}-${adjusted.end} s`);
      }
      ctx.save();
    }
    const final = await client.wait(id, {
      signal,
      onStatus: (s) => {
        throughput.progress(item, s.progress / 100);
        progress.itemStatus(item, s);
      },
      onClipRendered: (done, total) => progress.itemClip(item, done, total),
    });
    item.warnings.push(...(final.warnings ?? []));
    await settle(item, final, ctx);
  } catch (e) {
    if (signal.aborted) item.status = 'interrupted';
    else {
      item.status = 'failed';
      item.failureReason = describe(e);
    }
  }
  const finishedMs = Date.now();
  item.timings.finishedAt = new Date(finishedMs).toISOString();
  item.timings.seconds = round((finishedMs - startedMs) / 1000);
  ctx.save();
  throughput.finished(item);
  progress.itemFinished(item);
}

/**
 * The request of an earlier try, when it is still worth having: one that completed after all (collected,
 * no new request), or one still queued or running on a server (followed, not created twice: a second
 * create would spend a second credit). Anything else is kept in previousRequestIds and a new one is made.
 */
async function earlierRequest(item: ItemRecord, client: ShortsClient): Promise<string | null> {
  const id = item.requestId;
  if (id === null) return null;
  let status: StatusResponse | null = null;
  try {
    status = await client.status(id);
  } catch (e) {
    if (!(e instanceof ShortsError && e.code === 'resource_not_found')) throw e;
  }
  if (status && (status.status === 'completed' || status.status === 'queued' || status.status === 'processing')) return id;
  item.previousRequestIds.push(id);
  item.requestId = null;
  // That try is over: the next create is a new request, under a new key.
  item.idempotencyKey = null;
  return null;
}

async function settle(item: ItemRecord, final: StatusResponse, ctx: ItemContext): Promise<void> {
  if (final.status === 'completed') {
    const detail = await ctx.client.get(final._id);
    await collect(item, detail, ctx);
    item.status = 'completed';
  } else if (ctx.signal.aborted) {
    // Ctrl-C: cancelled by us, or failed because the terminal's SIGINT reached its ffmpeg/whisper.cpp first.
    item.status = 'interrupted';
  } else if (final.status === 'cancelled') {
    item.status = 'cancelled';
    item.failureReason = 'the request was cancelled';
  } else {
    item.status = 'failed';
    item.failureReason = final.failureReason ?? 'the request failed without a reason';
  }
}

/** The item's folder: exactly what `create --out` writes, after the files of an earlier result are removed. */
async function collect(item: ItemRecord, detail: RequestDetail, ctx: ItemContext): Promise<void> {
  const folder = path.resolve(ctx.dir, item.out);
  clearEarlierOutput(folder);
  const written = await writeOutFolder(ctx.client, detail, folder);
  const relative = (url: string | null | undefined) => {
    if (!url || !url.startsWith('file:')) return null;
    const rel = path.relative(ctx.dir, fileURLToPath(url));
    return rel.startsWith('..') || path.isAbsolute(rel) ? fileURLToPath(url) : rel.split(path.sep).join('/');
  };
  item.clips = written.shorts.map((s, i): ClipRecord => ({
    rank: i + 1,
    id: s.id,
    title: s.title,
    viralScore: s.viral_score,
    start: s.startTimestamp,
    end: s.endTimestamp,
    duration: s.duration,
    file: s.error ? null : relative(s.video_url),
    cover: s.error ? null : relative(s.thumbnail_url),
    ...(s.error ? { error: s.errorMessage ?? 'failed to render' } : {}),
  }));
  item.sourceSeconds = round(detail.end - detail.start);
}

/** Only the names writeOutFolder writes (NN-title.mp4/.jpg, request.json): a manifest's `out` may be a folder with other files. */
function clearEarlierOutput(folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) if (/^\d{2,}-.*\.(mp4|jpg)$/.test(name) || name === 'request.json') rmSync(path.join(folder, name), { force: true });
}

function bodyOf(item: ItemRecord): CreateBody {
  return {
    [item.source.kind]: item.source.value,
    ...(item.start !== null ? { start: item.start } : {}),
    ...(item.end !== null ? { end: item.end } : {}),
    ...item.options,
  } as CreateBody;
}

/** A whole local file (no range): its length from ffprobe, for the ETA; unknown when it cannot be read (the create says why). */
async function sizeFromSource(item: ItemRecord, signal: AbortSignal): Promise<void> {
  if (item.source.kind !== 'file') return;
  try {
    const { info } = await probeMedia(item.source.value, signal);
    item.sourceSeconds = round(Math.max(0, info.durationSec - (item.start ?? 0)));
  } catch { /* the create reports an unreadable file */ }
}

function describe(e: unknown): string {
  if (e instanceof ShortsError) return `${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/**
 * Creates one at a time through a shared gate: a 429 answer (the API's rate limit) holds every item's next
 * create until its `details.retryAfter` has passed, then the same body is sent again (a 429 spent no credit).
 */
class CreateGate {
  private notBefore = 0;

  constructor(private readonly progress: ProgressSink) {}

  async create(client: ShortsClient, body: CreateBody, signal: AbortSignal, idempotencyKey?: string): Promise<CreateResponse> {
    for (;;) {
      const wait = this.notBefore - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal });
      signal.throwIfAborted();
      try {
        return await client.create(body, { idempotencyKey });
      } catch (e) {
        const seconds = rateLimitWaitSec(e);
        if (seconds === null) throw e;
        const until = Date.now() + seconds * 1000;
        if (until > this.notBefore) {
          this.notBefore = until;
          this.progress.note(`rate limited by the server (${(e as ShortsError).message}); the next create in ${seconds} s`);
        }
      }
    }
  }
}
