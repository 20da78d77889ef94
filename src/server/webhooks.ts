// Webhook delivery (spec 6): a JSON POST, acknowledged by any 2xx; otherwise retried, at most 3 attempts
// (immediately, after 1 s, after 3 s), 10 s each, then abandoned without touching the request. Signed
// the Standard Webhooks way (DESIGN.md, src/webhook-signature.ts). Every attempt is recorded through the
// webhook-deliveries port (src/ports/webhook-deliveries.ts). The URL guard runs again before each attempt and the connection is pinned to the
// addresses it approved, so a hostname that was public at creation cannot be rebound to an internal
// address by delivery time.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import got from 'got';
import { checkPublicUrl, pinnedLookup, type GuardOptions } from '../net/url-guard.js';
import type { WebhookAttempt, WebhookDeliveriesPort } from '../ports/webhook-deliveries.js';
import { signWebhook, type WebhookEvent } from '../webhook-signature.js';
import { STAGES } from '../engine/stages.js';

// Signing and verifying live in a neutral module that receivers (the library) import without the server.
export { signWebhook, verifyWebhook, type WebhookEvent } from '../webhook-signature.js';

export interface WebhookSenderOptions {
  /** Wait before each attempt, measured from the end of the previous one. Default [0, 1000, 3000]. */
  delaysMs?: number[];
  /** Per attempt, covering connect, upload and the response status. Default 10 000. */
  timeoutMs?: number;
  guard?: GuardOptions;
  now?: () => Date;
}

export type { WebhookAttempt } from '../ports/webhook-deliveries.js';

export interface DeliveryResult { delivered: boolean; attempts: number; messageId: string }

/** No wait before the first attempt, then the stage table's notify backoff: [0, 1000, 3000]. */
export const DEFAULT_WEBHOOK_DELAYS_MS = [0, ...STAGES.notify.retry.backoffMs].slice(0, STAGES.notify.retry.attempts);
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
const USER_AGENT = 'shortwright';

// ---------------------------------------------------------------------------------------------------
// Delivery

interface AttemptOutcome { statusCode: number | null; error: string | null; delivered: boolean }

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    return code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

export class WebhookSender {
  private readonly delays: number[];
  private readonly timeoutMs: number;
  private readonly now: () => Date;

  constructor(private readonly log: WebhookDeliveriesPort, private readonly opts: WebhookSenderOptions = {}) {
    this.delays = (opts.delaysMs ?? DEFAULT_WEBHOOK_DELAYS_MS).slice(0, 3);
    if (this.delays.length === 0) throw new RangeError('delaysMs needs at least one entry');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Delivers `event` to `url` and resolves once it is acknowledged or abandoned; delivery failures are
   * never thrown. `signal` (server shutdown) stops between or during attempts; the result then says
   * not delivered.
   */
  async deliver(url: string, secret: string, event: WebhookEvent, signal?: AbortSignal): Promise<DeliveryResult> {
    const messageId = `msg_${randomBytes(16).toString('hex')}`;
    const body = JSON.stringify(event);
    let attempts = 0;
    for (const delay of this.delays) {
      if (delay > 0) await sleep(delay, undefined, { signal }).catch(() => undefined);
      if (signal?.aborted) break;
      attempts++;
      const started = this.now();
      const t0 = performance.now();
      const outcome = await this.attempt(url, secret, messageId, body, signal);
      await this.log.record({
        messageId, requestId: event.requestId, event: event.event, url, attempt: attempts,
        startedAt: started.toISOString(), durationMs: Math.round(performance.now() - t0),
        statusCode: outcome.statusCode, error: outcome.error, delivered: outcome.delivered,
      });
      if (outcome.delivered) return { delivered: true, attempts, messageId };
    }
    return { delivered: false, attempts, messageId };
  }

  private async attempt(url: string, secret: string, messageId: string, body: string, signal?: AbortSignal): Promise<AttemptOutcome> {
    let addresses: string[];
    try {
      // Again at every attempt: the answer may have changed since creation (DNS rebinding).
      addresses = (await checkPublicUrl(url, this.opts.guard)).addresses;
    } catch (e) {
      return { statusCode: null, error: `refused by the URL guard: ${errorText(e)}`, delivered: false };
    }
    const timestamp = Math.floor(this.now().getTime() / 1000);
    const stream = got.stream.post(url, {
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, messageId, timestamp, body),
      },
      dnsLookup: pinnedLookup(addresses),
      // A private agent: a pooled socket could have been connected under an older DNS answer.
      agent: { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) },
      // Retries are ours (spec timing, every attempt recorded); a redirect is an answer, not a 2xx.
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
      timeout: { request: this.timeoutMs },
      signal,
    });
    try {
      // Only the status matters; the body is never read, so a receiver cannot make us buffer anything.
      const statusCode = await new Promise<number>((resolve, reject) => {
        stream.once('response', (response: http.IncomingMessage) => resolve(response.statusCode ?? 0));
        stream.once('error', reject);
      });
      const delivered = statusCode >= 200 && statusCode < 300;
      return { statusCode, error: delivered ? null : `HTTP ${statusCode}`, delivered };
    } catch (e) {
      return { statusCode: null, error: errorText(e), delivered: false };
    } finally {
      stream.destroy();
    }
  }

  /** Every recorded attempt for a request, oldest first. */
  attempts(requestId: string): Promise<WebhookAttempt[]> {
    return this.log.attempts(requestId);
  }
}
