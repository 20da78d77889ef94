// The rules of the spec in one place: creation (validation, source checks, credits later), status,
// detail, list and cancel. The HTTP server and LocalClient are thin adapters over this class.
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ShortsError } from '../errors.js';
import { checkClipEdit, validateClipEdit, validateCreateRequest } from './create-request.js';
import type { CreateRequest } from '../domain/request.js';
import { JobArtifacts } from '../engine/artifacts.js';
import { finishedUpload, keepsSource, keptSourceKey } from '../engine/uploads.js';
import type { BlobStore } from '../ports/blob-store.js';
import { clipOptions } from '../pipeline/render/clip-edit.js';
import { applyCaptionEdits, parseCaptionEdits, type CaptionEdits } from '../pipeline/captions/caption-edits.js';
import type { CaptionCue } from '../domain/captions.js';
import type { MediaInfo } from '../domain/source.js';
import { parseListRequests, parsePostsQuery, paginate, parsePage } from './list-query.js';
import type {
  CancelResponse, CreateResponse, PostObject, RequestDetail, RequestListItem, ShortObject, StudioRequestListItem, StatusResponse, TemplateList, Pagination, TranscriptWords,
} from '../api/types.js';
import type { Transcript } from '../domain/transcript.js';
import type { RequestStore } from '../ports/request-store.js';
import type { JobQueue } from '../ports/job-queue.js';
import { REQUEST_QUEUE, REQUEST_QUEUES, rerenderJob, stageJob } from '../engine/jobs.js';
import type { PostStore } from '../ports/post-store.js';
import { TERMINAL, type CreatedIn, type ListQuery, type RequestRecord, type ShortRecord } from '../ports/request-store.js';
import { STEP_MESSAGES } from '../engine/step-messages.js';
import type { MediaRunner } from '../ports/media-runner.js';
import { probeMedia, MediaError } from '../media/probe.js';
import { clampRange } from '../pipeline/fetch/range.js';
import { DEFAULT_TEMPLATE, TEMPLATES, findTemplate } from '../catalog/templates.js';
import { templatePreviewUrls } from '../pipeline/captions/template-previews.js';
import { findMusic, musicCatalog } from '../catalog/music.js';
import { findGameVideo, gameVideoCatalog } from '../catalog/game-videos.js';
import { findMemeHook, memeHookCatalog } from '../catalog/meme-hooks.js';
import { catalogAssetUrl, MEDIA_TYPES, type GameVideoItem, type MemeHookItem, type MusicTrackItem } from '../catalog/catalog-assets.js';
import type { TimeAdjustment } from '../domain/time.js';
import { pairLabel, supportsPair, translatorFromEnv, type TranslatorConfig } from '../pipeline/captions/translate.js';
import { modelSet, modelSpecs, type ModelSpecs } from '../pipeline/transcribe/transcribe.js';
import { detectionModel, languageRefusal, type ModelSet } from '../pipeline/transcribe/model-choice.js';
import { PipelineError } from '../errors.js';
import type { Account } from '../domain/account.js';

