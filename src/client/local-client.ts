// ShortsClient over the in-process engine: the local SQLite store, whisper.cpp and ffmpeg on this
// machine. `wait` runs the job in the foreground; Ctrl-C (the signal) and `shorts cancel` from another
// terminal both cancel it and kill its child processes. Any number of `shorts` processes share a data dir
// (issue 15): a request has one runner at a time, recorded by pid and taken atomically (takeRunner), and
// `wait` on a request another live process runs (a `create --no-wait` runner, a batch) follows it in the
// store instead of running it a second time.
import { copyFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type {
  CatalogPage, CreateBody, EditBody, GameVideoItem, MemeHookItem, MusicTrackItem, Query, RerenderWaitOptions, ShortsClient, WaitOptions,
} from './shorts-client.js';
import { JobStore, TERMINAL } from '../engine/job-store.js';
import { Orchestrator } from '../engine/orchestrator.js';
import { renderSettingsFromEnv } from '../engine/render-settings.js';
import { Service } from '../service/service.js';
import type { Account } from '../domain/account.js';
import { createTranscriber } from '../pipeline/transcribe.js';
import type { ShortObject, StatusResponse } from '../api/types.js';
import { exportLocal } from '../service/export-service.js';
import type { ExportFormat } from '../export/formats.js';
import { isAlive } from '../media/process.js';
import { Automation } from '../posts/automation.js';
import { PostsService } from '../posts/posts-service.js';

/** How often a foreground job looks for a cancel made by another `shorts` process. */
const CANCEL_POLL_MS = 500;
/** How often `wait` reads a request another process runs. */
const FOLLOW_POLL_MS = 500;

const INTERRUPTED = 'interrupted: the shorts process running this request stopped before it finished';

/**
 * Requests some LocalClient of this process runs right now. The pid alone cannot tell "this process runs
 * it" (follow) from "this process created it and is about to run it" (take it): both record our pid.
 */
const runningHere = new Set<string>();

/** Whether the process recorded as a request's runner still runs it. */
function runnerRuns(id: string, holder: number): boolean {
  return holder === process.pid ? runningHere.has(id) : isAlive(holder);
}

/** Local `create` options beyond the body. */
export interface LocalCreateOptions {
  /**
   * Record this process as the runner (default true: the creating process runs the job). False leaves the
   * request unclaimed for another process to take (`create --no-wait` hands it to a detached runner).
   */
  claim?: boolean;
}

export class LocalClient implements ShortsClient {
  readonly mode = 'local' as const;
  readonly service: Service;
  /** The SQLite store, for the local clients of other resources (connected accounts, posts). */
  readonly store: JobStore;
  readonly account: Account;

  constructor(readonly dataDir: string, private readonly log: (line: string) => void = () => {}) {
    this.store = new JobStore(path.join(dataDir, 'shorts.db'));
    this.service = new Service(this.store);
    this.account = { id: 'local', email: `${safeUser()}@localhost` };
    this.recoverOrphans();
  }

  /** A local job whose process died (kill -9, power loss) would otherwise stay "processing" forever. */
  private recoverOrphans(): void {
    for (const r of this.store.listLive()) {
      if (r.origin !== 'local') continue;
      const pid = this.store.runnerPid(r.id);
      // One never claimed (a --no-wait runner that died before it took it) stays queued: `wait` runs it.
      if (pid !== null && pid !== process.pid && !isAlive(pid)) this.store.finish(r.id, 'failed', INTERRUPTED);
    }
    // A local re-render runs in its `shorts edit` process: when that died, the clip is the one before (its
    // MP4 was never replaced), and says so.
    for (const s of this.store.listRerendering()) {
      if (s.origin !== 'local' || s.rerenderPid == null || s.rerenderPid === process.pid || isAlive(s.rerenderPid)) continue;
      this.store.abandonRerender(s.id, 'interrupted: the shorts process running this re-render stopped before it finished; the clip is as it was');
    }
  }

  async create(body: CreateBody, opts: LocalCreateOptions = {}) {
    const created = await this.service.create(this.account, body, 'local');
    // Locally, the creating process is the one that runs the job, unless it hands it on.
    if (opts.claim !== false) this.store.claim(created.requestId, process.pid);
    return created;
  }

  /**
   * Resolves with the terminal status. A request nobody runs (queued, its runner unset or gone) is run here,
   * in the foreground; one another live process runs is followed until it ends. Aborting the signal cancels
   * a request this process runs (nothing would run it after), and only stops following one another runs.
   */
  async wait(id: string, opts: WaitOptions = {}): Promise<StatusResponse> {
    for (;;) {
      const outcome = this.store.takeRunner(id, process.pid, (holder) => runnerRuns(id, holder));
      if (outcome === 'taken') return this.runHere(id, opts);
      if (outcome === 'orphaned') {
        this.store.finish(id, 'failed', INTERRUPTED);
        return this.service.status(this.account, id);
      }
      if (outcome !== 'held') return this.service.status(this.account, id); // finished, or missing (throws not found)
      const followed = await this.follow(id, opts);
      if (followed) return followed;
      // Its runner stopped without finishing it: settle it (take it, or mark it interrupted) on the next turn.
    }
  }

  /**
   * The runner of a `create --no-wait` request (a detached `shorts` process): takes the request if nobody
   * runs it and runs it to the end. False when another process had it already (nothing was run).
   */
  async runDetached(id: string, opts: WaitOptions = {}): Promise<{ ran: boolean; status: StatusResponse }> {
    const outcome = this.store.takeRunner(id, process.pid, (holder) => runnerRuns(id, holder));
    if (outcome !== 'taken') return { ran: false, status: this.service.status(this.account, id) };
    return { ran: true, status: await this.runHere(id, opts) };
  }

  /**
   * Reads the request another process runs until it ends (its terminal status), its runner is gone (null),
   * or the signal aborts (its status now, still live: nothing is cancelled).
   */
  private async follow(id: string, opts: WaitOptions): Promise<StatusResponse | null> {
    let seen = '';
    for (;;) {
      const status = this.service.status(this.account, id);
      const key = `${status.status}/${status.step}/${status.progress}`;
      if (key !== seen) opts.onStatus?.(status);
      seen = key;
      if (TERMINAL.has(status.status)) return status;
      const holder = this.store.runnerPid(id);
      if (holder === null || !runnerRuns(id, holder)) return null;
      if (opts.signal?.aborted) return status;
      try {
        await sleep(FOLLOW_POLL_MS, undefined, { signal: opts.signal });
      } catch {
        return this.service.status(this.account, id);
      }
    }
  }

  /** Runs a request this process has taken, in the foreground. */
  private async runHere(id: string, opts: WaitOptions): Promise<StatusResponse> {
    const controller = new AbortController();
    const untrack = this.service.track(id, controller);
    const onAbort = () => {
      try { this.service.cancel(this.account, id); } catch { /* already terminal */ }
      controller.abort();
    };
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const poll = setInterval(() => {
      if (this.store.requestStatus(id) === 'cancelled') controller.abort();
    }, CANCEL_POLL_MS);
    runningHere.add(id);
    const emit = () => opts.onStatus?.(this.service.status(this.account, id));
    let shown = -1;
    const onModelDownload = (got: number, total: number) => {
      // First use downloads the model (~40-150 MB): one line per 10 %, not per chunk.
      const pct = Math.floor((got / Math.max(total, 1)) * 10) * 10;
      if (pct > shown) this.log(`downloading the Whisper model (first use): ${(shown = pct)}% of ${Math.round(total / 1e6)} MB`);
    };
    try {
      await this.orchestrator(onModelDownload).run(id, controller.signal, {
        onStep: emit, onProgress: emit, onClipRendered: opts.onClipRendered,
      });
      // Automation rules (issue 16) post a completed request's clips; idempotent, and `shorts posts run` sweeps too.
      if (this.store.getRequest(id)?.status === 'completed') new Automation(this.store, new PostsService(this.store)).onRequestCompleted(id);
    } finally {
      runningHere.delete(id);
      clearInterval(poll);
      opts.signal?.removeEventListener('abort', onAbort);
      untrack();
    }
    return this.service.status(this.account, id);
  }

  private orchestrator(onModelDownload?: (got: number, total: number) => void): Orchestrator {
    return new Orchestrator({
      store: this.store,
      transcriber: createTranscriber({ dataDir: this.dataDir, onModelDownload }),
      dataDir: this.dataDir,
      render: renderSettingsFromEnv(),
    });
  }

  async rerender(id: string, shortId: string, body: EditBody): Promise<ShortObject> {
    // Locally, the process that asks is the one that renders (waitRerender): its pid marks the clip.
    return this.service.rerender(this.account, id, shortId, body, process.pid);
  }

  /** Runs the clip's pending re-render in this process; Ctrl-C (the signal) stops it and keeps the previous clip. */
  async waitRerender(id: string, shortId: string, opts: RerenderWaitOptions = {}): Promise<ShortObject> {
    const current = this.service.short(this.account, id, shortId);
    if (!current.recompiling) return current;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.store.claimRerender(shortId, process.pid);
      await this.orchestrator().rerender(id, shortId, controller.signal, { onProgress: opts.onProgress });
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
    return this.service.short(this.account, id, shortId);
  }

  exportShort(requestId: string, shortId: string | null, format: ExportFormat) { return exportLocal(this.store, this.account, requestId, shortId, format); }

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
    await copyFile(fileURLToPath(videoUrl), dest);
  }

  close(): void {
    this.store.close();
  }
}

function safeUser(): string {
  try {
    return os.userInfo().username || 'local';
  } catch {
    return 'local';
  }
}
