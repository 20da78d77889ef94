// The webhook-deliveries port: the log of every attempt to deliver a webhook (spec 6), kept so an operator
// can see what was sent, when, and what the receiver answered. Sending stays in src/server/webhooks.ts;
// today's adapter is src/adapters/sqlite/webhook-deliveries.ts.

export interface WebhookAttempt {
  messageId: string;
  attempt: number;
  startedAt: string;
  durationMs: number | null;
  statusCode: number | null;
  error: string | null;
  delivered: boolean;
}

/** One attempt as recorded: which request and event it was for, and where it went. */
export interface WebhookAttemptRecord extends WebhookAttempt {
  requestId: string;
  event: string;
  url: string;
}

export interface WebhookDeliveriesPort {
  record(attempt: WebhookAttemptRecord): Promise<void>;
  /** Every attempt recorded for a request, in the order they were recorded. */
  attempts(requestId: string): Promise<WebhookAttempt[]>;
}