export interface ServiceOptions {
  /** Where clips, covers and the jobs' checkpoints are kept (the engine's one blob store, from the composition root). */
  blobs: BlobStore;
  /** Runs the ffprobe that checks a local source, with the engine's runner so the job reuses its answer. */
  media?: MediaRunner;
  /** Builds the temporary URL of a rendered clip (signed link in `serve`; else the blob store's link, a file URL locally). Blob stores with shared links (S3) win over it. */
  mediaUrl?: (short: ShortRecord) => string;
  /** Builds the URL of a clip's cover image (signed link in `serve`, file URL locally). */
  thumbnailUrl?: (short: ShortRecord) => string;
  /** Builds the URL of a request's kept source (`source_video_url`: signed link in `serve`; else the blob store's link). */
  sourceUrl?: (requestId: string) => string;
  /** API mode: the credit ledger (one credit per accepted creation, refunded on failure). */
  credits?: CreditLedger;
  /** API mode: network checks of submitted URLs (spec 4.2 file URL checks, webhook and page URLs). */
  urlChecks?: UrlChecks;
  /** API mode: an explicit blurBackground becomes the account's saved preference; omitted uses it (spec 4.2). */
  preferences?: { setBlurPreference(accountId: string, blur: boolean): Promise<void>; getAccount(accountId: string): Promise<{ blurBackground: boolean } | undefined> };
  /** Caption translation service (captionLanguage != language); undefined reads SHORTS_TRANSLATE_* from the environment. */
  translator?: TranslatorConfig | null;
  /**
   * The job queue the workers take API requests' stages and re-renders from (its in-process event wakes
   * them at once). Without one (and for local requests), the caller runs the work itself.
   */
  queue?: JobQueue;
  /**
   * The queue lives outside the store's transactions (BullMQ, in distributed mode): a job is enqueued only
   * once its request row and charge have committed (a worker could take it before), and a create that dies in
   * between leaves a queued request that the workers' sweep enqueues (src/engine/worker.ts).
   */
  queueOutsideTransaction?: boolean;
  /** Seconds of processing per second of requested range, measured on recent jobs (ETA). */
  secondsPerSourceSecond?: () => number | Promise<number>;
  /**
   * Public base URL of the server (`serve`): template images are then `${base}/assets/templates/<file>`.
   * Absent (the local engine), they are the files' own file:// URLs. A function because the server
   * learns its address only after it listens.
   */
  assetsBaseUrl?: () => string;
  /** The Whisper models requests will be transcribed with; default SHORTS_WHISPER_MODEL and SHORTS_WHISPER_MULTILINGUAL_MODEL. */
  whisperModels?: ModelSpecs;
  /** The posts (issue 16) a clip's `posts` and GET /posts read; a service built without it (tools, tests of other parts) has none. */
  posts?: Pick<PostStore, 'listPosts' | 'postsForShort'>;
}

export interface CreditLedger {
  /** Charges one credit and runs `create` (the request's insert) as one unit of work: both or neither. */
  chargeAndCreate<T>(accountId: string, requestId: string, create: () => T | Promise<T>): Promise<T>;
  /** At most once per request. */
  refundCredit(requestId: string): Promise<boolean>;
}

export interface UrlChecks {
  fileUrl(url: string): Promise<void>;
  videoSiteUrl(url: string): Promise<void>;
  webhookUrl(url: string): Promise<void>;
  /** outroImageUrl, fetched by the server at render: refused now when its host is not public (ShortsError). */
  outroImageUrl?(url: string): Promise<void>;
}

const ID_PATTERN = /^[0-9a-f]{24}$/;
/** GET /shorts/{id}/transcript answers at most this many seconds of words (the editor asks for a clip and a minute around it). */
const MAX_TRANSCRIPT_SPAN = 600;

/** A page of one catalog (GET /music, /meme-hooks, /game-videos); the HTTP layer names the array. */
interface CatalogListing<T> { items: T[]; pagination: Pagination }

export class Service {
  /** Abort handles of jobs running in this process, so DELETE kills their children at once. */
  private readonly running = new Map<string, AbortController>();

  readonly blobs: BlobStore;

  constructor(readonly store: RequestStore, private readonly opts: ServiceOptions) {
    this.blobs = opts.blobs;
  }

