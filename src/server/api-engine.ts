// The engine of the API's processes — `shorts serve` and `shorts worker` (issue 24: the API and the workers may
// be separate processes, on separate machines) — built the same way in both: charged to the accounts' credits,
// with the URL guard, signed media links, and the notify step that sends a request's webhook (and runs the
// automation rules of a completed one) wherever its notify job runs.
import { createEngine, type Engine } from '../app/create-engine.js';
import type { Worker } from '../engine/worker.js';
import { checkFileUrl, checkVideoSiteUrl, checkWebhookUrl, guardUrlCheck } from '../net/url-guard.js';
import { checkImageUrl } from '../net/image-url-check.js';
import type { RequestRecord } from '../ports/request-store.js';
import type { Service } from '../service/service.js';
import { setting } from '../settings.js';
import { MediaLinks, loadOrCreateSecret } from './media-links.js';
import { parseMediaTtl } from '../media-ttl.js';
import { WebhookSender, type WebhookEvent } from './webhooks.js';

export interface ApiEngineOptions {
  dataDir: string;
  log: (line: string) => void;
  /** The public base of media links and template images; read on first use (serve learns its address once it listens). */
  baseUrl: () => string;
}

export interface ApiEngine {
  engine: Engine;
  /** Signed links to clips and covers (made on first use, from baseUrl). */
  mediaLinks(): MediaLinks;
  /** The workers of this process, for the queues given (default all). */
  worker(opts: { concurrency: number; queues?: readonly string[] }): Worker;
}

export function createApiEngine(opts: ApiEngineOptions): ApiEngine {
  let links: MediaLinks | undefined;
  const mediaLinks = () => (links ??= new MediaLinks({ secret: loadOrCreateSecret(opts.dataDir), publicBaseUrl: opts.baseUrl(), ttlSec: parseMediaTtl(setting('SHORTS_MEDIA_TTL')) }));
  const engine: Engine = createEngine({
    dataDir: opts.dataDir, log: opts.log, apiAccounts: true,
    service: {
      mediaUrl: (s) => mediaLinks().url(s.requestId, s.id),
      thumbnailUrl: (s) => mediaLinks().thumbnailUrl(s.requestId, s.id),
      sourceUrl: (id) => mediaLinks().sourceUrl(id),
      // Template preview images are public files served by the API process.
      assetsBaseUrl: () => opts.baseUrl(),
      urlChecks: {
        fileUrl: async (u) => { await checkFileUrl(u); },
        videoSiteUrl: async (u) => { await checkVideoSiteUrl(u); },
        webhookUrl: async (u) => { await checkWebhookUrl(u); },
        outroImageUrl: async (u) => { await checkImageUrl(u); },
      },
      secondsPerSourceSecond: async () => (await engine.store.measuredSecondsPerSourceSecond()) ?? 0.35,
    },
  });
  const { accounts, service } = engine;
  const webhooks = new WebhookSender(engine.webhookDeliveries);

  const notify = async (r: RequestRecord) => {
    if (r.status === 'completed') {
      // Posts (issue 16): the automation rules that post clips as requests complete (queued on `publish`).
      try {
        await engine.automation.onRequestCompleted(r.id);
      } catch (e) {
        opts.log(`automation for ${r.id}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const url = r.options.webhookUrl;
    const account = await accounts.getAccount(r.accountId);
    if (!url || !account) return;
    await webhooks.deliver(url, account.webhookSecret, await webhookEvent(r, service, account));
  };

  return {
    engine, mediaLinks,
    worker: (w) => engine.worker({
      concurrency: w.concurrency, queues: w.queues,
      onFinished: notify,
      blurPreference: async (id) => (await accounts.getAccount(id))?.blurBackground ?? true,
      checkUrl: guardUrlCheck('invalid_file_url'),
    }),
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
