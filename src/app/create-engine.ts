// The composition root (issue 22): the one place that chooses adapters and builds the engine from them —
// the store, leases, blobs, the media runner, accounts and limit counters, the services, the orchestrator,
// the workers, the publish worker and the post scheduler. `shorts serve`, the local client (and through it `create`, `wait`,
// `batch`, `shorts mcp`, `posts run`) and `shorts keys` all start here, so a new adapter (PostgreSQL, S3,
// BullMQ) is chosen in this file and nowhere else. Parts a command may not need (the orchestrator, the
// worker, the scheduler) are built when asked for: a `shorts list` pays only for opening the store.
import type { RequestRecord, RequestStore } from '../ports/request-store.js';
import { Housekeeping } from '../engine/housekeeping.js';
import { LeaseKeeper } from '../engine/lease-keeper.js';
import { LEGACY_QUEUES, STAGE_QUEUES } from '../engine/jobs.js';
import { EngineMetrics } from '../engine/metrics.js';
import { Orchestrator } from '../engine/orchestrator.js';
import type { OrchestratorDeps } from '../engine/orchestrator-deps.js';
import { renderSettingsFromEnv } from '../engine/render-settings.js';
import { Worker } from '../engine/worker.js';
import { createLocalMediaRunner } from '../media/local-runner.js';
import { createFaceDetector, type FaceDetector } from '../pipeline/reframe/faces.js';
import { createTranscriber } from '../pipeline/transcribe/transcribe.js';
import type { BlobStore } from '../ports/blob-store.js';
import { blobStoreFromSettings } from './blob-store-from-settings.js';
import { S3BlobStore } from '../adapters/s3/blob-store.js';
import type { IdempotencyStore } from '../ports/idempotency.js';
import type { SessionsPort } from '../ports/sessions.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { MediaRunner } from '../ports/media-runner.js';
import type { RateLimitsPort } from '../ports/rate-limits.js';
import type { WebhookDeliveriesPort } from '../ports/webhook-deliveries.js';
import { Automation } from '../posts/automation.js';
import { ConnectedAccounts } from '../posts/connected-accounts.js';
import { PostsService } from '../posts/posts-service.js';
import { createPublishing, type PublishingOptions } from '../posts/publishing.js';
import { PublishWorker } from '../posts/publish-worker.js';
import { AccountStore } from '../service/accounts.js';
import { Service, type CreditLedger, type ServiceOptions } from '../service/service.js';
import { checkReadiness, type ReadinessCheck } from './readiness.js';
import { openStateAdapters } from './state-adapters.js';
import { setting } from '../settings.js';
import { SecretKeyError } from '../posts/secret-key.js';

export interface EngineSettings {
  /** All local state: the SQLite store and, in the data dir adapter, the blobs. */
  dataDir: string;
  log?: (line: string) => void;
  /** The service's rules that differ by front end (serve: signed links, URL checks, the credit ledger...). */
  service?: Omit<ServiceOptions, 'blobs' | 'media' | 'credits' | 'preferences' | 'queue'>;
  /** API mode (serve): creations are charged to the account's credits and blurBackground is its saved preference. */
  apiAccounts?: boolean;
  /** A runner made by the caller (tests count its children); default one for this engine. */
  media?: MediaRunner;
}

/** What `Engine.orchestrator` varies by caller. */
export type OrchestratorOptions = Pick<OrchestratorDeps, 'blurPreference' | 'checkUrl'> & {
  /** Progress of a first-use Whisper model download (the local CLI shows it). */
  onModelDownload?: (got: number, total: number) => void;
};

