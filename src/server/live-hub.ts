// The one hub behind every live progress stream of a server process (issue 25; the HTTP side is event-stream.ts).
// Streams register the request ids they watch; ONE loop reads the store for all of them per tick (listLive once:
// every queued or processing request, which also gives the queue positions; a getRequest for each watched id that
// is no longer live; the clips of a request only while they can change), keeps the last state of each request, and
// sends each stream what it has not seen yet. The store is the truth, so a request run by another process (a
// `shorts worker`) streams like one run here. No stream open, no timer and no read.
import type { LiveEvents, LiveStatus, ShortObject } from '../api/types.js';
import { ShortsError } from '../errors.js';
import type { EngineMetrics } from '../engine/metrics.js';
import { TERMINAL, type RequestRecord, type RequestStore, type ShortRecord } from '../ports/request-store.js';
import { statusOf, type QueueEstimate, type Service } from '../service/service.js';

/** Streams one account may hold open: 20 studio tabs are cheap, 10,000 are refused rather than served. */
export const MAX_STREAMS_PER_ACCOUNT = 50;
const TICK_MS = 1000;
const PING_MS = 15_000;
/** While a request renders, its clips' outcomes are read again at least this often, besides on each progress change. */
const RENDERING_REREAD_MS = 5000;

export interface LiveSubscriber {
  accountId: string;
  ids: readonly string[];
  /** 'request': status, shorts and end of one request; 'list': status and end of several (each data object names its `_id`). */
  kind: 'request' | 'list';
  send<E extends keyof LiveEvents>(event: E, data: LiveEvents[E]): void;
  ping(): void;
  /** Every request ended: the stream is closed by the server. */
  close(): void;
}

/** What one stream has been sent, per request. */
interface Watch { sub: LiveSubscriber; status: Map<string, string>; shorts: Map<string, string>; ended: Set<string> }

/** The last state read of one watched request. */
interface RequestState {
  record: RequestRecord;
  /** Status without its ETA (which moves with the clock): a change of this is an event. */
  statusKey: string;
  estimate: QueueEstimate | undefined;
  /** The clips as last read (their records, links aside) and as sent; null until read. */
  shortsKey: string | null;
  shorts: ShortObject[];
  recompiling: boolean;
  /** What the clips were last read at: the request's status/step/progress, and when. */
  shortsReadFor: string;
  shortsReadAt: number;
}

export class LiveHub {
  private readonly watches = new Set<Watch>();
  private readonly states = new Map<string, RequestState>();
  private timer: NodeJS.Timeout | null = null;
  private pinger: NodeJS.Timeout | null = null;
  private ticking = false;
  private again = false;

  constructor(private readonly deps: { service: Service; store: RequestStore; metrics?: EngineMetrics; log: (line: string) => void; tickMs?: number }) {}

  /** Throws the 429 to answer when `accountId` already holds as many streams as it may. */
  checkRoom(accountId: string): void {
    let open = 0;
    for (const w of this.watches) if (w.sub.accountId === accountId) open++;
    if (open >= MAX_STREAMS_PER_ACCOUNT)
      throw new ShortsError('rate_limit_exceeded', `this account already has ${MAX_STREAMS_PER_ACCOUNT} live progress streams open; close one first`, { retryAfter: 30, limit: 'eventStreams' });
  }

  /** Starts sending `sub` its events (the first at once); the returned function unsubscribes (a closed socket). */
  subscribe(sub: LiveSubscriber): () => void {
    const watch: Watch = { sub, status: new Map(), shorts: new Map(), ended: new Set() };
    this.watches.add(watch);
    this.changed();
    this.tickSoon();
    return () => {
      if (this.watches.delete(watch)) this.changed();
    };
  }

  /** Stops every timer (the server closed); open streams are the server's to end. */
  close(): void {
    this.watches.clear();
    this.changed();
  }

  private changed(): void {
    this.deps.metrics?.liveStreams(this.watches.size);
    if (this.watches.size === 0) {
      if (this.timer) clearTimeout(this.timer);
      if (this.pinger) clearInterval(this.pinger);
      this.timer = this.pinger = null;
      this.states.clear();
    } else if (!this.pinger) {
      this.pinger = setInterval(() => { for (const w of this.watches) w.sub.ping(); }, PING_MS);
      this.pinger.unref();
    }
  }

