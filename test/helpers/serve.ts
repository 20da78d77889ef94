// A real `shorts serve` child process on loopback, and small loopback servers for sources and webhooks.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BIN, cliEnv, runCli } from './cli.js';

export interface ServeProcess { url: string; api: string; child: ChildProcess; env: NodeJS.ProcessEnv; log: () => string; kill(signal?: NodeJS.Signals): Promise<void> }

/** Test servers run with loopback allowed through the URL guard, small fast renders, a fresh data dir. */
export function serveEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cliEnv({ SHORTS_ALLOW_PRIVATE_URLS: '1', ...extra });
}

export async function startServe(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${log}`)), 30_000);
    child.stderr!.on('data', (b: Buffer) => {
      log += b.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${log}`)));
  });
  return {
    url, api: `${url}/api/v1`, child, env, log: () => log,
    kill: (signal = 'SIGTERM') => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    }),
  };
}

export async function createKey(env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ key: string; accountId: string }> {
  const email = `user${Math.random().toString(36).slice(2)}@example.com`;
  const r = await runCli(['keys', 'create', '--email', email, '--credits', '5', ...args, '--json'], env);
  if (r.code !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { key: string; accountId: string };
}

export interface Loopback { url: string; server: http.Server; requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; at: number }[]; close(): Promise<void> }

/** A loopback HTTP server; `handler` may be replaced per test. */
export async function loopback(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<Loopback> {
  const requests: Loopback['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => { body += c.toString(); });
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, requests, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** Serves one file as video/mp4 (HEAD and GET) — a stand-in for a CDN. */
export function fileHandler(file: string) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': statSync(file).size });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  };
}

export async function api(base: string, key: string | null, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, json, text };
}

export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 240_000, everyMs = 500): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
