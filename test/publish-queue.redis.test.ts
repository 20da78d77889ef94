// Posts through the `publish` queue with SHORTS_DATABASE_URL and SHORTS_REDIS_URL: the posts and leases in
// PostgreSQL, the queue on BullMQ over Redis, for the API engine here and the worker processes (the suite:
// test/helpers/publish-queue-suite.ts). One server of each for this file.
import { randomBytes } from 'node:crypto';
import { startPostgres, startRedis } from './helpers/engines.js';
import { publishQueueSuite } from './helpers/publish-queue-suite.js';

publishQueueSuite('PostgreSQL and Redis', async () => {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  return {
    env: { SHORTS_DATABASE_URL: await pg.createDatabase('publishq'), SHORTS_REDIS_URL: redis.database(1), SHORTS_SECRET_KEY: randomBytes(32).toString('hex') },
    close: async () => { await Promise.all([pg.close(), redis.close()]); },
  };
});
