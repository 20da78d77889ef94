// The state ports' conformance suites, unchanged, against the PostgreSQL adapters: one server for this file,
// a fresh migrated database per harness, `another()` on a second Pool (another process's view).
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PgAccounts } from '../src/adapters/postgres/accounts.js';
import { PgIdempotencyStore } from '../src/adapters/postgres/idempotency.js';
import { PgLeaseStore } from '../src/adapters/postgres/lease-store.js';
import { PgRateLimits } from '../src/adapters/postgres/rate-limits.js';
import { PgRequestStore } from '../src/adapters/postgres/request-store.js';
import { PgWebhookDeliveries } from '../src/adapters/postgres/webhook-deliveries.js';
import { PgSessions } from '../src/adapters/postgres/sessions.js';
import { accountsConformance } from './conformance/accounts.js';
import { idempotencyConformance } from './conformance/idempotency.js';
import { leaseStoreConformance } from './conformance/lease-store.js';
import { rateLimitsConformance } from './conformance/rate-limits.js';
import { requestStoreConformance } from './conformance/request-store.js';
import { webhookDeliveriesConformance } from './conformance/webhook-deliveries.js';
import { sessionsConformance } from './conformance/sessions.js';
import { startPostgres, type Postgres } from './helpers/engines.js';
import { postgresDatabase, postgresHarness } from './helpers/postgres-harness.js';

let server: Postgres;
beforeAll(async () => { server = await startPostgres(); }, 60_000);
afterAll(async () => { await server?.close(); });

requestStoreConformance('PostgreSQL', async () => {
  const d = await postgresDatabase(server);
  return { port: new PgRequestStore(d.db, mkdtempSync(path.join(os.tmpdir(), 'shorts-pg-'))), leases: new PgLeaseStore(d.db), close: d.close };
});
leaseStoreConformance('PostgreSQL', async () => {
  const d = await postgresDatabase(server);
  return { port: new PgLeaseStore(d.db), close: d.close };
});
accountsConformance('PostgreSQL', () => postgresHarness(server, (db) => new PgAccounts(db)));
idempotencyConformance('PostgreSQL', () => postgresHarness(server, (db) => new PgIdempotencyStore(db)));
webhookDeliveriesConformance('PostgreSQL', () => postgresHarness(server, (db) => new PgWebhookDeliveries(db)));
rateLimitsConformance('PostgreSQL', () => postgresHarness(server, (db) => new PgRateLimits(db)));
sessionsConformance('PostgreSQL', () => postgresHarness(server, (db) => new PgSessions(db)));
