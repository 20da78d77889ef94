// The rules of the spec in one place: creation (validation, source checks, credits later), status,
// detail, list and cancel. The HTTP server and LocalClient are thin adapters over this class.
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ShortsError } from './errors.js';
import { validateCreateRequest, type CreateRequest } from './create-request.js';
import { parseListRequests, paginate, parsePage } from './list-query.js';
import type {
  CancelResponse, CreateResponse, PostObject, RequestDetail, RequestListItem, ShortObject, StatusResponse, TemplateList, Pagination,
} from './api-types.js';
import { JobStore, TERMINAL, type RequestRecord, type ShortRecord } from '../engine/job-store.js';
import { MAX_SOURCE_SECONDS, STEP_MESSAGES } from '../engine/orchestrator.js';
import { probeMedia, MediaError } from '../media/probe.js';
import { clampRange } from '../pipeline/range.js';
import { DEFAULT_TEMPLATE, TEMPLATES, findTemplate } from '../catalog/templates.js';
import type { TimeAdjustment } from '../pipeline/types.js';

export interface Account { id: string; email: string }

export interface ServiceOptions {
  /** Builds the temporary URL of a rendered clip (signed link in `serve`, file URL locally). */
  mediaUrl?: (short: ShortRecord) => string;
}

const ID_PATTERN = /^[0-9a-f]{24}$/;

export class Service {
  /** Abort handles of jobs running in this process, so DELETE kills their children at once. */
  private readonly running = new Map<string, AbortController>();

  constructor(readonly store: JobStore, private readonly opts: ServiceOptions = {}) {}

  async create(account: Account, body: unknown, origin: 'api' | 'local'): Promise<CreateResponse> {
    const req = validateCreateRequest(body, {
      allowLocalFile: origin === 'local',
      templateExists: (id) => findTemplate(id) !== undefined,
      defaultTemplateId: DEFAULT_TEMPLATE.templateId,
      supportedFeatures: new Set(),
    });
    let timeAdjustment: TimeAdjustment | null = null;
    let url: string;
    if (req.source.kind === 'file') {
      const abs = path.resolve(req.source.path);
      req.source = { kind: 'file', path: abs };
      url = abs;
      timeAdjustment = await checkLocalFile(req, abs);
    } else {
      url = req.source.url;
    }
    const id = randomBytes(12).toString('hex');
    this.store.insertRequest({ id, accountId: account.id, origin, userEmail: account.email, options: req, url, start: req.start, end: req.end });
    const queued = this.store.listLive().filter((r) => r.status === 'queued');
    const position = queued.findIndex((r) => r.id === id);
    const response: CreateResponse = {
      requestId: id,
      status: 'processing',
      creditsUsed: 1,
      estimatedCompletionTime: new Date(Date.now() + estimateSeconds(req) * 1000 * (position + 1)).toISOString(),
      queuePosition: position >= 0 ? position + 1 : null,
    };
    if (timeAdjustment) response.timeAdjustment = timeAdjustment;
    return response;
  }

  private owned(account: Account, id: string): RequestRecord {
    if (!ID_PATTERN.test(id)) throw new ShortsError('invalid_request', `request id must be a 24-character hex string, got "${id}"`);
    const r = this.store.getRequest(id);
    if (!r || r.accountId !== account.id) throw new ShortsError('resource_not_found', `request ${id} was not found`);
    return r;
  }

  status(account: Account, id: string): StatusResponse {
    const r = this.owned(account, id);
    const out: StatusResponse = {
      _id: r.id, status: r.status, step: r.step, stepMessage: STEP_MESSAGES[r.step],
      progress: r.status === 'completed' ? 100 : r.status === 'queued' ? 0 : Math.floor(r.progress),
      userEmail: r.userEmail, isDemo: r.isDemo,
    };
    if (r.status === 'failed') out.failureReason = r.failureReason ?? 'internal error';
    return out;
  }

