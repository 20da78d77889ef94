// The PostgreSQL posts adapters for the posts conformance suites: a fresh migrated database per harness on the
// test file's server, the request, lease, posts, connected accounts and automation rules adapters on one Pool,
// and `another()` the same adapters on a second Pool (another process's view).
import os from 'node:os';
import type { PgDatabase } from '../../src/adapters/postgres/database.js';
import { PgRequestStore } from '../../src/adapters/postgres/request-store.js';
import { PgLeaseStore } from '../../src/adapters/postgres/lease-store.js';
import { createPostgresPostsPorts } from '../../src/adapters/postgres/posts-ports.js';
import type { PostsHarness, PostsPorts } from '../conformance/posts-ports.js';
import { postgresDatabase } from './postgres-harness.js';
import type { Postgres } from './engines.js';

export function postgresPostsPorts(db: PgDatabase): PostsPorts {
  // No request artifacts are written by these suites: the data dir is never used.
  const requests = new PgRequestStore(db, os.tmpdir());
  const { posts, connectedAccounts, automationRules } = createPostgresPostsPorts(db, requests);
  return { requests, leases: new PgLeaseStore(db), posts, accounts: connectedAccounts, rules: automationRules };
}

export function postgresPostsHarness(server: () => Postgres): () => Promise<PostsHarness> {
  return async () => {
    const d = await postgresDatabase(server());
    return { port: postgresPostsPorts(d.db), another: async () => postgresPostsPorts(d.another()), close: d.close };
  };
}