  /** A tick now (a new stream's first events), or right after the one running. */
  private tickSoon(): void {
    if (this.ticking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void this.tick();
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    try {
      await this.poll();
    } catch (e) {
      this.deps.log(`live progress: reading the store failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.ticking = false;
    }
    if (this.watches.size === 0) return;
    if (this.again) {
      this.again = false;
      return this.tickSoon();
    }
    this.timer = setTimeout(() => { this.timer = null; void this.tick(); }, this.deps.tickMs ?? TICK_MS);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    const watches = [...this.watches];
    const ids = [...new Set(watches.flatMap((w) => w.sub.ids.filter((id) => !w.ended.has(id))))];
    if (ids.length === 0) return;
    const { store, service } = this.deps;
    this.deps.metrics?.livePolled();
    const live = await store.listLive();
    const liveById = new Map(live.map((r) => [r.id, r]));
    const estimates = await service.queueEstimates(ids, live);
    const withClips = new Set(watches.filter((w) => w.sub.kind === 'request').flatMap((w) => w.sub.ids));
    await Promise.all(ids.map(async (id) => {
      const record = liveById.get(id) ?? await store.getRequest(id);
      if (record) await this.refresh(record, estimates.get(id), withClips.has(id));
    }));
    for (const id of this.states.keys()) if (!ids.includes(id)) this.states.delete(id);
    for (const w of watches) if (this.watches.has(w)) this.fanOut(w);
  }

  /** The request's new state; its clips read again only when they can have changed. */
  private async refresh(record: RequestRecord, estimate: QueueEstimate | undefined, withClips: boolean): Promise<void> {
    const status = statusOf(record);
    const prev = this.states.get(record.id);
    const state: RequestState = {
      record, estimate, statusKey: JSON.stringify([status, estimate?.position ?? null]),
      shortsKey: prev?.shortsKey ?? null, shorts: prev?.shorts ?? [], recompiling: prev?.recompiling ?? false,
      shortsReadFor: prev?.shortsReadFor ?? '', shortsReadAt: prev?.shortsReadAt ?? 0,
    };
    this.states.set(record.id, state);
    if (!withClips || !this.clipsMayHaveChanged(state)) return;
    const clips: ShortRecord[] = await this.deps.service.liveShorts(record);
    state.shortsReadFor = readKey(record);
    state.shortsReadAt = Date.now();
    state.recompiling = clips.some((s) => s.recompiling);
    const key = JSON.stringify(clips);
    if (key === state.shortsKey) return;
    state.shortsKey = key;
    state.shorts = await this.deps.service.shortObjects(clips);
  }

  /**
   * Clips change when a clip's render job stores its outcome (which moves the render step's progress), when
   * the request ends, and while one re-renders; a request earlier in its run has none.
   */
  private clipsMayHaveChanged(state: RequestState): boolean {
    const r = state.record;
    if (state.recompiling || readKey(r) !== state.shortsReadFor) return TERMINAL.has(r.status) || r.step === 'finalizing';
    return r.status === 'processing' && r.step === 'finalizing' && Date.now() - state.shortsReadAt >= RENDERING_REREAD_MS;
  }

  private fanOut(w: Watch): void {
    for (const id of w.sub.ids) {
      const state = this.states.get(id);
      if (!state || w.ended.has(id)) continue;
      const live = this.liveStatus(state);
      if (w.status.get(id) !== state.statusKey) {
        w.status.set(id, state.statusKey);
        w.sub.send('status', live);
      }
      if (w.sub.kind === 'request' && state.shortsKey !== null && state.shorts.length > 0 && w.shorts.get(id) !== state.shortsKey) {
        w.shorts.set(id, state.shortsKey);
        w.sub.send('shorts', { shorts: state.shorts });
      }
      // A request's own stream stays open while one of its clips re-renders (the studio waits for the new MP4).
      if (TERMINAL.has(state.record.status) && !(w.sub.kind === 'request' && state.recompiling)) {
        w.ended.add(id);
        w.sub.send('end', live);
      }
    }
    if (w.sub.ids.every((id) => w.ended.has(id))) {
      this.watches.delete(w);
      this.changed();
      w.sub.close();
    }
  }

  private liveStatus(state: RequestState): LiveStatus {
    const live = TERMINAL.has(state.record.status) ? undefined : state.estimate;
    const eta = live ? Date.now() + live.etaSeconds * 1000 : Date.parse(state.record.finishedAt ?? state.record.updatedAt);
    return { ...statusOf(state.record), queuePosition: live?.position ?? null, estimatedCompletionTime: new Date(Number.isFinite(eta) ? eta : Date.now()).toISOString() };
  }
}

function readKey(r: RequestRecord): string {
  return `${r.status}/${r.step}/${r.progress}`;
}
