// The library entry (`import { createClient } from 'shortwright'`): the same clients the CLI uses, the
// API's response types, the one error class, paginators and webhook verification. Importing it starts
// nothing (no CLI parse, no server, no store opened, nothing written): only createClient or a client's
// constructor opens a data directory or a connection pool.
//
//   const client = createClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.SHORTS_API_KEY! });
//   const { requestId } = await client.create({ fileUrl, start: 0, end: 300 });
//   const done = await client.wait(requestId);          // polls; honours a 429's retryAfter
//   for await (const r of paginate(client, 'list', { status: 'completed' })) console.log(r.requestId);

export {
  createClient, type CreateClientOptions, type LocalOptions, type RemoteOptions,
} from './client/client-factory.js';
export { LocalClient } from './client/local-client.js';
export {
  RemoteClient, apiBaseUrl, DEFAULT_POLL_INTERVAL_MS, DEFAULT_WAIT_TIMEOUT_MS, type RemoteClientOptions,
} from './client/remote-client.js';
export type {
  CatalogPage, CreateBody, EditBody, GameVideoItem, MemeHookItem, MusicTrackItem, Query, RerenderWaitOptions, ShortsClient, WaitOptions,
} from './client/shorts-client.js';
export type { ExportFile, ExportFormat } from './api/export-formats.js';
export type { CreateShortRequest } from './api/create-options.js';
export { paginate, pages, type PagedMethod, type PageItem, type PageOf, type PageQuery } from './client/paginate.js';

export type * from './api/types.js';
export type { RequestStatus, SentenceRecord, Step } from './domain/request.js';
export type { HeatmapPoint } from './domain/source.js';
export type { TimeAdjustment } from './domain/time.js';

export { ShortsError, ERROR_CODES, type ErrorCode } from './errors.js';

export {
  verifyWebhook, signWebhook, DEFAULT_WEBHOOK_TOLERANCE_SEC, type WebhookEvent, type WebhookHeaders,
} from './webhook-signature.js';
