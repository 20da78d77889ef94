// Live progress in the browser (issue 25): an EventSource on the server's stream (same origin, so the session
// cookie goes with it), and polling GET /shorts/{id}/status every 3 s instead when EventSource errors twice in a
// row (a proxy that buffers or cuts streams). The server always sends `end` and then closes the stream: the
// EventSource is closed here on `end`, or it would reconnect. Views get typed callbacks and a stop function.
import type { LiveShorts, LiveStatus, RequestDetail, StatusResponse } from '../api/types';
import { ApiError, api, v1 } from './api';

export interface RequestHandlers {
  status?(s: LiveStatus): void;
  shorts?(s: LiveShorts): void;
  /** Once: the request ended (and no clip is re-rendering); nothing more comes. */
  end?(s: LiveStatus): void;
  /** A poll failed (a 404 for a request that is not the caller's, the server unreachable). */
  error?(e: unknown): void;
}

export interface ListHandlers {
  status?(s: LiveStatus): void;
  end?(s: LiveStatus): void;
  error?(e: unknown): void;
}

const POLL_MS = 3000;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A polled status has no queue position or ETA (the stream's extras): the view shows none. */
const polled = (s: StatusResponse): LiveStatus => ({ ...s, queuePosition: null, estimatedCompletionTime: '' });

/**
 * The stream at `url`; `onEvent` gets each event's parsed data and says whether the stream is done (then it is
 * closed). After two errors in a row without an event between them, `fallback` runs instead.
 */
function subscribe(url: string, onEvent: (name: 'status' | 'shorts' | 'end', data: unknown) => boolean, fallback: () => () => void): () => void {
  let stopFallback: (() => void) | null = null;
  let errors = 0;
  const source = new EventSource(url, { withCredentials: true });
  const listen = (name: 'status' | 'shorts' | 'end') => source.addEventListener(name, (e) => {
    errors = 0;
    if (onEvent(name, JSON.parse((e as MessageEvent<string>).data))) source.close();
  });
  listen('status');
  listen('shorts');
  listen('end');
  source.onerror = () => {
    if (++errors < 2 && source.readyState !== EventSource.CLOSED) return;
    source.close();
    stopFallback ??= fallback();
  };
  return () => {
    source.close();
    stopFallback?.();
  };
}

/** Runs `poll` now and every 3 s until it answers true or the returned function is called. */
function every3s(poll: () => Promise<boolean>, onError: ((e: unknown) => void) | undefined): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    let done = false;
    try {
      done = await poll();
    } catch (e) {
      onError?.(e);
      // A refusal (404: not the caller's request; 401: signed out) will not change by asking again.
      done = e instanceof ApiError && e.status >= 400 && e.status < 500 && e.status !== 429;
    }
    if (!done && !stopped) timer = setTimeout(run, POLL_MS);
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** One request's status, clips and end (the request view). */
export function watchRequest(id: string, h: RequestHandlers): () => void {
  let ended = false;
  const finish = (s: LiveStatus) => {
    if (ended) return;
    ended = true;
    h.end?.(s);
  };
  return subscribe(v1(`/shorts/${id}/events`), (name, data) => {
    if (name === 'status') h.status?.(data as LiveStatus);
    else if (name === 'shorts') h.shorts?.(data as LiveShorts);
    else finish(data as LiveStatus);
    return name === 'end';
  }, () => {
    let last = '';
    return every3s(async () => {
      const s = polled(await api.get<StatusResponse>(v1(`/shorts/${id}/status`)));
      if (JSON.stringify(s) !== last) h.status?.(s);
      last = JSON.stringify(s);
      if (!TERMINAL.has(s.status)) return false;
      // As the stream: the clips, and no end while one re-renders.
      const detail = await api.get<RequestDetail>(v1(`/shorts/${id}`));
      if (detail.shorts.length > 0) h.shorts?.({ shorts: detail.shorts });
      if (detail.shorts.some((c) => c.recompiling)) return false;
      finish(s);
      return true;
    }, h.error);
  });
}

/** Several requests' status and end (the list's visible live rows); at most 100 ids. */
export function watchRequests(ids: readonly string[], h: ListHandlers): () => void {
  const ended = new Set<string>();
  const end = (s: LiveStatus) => {
    if (ended.has(s._id)) return;
    ended.add(s._id);
    h.end?.(s);
  };
  return subscribe(v1(`/events?ids=${ids.map(encodeURIComponent).join(',')}`), (name, data) => {
    if (name === 'status') h.status?.(data as LiveStatus);
    else if (name === 'end') end(data as LiveStatus);
    return ids.every((id) => ended.has(id));
  }, () => every3s(async () => {
    for (const id of ids.filter((x) => !ended.has(x))) {
      const s = polled(await api.get<StatusResponse>(v1(`/shorts/${id}/status`)));
      h.status?.(s);
      if (TERMINAL.has(s.status)) end(s);
    }
    return ids.every((id) => ended.has(id));
  }, h.error));
}
