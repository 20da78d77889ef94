// ShortsClient over the in-process engine: the local SQLite store, whisper.cpp and ffmpeg on this
// machine. `wait` runs the job in the foreground; Ctrl-C (the signal) and `shorts cancel` from another
// terminal both cancel it and kill its child processes.
import { copyFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  CatalogPage, CreateBody, EditBody, GameVideoItem, MemeHookItem, MusicTrackItem, Query, RerenderWaitOptions, ShortsClient, WaitOptions,
} from './shorts-client.js';
import { JobStore, TERMINAL } from '../engine/job-store.js';
import { Orchestrator } from '../engine/orchestrator.js';
import { renderSettingsFromEnv } from '../engine/render-settings.js';
import { Service, type Account } from '../service/service.js';
import { createTranscriber } from '../pipeline/transcribe.js';
import type { ShortObject, StatusResponse } from '../service/api-types.js';
import { exportLocal } from '../service/export-service.js';
import type { ExportFormat } from '../export/formats.js';
import { isAlive } from '../media/process.js';

/** How often a foreground job looks for a cancel made by another `shorts` process. */
const CANCEL_POLL_MS = 500;

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
      if (pid !== null && pid !== process.pid && !isAlive(pid)) {
        this.store.finish(r.id, 'failed', 'interrupted: the shorts process running this request stopped before it finished');
      }
    }
    // A local re-render runs in its `shorts edit` process: when that died, the clip is the one before (its
    // MP4 was never replaced), and says so.
    for (const s of this.store.listRerendering()) {
      if (s.origin !== 'local' || s.rerenderPid == null || s.rerenderPid === process.pid || isAlive(s.rerenderPid)) continue;
      this.store.abandonRerender(s.id, 'interrupted: the shorts process running this re-render stopped before it finished; the clip is as it was');
    }
  }

  async create(body: CreateBody) {
    const created = await this.service.create(this.account, body, 'local');
    // Locally, the creating process is the one that runs the job.
    this.store.claim(created.requestId, process.pid);
    return created;
  }

  async wait(id: string, opts: WaitOptions = {}): Promise<StatusResponse> {
    const current = this.service.status(this.account, id);
    if (TERMINAL.has(current.status)) return current;
    const controller = new AbortController();
    const untrack = this.service.track(id, controller);
    const onAbort = () => {
      try { this.service.cancel(this.account, id); } catch { /* already terminal */ }
      controller.abort();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const poll = setInterval(() => {
      if (this.store.getRequest(id)?.status === 'cancelled') controller.abort();
    }, CANCEL_POLL_MS);
    this.store.claim(id, process.pid);
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
    } finally {
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
