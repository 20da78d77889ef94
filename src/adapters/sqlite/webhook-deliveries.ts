// The webhook-deliveries port over the webhook_attempts table of the job store's SQLite file.
import type Database from 'better-sqlite3';
import type { WebhookAttempt, WebhookAttemptRecord, WebhookDeliveriesPort } from '../../ports/webhook-deliveries.js';

export class SqliteWebhookDeliveries implements WebhookDeliveriesPort {
  private readonly insert: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare(`INSERT INTO webhook_attempts
      (message_id, request_id, event, url, attempt, started_at, duration_ms, status_code, error, delivered)
      VALUES (@messageId, @requestId, @event, @url, @attempt, @startedAt, @durationMs, @statusCode, @error, @delivered)`);
  }

  async record(a: WebhookAttemptRecord): Promise<void> {
    this.insert.run({ ...a, delivered: a.delivered ? 1 : 0 });
  }

  async attempts(requestId: string): Promise<WebhookAttempt[]> {
    const rows = this.db.prepare(`SELECT message_id, attempt, started_at, duration_ms, status_code, error, delivered
      FROM webhook_attempts WHERE request_id = ? ORDER BY id`).all(requestId) as {
      message_id: string; attempt: number; started_at: string; duration_ms: number | null;
      status_code: number | null; error: string | null; delivered: number;
    }[];
    return rows.map((r) => ({
      messageId: r.message_id, attempt: r.attempt, startedAt: r.started_at, durationMs: r.duration_ms,
      statusCode: r.status_code, error: r.error, delivered: r.delivered === 1,
    }));
  }
}
