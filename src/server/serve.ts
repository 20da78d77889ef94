// Wires `shorts serve`: the store, accounts, limits, URL guard, workers, webhooks and signed media
// links around one Service, then listens. close() stops taking work and leaves running requests
// `processing` with their checkpoints, so the next start resumes them.
import { existsSync, statfsSync } from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RequestRecord, RequestStore } from '../ports/request-store.js';
import { Worker } from '../engine/worker.js';
import { mediaBinaries } from '../media/binaries.js';
import { checkFileUrl, checkVideoSiteUrl, checkWebhookUrl, guardUrlCheck } from '../net/url-guard.js';
import { checkImageUrl } from '../net/image-url-check.js';
import { whisperCliPath } from '../pipeline/transcribe/whisper-cli.js';
import { Service } from '../service/service.js';
import { createApiServer, type ReadinessReport } from './http-server.js';
import { IdempotentRequests } from './idempotency.js';
import { MediaLinks, loadOrCreateSecret } from './media-links.js';
import { parseMediaTtl } from '../media-ttl.js';
import { openApiDocument } from '../api/openapi.js';
import { RateLimiter } from './rate-limit.js';
import { WebhookSender, type WebhookEvent } from './webhooks.js';
import { mcpHttpHandler } from './mcp-handler.js';
import { createEngine, type Engine } from '../app/create-engine.js';
import { setting } from '../settings.js';
import { checkSecretKeySetting } from '../posts/secret-key.js';

export interface ServeOptions {
  host: string;
  port: number;
  dataDir: string;
  /** Base of media links (SHORTS_PUBLIC_URL); default the address the server listens on. */
  publicUrl?: string;
  /** Requests processed at once (SHORTS_WORKERS, default 1: one job already uses every core). */
  workers?: number;
  log: (line: string) => void;
}

export interface RunningServer { url: string; server: http.Server; worker: Worker; store: RequestStore; close(): Promise<void> }

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  // A malformed SHORTS_SECRET_KEY stops serve at start with the rule, not at the first account connected.
  checkSecretKeySetting();
  const links: { current: MediaLinks | null } = { current: null };
  const mediaLinks = () => links.current!;
  // Every part of the engine comes from the composition root; serve adds the HTTP parts around it.
  const engine = createEngine({
    dataDir: opts.dataDir, log: opts.log, apiAccounts: true,
    service: {
      mediaUrl: (s) => mediaLinks().url(s.requestId, s.id),
      thumbnailUrl: (s) => mediaLinks().thumbnailUrl(s.requestId, s.id),
      // Template preview images are public files served by this server (known once it listens).
      assetsBaseUrl: () => baseUrl,
      urlChecks: {
        fileUrl: async (u) => { await checkFileUrl(u); },
        videoSiteUrl: async (u) => { await checkVideoSiteUrl(u); },
        webhookUrl: async (u) => { await checkWebhookUrl(u); },
        outroImageUrl: async (u) => { await checkImageUrl(u); },
      },
      secondsPerSourceSecond: async () => (await engine.store.measuredSecondsPerSourceSecond()) ?? 0.35,
    },
  });
  const { store, accounts, service, posts, automation } = engine;
  const limiter = new RateLimiter(engine.rateLimits);
  const webhooks = new WebhookSender(engine.webhookDeliveries);

  // Posts (issue 16): scheduling, the automation rules that post clips as requests complete (their posts are
  // queued on `publish` as they are stored).
  const publishing = engine.publishing({ scope: { kind: 'api' } });
  const onCompleted = async (r: RequestRecord) => {
    try {
      await automation.onRequestCompleted(r.id);
    } catch (e) {
      opts.log(`automation for ${r.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const notify = async (r: RequestRecord) => {
    if (r.status === 'completed') await onCompleted(r);
    const url = r.options.webhookUrl;
    const account = await accounts.getAccount(r.accountId);
    if (!url || !account) return;
    await webhooks.deliver(url, account.webhookSecret, await webhookEvent(r, service, account));
  };
  const workers = opts.workers ?? Number(setting('SHORTS_WORKERS') ?? 1);
  const worker = engine.worker({
    concurrency: workers,
    onFinished: notify,
    blurPreference: async (id) => (await accounts.getAccount(id))?.blurBackground ?? true,
    checkUrl: guardUrlCheck('invalid_file_url'),
  });

  const server = createApiServer({
    service, posts, automation, store, accounts, limiter,
    publicUrl: () => baseUrl,
    get mediaLinks() { return mediaLinks(); },
    openapi: () => openApiDocument({ serverUrl: `${baseUrl}/api/v1` }),
    readiness: () => readiness(engine, opts.dataDir),
    metrics: engine.metrics,
    metricsToken: setting('SHORTS_METRICS_TOKEN'),
    idempotency: new IdempotentRequests(engine.idempotency),
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
  links.current = new MediaLinks({ secret: loadOrCreateSecret(opts.dataDir), publicBaseUrl: baseUrl, ttlSec: parseMediaTtl(setting('SHORTS_MEDIA_TTL')) });
  worker.start();
  // The `publish` queue: posts due while the server was down go out now; ones a killed server left half-way are
  // resumed. An API process that runs no jobs (workers 0) leaves them to the processes serving `publish`.
  if (workers > 0) publishing.worker.start();

  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}`,
    server, worker, store,
    close: () => (closing ??= (async () => {
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
      await Promise.all([worker.stop(), publishing.worker.stop()]);
      // A clean stop hands every lease back: another server resumes the work at once, not after the TTL.
      await engine.close();
    })()),
  };
}

/** DESIGN.md: data is {shorts} for completed and {failureReason} for failed; viral_score on 0-10 here. */
async function webhookEvent(r: RequestRecord, service: Service, account: { id: string; email: string }): Promise<WebhookEvent> {
  const base = { requestId: r.id, timestamp: new Date().toISOString() };
  if (r.status === 'failed') return { ...base, event: 'shorts.failed', status: 'failed', data: { failureReason: r.failureReason ?? 'internal error' } };
  const detail = await service.detail(account, r.id);
  return {
    ...base, event: 'shorts.completed', status: 'completed',
    data: { shorts: detail.shorts.filter((s) => !s.error).map((s) => ({ id: s.id, title: s.title, video_url: s.video_url, duration: s.duration, viral_score: Math.round(s.viral_score) / 10 })) },
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
