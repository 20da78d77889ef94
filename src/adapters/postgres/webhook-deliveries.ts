// The webhook-deliveries port over the webhook_attempts table; the identity column keeps the order attempts
// were recorded in, whichever process recorded them.
import type { WebhookAttempt, WebhookAttemptRecord, WebhookDeliveriesPort } from '../../ports/webhook-deliveries.js';
import type { PgDatabase } from './database.js';

interface Row {
  message_id: string; attempt: number; started_at: string; duration_ms: number | null;
  status_code: number | null; error: string | null; delivered: boolean;
}

export class PgWebhookDeliveries implements WebhookDeliveriesPort {
  constructor(private readonly db: PgDatabase) {}

  async record(a: WebhookAttemptRecord): Promise<void> {
    await this.db.query(`INSERT INTO webhook_attempts (message_id, request_id, event, url, attempt, started_at, duration_ms, status_code, error, delivered)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [a.messageId, a.requestId, a.event, a.url, a.attempt, a.startedAt, a.durationMs, a.statusCode, a.error, a.delivered]);
  }

  async attempts(requestId: string): Promise<WebhookAttempt[]> {
    const rows = await this.db.query<Row>(`SELECT message_id, attempt, started_at, duration_ms, status_code, error, delivered
      FROM webhook_attempts WHERE request_id = $1 ORDER BY id`, [requestId]);
    return rows.map((r) => ({
      messageId: r.message_id, attempt: r.attempt, startedAt: r.started_at, durationMs: r.duration_ms,
      statusCode: r.status_code, error: r.error, delivered: r.delivered,
    }));
  }
}