  /**
   * `made.createdIn`: where the request was made (issue 25: 'studio' keeps it out of the API's list);
   * `made.localAccount`: the local `shorts studio`'s account, which has no row in the accounts store: no credit
   * taken (local mode is not metered) and no saved preference read or written.
   */
  async create(account: Account, body: unknown, origin: 'api' | 'local', made: { createdIn?: CreatedIn; localAccount?: boolean } = {}): Promise<CreateResponse> {
    const translator = this.opts.translator !== undefined ? this.opts.translator : translatorFromEnv();
    // English captions need no service where a multilingual model can listen (whisper.cpp's translate task).
    const models = await this.whisperModels();
    const offlineEnglish = models !== null && detectionModel(models) !== null;
    const req = validateCreateRequest(body, {
      allowLocalFile: origin === 'local',
      templateExists: (id) => findTemplate(id) !== undefined,
      defaultTemplateId: DEFAULT_TEMPLATE.templateId,
      // gameVideo and memeHook need footage: an operator who emptied a catalog gets a refusal, not a failed render.
      supportedFeatures: new Set([...['music', 'hookTitle', 'ctaEnabled', 'outroEnabled'] as const, ...(gameVideoCatalog().items.length > 0 ? ['gameVideo'] as const : []),
        ...(memeHookCatalog().items.length > 0 ? ['memeHook'] as const : []), ...(translator ? ['captionTranslation'] as const : []),
        ...(offlineEnglish ? ['speechToEnglish'] as const : [])]),
      musicExists: (name) => findMusic(name) !== undefined,
      gameVideoExists: (name) => findGameVideo(name) !== undefined,
      memeHookExists: (name) => findMemeHook(name) !== undefined,
    });
    // A language the configured models cannot transcribe is refused now (issue 11), never transcribed as
    // English. A model name still to be downloaded counts as available: a failed download fails the request.
    const refusal = models && languageRefusal(req.language, models);
    if (refusal) throw new ShortsError('invalid_request', refusal, { field: 'language' });
    // With the offline path for English, a service that lacks the pair is simply not used for it.
    // With "auto" the pair is known only once the language is detected: the render then fails naming it
    // if the service cannot do it, and never shows untranslated captions.
    if (req.captionLanguage && translator && req.language !== 'auto' && !(req.captionLanguage === 'en' && offlineEnglish))
      await checkTranslationPair(translator, req.language, req.captionLanguage);
    // "Omitted means the account's saved preference": resolved now, so a later change of preference does
    // not alter a request already queued; an explicit choice becomes the saved preference once accepted.
    const prefs = made.localAccount ? undefined : this.opts.preferences;
    const explicitBlur = req.blurBackground;
    if (prefs && explicitBlur === null) req.blurBackground = (await prefs.getAccount(account.id))?.blurBackground ?? true;
    let timeAdjustment: TimeAdjustment | null = null;
    let url: string;
    if (req.source.kind === 'file') {
      const abs = path.resolve(req.source.path);
      req.source = { kind: 'file', path: abs };
      url = abs;
      if (!existsSync(abs) || !statSync(abs).isFile()) throw new ShortsError('invalid_request', `file not found: ${abs}`);
      timeAdjustment = await checkSourceFile(req, abs, path.basename(abs), this.opts.media);
    } else if (req.source.kind === 'upload') {
      const upload = await finishedUpload(this.blobs, account.id, req.source.uploadId);
      // Unknown, unfinished and another account's uploads are one answer: which ids exist is nobody else's business.
      if (!upload) throw new ShortsError('invalid_request', `uploadId ${req.source.uploadId} is not a finished upload of this account`, { field: 'uploadId' });
      url = `upload:${req.source.uploadId}`;
      // ffprobe reads only the container's header: a presigned link (S3) spares downloading the whole file.
      const probe = (file: string) => checkSourceFile(req, file, upload.filename, this.opts.media);
      timeAdjustment = this.blobs.sharedLinks ? await probe(await this.blobs.url(upload.key)) : await this.blobs.withLocalFile(upload.key, probe);
      if (req.webhookUrl) await this.opts.urlChecks?.webhookUrl(req.webhookUrl);
    } else {
      url = req.source.url;
      const checks = this.opts.urlChecks;
      if (checks) {
        await (req.source.kind === 'fileUrl' ? checks.fileUrl(url) : checks.videoSiteUrl(url));
        if (req.webhookUrl) await checks.webhookUrl(req.webhookUrl);
      }
    }
    // Whatever the source (a local file too), the card image is downloaded by this server.
    if (req.outroImageUrl) await this.opts.urlChecks?.outroImageUrl?.(req.outroImageUrl);
    const id = randomBytes(12).toString('hex');
    // The request and its credit are one unit of work: a creation refused for credit leaves no row,
    // and two creations racing for the last credit cannot both be accepted.
    // Its job is enqueued in the same call where the queue shares the store's transaction (SQLite: the adapters
    // write before they return their promises, so the row, the charge and the job commit together); a queue of
    // its own (BullMQ) gets the job once they have committed.
    const queue = origin === 'api' ? this.opts.queue : undefined;
    const together = queue && !this.opts.queueOutsideTransaction ? queue : undefined;
    const insert = () => Promise.all([
      this.store.insertRequest({ id, accountId: account.id, origin, createdIn: made.createdIn, userEmail: account.email, options: req, url, start: req.start, end: req.end }),
      together?.enqueue(stageJob('fetch', id)),
    ]);
    if (this.opts.credits && !made.localAccount) await this.opts.credits.chargeAndCreate(account.id, id, insert);
    else await insert();
    if (queue && !together) await queue.enqueue(stageJob('fetch', id));
    if (prefs && explicitBlur !== null) await prefs.setBlurPreference(account.id, explicitBlur);
    const { position, etaSeconds } = await this.queueEstimate(id);
    const response: CreateResponse = {
      requestId: id,
      status: 'processing',
      creditsUsed: 1,
      estimatedCompletionTime: new Date(Date.now() + etaSeconds * 1000).toISOString(),
      queuePosition: position,
    };
    if (timeAdjustment) response.timeAdjustment = timeAdjustment;
    return response;
  }

