// Today's posts adapters for the posts conformance suites: a fresh job-store SQLite file per test, the request,
// lease, posts, connected accounts and automation rules adapters on one connection, and `another()` opening
// the same file on a connection of its own (another process's view).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteRequestStore } from '../../src/adapters/sqlite/request-store.js';
import { SqliteLeaseStore } from '../../src/adapters/sqlite/lease-store.js';
import { SqlitePostStore } from '../../src/adapters/sqlite/post-store.js';
import { SqliteConnectedAccountsStore } from '../../src/adapters/sqlite/connected-accounts-store.js';
import { SqliteAutomationRules } from '../../src/adapters/sqlite/automation-rules.js';
import type { PostsHarness, PostsPorts } from '../conformance/posts-ports.js';

export async function sqlitePostsHarness(): Promise<PostsHarness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-posts-'));
  const file = path.join(dir, 'shorts.db');
  const stores: SqliteRequestStore[] = [];
  const ports = (): PostsPorts => {
    const store = new SqliteRequestStore(file);
    stores.push(store);
    return {
      requests: store, leases: new SqliteLeaseStore(store.db), posts: new SqlitePostStore(store.db),
      accounts: new SqliteConnectedAccountsStore(store.db), rules: new SqliteAutomationRules(store.db),
    };
  };
  return {
    port: ports(),
    another: async () => ports(),
    close: async () => {
      for (const s of stores) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
