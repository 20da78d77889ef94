// Webhook signatures (https://www.standardwebhooks.com), shared by the sender (src/server/webhooks.ts)
// and receivers (the library's verifyWebhook). A neutral module: only node:crypto, so a receiver that
// imports the library's verification does not load the server, SQLite or got.
//
// HMAC-SHA256 over "<id>.<timestamp>.<body>" with the base64-decoded part of a "whsec_<base64>" secret,
// sent as "v1,<base64 signature>" in `webhook-signature`, with `webhook-id` and `webhook-timestamp`.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The body of a webhook delivery (spec 6): what a receiver parses after verifying it. */
export interface WebhookEvent {
  event: 'shorts.completed' | 'shorts.failed';
  requestId: string;
  status: 'completed' | 'failed';
  /** ISO 8601 time of the event. */
  timestamp: string;
  data: Record<string, unknown>;
}

/** Request headers as node:http gives them (any case) or a fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** How far a delivery's `webhook-timestamp` may be from now before it is refused as a replay. */
export const DEFAULT_WEBHOOK_TOLERANCE_SEC = 300;

function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** The `webhook-signature` header value for one delivery attempt. */
export function signWebhook(secret: string, messageId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret)).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * For receivers: true when one of the `webhook-signature` entries matches the body and the
 * `webhook-timestamp` is within `toleranceSec` of now (replayed old deliveries are refused). `body` must
 * be the raw request body as received, not a re-serialised parse of it.
 */
export function verifyWebhook(
  secret: string, headers: WebhookHeaders, body: string, toleranceSec = DEFAULT_WEBHOOK_TOLERANCE_SEC, now: Date = new Date(),
): boolean {
  const id = header(headers, 'webhook-id');
  const stamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !stamp || !signatures || !/^\d+$/.test(stamp)) return false;
  const timestamp = Number(stamp);
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSec) return false;
  const expected = Buffer.from(signWebhook(secret, id, timestamp, body).slice('v1,'.length), 'base64');
  return signatures.split(' ').some((entry) => {
    const [version, sig] = entry.split(',', 2);
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
