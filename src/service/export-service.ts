// Exports of a finished clip, or of a whole request (issue 14): the captions (SRT, WebVTT, the ASS as
// rendered), the render plan as rendered, editor timelines (CMX3600 EDL, FCPXML, MLT) and the cover.
// Everything comes from what the render kept in the blob store (engine/artifacts.ts), so any process finds
// it: the checkpoints render-<shortId> (the plan, measured gains included), cues-<shortId> (the words as
// captioned, clip time) and source (the source's frame rate and length), the captions as rendered, and
// the cover (beside the MP4).
//
// Paths: a local request's files are the user's own, so its exports name them by their absolute paths
// (the source as given). An API request's exports never name the server's paths (failure-reason.ts has
// the same rule): every file is named by its file name alone, relative to the folder the project is
// opened from — the source by the name it was submitted under (talk.mp4 of a file URL), the clip by its
// file name, the captions as <shortId>.ass (what the ass export is called), fonts as fonts/.
import path from 'node:path';
import { ShortsError } from '../errors.js';
import { JobArtifacts } from '../engine/artifacts.js';
import { BlobNotFoundError, type BlobStore } from '../ports/blob-store.js';
import type { RequestStore } from '../ports/request-store.js';
import { TERMINAL, type RequestRecord, type ShortRecord } from '../ports/request-store.js';
import type { RenderPlan } from '../media/render-plan.js';
import type { CaptionCue } from '../domain/captions.js';
import type { FetchedSource, MediaInfo } from '../domain/source.js';
import { FORMAT_INFO, isExportFormat, EXPORT_FORMATS, type ExportFile, type ExportFormat } from '../api/export-formats.js';
import { subtitlesOf, toSrt, toVtt, type Subtitle } from '../export/subtitles.js';
import { buildTimeline, type TimelineInput, type TimelineSource } from '../export/timeline.js';
import { toEdl } from '../export/edl.js';
import { toFcpxml } from '../export/fcpxml.js';
import { toMlt } from '../export/mlt.js';
import { numberCaptionWords, type NumberedWord } from '../pipeline/captions/caption-edits.js';

export interface ExportAccount { id: string }

const ID_PATTERN = /^[0-9a-f]{24}$/;

/**
 * One export: `shortId` null exports the whole request (every clip that rendered, in rank order, one
 * after the other). Errors are the API's: invalid_request (format), resource_not_found (ids, a failed
 * clip, a file the clip does not have), short_not_editable (409: the request is not completed yet).
 */
export async function exportLocal({ store, blobs }: { store: RequestStore; blobs: BlobStore }, account: ExportAccount, requestId: string, shortId: string | null, format: unknown): Promise<ExportFile> {
  if (!isExportFormat(format)) {
    throw new ShortsError('invalid_request', `format must be one of ${EXPORT_FORMATS.join(', ')}${format === undefined || format === '' ? '' : `, got "${String(format)}"`}`, { parameter: 'format' });
  }
  if (!ID_PATTERN.test(requestId)) throw new ShortsError('invalid_request', `request id must be a 24-character hex string, got "${requestId}"`);
  const req = await store.getRequest(requestId);
  if (!req || req.accountId !== account.id) throw new ShortsError('resource_not_found', `request ${requestId} was not found`);
  const shorts = await store.listShorts(requestId);
  const short = shortId === null ? null : shorts.find((s) => s.id === shortId);
  if (short === undefined) throw new ShortsError('resource_not_found', `request ${requestId} has no short ${shortId}`);
  if (req.status !== 'completed') {
    const why = TERMINAL.has(req.status) ? `request ${requestId} is ${req.status}: it has no clips to export` : `request ${requestId} is ${req.status}: its clips can be exported once it is completed`;
    throw new ShortsError(TERMINAL.has(req.status) ? 'resource_not_found' : 'short_not_editable', why);
  }
  const info = FORMAT_INFO[format];
  const art = new JobArtifacts(blobs, requestId);
  if (short) {
    if (short.error) throw new ShortsError('resource_not_found', `short ${short.id} failed to render: it has nothing to export`);
    return { contentType: info.contentType, filename: `${short.id}.${info.extension}`, body: await clipExport(art, blobs, req, short, format) };
  }
  if (!info.wholeRequest) {
    throw new ShortsError('invalid_request', `${format} exports one clip (${info.what}): add the short id (GET /shorts/${requestId}/shorts/<shortId>/export?format=${format})`, { parameter: 'format' });
  }
  const files = await ExportFiles.load(req, art, shorts.filter((s) => !s.error));
  const clips = shorts.filter((s) => !s.error && files.plan(s) !== null).sort((a, b) => a.rank - b.rank);
  if (clips.length === 0) throw new ShortsError('resource_not_found', `request ${requestId} has no rendered clip to export`);
  return { contentType: info.contentType, filename: `${requestId}.${info.extension}`, body: Buffer.from(requestExport(files, clips, format), 'utf8') };
}

