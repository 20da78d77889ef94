// A loopback forward proxy that puts every connection a child tool makes through the URL guard.
// yt-dlp resolves names and follows links (redirects, the media URLs a page lists) on its own; checking
// the page URL before starting it does not stop it from being steered to an internal address later, or
// from connecting to whatever the page's name resolves to a second time (DNS rebinding). Run through this
// proxy (`--proxy`), each CONNECT tunnel and each plain-HTTP request is checked when it is made, and the
// socket goes to the addresses that check approved and to nothing else.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { pinnedLookup } from './pinned-lookup.js';
import type { UrlCheck } from './download.js';

export interface EgressProxy {
  /** `http://user:token@127.0.0.1:port`: what the child tool is given as its proxy. */
  readonly url: string;
  /** Why the guard refused a connection, in the order they happened (the child only sees a 403). */
  readonly refusals: readonly string[];
  close(): Promise<void>;
}

const USER = 'shorts';

function refuse(socket: Duplex, status: string, reason: string, extra = ''): void {
  const body = `${reason}\n`;
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n${extra}\r\n${body}`);
}

/** `host:port` of a CONNECT request (IPv6 in brackets), or null when it is not one. */
export function parseConnectTarget(target: string): { host: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:.%\w]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(target);
  if (!m) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1]!, port };
}

/** Headers a proxy must not pass on (RFC 9110 7.6.1), plus our own credential. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * Starts the proxy on 127.0.0.1 (a random port) with a random credential, so no other local process can
 * use it as a way around the guard. `check` is the guard (it throws to refuse, and returns the addresses
 * to connect to). Close it when the child has exited.
 */
export async function startEgressProxy(check: UrlCheck): Promise<EgressProxy> {
  const token = randomBytes(18).toString('base64url');
  const expected = Buffer.from(`Basic ${Buffer.from(`${USER}:${token}`).toString('base64')}`);
  const refusals: string[] = [];
  const sockets = new Set<Duplex>();
  const track = (s: Duplex) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  const authorized = (req: http.IncomingMessage) => {
    const got = Buffer.from(req.headers['proxy-authorization'] ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  /** Runs the guard; on refusal records why and returns null. */
  const vet = async (url: URL): Promise<readonly string[] | null> => {
    try {
      const checked = await check(url);
      return checked?.addresses ?? [];
    } catch (e) {
      refusals.push(e instanceof Error ? e.message : String(e));
      return null;
    }
  };

  const server = http.createServer(async (req, res) => {
    track(req.socket);
    if (!authorized(req)) return void refuse(req.socket, '407 Proxy Authentication Required', 'proxy credentials required', 'Proxy-Authenticate: Basic realm="shorts"\r\n');
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void refuse(req.socket, '400 Bad Request', 'a proxy request needs an absolute http:// URL');
    }
    if (url.protocol !== 'http:') return void refuse(req.socket, '400 Bad Request', 'only http:// requests are forwarded; https goes through CONNECT');
    const addresses = await vet(url);
    if (!addresses) return void refuse(req.socket, '403 Forbidden', refusals.at(-1)!);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const upstream = http.request(url, {
      method: req.method, headers, agent: false,
      lookup: addresses.length > 0 ? pinnedLookup(addresses) : undefined,
    }, (up) => {
      const back: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(name)) back[name] = value;
      res.writeHead(up.statusCode ?? 502, up.statusMessage, back);
      up.pipe(res);
    });
    upstream.on('error', (e) => {
      if (res.headersSent) res.destroy();
      else refuse(req.socket, '502 Bad Gateway', `upstream: ${(e as NodeJS.ErrnoException).code ?? e.message}`);
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });

  server.on('connect', async (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    client.on('error', () => client.destroy());
    if (!authorized(req)) return refuse(client, '407 Proxy Authentication Required', 'proxy credentials required', 'Proxy-Authenticate: Basic realm="shorts"\r\n');
    const target = parseConnectTarget(req.url ?? '');
    if (!target) return refuse(client, '400 Bad Request', 'CONNECT needs host:port');
    // The guard vets names and addresses, not schemes: a tunnel is checked as the https URL it carries.
    const url = new URL(`https://${target.host}:${target.port}/`);
    const addresses = await vet(url);
    if (!addresses) return refuse(client, '403 Forbidden', refusals.at(-1)!);
    const host = target.host.replace(/^\[|\]$/g, '');
    const upstream = net.connect({ host, port: target.port, lookup: addresses.length > 0 ? pinnedLookup(addresses) : undefined });
    track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (e) => {
      if (!connected) refuse(client, '502 Bad Gateway', `upstream: ${(e as NodeJS.ErrnoException).code ?? e.message}`);
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });
  server.on('clientError', (_e, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://${USER}:${token}@127.0.0.1:${port}`,
    refusals,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/**
 * Environment for a child that goes through `proxyUrl`: the proxy variables that curl, ffmpeg and Python
 * read, and no NO_PROXY (which would let a host named there bypass the guard).
 */
export function proxiedEnv(proxyUrl: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!/^(https?_proxy|all_proxy|no_proxy)$/i.test(k)) env[k] = v;
  for (const k of ['http_proxy', 'https_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) env[k] = proxyUrl;
  return env;
}
