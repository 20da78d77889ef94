// The connectedAccountsStore conformance suite against today's adapter (tables of the job store's SQLite file).
import { connectedAccountsStoreConformance } from './conformance/connected-accounts-store.js';
import { sqlitePostsHarness } from './helpers/posts-ports-sqlite.js';

connectedAccountsStoreConformance('SQLite', sqlitePostsHarness);
