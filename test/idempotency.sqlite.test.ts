// The idempotency-key port's conformance suite against today's adapter: the store's SQLite file.
import { SqliteIdempotencyStore } from '../src/adapters/sqlite/idempotency.js';
import { idempotencyConformance } from './conformance/idempotency.js';
import { sqliteHarness } from './helpers/sqlite-harness.js';

idempotencyConformance('SQLite', () => sqliteHarness((db) => new SqliteIdempotencyStore(db)));