export interface Engine {
  readonly dataDir: string;
  /** The request store (SQLite in the data dir, or PostgreSQL: src/app/state-adapters.ts). */
  readonly store: RequestStore;
  /** State shared through server engines (PostgreSQL): this process's data dir is only a scratch cache. */
  readonly distributed: boolean;
  /** This process's leases: who runs a request, a re-render or a post (one owner id, one heartbeat). */
  readonly leases: LeaseKeeper;
  /** The job queue: API requests and re-renders for the workers (a create enqueues, a DELETE cancels). */
  readonly queue: JobQueue;
  readonly blobs: BlobStore;
  readonly media: MediaRunner;
  readonly faces: FaceDetector;
  readonly accounts: AccountStore;
  readonly rateLimits: RateLimitsPort;
  readonly webhookDeliveries: WebhookDeliveriesPort;
  /** The first answers of POSTs sent with an Idempotency-Key (issue 23). */
  readonly idempotency: IdempotencyStore;
  /** The studio's sign-in sessions (issue 25). */
  readonly sessions: SessionsPort;
  readonly service: Service;
  readonly connectedAccounts: ConnectedAccounts;
  readonly posts: PostsService;
  readonly automation: Automation;
  /** This engine's Prometheus metrics (its own registry): stages, credits, HTTP answers, queue depths. */
  readonly metrics: EngineMetrics;
  /**
   * One check per engine this one is built on (/readyz): the store, and each separate engine configured
   * (`only`: those named, e.g. `blobs`; none when that engine is not a separate one).
   */
  readiness(opts?: { only?: readonly string[]; timeoutMs?: number }): Promise<ReadinessCheck[]>;
  orchestrator(opts?: OrchestratorOptions): Orchestrator;
  /**
   * The workers of `serve` and `shorts worker`: the stage queues' jobs (refunds of failed requests through the
   * ledger). A process that asks for workers that run (concurrency above 0) also runs the housekeeping
   * (src/engine/housekeeping.ts: expired leases and old idempotency keys, hourly) until close().
   */
  worker(opts: { concurrency: number; queues?: readonly string[]; onFinished?: (r: RequestRecord) => Promise<void>; track?: (id: string, c: AbortController) => () => void } & OrchestratorOptions): Worker;
  /**
   * Posting: the publisher; `worker`, the `publish` queue's worker that publishes API accounts' posts (serve, and
   * `shorts worker` serving `publish`: start() and stop()); `scheduler`, for one scope without the queue (`posts
   * run`: the local account's). `concurrency`: the worker's posts at once.
   */
  publishing(opts: Pick<PublishingOptions, 'scope' | 'tuning' | 'env' | 'log'> & { automation?: boolean; concurrency?: number }): ReturnType<typeof createPublishing> & { worker: PublishWorker; automation?: Automation };
  /** Stops the housekeeping, hands every lease back (another process resumes the work at once) and closes the store. */
  close(): Promise<void>;
}

