// The one interface every CLI subcommand talks to. LocalClient runs the engine in this process;
// RemoteClient (the `serve` issue) speaks HTTP to a `shorts serve`. Both return the API's shapes.
import type { CreateShortRequest } from '../api/create-options.js';
import type {
  CancelResponse, CreateResponse, Pagination, PostObject, RequestDetail, RequestListItem, ShortObject, StatusResponse, TemplateList,
} from '../api/types.js';
import type { GameVideoItem, MemeHookItem, MusicTrackItem } from '../catalog/catalog-assets.js';
import type { ExportFile, ExportFormat } from '../api/export-formats.js';

export type { GameVideoItem, MemeHookItem, MusicTrackItem };

export type Query = Record<string, string | undefined>;

/** A create body: the API's fields; the local engine also takes `file` (a path) and `language: 'auto'`. */
export type CreateBody = Omit<CreateShortRequest, 'language'> & { language?: CreateShortRequest['language'] | 'auto'; file?: string };

export interface CreateOptions {
  /**
   * The create's Idempotency-Key (issue 23; remote): the same key sent again within 24 hours gets the first
   * answer, not a second request or charge. The remote client makes one per call when none is given.
   */
  idempotencyKey?: string;
}

export interface WaitOptions {
  signal?: AbortSignal;
  onStatus?: (status: StatusResponse) => void;
  onClipRendered?: (done: number, total: number) => void;
  /**
   * False: aborting the signal only stops waiting; a request that runs elsewhere (the server, another local
   * process) is left running (shorts wait). Default true: it is cancelled. A request this very process runs
   * is cancelled either way.
   */
  cancelOnAbort?: boolean;
}

/**
 * A re-render body (issue 14): the per-clip create options (CLIP_EDIT_FIELDS) under the create body's names,
 * the clip's `title`, and `captionEdits` (caption-edits.ts: `words` and/or `subtitles`).
 */
export type EditBody = Pick<CreateShortRequest, 'start' | 'end' | 'templateId' | 'captionsEnabled' | 'hookTitle' | 'ctaEnabled' | 'ctaText'
  | 'music' | 'musicName' | 'musicVolume' | 'layout' | 'blurBackground'> & { title?: string; captionEdits?: unknown };

export interface RerenderWaitOptions {
  signal?: AbortSignal;
  /** Local: the render's progress (0..1). */
  onProgress?: (fraction: number) => void;
}

export interface CatalogPage<T> { items: T[]; pagination: Pagination }

export interface ShortsClient {
  readonly mode: 'local' | 'remote';
  /**
   * Starts a request (spec 4.2), typed from the option table. The engine validates every body again at run
   * time (invalid_request naming the field), so callers holding user input (the CLI, MCP) cast to it.
   */
  create(body: CreateBody, opts?: CreateOptions): Promise<CreateResponse>;
  /** Resolves with the terminal status. Aborting the signal cancels the request. */
  wait(id: string, opts?: WaitOptions): Promise<StatusResponse>;
  status(id: string): Promise<StatusResponse>;
  get(id: string): Promise<RequestDetail>;
  list(query: Query): Promise<{ requests: RequestListItem[]; pagination: Pagination }>;
  cancel(id: string): Promise<CancelResponse>;
  templates(): Promise<TemplateList>;
  music(query: Query): Promise<CatalogPage<MusicTrackItem>>;
  memeHooks(query: Query): Promise<CatalogPage<MemeHookItem>>;
  gameVideos(query: Query): Promise<CatalogPage<GameVideoItem>>;
  posts(query: Query): Promise<{ posts: PostObject[]; pagination: Pagination }>;
  /**
   * Starts a re-render of one clip of a completed request (issue 14): answers the clip with `recompiling`
   * true, its previous video still served. No credit.
   */
  rerender(requestId: string, shortId: string, body: EditBody): Promise<ShortObject>;
  /**
   * Resolves with the clip once `recompiling` is false (then `editError` says whether it failed). Locally
   * it runs the re-render in the foreground; remotely it polls the request.
   */
  waitRerender(requestId: string, shortId: string, opts?: RerenderWaitOptions): Promise<ShortObject>;
  /** One clip's export (shortId null: the whole request's timeline), as the API serves it (issue 14). */
  exportShort(requestId: string, shortId: string | null, format: ExportFormat): Promise<ExportFile>;
  /** Copies or downloads a finished clip's MP4 to `dest`. */
  downloadClip(videoUrl: string, dest: string): Promise<void>;
  close(): void;
}
