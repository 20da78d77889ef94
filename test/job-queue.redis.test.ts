// The job queue port's conformance suite against BullMQ on Redis: one redis-server for the file, a fresh key
// prefix per harness (a second instance: its own connections, as another process would have); and a restart
// of the server while a job is held.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { jobQueueConformance } from './conformance/job-queue.js';
import { bullmqHarness, bullmqRestartTests } from './helpers/bullmq-harness.js';
import { startRedis, type Redis } from './helpers/engines.js';

let redis: Redis;
beforeAll(async () => { redis = await startRedis(); });
afterAll(async () => { await redis?.close(); });

const connect = () => ({ redisUrl: redis.url, prefix: `t-${randomUUID()}` });
jobQueueConformance('BullMQ on Redis', (retention) => bullmqHarness(connect(), retention));
bullmqRestartTests('BullMQ on Redis', () => ({ connection: connect(), server: redis, durable: false }));
