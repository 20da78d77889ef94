// The job queue port's conformance suite against today's adapter: a `jobs` table in the job store's SQLite file
// (a second instance: another connection to the same file, as another process would have).
import { SqliteJobQueue } from '../src/adapters/sqlite/job-queue.js';
import { jobQueueConformance } from './conformance/job-queue.js';
import { sqliteHarness } from './helpers/sqlite-harness.js';

jobQueueConformance('SQLite', () => sqliteHarness((db) => new SqliteJobQueue(db)));
