// The posts adapters on one PostgreSQL database, for createPostgresState to include: the posts, the connected
// accounts and the automation rules, all on the same PgDatabase as the request store (apply reads a request
// and its clips inside its own transaction through it).
import type { AutomationRules } from '../../ports/automation-rules.js';
import type { ConnectedAccountsStore } from '../../ports/connected-accounts-store.js';
import type { PostStore } from '../../ports/post-store.js';
import type { RequestStore } from '../../ports/request-store.js';
import type { PgDatabase } from './database.js';
import { PgAutomationRules } from './automation-rules.js';
import { PgConnectedAccountsStore } from './connected-accounts-store.js';
import { PgPostStore } from './post-store.js';

export interface PostgresPostsPorts {
  posts: PostStore;
  connectedAccounts: ConnectedAccountsStore;
  automationRules: AutomationRules;
}

export function createPostgresPostsPorts(db: PgDatabase, requests: RequestStore): PostgresPostsPorts {
  return {
    posts: new PgPostStore(db),
    connectedAccounts: new PgConnectedAccountsStore(db),
    automationRules: new PgAutomationRules(db, requests),
  };
}
