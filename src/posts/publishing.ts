// The publisher and scheduler wired for one process: the publisher of the `publish` queue's worker (API accounts'
// posts; the engine adds the worker) or of `shorts posts run`'s scheduler (the local account's, once or --watch).
// The connectors come from src/publish with the platform base URLs of the environment (SHORTS_PLATFORM_URL_*).
import type { RequestStore } from '../ports/request-store.js';
import { connectorFor } from '../publish/connectors.js';
import type { BlobStore } from '../ports/blob-store.js';
import { clipMedia } from '../publish/media-check.js';
import type { MediaRunner } from '../ports/media-runner.js';
import type { Automation } from './automation.js';
import type { LeaseKeeper } from '../engine/lease-keeper.js';
import type { ConnectedAccounts } from './connected-accounts.js';
import type { PostScope, PostStore } from '../ports/post-store.js';
import { Publisher, type PublisherOptions } from './publisher.js';
import { Scheduler } from './scheduler.js';

export interface PublishingOptions {
  store: RequestStore;
  /** Where the clips are. */
  blobs: BlobStore;
  posts: PostStore;
  accounts: ConnectedAccounts;
  scope: PostScope;
  /** This process's leases (the engine's): a post is published under one. */
  leases: LeaseKeeper;
  /** The engine's runner: a post's media check (ffprobe) is counted and capped with every other child. */
  media: MediaRunner;
  automation?: Automation;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Tests: retries and platform polling in milliseconds instead of minutes. */
  tuning?: Pick<PublisherOptions, 'maxAttempts' | 'retryDelaysMs' | 'maxWaitMs'> & { intervalMs?: number; pollIntervalMs?: number; processingDeadlineMs?: number; now?: () => number; connectorRetryDelaysMs?: number[] };
}

export function createPublishing(o: PublishingOptions): { publisher: Publisher; scheduler: Scheduler; posts: PostStore } {
  const { posts } = o;
  const t = o.tuning ?? {};
  const publisher = new Publisher({
    store: o.store, blobs: o.blobs, posts, accounts: o.accounts, log: o.log,
    connector: (platform) => connectorFor(platform, { env: o.env, pollIntervalMs: t.pollIntervalMs, processingDeadlineMs: t.processingDeadlineMs, now: t.now, retryDelaysMs: t.connectorRetryDelaysMs }),
    probe: (file) => clipMedia(file, undefined, o.media),
    maxAttempts: t.maxAttempts, retryDelaysMs: t.retryDelaysMs, maxWaitMs: t.maxWaitMs,
  });
  const scheduler = new Scheduler({ posts, publisher, leases: o.leases, accounts: o.accounts, scope: o.scope, automation: o.automation, intervalMs: t.intervalMs, log: o.log });
  return { publisher, scheduler, posts };
}
