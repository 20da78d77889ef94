// The job queue port's conformance suite against BullMQ's PostgreSQL backend: one PostgreSQL server for the
// file, a fresh database per harness (a second instance: its own pool, as another process would have); and a
// restart of the server while a job is held (a fast shutdown: the test server does not sync its commits, so a
// crash would lose the job it holds).
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createBullmqJobQueue } from '../src/adapters/bullmq/job-queue.js';
import { jobQueueConformance } from './conformance/job-queue.js';
import { bullmqHarness, bullmqRestartTests } from './helpers/bullmq-harness.js';
import { startPostgres, type Postgres } from './helpers/engines.js';

let postgres: Postgres;
let template: string;
let n = 0;
beforeAll(async () => {
  postgres = await startPostgres();
  // BullMQ's migrations once, into a template each harness's database is copied from (a copy is quicker).
  const url = await postgres.createDatabase('jobs_template');
  await (await createBullmqJobQueue({ postgresUrl: url })).close();
  template = new URL(url).pathname.slice(1);
}, 60_000);
afterAll(async () => { await postgres?.close(); });

const connect = async () => {
  const name = `${template}_${++n}`;
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  try {
    await admin.query(`create database "${name}" template "${template}" strategy file_copy`);
  } finally {
    await admin.end();
  }
  return { postgresUrl: postgres.url.replace(/\/postgres$/, `/${name}`) };
};
jobQueueConformance('BullMQ on PostgreSQL', async (retention) => bullmqHarness(await connect(), retention));
bullmqRestartTests('BullMQ on PostgreSQL', async () => ({
  connection: await connect(), server: { stop: () => postgres.stop('fast'), start: () => postgres.start() }, durable: true,
}));
