// ShortsClient over the in-process engine: the local SQLite store, whisper.cpp and ffmpeg on this
// machine. `wait` runs the job in the foreground; Ctrl-C (the signal) and `shorts cancel` from another
// terminal both cancel it and kill its child processes. Any number of `shorts` processes share a data dir
// (issue 15): a request has one runner at a time, the holder of its lease (issue 22: renewed by this
// process's heartbeat, taken atomically), and `wait` on a request whose lease another process holds (a
// `create --no-wait` runner, a batch) follows it in the store instead of running it a second time; once that
// lease has expired (its process was killed) the request is settled as interrupted.
import { createWriteStream } from 'node:fs';
import { copyFile, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type {
  CatalogPage, CreateBody, CreateOptions, EditBody, GameVideoItem, MemeHookItem, MusicTrackItem, Query, RerenderWaitOptions, ShortsClient, WaitOptions,
} from './shorts-client.js';
import { TERMINAL, type RequestStore } from '../ports/request-store.js';
import { Orchestrator } from '../engine/orchestrator.js';
import type { MediaRunner } from '../ports/media-runner.js';
import type { ShortObject, StatusResponse } from '../api/types.js';
import { exportLocal } from '../service/export-service.js';
import type { ExportFormat } from '../api/export-formats.js';
import { LeaseKeeper } from '../engine/lease-keeper.js';
import { createEngine, type Engine } from '../app/create-engine.js';
import { FIRST_TOKEN, type Lease, type LeaseKey } from '../ports/leases.js';
import { Automation } from '../posts/automation.js';
import { Service } from '../service/service.js';
import type { Account } from '../domain/account.js';
import { ShortsError } from '../errors.js';

/** How often a foreground job looks for a cancel made by another `shorts` process. */
const CANCEL_POLL_MS = 500;
/** How often `wait` reads a request another process runs. */
const FOLLOW_POLL_MS = 500;

/** The longest wait for the object store's answer before a local create (see blobStoreUsable). */
const BLOB_CHECK_MS = 30_000;

const INTERRUPTED = 'interrupted: the shorts process running this request stopped before it finished';

/**
 * Requests some LocalClient of this process runs right now. This process's lease alone cannot tell "this
 * process runs it" (follow) from "this process created it and is about to run it" (take it).
 */
const runningHere = new Set<string>();

const requestKey = (id: string): LeaseKey => ({ kind: 'request', id });

/** Local `create` options beyond the body. */
/**
 * A local create has no connection to lose its answer on, so `idempotencyKey` changes nothing here (the CLI
 * refuses --idempotency-key in local mode rather than pretend).
 */
export interface LocalCreateOptions extends CreateOptions {
  /**
   * Take the request's lease for this process (default true: the creating process runs the job). False leaves
   * the request unclaimed for another process to take (`create --no-wait` hands it to a detached runner).
   */
  claim?: boolean;
}

export class LocalClient implements ShortsClient {
  readonly mode = 'local' as const;
  readonly service: Service;
  /** The request store, for the local clients of other resources (connected accounts, posts). */
  readonly store: RequestStore;
  readonly account: Account;
  /** This process's leases on the store (the requests and re-renders it runs). */
  readonly leases: LeaseKeeper;

  /** Runs every child process of this client's jobs (and the create's probe, so the job reuses it). */
  readonly media: MediaRunner;
  /** The engine this client drives, from the composition root (the other local clients take their parts from it). */
  readonly engine: Engine;

  constructor(readonly dataDir: string, private readonly log: (line: string) => void = () => {}, opts: { media?: MediaRunner } = {}) {
    this.engine = createEngine({ dataDir, log, media: opts.media });
    ({ store: this.store, leases: this.leases, media: this.media, service: this.service } = this.engine);
    this.account = localAccount();
    // Settled before this client reads or runs anything (each entry point awaits it).
    this.recovered = this.recoverOrphans().catch((e: unknown) => this.log(`could not settle interrupted requests: ${String(e)}`));
  }

  private readonly recovered: Promise<void>;

  /**
   * A local job whose process was killed (kill -9, power loss) would otherwise stay "processing" forever:
   * once its lease has expired it is failed. One never started (a --no-wait runner killed before it took it)
   * stays queued: `wait` runs it.
   */
  private async recoverOrphans(): Promise<void> {
    // A store that cannot be read (a database that is down) is what the command's own first statement fails
    // with, and says once: nothing to settle or to add here.
    const found = await Promise.all([this.store.listOrphaned('local'), this.store.listRerendering()]).catch(() => undefined);
    if (!found) return;
    const [orphaned, rerendering] = found;
    for (const id of orphaned) {
      if (!runningHere.has(id)) await this.store.finish(id, 'failed', INTERRUPTED);
    }
    // A local re-render runs in its `shorts edit` process: when that was killed, the clip is the one before
    // (its MP4 was never replaced), and says so.
    for (const s of rerendering) {
      if (s.origin !== 'local' || s.leased) continue;
      await this.store.abandonRerender(s.id, 'interrupted: the shorts process running this re-render stopped before it finished; the clip is as it was');
    }
  }

  /**
   * Settles the local requests a killed process (`owner`: a batch whose folder lock expired) held: waits up to
   * one lease TTL for their leases to run out, then fails them as interrupted, as recoverOrphans does.
   */
  async settleOrphansOf(owner: string): Promise<void> {
    const deadline = Date.now() + this.leases.ttlMs + 1000;
    await this.recovered;
    for (;;) {
      const live = (await this.store.listLive()).filter((r) => r.origin === 'local' && r.status === 'processing' && !runningHere.has(r.id));
      const held = await Promise.all(live.map((r) => this.leases.leases.holder(requestKey(r.id))));
      // Settled after the last lease was seen gone, not before: a lease running out between a settle and this
      // look would leave its request processing, and the batch would follow a request nobody runs.
      if (!held.some((h) => h?.owner === owner) || Date.now() > deadline) return this.recoverOrphans();
      await sleep(200);
    }
  }

  async create(body: CreateBody, opts: LocalCreateOptions = {}) {
    await this.recovered;
    await this.blobStoreUsable();
    const created = await this.service.create(this.account, body, 'local');
    // Locally, the creating process is the one that runs the job (its lease, renewed until it runs it), unless it hands it on.
    if (opts.claim !== false) await this.leases.acquire(requestKey(created.requestId));
    return created;
  }

  /**
   * A bucket that cannot be used (SHORTS_STORAGE_URL: missing, refused, wrong credentials) fails the create
   * before a request is recorded that could only fail at its first checkpoint. The data dir has no such check.
   */
  private async blobStoreUsable(): Promise<void> {
    // Longer than the SDK's own retries, so its reason comes through; a server that never answers still ends.
    const [blobs] = await this.engine.readiness({ only: ['blobs'], timeoutMs: BLOB_CHECK_MS });
    if (blobs && !blobs.ok) throw new ShortsError('internal_error', `the object store of SHORTS_STORAGE_URL cannot be used: ${blobs.detail}`);
  }

  /**
   * Resolves with the terminal status. A request nobody runs (queued, its lease free or ours) is run here, in
   * the foreground; one whose lease another process holds is followed until it ends; one left processing
   * whose lease expired (its runner was killed) is failed as interrupted. Aborting the signal cancels a
   * request this process runs (nothing would run it after), and only stops following one another runs.
   */
  async wait(id: string, opts: WaitOptions = {}): Promise<StatusResponse> {
    await this.recovered;
    for (;;) {
      if (!runningHere.has(id)) {
        const taken = await this.take(id);
        if (taken === 'finished') return this.service.status(this.account, id); // or missing: throws not found
        if (taken !== 'held') {
          if (taken.status === 'queued' && !taken.takenOver) return this.runHere(id, opts, taken.lease);
          try {
            await this.store.finish(id, 'failed', INTERRUPTED, taken.lease);
          } finally {
            await this.leases.release(taken.lease);
          }
          return this.service.status(this.account, id);
        }
      }
      const followed = await this.follow(id, opts);
      if (followed) return followed;
      // Its runner's lease ran out without it finishing: settle it (take it, or mark it interrupted) on the next turn.
    }
  }

  /**
   * The runner of a `create --no-wait` request (a detached `shorts` process): takes the request if nobody
   * runs it and runs it to the end. False when another process had it already (nothing was run).
   */
  async runDetached(id: string, opts: WaitOptions = {}): Promise<{ ran: boolean; status: StatusResponse }> {
    await this.recovered;
    const taken = await this.take(id);
    if (taken === 'finished' || taken === 'held') return { ran: false, status: await this.service.status(this.account, id) };
    if (taken.status !== 'queued' || taken.takenOver) {
      await this.leases.release(taken.lease);
      return { ran: false, status: await this.service.status(this.account, id) };
    }
    return { ran: true, status: await this.runHere(id, opts, taken.lease) };
  }

  /**
   * Takes a live request's lease for this process: `held` when another owner has it, `finished` when it is
   * terminal (or missing), else the lease, the status it was found in, and whether another process had held
   * it before (`takenOver`: a runner that took it and was killed, even before it started; never run twice).
   */
  private async take(id: string): Promise<'held' | 'finished' | { lease: Lease; status: 'queued' | 'processing'; takenOver: boolean }> {
    const before = await this.store.requestStatus(id);
    if (before === undefined || TERMINAL.has(before)) return 'finished';
    const lease = await this.leases.acquire(requestKey(id));
    if (!lease) return 'held';
    const status = await this.store.requestStatus(id);
    if (status === undefined || TERMINAL.has(status)) {
      await this.leases.release(lease);
      return 'finished';
    }
    return { lease, status: status as 'queued' | 'processing', takenOver: lease.token !== FIRST_TOKEN };
  }

  /**
   * Reads the request another process runs until it ends (its terminal status), its lease is free (null: its
   * runner was killed or stopped), or the signal aborts (its status now, still live: nothing is cancelled).
   */
  private async follow(id: string, opts: WaitOptions): Promise<StatusResponse | null> {
    let seen = '';
    for (;;) {
      const status = await this.service.status(this.account, id);
      const key = `${status.status}/${status.step}/${status.progress}`;
      if (key !== seen) opts.onStatus?.(status);
      seen = key;
      if (TERMINAL.has(status.status)) return status;
      if (!runningHere.has(id) && (await this.leases.leases.holder(requestKey(id))) === null) return null;
      if (opts.signal?.aborted) return status;
      try {
        await sleep(FOLLOW_POLL_MS, undefined, { signal: opts.signal });
      } catch {
        return this.service.status(this.account, id);
      }
    }
  }

  /** Runs a request this process has taken, in the foreground. */
  private async runHere(id: string, opts: WaitOptions, lease: Lease): Promise<StatusResponse> {
    const controller = new AbortController();
    // Another process taking the lease over (this one stalled past it) stops the job here, without a finishing write.
    this.leases.attach(lease, controller);
    const untrack = this.service.track(id, controller);
    const onAbort = () => {
      // Marks the request cancelled before returning (the refund, if any, follows); a terminal one refuses.
      this.service.cancel(this.account, id).catch(() => { /* already terminal */ });
      controller.abort();
    };
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const poll = setInterval(() => {
      this.store.requestStatus(id).then((s) => { if (s === 'cancelled') controller.abort(); }, () => { /* read again at the next poll */ });
    }, CANCEL_POLL_MS);
    runningHere.add(id);
    // Steps and progress arrive through synchronous callbacks: the status reads they show queue up in order
    // and are all shown before this returns.
    let statusShown = Promise.resolve();
    const emit = () => {
      statusShown = statusShown.then(async () => opts.onStatus?.(await this.service.status(this.account, id)))
        .catch((e: unknown) => this.log(`could not show the status of ${id}: ${String(e)}`));
    };
    let shown = -1;
    const onModelDownload = (got: number, total: number) => {
      // First use downloads the model (~40-150 MB): one line per 10 %, not per chunk.
      const pct = Math.floor((got / Math.max(total, 1)) * 10) * 10;
      if (pct > shown) this.log(`downloading the Whisper model (first use): ${(shown = pct)}% of ${Math.round(total / 1e6)} MB`);
    };
    try {
      await this.orchestrator(onModelDownload).run(id, controller.signal, {
        onStep: emit, onProgress: emit, onClipRendered: opts.onClipRendered, lease,
      });
      // Automation rules (issue 16) post a completed request's clips; idempotent, and `shorts posts run` sweeps too.
      if ((await this.store.getRequest(id))?.status === 'completed') await this.engine.automation.onRequestCompleted(id);
    } finally {
      await statusShown;
      runningHere.delete(id);
      await this.leases.release(lease);
      clearInterval(poll);
      opts.signal?.removeEventListener('abort', onAbort);
      untrack();
    }
    return this.service.status(this.account, id);
  }

  private orchestrator(onModelDownload?: (got: number, total: number) => void): Orchestrator {
    return this.engine.orchestrator({ onModelDownload });
  }

  async rerender(id: string, shortId: string, body: EditBody): Promise<ShortObject> {
    // Locally, the process that asks is the one that renders (waitRerender): it holds the clip's lease from
    // before the clip is marked, so no other process takes the re-render for an orphan meanwhile.
    const lease = await this.leases.acquire({ kind: 'rerender', id: shortId });
    try {
      return await this.service.rerender(this.account, id, shortId, body);
    } catch (e) {
      if (lease) await this.leases.release(lease);
      throw e;
    }
  }

  /** Runs the clip's pending re-render in this process; Ctrl-C (the signal) stops it and keeps the previous clip. */
  async waitRerender(id: string, shortId: string, opts: RerenderWaitOptions = {}): Promise<ShortObject> {
    const current = await this.service.short(this.account, id, shortId);
    if (!current.recompiling) return current;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const lease = await this.leases.acquire({ kind: 'rerender', id: shortId }, controller);
    // Another process renders it (its lease is live): the clip says how that goes.
    if (!lease) return current;
    try {
      await this.store.claimRerender(shortId, lease);
      await this.orchestrator().rerender(id, shortId, controller.signal, { onProgress: opts.onProgress, lease });
    } finally {
      await this.leases.release(lease);
      opts.signal?.removeEventListener('abort', onAbort);
    }
    return this.service.short(this.account, id, shortId);
  }

  exportShort(requestId: string, shortId: string | null, format: ExportFormat) { return exportLocal(this.service, this.account, requestId, shortId, format); }

  async status(id: string) { return this.service.status(this.account, id); }
  async get(id: string) { return this.service.detail(this.account, id); }
  async list(query: Query) { return this.service.list(this.account, 'local', query); }
  async cancel(id: string) { return this.service.cancel(this.account, id); }
  async templates() { return this.service.templates(); }
  async music(query: Query): Promise<CatalogPage<MusicTrackItem>> { return this.service.catalog('music', query); }
  async memeHooks(query: Query): Promise<CatalogPage<MemeHookItem>> { return this.service.catalog('memeHooks', query); }
  async gameVideos(query: Query): Promise<CatalogPage<GameVideoItem>> { return this.service.catalog('gameVideos', query); }
  async posts(query: Query) { return this.service.posts(this.account, query); }

  async downloadClip(videoUrl: string, dest: string): Promise<void> {
    if (videoUrl.startsWith('file:')) return copyFile(fileURLToPath(videoUrl), dest);
    // A blob store whose links any client can fetch (S3's presigned GETs): downloaded as any client would.
    const res = await fetch(videoUrl);
    if (!res.ok || !res.body) throw new Error(`cannot download the clip: the store answered HTTP ${res.status}`);
    const part = `${dest}.${process.pid}.part`;
    try {
      await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), createWriteStream(part));
      await rename(part, dest);
    } catch (e) {
      await rm(part, { force: true });
      throw e;
    }
  }

  close(): void {
    // The engine hands its leases back, then closes the store (the one way every front end closes it).
    void this.engine.close();
  }
}

/** The one account of local mode: every request the CLI runs here (and the local `shorts studio`'s) is its. */
export function localAccount(): { id: string; email: string } {
  return { id: 'local', email: `${safeUser()}@localhost` };
}

function safeUser(): string {
  try {
    return os.userInfo().username || 'local';
  } catch {
    return 'local';
  }
}