export function createEngine(settings: EngineSettings): Engine {
  const { dataDir } = settings;
  const log = settings.log ?? (() => {});
  const state = openStateAdapters(dataDir, log);
  const { store } = state;
  // Tokens saved by one process are read by others: a key generated into one data dir would lock them out.
  if (state.distributed && setting('SHORTS_SECRET_KEY') === undefined) {
    void state.close();
    throw new SecretKeyError('SHORTS_SECRET_KEY must be set when SHORTS_DATABASE_URL is: every process of the deployment encrypts and reads connected accounts\' tokens with that one key (e.g. `openssl rand -hex 32`)');
  }
  const metrics = new EngineMetrics();
  // Readiness: one probe per engine (the state's and the queue's; the blob store adds its own).
  const probes = [...state.probes];
  const accounts = new AccountStore(state.accounts);
  // Credits charged and refunded, counted as they happen (the metrics' only view of the ledger).
  const ledger: CreditLedger = {
    chargeAndCreate: async (accountId, requestId, create) => {
      const made = await accounts.chargeAndCreate(accountId, requestId, create);
      metrics.creditCharged();
      return made;
    },
    refundCredit: async (requestId) => {
      const refunded = await accounts.refundCredit(requestId);
      if (refunded) metrics.creditRefunded();
      return refunded;
    },
  };
  const leases = new LeaseKeeper(state.leases);
  const { queue } = state;
  metrics.watchQueues(queue, [...STAGE_QUEUES, ...LEGACY_QUEUES]);
  const blobs = blobStoreFromSettings(dataDir);
  if (blobs instanceof S3BlobStore) probes.push({ name: 'blobs', check: () => blobs.ping() });
  // One runner for every child process of the jobs (counted, capped, cancelled with each job).
  const media = settings.media ?? createLocalMediaRunner();
  // Made once; its model loads on the first face looked for.
  const faces = createFaceDetector();
  // The posts, connected accounts and automation rules (issue 16) behind their ports, on the state's database.
  const postStore = state.posts;
  const rules = state.automationRules;
  const service = new Service(store, { ...settings.service, blobs, media, queue, queueOutsideTransaction: state.distributed, posts: postStore, ...(settings.apiAccounts ? { credits: ledger, preferences: accounts } : {}) });
  // One per engine: a token refresh in flight is joined by the routes, the scheduler and the clients alike.
  const connectedAccounts = new ConnectedAccounts(state.connectedAccounts, { dataDir });
  const { rateLimits, webhookDeliveries, idempotency, sessions } = state;
  let posts: PostsService | undefined;
  let automation: Automation | undefined;
  // Scheduling a post of an API account queues its publish job.
  const postsService = () => (posts ??= new PostsService(store, postStore, connectedAccounts, { queue, log }));
  const automationRules = () => (automation ??= new Automation(rules, postsService(), log));

  const housekeeping = new Housekeeping({ leases: state.leases, idempotency, log });

  const orchestrator = (opts: OrchestratorOptions = {}) => new Orchestrator({
    store, blobs, media, faces, dataDir, render: renderSettingsFromEnv(),
    transcriber: createTranscriber({ dataDir, media, onModelDownload: opts.onModelDownload }),
    blurPreference: opts.blurPreference, checkUrl: opts.checkUrl, metrics,
  });

  return {
    dataDir, store, distributed: state.distributed, leases, queue, blobs, media, faces, accounts, rateLimits, webhookDeliveries, idempotency, sessions, service, connectedAccounts,
    get posts() { return postsService(); },
    get automation() { return automationRules(); },
    metrics,
    readiness: ({ only, timeoutMs } = {}) => checkReadiness(only ? probes.filter((p) => only.includes(p.name)) : probes, timeoutMs),
    orchestrator,
    worker: (opts) => {
      if (opts.concurrency > 0) housekeeping.start();
      return new Worker({
        store, leases, queue, blobs, orchestrator: orchestrator(opts), concurrency: opts.concurrency, queues: opts.queues, queueOutsideTransaction: state.distributed, log,
        refund: (id) => { ledger.refundCredit(id).catch((e: unknown) => log(`refund of ${id}: ${e instanceof Error ? e.message : String(e)}`)); },
        onFinished: opts.onFinished,
        track: opts.track ?? ((id, c) => service.track(id, c)),
      });
    },
    publishing: (opts) => {
      // `posts run` reports what automation does on its own output (opts.log); serve in the engine's log.
      const applying = opts.automation === false ? undefined : opts.log ? new Automation(rules, postsService(), opts.log) : automationRules();
      const made = createPublishing({ media,
        store, blobs, posts: postStore, leases, accounts: connectedAccounts, scope: opts.scope, log: opts.log ?? log, tuning: opts.tuning, env: opts.env, automation: applying,
      });
      const worker = new PublishWorker({
        queue, posts: postStore, publisher: made.publisher, leases, accounts: connectedAccounts, automation: applying,
        concurrency: opts.concurrency, intervalMs: opts.tuning?.intervalMs, log: opts.log ?? log,
      });
      return { ...made, worker, automation: applying };
    },
    close: async () => {
      await housekeeping.stop();
      await leases.releaseAll();
      await state.close();
    },
  };
}
