// The studio sessions port's conformance suite against the store's SQLite file.
import { SqliteSessions } from '../src/adapters/sqlite/sessions.js';
import { sessionsConformance } from './conformance/sessions.js';
import { sqliteHarness } from './helpers/sqlite-harness.js';

sessionsConformance('SQLite', () => sqliteHarness((db) => new SqliteSessions(db)));
