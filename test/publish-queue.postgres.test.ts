// Posts through the `publish` queue with SHORTS_DATABASE_URL: the posts and leases in PostgreSQL and the queue on
// BullMQ's PostgreSQL backend, for the API engine here and the worker processes (the suite:
// test/helpers/publish-queue-suite.ts). One server for this file, a fresh database.
import { randomBytes } from 'node:crypto';
import { startPostgres } from './helpers/engines.js';
import { publishQueueSuite } from './helpers/publish-queue-suite.js';

publishQueueSuite('PostgreSQL', async () => {
  const server = await startPostgres();
  // Distributed mode: every process reads the tokens another saved.
  return { env: { SHORTS_DATABASE_URL: await server.createDatabase('publishq'), SHORTS_SECRET_KEY: randomBytes(32).toString('hex') }, close: () => server.close() };
});
