// The postStore conformance suite against today's adapter (tables of the job store's SQLite file).
import { postStoreConformance } from './conformance/post-store.js';
import { sqlitePostsHarness } from './helpers/posts-ports-sqlite.js';

postStoreConformance('SQLite', sqlitePostsHarness);
