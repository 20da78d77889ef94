// Posts through the `publish` queue on the embedded default: SQLite in one data dir shared by the API engine here
// and the worker processes (the suite: test/helpers/publish-queue-suite.ts).
import { publishQueueSuite } from './helpers/publish-queue-suite.js';

publishQueueSuite('SQLite', async () => ({ env: {}, close: async () => {} }));