  /**
   * What is known now about the configured Whisper models (file headers read once per creation, nothing
   * downloaded); null when a model setting is misspelt: every request then fails when it runs, with the
   * message that names it.
   */
  private async whisperModels(): Promise<ModelSet | null> {
    let specs: ModelSpecs;
    try {
      specs = this.opts.whisperModels ?? modelSpecs();
    } catch (e) {
      if (e instanceof PipelineError) return null;
      throw e;
    }
    return modelSet(specs);
  }

  /** Position and ETA of one request, as create answers them (the live streams batch this: queueEstimates). */
  private async queueEstimate(id: string): Promise<QueueEstimate> {
    return (await this.queueEstimates([id], await this.store.listLive())).get(id) ?? { position: null, etaSeconds: 30 };
  }

  /**
   * Position among queued API requests (1 = next) and seconds until each of `ids` should finish: the range
   * seconds of everything ahead plus its own, at the measured processing speed of recent jobs. `live` is
   * the store's listLive, read once by the caller however many ids it asks about.
   */
  async queueEstimates(ids: readonly string[], live: readonly RequestRecord[]): Promise<Map<string, QueueEstimate>> {
    const out = new Map<string, QueueEstimate>();
    const wanted = new Set(ids);
    if (!live.some((r) => wanted.has(r.id))) return out;
    const rate = (await this.opts.secondsPerSourceSecond?.()) ?? DEFAULT_SECONDS_PER_SOURCE_SECOND;
    const counted = live.filter((r) => r.origin === 'api' || wanted.has(r.id));
    const queued = counted.filter((r) => r.status === 'queued');
    let work = 0;
    for (const r of counted) {
      work += r.end - r.start;
      if (!wanted.has(r.id)) continue;
      const position = queued.indexOf(r);
      out.set(r.id, { position: position >= 0 ? position + 1 : null, etaSeconds: Math.ceil(30 + work * rate) });
    }
    return out;
  }

  private async owned(account: Account, id: string): Promise<RequestRecord> {
    if (!ID_PATTERN.test(id)) throw new ShortsError('invalid_request', `request id must be a 24-character hex string, got "${id}"`);
    const r = await this.store.getRequest(id);
    if (!r || r.accountId !== account.id) throw new ShortsError('resource_not_found', `request ${id} was not found`);
    return r;
  }

  async status(account: Account, id: string): Promise<StatusResponse> {
    return statusOf(await this.owned(account, id));
  }

  /** The request for a caller who may read it (a live stream checks before it starts): 400 for a malformed id, 404 for another's. */
  watchable(account: Account, id: string): Promise<RequestRecord> {
    return this.owned(account, id);
  }

  /**
   * The clips a live stream shows: the stored ones (a completed request's), or, while the request renders,
   * those whose render job has saved its outcome (the checkpoint finalize reads): each appears as soon as its
   * MP4 is stored, whichever process rendered it. GET /shorts/{id} keeps showing the store's clips only.
   */
  async liveShorts(r: RequestRecord): Promise<ShortRecord[]> {
    const stored = await this.store.listShorts(r.id);
    if (stored.length > 0 || r.status !== 'processing' || r.step !== 'finalizing') return stored;
    return this.renderedClips(r.id);
  }

  /** Clips of a rendering request whose job has saved its outcome, in rank order (none without a plan). */
  private async renderedClips(requestId: string): Promise<ShortRecord[]> {
    const art = new JobArtifacts(this.blobs, requestId);
    const plan = await art.read<{ clips: { id: string }[] }>('plan');
    const outcomes = await Promise.all((plan?.clips ?? []).map((c) => art.read<ShortRecord>(JobArtifacts.clipOutcomeName(c.id))));
    return outcomes.filter((s): s is ShortRecord => s !== null).sort((a, b) => a.rank - b.rank);
  }

  /**
   * The clip a signed media link names: its stored row, or (its request still rendering) the outcome its
   * render job saved, so a link a live stream handed out plays before the request completes.
   */
  async linkedClip(requestId: string, shortId: string): Promise<ShortRecord | undefined> {
    const stored = await this.store.getShort(requestId, shortId);
    if (stored || (await this.store.requestStatus(requestId)) !== 'processing') return stored;
    return (await new JobArtifacts(this.blobs, requestId).read<ShortRecord>(JobArtifacts.clipOutcomeName(shortId))) ?? undefined;
  }

