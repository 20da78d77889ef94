// The rate-limits port's conformance suite against today's adapter: the job store's SQLite file.
import { SqliteRateLimits } from '../src/adapters/sqlite/rate-limits.js';
import { rateLimitsConformance } from './conformance/rate-limits.js';
import { sqliteHarness } from './helpers/sqlite-harness.js';

rateLimitsConformance('SQLite', () => sqliteHarness((db) => new SqliteRateLimits(db)));
