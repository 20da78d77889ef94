// The webhook-deliveries port's conformance suite against today's adapter: the job store's SQLite file.
import { SqliteWebhookDeliveries } from '../src/adapters/sqlite/webhook-deliveries.js';
import { webhookDeliveriesConformance } from './conformance/webhook-deliveries.js';
import { sqliteHarness } from './helpers/sqlite-harness.js';

webhookDeliveriesConformance('SQLite', () => sqliteHarness((db) => new SqliteWebhookDeliveries(db)));
