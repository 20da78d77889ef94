// The automationRules conformance suite against today's adapter (tables of the job store's SQLite file).
import { automationRulesConformance } from './conformance/automation-rules.js';
import { sqlitePostsHarness } from './helpers/posts-ports-sqlite.js';

automationRulesConformance('SQLite', sqlitePostsHarness);