  /** Clips as the API shows them (signed links, posts). */
  shortObjects(shorts: readonly ShortRecord[]): Promise<ShortObject[]> {
    return Promise.all(shorts.map((s) => this.shortObject(s)));
  }

  async detail(account: Account, id: string): Promise<RequestDetail> {
    const r = await this.owned(account, id);
    const template = findTemplate(r.options.templateId) ?? DEFAULT_TEMPLATE;
    const detail: RequestDetail = {
      _id: r.id, status: r.status, progress: r.status === 'completed' ? 100 : Math.floor(r.progress), userEmail: r.userEmail,
      // "auto" is what was asked, never an answer: the detected language once known, '' until then.
      url: r.url, start: r.start, end: r.end, title: r.title, language: r.options.language === 'auto' ? r.detectedLanguage ?? '' : r.options.language,
      template: template.name,
      captionLanguage: r.options.captionLanguage, heatmap: r.heatmap, sentences: r.sentences,
      preferredLength: r.options.preferredLength, projectId: null,
      createdAt: r.createdAt,
      shorts: await this.shortObjects(await this.store.listShorts(r.id)),
    };
    if (r.warnings.length) detail.warnings = r.warnings;
    const kept = await this.keptSource(r);
    // Like a clip's link (link()): the store's own where clients can fetch it, else the server's signed one, else a file URL.
    if (kept) detail.source_video_url = !this.blobs.sharedLinks && this.opts.sourceUrl ? this.opts.sourceUrl(r.id) : await this.blobs.url(kept.key);
    return detail;
  }

  /** The source a request keeps for editing (uploads.ts), while it is there: its blob key and Content-Type. */
  async keptSource(r: RequestRecord): Promise<{ key: string; contentType: string } | null> {
    if (!keepsSource(r)) return null;
    // An upload's blob, or the download the fetch stage stored as the request's object (its `source` checkpoint).
    const key = keptSourceKey(r) ?? (await new JobArtifacts(this.blobs, r.id).read<{ sourceKey?: string }>('source'))?.sourceKey;
    const stat = key && await this.blobs.stat(key);
    if (!key || !stat) return null;
    const upload = r.options.source.kind === 'upload' ? await finishedUpload(this.blobs, r.accountId, r.options.source.uploadId) : null;
    // A kept download is labelled by its extension (the fetch stage keeps the source's), as catalog media are.
    return { key, contentType: upload?.filetype ?? MEDIA_TYPES[path.extname(key).toLowerCase()] ?? 'video/mp4' };
  }

  /** The kept source of request `id` for its signed link (no account: the link is the credential); null when none. */
  async keptSourceOf(id: string): Promise<{ key: string; contentType: string } | null> {
    const r = ID_PATTERN.test(id) ? await this.store.getRequest(id) : undefined;
    return r ? this.keptSource(r) : null;
  }

  /**
   * The transcript's words inside [start, end] source seconds (issue 25: the editor's word timeline), from the
   * request's checkpoint (what re-renders read). Before it is transcribed: no words and language "".
   */
  async transcript(account: Account, id: string, raw: Record<string, string | undefined>): Promise<TranscriptWords> {
    const r = await this.owned(account, id);
    const seconds = (name: 'start' | 'end'): number | undefined => {
      const v = raw[name];
      if (v === undefined || v === '') return undefined;
      const n = Number(v);
      if (!/^\d+(\.\d+)?$/.test(v.trim()) || !Number.isFinite(n)) throw new ShortsError('invalid_request', `${name} must be a number of seconds >= 0, got "${v.slice(0, 40)}"`, { parameter: name });
      return n;
    };
    const start = seconds('start') ?? 0;
    const transcript = await new JobArtifacts(this.blobs, r.id).read<Transcript>('transcript');
    const end = seconds('end') ?? transcript?.range.end ?? start;
    if (end < start) throw new ShortsError('invalid_request', `end (${end}) must not be less than start (${start})`, { parameter: 'end' });
    if (end - start > MAX_TRANSCRIPT_SPAN) throw new ShortsError('invalid_request', `at most ${MAX_TRANSCRIPT_SPAN} seconds of words per call (end - start), got ${round3(end - start)}`, { parameter: 'end' });
    if (!transcript) return { language: '', words: [] };
    const words = transcript.words.filter((w) => w.start >= start && w.end <= end).map((w) => ({ text: w.text, start: w.start, end: w.end }));
    return { language: transcript.language, words };
  }

