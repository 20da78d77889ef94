// Who may read /metrics. Metrics reveal volumes (requests, credits, queue depths), so they are not public:
// with SHORTS_METRICS_TOKEN set, whoever presents it as a bearer token (a Prometheus on another host);
// without it, only a caller on this machine. A request carrying a proxy's forwarding header is not taken as
// local even from loopback: behind a reverse proxy on the same machine every caller would otherwise look local.
import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { ShortsError } from '../errors.js';

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

function loopback(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || /^(::ffff:)?127\./.test(address));
}

/** Throws the 401 to answer when `req` may not read the metrics. */
export function checkMetricsAccess(req: http.IncomingMessage, token: string | undefined): void {
  if (token === undefined) {
    if (loopback(req.socket.remoteAddress) && !FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined)) return;
    throw new ShortsError('missing_api_key', 'metrics are served to callers on this machine only; set SHORTS_METRICS_TOKEN to read them from elsewhere');
  }
  const presented = /^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (presented === undefined) throw new ShortsError('missing_api_key', 'send the metrics token (SHORTS_METRICS_TOKEN) as Authorization: Bearer <token>');
  // Compared as digests: equal lengths, and the time taken says nothing about how much of it matched.
  const digest = (s: string) => createHash('sha256').update(s).digest();
  if (!timingSafeEqual(digest(presented), digest(token))) throw new ShortsError('invalid_api_key', 'the metrics token is not valid');
}
