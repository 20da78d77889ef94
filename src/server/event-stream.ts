// The live progress routes (issue 25): GET /shorts/{id}/events and GET /events?ids=…, server-sent events fed by
// the process's LiveHub. Everything that can refuse (a malformed or unknown id, another account's request, too
// many streams) is checked before the stream starts, so it is the API's JSON error, never a broken stream.
import type http from 'node:http';
import type { LiveEvents } from '../api/types.js';
import { ShortsError } from '../errors.js';
import type { Service } from '../service/service.js';
import type { LiveHub, LiveSubscriber } from './live-hub.js';
import type { SelfHandler } from './router.js';

/** Ids one list stream may watch (the list view's visible rows). */
export const MAX_LIST_IDS = 100;

export function eventStreamHandlers(hub: LiveHub, service: Service): { streamShortsEvents: SelfHandler; streamEvents: SelfHandler } {
  const open = async (res: http.ServerResponse, accountId: string, ids: string[], kind: LiveSubscriber['kind']) => {
    try {
      hub.checkRoom(accountId);
    } catch (e) {
      // As every 429 of the API: when to try again, in the header too.
      if (e instanceof ShortsError && typeof e.details?.retryAfter === 'number') res.setHeader('Retry-After', String(e.details.retryAfter));
      throw e;
    }
    // Each event is written as it happens: no compression, no proxy buffering (nginx reads X-Accel-Buffering), no caching.
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no', connection: 'keep-alive',
    });
    res.socket?.setNoDelay(true);
    res.write('retry: 3000\n\n');
    const unsubscribe = hub.subscribe({
      accountId, ids, kind,
      send: <E extends keyof LiveEvents>(event: E, data: LiveEvents[E]) => { res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`); },
      ping: () => { res.write(': ping\n\n'); },
      close: () => res.end(),
    });
    // A closed tab (or any socket close) stops the stream's share of the polling at once.
    res.once('close', unsubscribe);
  };
  return {
    streamShortsEvents: async (_req, res, { params, auth }) => {
      const r = await service.watchable(auth!.account, params[0]!);
      await open(res, auth!.account.id, [r.id], 'request');
    },
    streamEvents: async (_req, res, { url, auth }) => {
      const ids = [...new Set((url.searchParams.get('ids') ?? '').split(',').map((s) => s.trim()).filter(Boolean))];
      if (ids.length === 0) throw new ShortsError('invalid_request', 'ids is required: comma-separated request ids', { parameter: 'ids' });
      if (ids.length > MAX_LIST_IDS) throw new ShortsError('invalid_request', `ids names ${ids.length} requests; at most ${MAX_LIST_IDS}`, { parameter: 'ids' });
      for (const id of ids) await service.watchable(auth!.account, id);
      await open(res, auth!.account.id, ids, 'list');
    },
  };
}