async function clipExport(art: JobArtifacts, blobs: BlobStore, req: RequestRecord, short: ShortRecord, format: ExportFormat): Promise<Buffer> {
  if (format === 'jpg') {
    const noCover = new ShortsError('resource_not_found', `short ${short.id} has no cover image`);
    if (!short.coverKey) throw noCover;
    return blobs.get(short.coverKey).catch((e: unknown) => { throw e instanceof BlobNotFoundError ? noCover : e; });
  }
  if (format === 'ass') {
    const noAss = new ShortsError('resource_not_found', `short ${short.id} was rendered without captions or overlays: it has no ASS file`);
    return blobs.get(art.captionsKey(short.id)).catch((e: unknown) => { throw e instanceof BlobNotFoundError ? noAss : e; });
  }
  const files = await ExportFiles.load(req, art, [short]);
  const plan = files.requirePlan(short);
  if (format === 'json') return Buffer.from(`${JSON.stringify(files.planExport(short), null, 2)}\n`, 'utf8');
  if (format === 'srt' || format === 'vtt') {
    // In the MP4's time: the captions start after the meme intro, if the clip has one.
    const subs = subtitlesOf(files.requireCues(short), plan.memeHook?.seconds ?? 0, plan.input.end - plan.input.start);
    return Buffer.from(format === 'srt' ? toSrt(subs) : toVtt(subs), 'utf8');
  }
  return Buffer.from(requestExport(files, [short], format), 'utf8');
}

/** A timeline format, SRT/WebVTT on that timeline, or the list of plans, for clips in the given order. */
function requestExport(files: ExportFiles, clips: ShortRecord[], format: ExportFormat): string {
  if (format === 'json') return `${JSON.stringify(clips.map((s) => files.planExport(s)), null, 2)}\n`;
  const inputs: TimelineInput[] = clips.map((s) => ({ id: s.id, title: s.title, plan: files.requirePlan(s), cues: files.cues(s) ?? [], source: files.source(files.requirePlan(s)) }));
  const timeline = buildTimeline(files.req.title || `shortwright ${files.req.id}`, inputs);
  if (format === 'srt' || format === 'vtt') {
    // The whole request's captions on the timeline's clock: each clip's cues after the clips before it.
    if (clips.every((s) => files.cues(s) === null)) throw new ShortsError('resource_not_found', `request ${files.req.id} was rendered without captions`);
    const fps = timeline.rate.num / timeline.rate.den;
    const subs: Subtitle[] = timeline.clips.flatMap((c) => subtitlesOf(c.cues, c.offset / fps, c.length / fps));
    return format === 'srt' ? toSrt(subs) : toVtt(subs);
  }
  if (format === 'edl') return toEdl(timeline);
  if (format === 'fcpxml') return toFcpxml(timeline, files.captionLanguage());
  if (format === 'mlt') return toMlt(timeline);
  throw new ShortsError('invalid_request', `${format} exports one clip: add the short id`, { parameter: 'format' });
}

interface SourceCheckpoint { source: FetchedSource; info: MediaInfo }

/** The kept checkpoints of the exported clips, read once each before the export is built, and the naming rule of the module comment. */
class ExportFiles {
  /** API requests name files by their names only (see the module comment). */
  readonly portable: boolean;

  private constructor(readonly req: RequestRecord, private readonly plans: Map<string, RenderPlan | null>,
    private readonly cueSets: Map<string, CaptionCue[] | null>, private readonly checkpoint: SourceCheckpoint | null) {
    this.portable = req.origin === 'api';
  }

  /** Reads the plans and cues of `shorts` and the source checkpoint (in parallel). */
  static async load(req: RequestRecord, art: JobArtifacts, shorts: ShortRecord[]): Promise<ExportFiles> {
    const [checkpoint, kept] = await Promise.all([
      art.read<SourceCheckpoint>('source'),
      Promise.all(shorts.map(async (s) => [s.id, await art.read<RenderPlan>(JobArtifacts.renderPlanName(s.id)), await art.read<CaptionCue[]>(JobArtifacts.cuesName(s.id))] as const)),
    ]);
    return new ExportFiles(req, new Map(kept.map(([id, plan]) => [id, plan])), new Map(kept.map(([id, , cues]) => [id, cues])), checkpoint);
  }

