// The job queue port's conformance suite against BullMQ's PostgreSQL backend: one PostgreSQL server for the
// file, a fresh schema per harness (a second instance: its own pool, as another process would have); and a
// restart of the server while a job is held.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { jobQueueConformance } from './conformance/job-queue.js';
import { bullmqHarness, bullmqRestartTests } from './helpers/bullmq-harness.js';
import { startPostgres, type Postgres } from './helpers/engines.js';

let postgres: Postgres;
let database: string;
beforeAll(async () => {
  postgres = await startPostgres();
  database = await postgres.createDatabase('jobs');
}, 60_000);
afterAll(async () => { await postgres?.close(); });

const connect = () => ({ postgresUrl: database, schema: `bullmq_${randomUUID().replace(/-/g, '')}` });
jobQueueConformance('BullMQ on PostgreSQL', () => bullmqHarness(connect()));
bullmqRestartTests('BullMQ on PostgreSQL', () => ({ connection: connect(), server: { stop: () => postgres.stop('immediate'), start: () => postgres.start() }, durable: true }));
