// Live progress for the views: server-sent events (GET /api/v1/shorts/{id}/events, /api/v1/events?ids=)
// with polling as the fallback when the stream cannot be held (a proxy that buffers, an old browser). The
// wire format is the server's (see the contract in the README's studio section): `status`, `shorts`, `end`.
import type { ShortObject, StatusResponse } from '../api/types';
import { api, ApiError, v1 } from './api';

export type LiveStatus = StatusResponse & { queuePosition?: number | null; estimatedCompletionTime?: string };

export interface RequestHandlers {
  onStatus?(s: LiveStatus): void;
  onShorts?(shorts: ShortObject[]): void;
  /** Always called once the request is terminal (and no clip is re-rendering); the subscription is then over. */
  onEnd?(s: LiveStatus): void;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const POLL_MS = 3000;

/**
 * Runs `connect` while the page is visible and closes what it opened while it is hidden (a background tab holds
 * no connection: a browser allows 6 HTTP/1.1 connections per host, and every open stream is one, so a person
 * with more studio tabs than that would find new pages waiting behind old streams). On becoming visible again it
 * connects anew, and the server's first events bring the view up to date. `finished` ends it for good.
 */
function whileVisible(connect: (finished: () => void) => () => void): () => void {
  let close: (() => void) | null = null;
  let done = false;
  const sync = () => {
    if (done) return;
    if (document.visibilityState === 'hidden') {
      close?.();
      close = null;
    } else if (!close) {
      close = connect(() => end(false));
    }
  };
  const end = (closeNow: boolean) => {
    done = true;
    document.removeEventListener('visibilitychange', sync);
    if (closeNow) close?.();
    close = null;
  };
  document.addEventListener('visibilitychange', sync);
  sync();
  return () => end(true);
}

/** Watches one request; returns the function that stops watching. */
export function watchRequest(id: string, h: RequestHandlers): () => void {
  return whileVisible((finished) => connectRequest(id, h, finished));
}

function connectRequest(id: string, h: RequestHandlers, finished: () => void): () => void {
  let stopped = false;
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    stopped = true;
    source?.close();
    if (timer) clearTimeout(timer);
  };
  const parse = (e: MessageEvent) => JSON.parse(e.data as string) as unknown;

  // Fallback: the status every 3 s, the detail (for clips) when the status says something moved or a clip is
  // re-rendering. Every call counts against the account's hourly limit: a detail per tick would spend it twice
  // as fast, and a 429 waits for its retryAfter (up to a minute) rather than asking again at once.
  let seen = '';
  let recompiling = false;
  const poll = async () => {
    if (stopped) return;
    let wait = POLL_MS;
    try {
      const s = await api.get<LiveStatus>(v1(`/shorts/${encodeURIComponent(id)}/status`));
      h.onStatus?.(s);
      const moved = `${s.status}|${s.step}` !== seen;
      seen = `${s.status}|${s.step}`;
      if (moved || recompiling) {
        const d = await api.get<{ shorts: ShortObject[] }>(v1(`/shorts/${encodeURIComponent(id)}`));
        if (d.shorts.length) h.onShorts?.(d.shorts);
        recompiling = d.shorts.some((x) => x.recompiling);
      }
      if (TERMINAL.has(s.status) && !recompiling) {
        h.onEnd?.(s);
        stop();
        finished();
        return;
      }
    } catch (e) {
      // Offline for a moment: try again at the next tick.
      const retryAfter = e instanceof ApiError && e.status === 429 ? Number(e.details?.retryAfter) : NaN;
      if (retryAfter > 0) wait = Math.min(Math.max(retryAfter * 1000, POLL_MS), 60_000);
    }
    timer = setTimeout(() => void poll(), wait);
  };

  if (typeof EventSource === 'undefined') {
    void poll();
    return stop;
  }
  source = new EventSource(v1(`/shorts/${encodeURIComponent(id)}/events`), { withCredentials: true });
  const healthy = pollWhenBroken(source, () => stopped, () => { source = null; void poll(); });
  source.addEventListener('status', (e) => { healthy(); h.onStatus?.(parse(e as MessageEvent) as LiveStatus); });
  source.addEventListener('shorts', (e) => h.onShorts?.((parse(e as MessageEvent) as { shorts: ShortObject[] }).shorts));
  source.addEventListener('end', (e) => {
    const s = parse(e as MessageEvent) as LiveStatus;
    h.onStatus?.(s);
    h.onEnd?.(s);
    stop();
    finished();
  });
  return stop;
}

/** Watches many requests' statuses (the list's visible live rows); each `_id` says which. */
export function watchMany(ids: string[], onStatus: (s: LiveStatus) => void): () => void {
  if (ids.length === 0) return () => {};
  // What is still live survives a reconnect (the page hidden, then shown again).
  const left = new Set(ids);
  return whileVisible((finished) => connectMany(left, onStatus, finished));
}

function connectMany(left: Set<string>, onStatus: (s: LiveStatus) => void, finished: () => void): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let source: EventSource | null = null;
  const ids = [...left];
  const stop = () => {
    stopped = true;
    source?.close();
    if (timer) clearTimeout(timer);
  };
  const poll = async () => {
    if (stopped) return;
    await Promise.all([...left].map(async (id) => {
      try {
        const s = await api.get<LiveStatus>(v1(`/shorts/${encodeURIComponent(id)}/status`));
        onStatus(s);
        if (TERMINAL.has(s.status)) left.delete(id);
      } catch {
        // Try again next tick.
      }
    }));
    if (left.size === 0) {
      stop();
      return finished();
    }
    timer = setTimeout(() => void poll(), POLL_MS);
  };
  if (typeof EventSource === 'undefined') {
    void poll();
    return stop;
  }
  source = new EventSource(v1(`/events?ids=${ids.map(encodeURIComponent).join(',')}`), { withCredentials: true });
  const healthy = pollWhenBroken(source, () => stopped, () => { source = null; void poll(); });
  const take = (e: Event) => {
    healthy();
    const s = JSON.parse((e as MessageEvent).data as string) as LiveStatus;
    onStatus(s);
    if (e.type === 'end') left.delete(s._id);
    if (left.size === 0) {
      stop();
      finished();
    }
  };
  source.addEventListener('status', take);
  source.addEventListener('end', take);
  return stop;
}

/**
 * EventSource reconnects by itself; two failures in a row without a message mean it will not hold, and an
 * answer that is not a stream (a 404 from a server without the endpoint, a proxy's 502) closes it for good after
 * one: `fallback` (polling) then. Returns what a received message calls (the stream is healthy again).
 */
function pollWhenBroken(source: EventSource, stopped: () => boolean, fallback: () => void): () => void {
  let errors = 0;
  source.onerror = () => {
    if (stopped()) return;
    if (++errors >= 2 || source.readyState === EventSource.CLOSED) {
      source.close();
      fallback();
    }
  };
  return () => { errors = 0; };
}

export const isTerminal = (status: string): boolean => TERMINAL.has(status);
