// GET /metrics: who may read it, the answer, and a listener of its own for processes that serve no API
// (`shorts worker`: its stage durations and failures are in its own registry, so Prometheus scrapes each
// worker as it scrapes each API process). Metrics reveal volumes (requests, credits, queue depths), so they are not public:
// with SHORTS_METRICS_TOKEN set, whoever presents it as a bearer token (a Prometheus on another host);
// without it, only a caller on this machine. A request carrying a proxy's forwarding header is not taken as
// local even from loopback: behind a reverse proxy on the same machine every caller would otherwise look local.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ShortsError } from '../errors.js';
import type { EngineMetrics } from '../engine/metrics.js';

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

/** Answers GET /metrics: the 401 of checkMetricsAccess (thrown), or the metrics in Prometheus text. */
export async function answerMetrics(req: http.IncomingMessage, res: http.ServerResponse, metrics: EngineMetrics, token: string | undefined): Promise<void> {
  checkMetricsAccess(req, token);
  const text = await metrics.text();
  res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

export interface MetricsServer { url: string; close(): Promise<void> }

/** Listens on `host:port` (0: any free port) and answers GET /metrics only, with the same rules as serve's. */
export async function startMetricsServer(opts: { metrics: EngineMetrics; host: string; port: number; token?: string }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!.replace(/\/+$/, '');
    const refuse = (status: number, code: string, message: string) => {
      const body = JSON.stringify({ error: { code, message } });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
    };
    if (path !== '/metrics') return refuse(404, 'resource_not_found', `no endpoint ${req.method} ${path || '/'}`);
    if (req.method !== 'GET') return refuse(405, 'method_not_allowed', `${req.method} is not supported on /metrics; use GET`);
    answerMetrics(req, res, opts.metrics, opts.token).catch((e: unknown) => {
      if (e instanceof ShortsError) refuse(e.httpStatus, e.code, e.message);
      else refuse(500, 'internal_error', 'internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
