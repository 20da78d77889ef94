// The accounts port's conformance suite against today's adapter: the job store's SQLite file.
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { accountsConformance } from './conformance/accounts.js';
import { sqliteHarness } from './helpers/sqlite-harness.js';

accountsConformance('SQLite', () => sqliteHarness((db) => new SqliteAccounts(db)));