  plan(s: ShortRecord): RenderPlan | null {
    return this.plans.get(s.id) ?? null;
  }

  requirePlan(s: ShortRecord): RenderPlan {
    const plan = this.plan(s);
    if (!plan) throw new ShortsError('resource_not_found', `short ${s.id} has no kept render plan (rendered by a version before exports): re-render it to export it`);
    return plan;
  }

  cues(s: ShortRecord): CaptionCue[] | null {
    return this.cueSets.get(s.id) ?? null;
  }

  requireCues(s: ShortRecord): CaptionCue[] {
    const cues = this.cues(s);
    if (!cues) throw new ShortsError('resource_not_found', `short ${s.id} was rendered without captions`);
    return cues;
  }

  captionLanguage(): string {
    const o = this.req.options;
    return o.captionLanguage || (o.language === 'auto' ? this.req.detectedLanguage ?? 'en' : o.language);
  }

  /** The source as the projects name it, with its rate and length (source.json; else the clip's own). */
  source(plan: RenderPlan): TimelineSource {
    const cp = this.checkpoint;
    const name = sourceName(this.req, cp?.source ?? null, plan.input.path);
    // A local file given by path is still where it was; a downloaded source is deleted once the request
    // completes, so the project names it and the user puts the file beside the project.
    const local = !this.portable && !(cp?.source.downloaded ?? false);
    return {
      path: local ? plan.input.path : name, name, width: plan.input.width, height: plan.input.height, hasAudio: plan.input.hasAudio,
      fps: cp?.info.fps || plan.output.fps || 30, durationSec: cp?.info.durationSec ?? plan.input.end,
    };
  }

  /**
   * The json export of a clip: its plan (exportedPlan) and, when it has captions, `captionWords`: every
   * caption word as `shorts edit --word N=text` / captionEdits number them (N over the clip, CUE.N as in
   * the SRT). buildRenderArgs reads only the plan's own fields, so the words change nothing of the render.
   */
  planExport(s: ShortRecord): RenderPlan & { captionWords?: NumberedWord[] } {
    const plan = this.exportedPlan(this.requirePlan(s));
    const cues = this.cues(s);
    return cues ? { ...plan, captionWords: numberCaptionWords(cues) } : plan;
  }

  /** The plan as kept; for an API request with every path replaced by its project-relative name. */
  exportedPlan(plan: RenderPlan): RenderPlan {
    if (!this.portable) return plan;
    const base = (p: string) => path.basename(p);
    const out: RenderPlan = structuredClone(plan);
    out.input.path = this.source(plan).name;
    out.output.path = base(plan.output.path);
    if (out.captions) {
      out.captions.assPath = base(out.captions.assPath);
      out.captions.fontsDir = 'fonts';
      if (out.captions.emoji) for (const e of out.captions.emoji) e.path = base(e.path);
    }
    if (out.music) out.music.path = base(out.music.path);
    if (out.gameVideo) out.gameVideo.path = base(out.gameVideo.path);
    if (out.memeHook) out.memeHook.path = base(out.memeHook.path);
    if (out.outro) {
      out.outro.fontsDir = 'fonts';
      if (out.outro.imagePath) out.outro.imagePath = base(out.outro.imagePath);
      if (out.outro.stingPath) out.outro.stingPath = base(out.outro.stingPath);
      if (out.outro.assPath) out.outro.assPath = base(out.outro.assPath);
    }
    return out;
  }
}

/**
 * The source's file name: the last segment of the submitted file URL or path when it names a file
 * (talk.mp4), else the source's title with the downloaded file's extension (a video page's URL names no file).
 */
export function sourceName(req: Pick<RequestRecord, 'url'>, source: Pick<FetchedSource, 'title'> | null, inputPath: string): string {
  const ext = path.extname(inputPath) || '.mp4';
  let last = '';
  try {
    const u = new URL(req.url);
    if (u.protocol === 'http:' || u.protocol === 'https:') last = decodeURIComponent(u.pathname.split('/').pop() ?? '');
  } catch {
    last = path.basename(req.url); // a local path
  }
  if (/^[^/\\]+\.[a-z0-9]{2,5}$/i.test(last)) return safeName(last);
  const title = safeName(source?.title ?? '').replace(/\.[a-z0-9]{2,5}$/i, '');
  return `${title || 'source'}${ext}`;
}

/** A file name safe on every editor's platform: no separators, controls or reserved characters. */
function safeName(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f<>:"/\\|?*]+/g, '_').replace(/^\.+/, '').trim().slice(0, 120);
}
