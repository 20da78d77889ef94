// Which engines hold the state and the queues (issue 24), chosen by configuration alone:
//   (nothing)                  SQLite in the data dir: state, the job queue and the counters in one file
//   SHORTS_DATABASE_URL        all state in PostgreSQL; the job queues on BullMQ's PostgreSQL backend; the
//                              rate-limit counters in PostgreSQL
//   + SHORTS_REDIS_URL         the job queues on BullMQ over Redis and the counters in Redis
// (SHORTS_REDIS_URL without a database moves only the counters: SQLite's queue serves one data dir anyway.)
// The blob store is chosen on its own (SHORTS_STORAGE_URL, src/adapters/s3/from-settings.ts).
import path from 'node:path';
import { createBullmqJobQueue } from '../adapters/bullmq/job-queue.js';
import { createPostgresState, describeDatabaseUrl } from '../adapters/postgres/index.js';
import { closeRedis, openRedis, pingRedis } from '../adapters/redis/connection.js';
import { RedisRateLimits } from '../adapters/redis/rate-limits.js';
import { SqliteAccounts } from '../adapters/sqlite/accounts.js';
import { SqliteAutomationRules } from '../adapters/sqlite/automation-rules.js';
import { SqliteConnectedAccountsStore } from '../adapters/sqlite/connected-accounts-store.js';
import { SqliteIdempotencyStore } from '../adapters/sqlite/idempotency.js';
import { SqliteJobQueue } from '../adapters/sqlite/job-queue.js';
import { SqliteLeaseStore } from '../adapters/sqlite/lease-store.js';
import { SqlitePostStore } from '../adapters/sqlite/post-store.js';
import { SqliteRateLimits } from '../adapters/sqlite/rate-limits.js';
import { SqliteRequestStore } from '../adapters/sqlite/request-store.js';
import { SqliteSessions } from '../adapters/sqlite/sessions.js';
import { SqliteWebhookDeliveries } from '../adapters/sqlite/webhook-deliveries.js';
import type { AccountsPort } from '../ports/accounts.js';
import type { AutomationRules } from '../ports/automation-rules.js';
import type { ConnectedAccountsStore } from '../ports/connected-accounts-store.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { LeaseStore } from '../ports/leases.js';
import type { PostStore } from '../ports/post-store.js';
import type { RateLimitsPort } from '../ports/rate-limits.js';
import type { RequestStore } from '../ports/request-store.js';
import type { SessionsPort } from '../ports/sessions.js';
import type { WebhookDeliveriesPort } from '../ports/webhook-deliveries.js';
import { setting } from '../settings.js';
import { lazyJobQueue } from './lazy-job-queue.js';
import type { ReadinessProbe } from './readiness.js';

export interface StateAdapters {
  /** What holds the state, for logs: `sqlite <file>` or `postgresql host:port/db`. */
  describe: string;
  /** True when state is shared through server engines: every process's data dir is a scratch cache. */
  distributed: boolean;
  store: RequestStore;
  accounts: AccountsPort;
  leases: LeaseStore;
  idempotency: IdempotencyStore;
  /** The studio's sign-in sessions (issue 25). */
  sessions: SessionsPort;
  webhookDeliveries: WebhookDeliveriesPort;
  rateLimits: RateLimitsPort;
  posts: PostStore;
  connectedAccounts: ConnectedAccountsStore;
  automationRules: AutomationRules;
  queue: JobQueue;
  /** One readiness check per engine behind these adapters. */
  probes: ReadinessProbe[];
  close(): Promise<void>;
}

export function openStateAdapters(dataDir: string, log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): StateAdapters {
  const databaseUrl = setting('SHORTS_DATABASE_URL', env);
  const redisUrl = setting('SHORTS_REDIS_URL', env);
  const redis = redisUrl === undefined ? undefined : openRedis(redisUrl, log);
  const closeRedisToo = async () => { if (redis) await closeRedis(redis); };
  const redisProbe: ReadinessProbe[] = redis ? [{ name: 'redis', check: () => pingRedis(redis) }] : [];

  if (databaseUrl === undefined) {
    const store = new SqliteRequestStore(path.join(dataDir, 'shorts.db'));
    // One SQLite connection for the store and these ports: a creation's insert, its charge and its job share a transaction.
    return {
      describe: `sqlite ${path.join(dataDir, 'shorts.db')}`, distributed: false,
      store, accounts: new SqliteAccounts(store.db), leases: new SqliteLeaseStore(store.db), idempotency: new SqliteIdempotencyStore(store.db),
      sessions: new SqliteSessions(store.db),
      webhookDeliveries: new SqliteWebhookDeliveries(store.db),
      // With Redis the counters are shared by every API process on it (spec 8's limits across processes).
      rateLimits: redis ? new RedisRateLimits(redis) : new SqliteRateLimits(store.db),
      posts: new SqlitePostStore(store.db), connectedAccounts: new SqliteConnectedAccountsStore(store.db), automationRules: new SqliteAutomationRules(store.db),
      queue: new SqliteJobQueue(store.db),
      // The queue, counters and other ports share the store's connection: its check covers them.
      probes: [{ name: 'store', check: () => store.ping() }, ...redisProbe],
      close: async () => {
        await closeRedisToo();
        await store.close();
      },
    };
  }

  const where = describeDatabaseUrl(databaseUrl);
  const state = createPostgresState(databaseUrl, { dataDir, onConnectionError: (e) => log(`PostgreSQL ${where}: connection lost (${e.message}); the next query reconnects`) });
  // A restart drops every connection of the queue's pool at once: the same line once, not once per connection.
  let last = { message: '', at: 0 };
  const onError = (e: Error) => {
    if (e.message === last.message && Date.now() - last.at < 5000) return;
    last = { message: e.message, at: Date.now() };
    log(`job queue: ${e.message}`);
  };
  // BullMQ owns the jobs: on Redis when there is one, else on its PostgreSQL backend (tables in schema `bullmq`).
  const queue = lazyJobQueue(() => createBullmqJobQueue(redisUrl !== undefined ? { redisUrl } : { postgresUrl: databaseUrl }, { onError }), redisUrl !== undefined ? 'Redis' : 'PostgreSQL');
  return {
    describe: `postgresql ${where}`, distributed: true,
    store: state.requests, accounts: state.accounts, leases: state.leases, idempotency: state.idempotency,
    sessions: state.sessions,
    webhookDeliveries: state.webhookDeliveries,
    rateLimits: redis ? new RedisRateLimits(redis) : state.rateLimits,
    posts: state.posts, connectedAccounts: state.connectedAccounts, automationRules: state.automationRules,
    queue,
    probes: [{ name: 'store', check: () => state.ping() }, { name: 'queue', check: () => queue.ping() }, ...redisProbe],
    close: async () => {
      await queue.close();
      await closeRedisToo();
      await state.close();
    },
  };
}