  /** The API's list (spec 1.7: only what was made through the API) or the local client's. */
  async list(account: Account, origin: 'api' | 'local', raw: Record<string, string | undefined>): Promise<{ requests: RequestListItem[]; pagination: Pagination }> {
    return this.listed(account, { origin, createdIn: origin === 'api' ? 'api' : undefined }, raw, () => ({}));
  }

  /** The studio's list (issue 25): every request of the account, each saying where it was made, with its title. */
  async studioList(account: Account, raw: Record<string, string | undefined>): Promise<{ requests: StudioRequestListItem[]; pagination: Pagination }> {
    return this.listed(account, {}, raw, (r) => ({ createdIn: r.origin === 'local' ? 'local' : r.createdIn, title: r.title }));
  }

  private async listed<Extra extends object>(account: Account, where: Pick<ListQuery, 'origin' | 'createdIn'>, raw: Record<string, string | undefined>,
    extra: (r: RequestRecord) => Extra): Promise<{ requests: (RequestListItem & Extra)[]; pagination: Pagination }> {
    const q = parseListRequests(raw);
    const { items, total } = await this.store.listRequests({ accountId: account.id, ...where, ...q });
    return {
      requests: items.map((r) => ({
        requestId: r.id, status: r.status, progress: r.status === 'completed' ? 100 : Math.floor(r.progress),
        createdAt: r.createdAt, updatedAt: r.updatedAt, url: r.url, duration: round3(r.end - r.start), ...extra(r),
      })),
      pagination: { page: q.page, limit: q.limit, totalPages: Math.ceil(total / q.limit), totalCount: total },
    };
  }

  async cancel(account: Account, id: string): Promise<CancelResponse> {
    const r = await this.owned(account, id);
    if (TERMINAL.has(r.status) || !(await this.store.finish(id, 'cancelled')))
      throw new ShortsError('request_not_cancellable', `request ${id} is already ${(await this.store.getRequest(id))?.status ?? r.status}`);
    this.running.get(id)?.abort();
    // Its job in whichever stage queue it is: a waiting one is never taken now, one running in another process
    // stops at its holder's next heartbeat; the render flow's parent (its id the request's) cancels the clips' jobs.
    // A local request never had a job (its process runs it and sees the cancel in the store): the queue, maybe a
    // server that is down, is not touched for it.
    const queue = r.origin === 'api' ? this.opts.queue : undefined;
    if (queue) await Promise.all([...REQUEST_QUEUES, REQUEST_QUEUE].map((q) => queue.cancel(q, id)));
    // Cancelled before any work started: nothing was spent, so the credit comes back (DESIGN.md).
    if (r.status === 'queued') await this.opts.credits?.refundCredit(id);
    return { _id: id, status: 'cancelled' };
  }

  /**
   * Re-renders one clip of a completed request (issue 14): validates the change with the create options'
   * rules, marks the clip `recompiling` with it (one transaction, so two callers cannot both start one), and
   * returns the clip as it is now, previous video included. The work itself is the engine's: a worker of
   * `serve` (through the job queue) or the local client in the foreground (holding the clip's lease). No credit.
   */
  async rerender(account: Account, id: string, shortId: string, body: unknown): Promise<ShortObject> {
    const r = await this.owned(account, id);
    // A request still running has no clips yet: it is 409 (retry later), not 404.
    if (r.status !== 'completed') throw new ShortsError('short_not_editable', `request ${id} is ${r.status}: its clips can be re-rendered once it is completed`);
    const short = await this.store.getShort(id, shortId);
    if (!short) throw new ShortsError('resource_not_found', `request ${id} has no clip ${shortId}`);
    if (short.recompiling) throw new ShortsError('short_not_editable', `clip ${shortId} is already being re-rendered; retry once its recompiling is false`);
    const edit = await validateClipEdit(body, {
      templateExists: (t) => findTemplate(t) !== undefined,
      musicExists: (name) => findMusic(name) !== undefined,
      parseCaptionEdits,
    });
    const options = clipOptions(r.options, short.edit ?? {});
    const art = new JobArtifacts(this.blobs, id);
    const source = await art.read<{ info: MediaInfo }>('source');
    checkClipEdit(edit, { start: short.startTimestamp, end: short.endTimestamp, ctaText: options.ctaText }, source?.info.durationSec ?? r.end);
    if (edit.captionEdits) {
      // Word numbers are about the captions as the user saw them: one the clip does not have is a 400 now,
      // not a failed re-render later.
      const seen = await art.read<CaptionCue[]>(JobArtifacts.cuesName(shortId));
      if (!seen) throw new ShortsError('invalid_request', 'this clip was rendered without captions, so there are no caption words to correct; re-render it with captionsEnabled first', { field: 'captionEdits' });
      applyCaptionEdits(seen, edit.captionEdits as CaptionEdits);
    }
    const state = await this.store.startRerender(id, shortId, edit);
    if (state === 'not_completed') throw new ShortsError('short_not_editable', `request ${id} is not completed: its clips can be re-rendered once it is`);
    if (state === 'busy') throw new ShortsError('short_not_editable', `clip ${shortId} is already being re-rendered; retry once its recompiling is false`);
    if (r.origin === 'api') await this.opts.queue?.enqueue(rerenderJob(id, shortId));
    return this.short(account, id, shortId);
  }

