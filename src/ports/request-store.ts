// The request/clip store as a port (issue 22): everything the engine and the service do with requests and
// their clips, async so that a server database (PostgreSQL) can stand behind it. Today's adapter is SQLite
// (src/adapters/sqlite/request-store.ts); test/conformance/request-store.ts says what any adapter must do.
import type { Lease } from './leases.js';
import type { HeatmapPoint } from '../domain/source.js';
import type { ResolvedLayout } from '../domain/layout.js';
import type { TimeAdjustment } from '../domain/time.js';
import type { ClipEdit, CreateRequest, RequestStatus, SentenceRecord, Step } from '../domain/request.js';

export type CreatedIn = 'api' | 'studio';

export const TERMINAL: ReadonlySet<RequestStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface RequestRecord {
  id: string;
  accountId: string;
  origin: 'api' | 'local';
  /** Where it was made (issue 25): the API or the web studio; the API's list shows only the API's. */
  createdIn: CreatedIn;
  userEmail: string;
  isDemo: boolean;
  status: RequestStatus;
  step: Step;
  progress: number;
  options: CreateRequest;
  url: string;
  title: string;
  start: number;
  end: number;
  timeAdjustment: TimeAdjustment | null;
  heatmap: HeatmapPoint[];
  sentences: SentenceRecord[];
  failureReason: string | null;
  /** What the user should know about a request that still ran (issue 11: speech not in the requested language). */
  warnings: string[];
  /** The language whisper.cpp detected for `language: auto` (null until then, and for named languages). */
  detectedLanguage: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface ShortRecord {
  id: string;
  requestId: string;
  rank: number;
  title: string;
  sentenceIndexes: number[];
  reason: string;
  description: string;
  viralScore: number;
  startTimestamp: number;
  endTimestamp: number;
  duration: number;
  width: number;
  height: number;
  recompiling: boolean;
  error: boolean;
  errorMessage: string | null;
  /** The clip's MP4 in the blob store (null when its render failed). */
  fileKey: string | null;
  /** Its cover image in the blob store; null when none was made. Optional so a record built without it stores as null. */
  coverKey?: string | null;
  /**
   * The layout the clip was rendered with (what `auto` resolved to, or the one asked for); null for clips
   * rendered before the store kept it. Optional so a record built without it still stores (as null).
   */
  layout?: ResolvedLayout | null;
  /** The per-clip changes applied by re-renders so far (issue 14); null for a clip as first rendered. */
  edit?: ClipEdit | null;
  /** While `recompiling`: the change being rendered. */
  pendingEdit?: ClipEdit | null;
  /** Why the last re-render failed (the clip kept its previous MP4); null when it did not. */
  editError?: string | null;
}

/** What a finished re-render changes on its clip. */
export type RerenderResult = Pick<ShortRecord, 'title' | 'reason' | 'sentenceIndexes' | 'startTimestamp' | 'endTimestamp' | 'duration'> & {
  /** The MP4 (a clip whose first render failed has one now). */
  fileKey: string;
  /** The cover of the new render; null when it could not be made. */
  coverKey: string | null;
  layout: ResolvedLayout | null;
  edit: ClipEdit;
};

export interface NewRequest {
  id: string;
  accountId: string;
  origin: 'api' | 'local';
  /** Default 'api'. */
  createdIn?: CreatedIn;
  userEmail: string;
  options: CreateRequest;
  url: string;
  start: number;
  end: number;
}

export interface ListQuery {
  accountId: string;
  origin?: 'api' | 'local';
  createdIn?: CreatedIn;
  status?: RequestStatus;
  sortBy: 'createdAt' | 'updatedAt';
  sortOrder: 'asc' | 'desc';
  page: number;
  limit: number;
}

/**
 * Fenced writes (those taking a `Lease`) change nothing and reject with LeaseLost when the lease was taken
 * over. Every write is one unit of work: a crash leaves the old or the new state, never half of it.
 */
export interface RequestStore {
  /** The data directory whose `jobs/<id>/` folders hold each request's artifacts. */
  readonly dataDir: string;
  close(): Promise<void>;
  /** Answers when the store can be queried (readiness checks), with a short description; rejects when it cannot. */
  ping(): Promise<string>;
  /**
   * A new queued request. Called inside AccountsPort.chargeAndCreate's unit of work: an adapter pairs with
   * the accounts adapter over the same database so that the row and its credit commit together (the SQLite
   * one writes before it returns its promise, and throws rather than rejects).
   */
  insertRequest(n: NewRequest): Promise<RequestRecord>;
  getRequest(id: string): Promise<RequestRecord | undefined>;
  /** Just the status (cheap: the local client polls it every half second for a foreground job). */
  requestStatus(id: string): Promise<RequestStatus | undefined>;
  listRequests(q: ListQuery): Promise<{ items: RequestRecord[]; total: number }>;
  /**
   * Moves a live request to a step; progress never goes backwards. Returns false if it is no longer live;
   * throws LeaseLost when `lease` (the runner's) was taken over.
   */
  advance(id: string, step: Step, progress: number, lease?: Lease): Promise<boolean>;
  /** Finer progress inside the current step (never backwards). */
  setProgress(id: string, progress: number): Promise<void>;
  saveSourceFacts(id: string, facts: { title: string; heatmap: HeatmapPoint[]; start: number; end: number; timeAdjustment: TimeAdjustment | null }): Promise<void>;
  saveSentences(id: string, sentences: SentenceRecord[]): Promise<void>;
  /** Adds a warning once (a resumed job that earns it again does not repeat it). */
  addWarning(id: string, warning: string): Promise<void>;
  saveDetectedLanguage(id: string, language: string): Promise<void>;
  /** The request's clips, all at once; with `lease`, only while it is still held (else LeaseLost, nothing written). */
  replaceShorts(requestId: string, shorts: ShortRecord[], lease?: Lease): Promise<void>;
  listShorts(requestId: string): Promise<ShortRecord[]>;
  getShort(requestId: string, shortId: string): Promise<ShortRecord | undefined>;
  /** A clip by its id alone (scheduling a post names only the clip); its requestId says whose it is. */
  findShort(shortId: string): Promise<ShortRecord | undefined>;
  /**
   * Marks a clip as re-rendering with the change to make (issue 14), in one transaction: only a clip of a
   * completed request, and only one re-render of a clip at a time (two callers racing: one wins). Who renders
   * it is the holder of its `rerender` lease (a worker, or the local `shorts edit` that asked).
   */
  startRerender(requestId: string, shortId: string, edit: ClipEdit): Promise<'started' | 'busy' | 'not_completed'>;
  /**
   * Starts a pending re-render under its lease (taken by the caller first: of two servers exactly one gets
   * it); returns how many times one has been started (this one included), or null when it is not pending any
   * more. LeaseLost when the lease was taken over meanwhile.
   */
  claimRerender(shortId: string, lease: Lease): Promise<number | null>;
  /**
   * The new clip is in place: its facts change and `recompiling` goes false in the same transaction (with
   * `lease`, only while it is still held: else LeaseLost and nothing changes).
   */
  finishRerender(shortId: string, r: RerenderResult, lease?: Lease): Promise<void>;
  /** A re-render that failed or was given up: the clip stays as it was (its previous MP4 was never replaced). */
  abandonRerender(shortId: string, why: string, lease?: Lease): Promise<void>;
  /**
   * Clips marked re-rendering, with their request's origin and whether a live lease holds the re-render
   * (the local client settles the unleased ones of local requests, whose `shorts edit` was killed).
   */
  listRerendering(): Promise<(ShortRecord & { origin: 'api' | 'local'; leased: boolean })[]>;
  /**
   * Terminal transitions happen only from a live state, so a late worker cannot overwrite a cancel. With
   * `lease` (the runner's), only while it is still held: a stale runner's write throws LeaseLost.
   */
  finish(id: string, status: 'completed' | 'failed' | 'cancelled', failureReason?: string | null, lease?: Lease): Promise<boolean>;
  /**
   * A worker starts (or resumes) a live request under its lease (the job queue gave it the job): processing,
   * one more start counted. Undefined when it is not live any more; LeaseLost when the lease was lost.
   */
  startRun(id: string, lease: Lease): Promise<RequestRecord | undefined>;
  /** Requests of an origin left `processing` with no live lease: their runner was killed or stopped (the local client's orphan scan). */
  listOrphaned(origin: 'api' | 'local'): Promise<string[]>;
  /** Seconds of processing per second of requested range over recent completed API jobs (null: none yet). */
  measuredSecondsPerSourceSecond(sample?: number): Promise<number | null>;
  /** Requests that were live when the process stopped (restart recovery). */
  listLive(): Promise<RequestRecord[]>;
}
