// Wires `shorts serve`: the API's engine (api-engine.ts: store, accounts, URL guard, workers, webhooks, signed
// media links), limits and the HTTP server around one Service, then listens; with `--workers 0` it runs no jobs.
// close() stops taking work and leaves running requests `processing` with their checkpoints, so the next start
// resumes them.
import { existsSync, statfsSync } from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RequestStore } from '../ports/request-store.js';
import type { Worker } from '../engine/worker.js';
import { mediaBinaries } from '../media/binaries.js';
import { whisperCliPath } from '../pipeline/transcribe/whisper-cli.js';
import { createApiServer, type ReadinessReport } from './http-server.js';
import { IdempotentRequests } from './idempotency.js';
import { openApiDocument } from '../api/openapi.js';
import { RateLimiter } from './rate-limit.js';
import { mcpHttpHandler } from './mcp-handler.js';
import { createApiEngine } from './api-engine.js';
import type { Engine } from '../app/create-engine.js';
import { setting } from '../settings.js';
import { checkSecretKeySetting } from '../posts/secret-key.js';
import { sessionDays, StudioSessions, type LocalStudioAccount } from './studio-sessions.js';
import { StudioFiles, studioCsp } from './studio-static.js';
import { uploadsHandler } from './uploads.js';
import { uploadStaging } from '../app/upload-store.js';

export interface ServeOptions {
  host: string;
  port: number;
  dataDir: string;
  /** Base of media links (SHORTS_PUBLIC_URL); default the address the server listens on. */
  publicUrl?: string;
  /** Jobs run at once (SHORTS_WORKERS, default 1: one job already uses every core); 0 runs none (an API-only process). */
  workers?: number;
  log: (line: string) => void;
  /** `shorts studio` (issue 25): its one-time sign-in links open sessions of this (the local client's) account. */
  localStudio?: LocalStudioAccount;
}

export interface RunningServer { url: string; server: http.Server; worker: Worker; store: RequestStore; sessions: StudioSessions; close(): Promise<void> }

/** Where clip links point besides this server: the S3 bucket's origin of presigned links (the studio's CSP allows it). */
function mediaOrigins(): string[] {
  if (setting('SHORTS_STORAGE_URL') === undefined) return [];
  const endpoint = setting('SHORTS_S3_ENDPOINT');
  if (endpoint === undefined) return ['https://*.amazonaws.com'];
  try {
    const u = new URL(endpoint);
    return [u.origin, `${u.protocol}//*.${u.host}`];
  } catch {
    return [];
  }
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  // A malformed SHORTS_SECRET_KEY stops serve at start with the rule, not at the first account connected.
  checkSecretKeySetting();
  // Every part of the engine comes from the composition root (the API's way: api-engine.ts); serve adds the HTTP parts around it.
  const { engine, mediaLinks, worker: workers } = createApiEngine({ dataDir: opts.dataDir, log: opts.log, baseUrl: () => baseUrl });
  const { store, accounts, service, posts, automation } = engine;
  const limiter = new RateLimiter(engine.rateLimits);

  // Posts (issue 16): scheduling, the automation rules that post clips as requests complete (their posts are
  // queued on `publish` as they are stored).
  const publishing = engine.publishing({ scope: { kind: 'api' } });
  // --workers 0: an API process that runs no jobs (`shorts worker` processes do).
  const concurrency = opts.workers ?? Number(setting('SHORTS_WORKERS') ?? 1);
  const worker = workers({ concurrency });

  const sessions = new StudioSessions(engine.sessions, accounts, { days: sessionDays(setting('SHORTS_SESSION_DAYS')), local: opts.localStudio });
  // Issue 25: resumable uploads, staged where the blob store's settings say (src/app/upload-store.ts).
  const uploads = uploadsHandler(await uploadStaging(opts.dataDir, engine.blobs), engine.blobs, opts.log);
  const server = createApiServer({
    service, posts, automation, store, accounts, limiter, sessions,
    // Clip links are made from the server's public base; a studio opened under another name (localhost vs
    // 127.0.0.1) must still play them, so that origin is allowed beside the bucket's.
    studioFiles: new StudioFiles(undefined, () => studioCsp([new URL(baseUrl).origin, ...mediaOrigins()])),
    publicUrl: () => baseUrl,
    get mediaLinks() { return mediaLinks(); },
    openapi: () => openApiDocument({ serverUrl: `${baseUrl}/api/v1` }),
    readiness: () => readiness(engine, opts.dataDir),
    metrics: engine.metrics,
    metricsToken: setting('SHORTS_METRICS_TOKEN'),
    idempotency: new IdempotentRequests(engine.idempotency),
    uploads,
    log: opts.log,
    mcp: mcpHttpHandler({
      service, posts, log: opts.log,
      limit: async (auth, name) => { const r = await limiter.check(auth.keyId, auth.account, name); if (r.error) throw r.error; },
    }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const baseUrl = (opts.publicUrl ?? setting('SHORTS_PUBLIC_URL') ?? `http://${host}:${address.port}`).replace(/\/+$/, '');
  // The links' secret is made (or read) now, as the server starts, not at its first answer with a link.
  mediaLinks();
  if (concurrency > 0) worker.start();
  // The `publish` queue: posts due while the server was down go out now; ones a killed server left half-way are
  // resumed. An API process that runs no jobs (workers 0) leaves them to the processes serving `publish`.
  if (concurrency > 0) publishing.worker.start();

  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    server, worker, store, sessions,
    close: () => (closing ??= (async () => {
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
      uploads.close();
      await Promise.all([worker.stop(), publishing.worker.stop()]);
      // A clean stop hands every lease back: another server resumes the work at once, not after the TTL.
      await engine.close();
    })()),
  };
}

async function readiness(engine: Engine, dataDir: string): Promise<ReadinessReport> {
  const checks: ReadinessReport['checks'] = {};
  // The engines the store, queue, blobs and counters live on (one check each, named after it), then this machine's.
  for (const { name, ok, detail } of await engine.readiness()) checks[name] = { ok, detail };
  const check = (name: string, fn: () => string) => {
    try {
      checks[name] = { ok: true, detail: fn() };
    } catch (e) {
      checks[name] = { ok: false, detail: e instanceof Error ? e.message : String(e) };
    }
  };
  check('disk', () => {
    const s = statfsSync(dataDir);
    const free = s.bavail * s.bsize;
    if (free < 2 * 1024 ** 3) throw new Error(`only ${(free / 1024 ** 3).toFixed(1)} GB free in ${dataDir}`);
    return `${(free / 1024 ** 3).toFixed(0)} GB free`;
  });
  check('ffmpeg', () => mediaBinaries().ffmpeg);
  check('whisper', () => whisperCliPath());
  check('model', () => {
    const spec = setting('SHORTS_WHISPER_MODEL') ?? 'tiny.en';
    const file = spec.includes('/') || spec.endsWith('.bin') ? spec : path.join(dataDir, 'models', `ggml-${spec}.bin`);
    if (!existsSync(file)) throw new Error(`Whisper model ${spec} is not present yet (${file}); it downloads on first use`);
    return file;
  });
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

export function defaultWorkers(): number {
  return Math.max(1, Math.floor(os.availableParallelism() / 4));
}