  /** One clip of a request, as in its detail. */
  async short(account: Account, id: string, shortId: string): Promise<ShortObject> {
    await this.owned(account, id);
    const s = await this.store.getShort(id, shortId);
    if (!s) throw new ShortsError('resource_not_found', `request ${id} has no clip ${shortId}`);
    return this.shortObject(s);
  }

  private async shortObject(s: ShortRecord): Promise<ShortObject> {
    const o = shortObject(s, s.error ? '' : await this.link(s, s.fileKey, this.opts.mediaUrl), await this.opts.posts?.postsForShort(s.id) ?? []);
    // Linked only when a cover was made (the store says so: no look at the blobs on a read).
    if (!s.error && s.fileKey && s.coverKey) o.thumbnail_url = await this.link(s, s.coverKey, this.opts.thumbnailUrl);
    return o;
  }

  /**
   * A clip's or cover's link: the blob store's own when clients can fetch it directly (S3 presigned GETs, so
   * downloads never pass through serve), else the caller's signed link, else the store's (a local file URL).
   */
  private async link(s: ShortRecord, key: string | null, own: ((s: ShortRecord) => string) | undefined): Promise<string> {
    if (key && this.blobs.sharedLinks) return this.blobs.url(key);
    return own?.(s) ?? (key ? this.blobs.url(key) : '');
  }

  /** Registers a running job's abort handle (released when the job ends). */
  track(id: string, controller: AbortController): () => void {
    this.running.set(id, controller);
    return () => this.running.delete(id);
  }

  templates(): TemplateList {
    return {
      templates: [...TEMPLATES].sort((a, b) => a.order - b.order).map((t) => ({
        templateId: t.templateId, name: t.name, displayName: t.displayName, order: t.order,
        ...templatePreviewUrls(t, this.opts.assetsBaseUrl?.()),
      })),
      defaultTemplateId: DEFAULT_TEMPLATE.templateId,
      defaultTemplateName: DEFAULT_TEMPLATE.displayName,
    };
  }

  /**
   * The shipped catalogs (assets/catalog/<folder>/manifest.json, operators' items included), in manifest
   * order. Each item carries absolute links to its files (public URLs served by `serve`, file:// URLs
   * locally): integrations of this API play the media before choosing, not only its name.
   */
  catalog(kind: 'music', raw: Record<string, string | undefined>): CatalogListing<MusicTrackItem>;
  catalog(kind: 'memeHooks', raw: Record<string, string | undefined>): CatalogListing<MemeHookItem>;
  catalog(kind: 'gameVideos', raw: Record<string, string | undefined>): CatalogListing<GameVideoItem>;
  catalog(kind: 'music' | 'memeHooks' | 'gameVideos', raw: Record<string, string | undefined>): CatalogListing<MusicTrackItem> | CatalogListing<MemeHookItem | GameVideoItem>;
  catalog(kind: 'music' | 'memeHooks' | 'gameVideos', raw: Record<string, string | undefined>): CatalogListing<MusicTrackItem> | CatalogListing<MemeHookItem | GameVideoItem> {
    const { page, limit } = parsePage(raw, 20);
    const base = this.opts.assetsBaseUrl?.();
    if (kind === 'music') {
      // Spec 2.6: name (exactly what musicName takes) and duration in seconds; `url` is the audio file.
      return paginate(musicCatalog().items.map((t) => ({ name: t.name, duration: t.duration, url: catalogAssetUrl('music', t, 'media', base) })), page, limit);
    }
    // Spec 2.7/2.8: name (exactly what memeHookName/gameVideoName takes) and a preview image; `video` is
    // the clip itself and `video_duration` its measured length in seconds (the manifest's ffprobe value).
    const folder = kind === 'memeHooks' ? 'meme-hooks' : 'game-videos';
    const items = kind === 'memeHooks' ? memeHookCatalog().items : gameVideoCatalog().items;
    return paginate(items.map((i) => ({
      name: i.name, preview: catalogAssetUrl(folder, i, 'preview', base), video: catalogAssetUrl(folder, i, 'media', base), video_duration: i.duration,
    })), page, limit);
  }

