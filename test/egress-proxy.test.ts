// The guard's egress proxy: every connection yt-dlp makes is checked when it is made, and goes only
// to the addresses that check approved. Names that would lead to private addresses are answered by a
// test resolver; nothing here connects anywhere but loopback.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UrlCheck } from '../src/net/download.js';
import { parseConnectTarget, proxiedEnv, startEgressProxy, type EgressProxy } from '../src/net/egress-proxy.js';
import { guardUrlCheck, type Resolver } from '../src/net/url-guard.js';
import { fetchSource } from '../src/pipeline/fetch/fetch.js';
import { PipelineError, ShortsError } from '../src/errors.js';
import { video } from './helpers/media.js';
import { rejection } from './helpers/rejection.js';

let server: Server;
let port: number;
let base: string;
let clip: Buffer;
let workDir: string;

beforeAll(async () => {
  clip = readFileSync(video({ duration: 1, width: 160, height: 90, fps: 10 }));
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/clip.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': clip.length });
      return void res.end(req.method === 'HEAD' ? undefined : clip);
    }
    if (url.pathname === '/page.html') {
      // A page on an allowed host whose video lives on a name that leads inside the network.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(`<html><head><title>Town Hall</title></head><body><video src="http://media.internal.test:${port}/clip.mp4"></video></body></html>`);
    }
    if (url.pathname === '/hop') {
      res.writeHead(302, { location: `http://media.internal.test:${port}/clip.mp4` });
      return void res.end();
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  workDir = mkdtempSync(path.join(os.tmpdir(), 'shorts-egress-'));
});
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

/** The production guard (loopback allowed, as in development), recording every URL it is asked about. */
function recordingGuard(resolver: Resolver): { check: UrlCheck; seen: string[] } {
  const seen: string[] = [];
  const guard = guardUrlCheck('invalid_file_url', { allowPrivate: true, resolver });
  return { seen, check: async (url) => { seen.push(url.host); return guard(url); } };
}

const internal: Resolver = async (name) => {
  if (name.endsWith('.internal.test')) return ['10.1.2.3'];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

describe('yt-dlp behind the egress proxy', () => {
  it('downloads a page through the proxy, each connection checked', async () => {
    const { check, seen } = recordingGuard(internal);
    const src = await fetchSource({ kind: 'pageUrl', url: `${base}/clip.mp4` }, { workDir, checkUrl: check });
    expect(readFileSync(src.path)).toEqual(clip);
    // Once at creation, then the info run and the download run each connect through the proxy.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen)).toEqual(new Set([`127.0.0.1:${port}`]));
  });

  it('refuses the media URL a page points at when its name leads to a private address', async () => {
    const { check, seen } = recordingGuard(internal);
    const e = await rejection(fetchSource({ kind: 'pageUrl', url: `${base}/page.html` }, { workDir, checkUrl: check }));
    expect(seen).toContain(`media.internal.test:${port}`);
    expect(e).toBeInstanceOf(PipelineError);
    expect((e as Error).message).toBe('could not download the video: a connection was refused: media.internal.test resolves to a private network address; only public addresses are allowed');
  });

  it('refuses a redirect to a private address', async () => {
    const { check } = recordingGuard(internal);
    const e = await rejection(fetchSource({ kind: 'pageUrl', url: `${base}/hop` }, { workDir, checkUrl: check }));
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'invalid_video_site_url', message: expect.stringContaining('a connection was refused: media.internal.test resolves to a private network address') });
  });

  it('checks the page host again when yt-dlp connects: a rebound DNS answer is refused', async () => {
    let answers = 0;
    // Loopback when the request is checked, a private address from then on.
    const rebinding: Resolver = async () => (answers++ === 0 ? ['127.0.0.1'] : ['10.9.8.7']);
    const { check, seen } = recordingGuard(rebinding);
    const e = await rejection(fetchSource({ kind: 'pageUrl', url: `http://rebind.test:${port}/clip.mp4` }, { workDir, checkUrl: check }));
    expect(seen).toEqual([`rebind.test:${port}`, `rebind.test:${port}`]);
    expect(e).toMatchObject({ code: 'invalid_video_site_url', message: 'could not read the video page: a connection was refused: rebind.test resolves to a private network address; only public addresses are allowed' });
  });
});

describe('egress proxy', () => {
  let proxy: EgressProxy;
  afterEach(async () => proxy?.close());

  /** Sends `request` to the proxy and returns what came back up to the end of the headers (or close). */
  async function talk(request: string, then?: (s: net.Socket) => void): Promise<string> {
    const { hostname, port: p } = new URL(proxy.url);
    const socket = net.connect(Number(p), hostname);
    socket.write(request);
    return new Promise((resolve, reject) => {
      let text = '';
      socket.on('data', (d) => {
        text += d.toString('latin1');
        if (then && text.includes('\r\n\r\n')) { then(socket); then = undefined; }
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
  }
  const auth = () => {
    const u = new URL(proxy.url);
    return `Proxy-Authorization: Basic ${Buffer.from(`${u.username}:${u.password}`).toString('base64')}\r\n`;
  };

  it('listens on loopback only and wants its credential', async () => {
    proxy = await startEgressProxy(async () => undefined);
    expect(new URL(proxy.url).hostname).toBe('127.0.0.1');
    const reply = await talk(`GET ${base}/clip.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 407 /);
    const tunnel = await talk(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from('shorts:wrong').toString('base64')}\r\n\r\n`);
    expect(tunnel).toMatch(/^HTTP\/1\.1 407 /);
  });

  it('tunnels CONNECT to an approved address and answers 403 with the reason otherwise', async () => {
    const { check } = recordingGuard(internal);
    proxy = await startEgressProxy(check);
    const ok = await talk(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n${auth()}\r\n`, (s) => {
      s.write('HEAD /clip.mp4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    expect(ok).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/);
    const refused = await talk(`CONNECT db.internal.test:5432 HTTP/1.1\r\n${auth()}\r\n`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(refused).toContain('db.internal.test resolves to a private network address');
    expect(proxy.refusals).toEqual(['db.internal.test resolves to a private network address; only public addresses are allowed']);
  });

  it('close() ends open tunnels', async () => {
    proxy = await startEgressProxy(recordingGuard(internal).check);
    let closing: Promise<void> | undefined;
    const reply = await talk(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n${auth()}\r\n`, () => { closing = proxy.close(); });
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    await closing;
  });

  it('parses CONNECT targets and rejects junk', () => {
    expect(parseConnectTarget('example.com:443')).toEqual({ host: 'example.com', port: 443 });
    expect(parseConnectTarget('[2001:db8::1]:8443')).toEqual({ host: '[2001:db8::1]', port: 8443 });
    for (const bad of ['example.com', 'example.com:0', 'example.com:70000', 'http://example.com:80', 'a b:1']) {
      expect(parseConnectTarget(bad)).toBeNull();
    }
  });

  it('gives the child the proxy variables and drops NO_PROXY', () => {
    const env = proxiedEnv('http://u:p@127.0.0.1:9', { PATH: '/bin', NO_PROXY: 'internal.test', no_proxy: '*', HTTPS_PROXY: 'http://elsewhere' });
    expect(env).toEqual({
      PATH: '/bin',
      http_proxy: 'http://u:p@127.0.0.1:9', https_proxy: 'http://u:p@127.0.0.1:9', all_proxy: 'http://u:p@127.0.0.1:9',
      HTTP_PROXY: 'http://u:p@127.0.0.1:9', HTTPS_PROXY: 'http://u:p@127.0.0.1:9', ALL_PROXY: 'http://u:p@127.0.0.1:9',
    });
  });
});
