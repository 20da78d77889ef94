// The posts side of the engine (issue 16) on a SQLite store, wired as src/app/create-engine.ts wires it, for
// tests that drive the services in-process: the posts, connected accounts and automation rules adapters on the
// store's connection, and the services over them.
import type { SqliteRequestStore } from '../../src/adapters/sqlite/request-store.js';
import { SqlitePostStore } from '../../src/adapters/sqlite/post-store.js';
import { SqliteConnectedAccountsStore } from '../../src/adapters/sqlite/connected-accounts-store.js';
import { SqliteAutomationRules } from '../../src/adapters/sqlite/automation-rules.js';
import { ConnectedAccounts, type ConnectedAccountsOptions } from '../../src/posts/connected-accounts.js';
import { PostsService } from '../../src/posts/posts-service.js';
import { Automation } from '../../src/posts/automation.js';

export function postsStack(store: SqliteRequestStore, opts: Partial<ConnectedAccountsOptions> = {}) {
  const postStore = new SqlitePostStore(store.db);
  const accounts = new ConnectedAccounts(new SqliteConnectedAccountsStore(store.db), { dataDir: store.dataDir, ...opts });
  const posts = new PostsService(store, postStore, accounts);
  const automation = new Automation(new SqliteAutomationRules(store.db), posts);
  return { postStore, accounts, posts, automation };
}