  async posts(account: Account, raw: Record<string, string | undefined>): Promise<{ posts: PostObject[]; pagination: Pagination }> {
    const q = parsePostsQuery(raw);
    const { items, total } = await this.opts.posts?.listPosts(account.id, q) ?? { items: [], total: 0 };
    return { posts: items, pagination: { page: q.page, limit: q.limit, totalPages: Math.ceil(total / q.limit), totalCount: total } };
  }
}

/** A configured translation service must do the pair, or the request is refused: never captions left untranslated. */
async function checkTranslationPair(translator: TranslatorConfig, from: string, to: string): Promise<void> {
  const pair = pairLabel(from, to);
  let ok: boolean;
  try {
    ok = await supportsPair(translator, from, to);
  } catch (e) {
    throw new ShortsError('invalid_request', `captions in "${to}" for speech in "${from}" need a translation, and the translation service could not be asked about ${pair}: ${(e as Error).message}`, { field: 'captionLanguage' });
  }
  if (!ok) throw new ShortsError('invalid_request', `the configured translation service does not translate ${pair} (speech "${from}", captions "${to}")`, { field: 'captionLanguage' });
}

/** A source this server already has (a local file, an upload): probed now, its range clamped to its duration. */
async function checkSourceFile(req: CreateRequest, file: string, name: string, media?: MediaRunner): Promise<TimeAdjustment | null> {
  let info;
  try {
    ({ info } = await probeMedia(file, undefined, { media }));
  } catch (e) {
    if (e instanceof MediaError) throw new ShortsError('invalid_request', `${name}: ${e.message}`);
    throw e;
  }
  if (!info.hasVideo) throw new ShortsError('invalid_request', `${name} has no video stream`);
  const { range, adjustment } = clampRange(req, info.durationSec);
  // A whole recording: the stored range (and the queue estimate) is the file's, known now.
  if (req.toSourceEnd) req.end = range.end;
  return adjustment;
}

/** Before any job has finished here: 600 s of range took ~130-210 s on a 2-core machine (docs/benchmarks.md). */
const DEFAULT_SECONDS_PER_SOURCE_SECOND = 0.35;

export interface QueueEstimate { position: number | null; etaSeconds: number }

/** GET /shorts/{id}/status's answer for a request record. */
export function statusOf(r: RequestRecord): StatusResponse {
  const out: StatusResponse = {
    _id: r.id, status: r.status, step: r.step, stepMessage: STEP_MESSAGES[r.step],
    progress: r.status === 'completed' ? 100 : r.status === 'queued' ? 0 : Math.floor(r.progress),
    userEmail: r.userEmail, isDemo: r.isDemo,
  };
  if (r.status === 'failed') out.failureReason = r.failureReason ?? 'internal error';
  if (r.warnings.length) out.warnings = r.warnings;
  return out;
}

export function shortObject(s: ShortRecord, videoUrl: string, posts: PostObject[]): ShortObject {
  const o: ShortObject = {
    id: s.id, title: s.title, sentenceIndexes: s.sentenceIndexes, reason: s.reason, description: s.description,
    viral_score: Math.round(s.viralScore), video_url: videoUrl, startTimestamp: s.startTimestamp, endTimestamp: s.endTimestamp,
    duration: s.duration, width: s.width, height: s.height, recompiling: s.recompiling, error: s.error, posts,
  };
  if (s.error) o.errorMessage = s.errorMessage ?? 'rendering failed';
  // Only what the engine recorded: an older clip has no layout rather than a guessed one.
  if (s.layout) o.layout = s.layout;
  if (s.editError) o.editError = s.editError;
  return o;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
