// Conformance suite of the webhook-deliveries port (src/ports/webhook-deliveries.ts), written against the
// interface only; every adapter must pass it unchanged.
import { describe, expect, it } from 'vitest';
import { perTest, type Harness } from './harness.js';
import type { WebhookAttemptRecord, WebhookDeliveriesPort } from '../../src/ports/webhook-deliveries.js';

export type WebhookDeliveriesHarness = Harness<WebhookDeliveriesPort>;

function attempt(requestId: string, n: number, over: Partial<WebhookAttemptRecord> = {}): WebhookAttemptRecord {
  return {
    messageId: `msg_${requestId}`, requestId, event: 'shorts.completed', url: 'https://hooks.example.com/in', attempt: n,
    startedAt: `2025-01-01T00:00:0${n}.000Z`, durationMs: 10 * n, statusCode: 500, error: 'HTTP 500', delivered: false, ...over,
  };
}

export function webhookDeliveriesConformance(name: string, factory: () => Promise<WebhookDeliveriesHarness>): void {
  describe(`webhook-deliveries port conformance: ${name}`, () => {
    const open = perTest(factory);

    it('records attempts and lists a request\'s in order, as they were recorded, seen by every instance', async () => {
      const h = await open();
      const other = await h.another();
      await h.port.record(attempt('r1', 1));
      await h.port.record(attempt('r2', 1, { statusCode: null, error: 'ECONNREFUSED', durationMs: null }));
      await other.record(attempt('r1', 2));
      await h.port.record(attempt('r1', 3, { statusCode: 204, error: null, delivered: true }));
      const strip = ({ requestId: _r, event: _e, url: _u, ...rest }: WebhookAttemptRecord) => rest;
      expect(await other.attempts('r1')).toEqual([strip(attempt('r1', 1)), strip(attempt('r1', 2)), strip(attempt('r1', 3, { statusCode: 204, error: null, delivered: true }))]);
      expect(await h.port.attempts('r2')).toEqual([strip(attempt('r2', 1, { statusCode: null, error: 'ECONNREFUSED', durationMs: null }))]);
      expect(await h.port.attempts('none')).toEqual([]);
    });
  });
}