  detail(account: Account, id: string): RequestDetail {
    const r = this.owned(account, id);
    const template = findTemplate(r.options.templateId) ?? DEFAULT_TEMPLATE;
    const mediaUrl = this.opts.mediaUrl ?? ((s: ShortRecord) => (s.filePath ? pathToFileURL(s.filePath).href : ''));
    return {
      _id: r.id, status: r.status, progress: r.status === 'completed' ? 100 : Math.floor(r.progress), userEmail: r.userEmail,
      url: r.url, start: r.start, end: r.end, title: r.title, language: r.options.language, template: template.name,
      captionLanguage: r.options.captionLanguage, heatmap: r.heatmap, sentences: r.sentences,
      preferredLength: r.options.preferredLength, projectId: null,
      shorts: this.store.listShorts(r.id).map((s) => shortObject(s, s.error ? '' : mediaUrl(s), [])),
    };
  }

  list(account: Account, origin: 'api' | 'local', raw: Record<string, string | undefined>): { requests: RequestListItem[]; pagination: Pagination } {
    const q = parseListRequests(raw);
    const { items, total } = this.store.listRequests({ accountId: account.id, origin, ...q });
    return {
      requests: items.map((r) => ({
        requestId: r.id, status: r.status, progress: r.status === 'completed' ? 100 : Math.floor(r.progress),
        createdAt: r.createdAt, updatedAt: r.updatedAt, url: r.url, duration: round3(r.end - r.start),
      })),
      pagination: { page: q.page, limit: q.limit, totalPages: Math.ceil(total / q.limit), totalCount: total },
    };
  }

  cancel(account: Account, id: string): CancelResponse {
    const r = this.owned(account, id);
    if (TERMINAL.has(r.status) || !this.store.finish(id, 'cancelled'))
      throw new ShortsError('request_not_cancellable', `request ${id} is already ${this.store.getRequest(id)?.status ?? r.status}`);
    this.running.get(id)?.abort();
    return { _id: id, status: 'cancelled' };
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
        // Rendered previews arrive with the template catalog work (issue 5); until then, no image URLs.
        thumbnail: '', preview: '', gif: '',
      })),
      defaultTemplateId: DEFAULT_TEMPLATE.templateId,
      defaultTemplateName: DEFAULT_TEMPLATE.displayName,
    };
  }

  /** Catalogs ship with issue 5; until then they are truthfully empty. */
  catalog(_kind: 'music' | 'memeHooks' | 'gameVideos', raw: Record<string, string | undefined>) {
    const { page, limit } = parsePage(raw, 20);
    return paginate<{ name: string }>([], page, limit);
  }

  posts(_account: Account, raw: Record<string, string | undefined>): { posts: PostObject[]; pagination: Pagination } {
    const { page, limit } = parsePage(raw, 50);
    const { items, pagination } = paginate<PostObject>([], page, limit);
    return { posts: items, pagination };
  }
}

async function checkLocalFile(req: CreateRequest, abs: string): Promise<TimeAdjustment | null> {
  if (!existsSync(abs) || !statSync(abs).isFile()) throw new ShortsError('invalid_request', `file not found: ${abs}`);
  let info;
  try {
    ({ info } = await probeMedia(abs));
  } catch (e) {
    if (e instanceof MediaError) throw new ShortsError('invalid_request', `${path.basename(abs)}: ${e.message}`);
    throw e;
  }
  if (!info.hasVideo) throw new ShortsError('invalid_request', `${path.basename(abs)} has no video stream`);
  if (info.durationSec > MAX_SOURCE_SECONDS) throw new ShortsError('video_too_long', `the video is ${Math.round(info.durationSec / 60)} minutes long; the limit is 5 hours`);
  return clampRange({ start: req.start, end: req.end }, info.durationSec).adjustment;
}

/** Rough seconds to finish: transcription ~12x real time plus rendering ~2x real time of the output. */
function estimateSeconds(req: CreateRequest): number {
  const window = req.end - req.start;
  return Math.ceil(30 + window / 12 + Math.min(window, (req.maxShorts ?? 5) * 60) / 2);
}

export function shortObject(s: ShortRecord, videoUrl: string, posts: PostObject[]): ShortObject {
  const o: ShortObject = {
    id: s.id, title: s.title, sentenceIndexes: s.sentenceIndexes, reason: s.reason, description: s.description,
    viral_score: Math.round(s.viralScore), video_url: videoUrl, startTimestamp: s.startTimestamp, endTimestamp: s.endTimestamp,
    duration: s.duration, width: s.width, height: s.height, recompiling: s.recompiling, error: s.error, posts,
  };
  if (s.error) o.errorMessage = s.errorMessage ?? 'rendering failed';
  return o;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
