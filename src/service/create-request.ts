// Validates a creation body (API JSON or CLI flags turned into the same shape) into a typed
// CreateRequest, with the spec's error codes. Network checks of URLs (HEAD, address guard) are not
// here: they belong to the service, which runs them after these pure rules pass.
import { ShortsError } from '../errors.js';
import { CLIP_EDIT_OPTIONS, CLIP_TITLE_MAX, CREATE_OPTIONS, type OptionDef } from '../api/create-options.js';
import type { Language } from '../languages.js';
import { MAX_SOURCE_SECONDS } from '../media/probe.js';
import type { ClipEdit, CreateRequest } from '../domain/request.js';
import type { SourceInput } from '../domain/source.js';

export interface ValidationContext {
  /** Local mode only: `file` (a path on this machine) is accepted as a source. */
  allowLocalFile: boolean;
  templateExists: (id: string) => boolean;
  defaultTemplateId: string;
  /** Render features this build can produce; a request for any other is refused, never faked. */
  /** Exact, case-sensitive lookup in the music catalog; without it, any musicName is refused. */
  musicExists?: (name: string) => boolean;
  /** Exact, case-sensitive lookup in the game-video catalog; without it, any gameVideoName is refused. */
  gameVideoExists?: (name: string) => boolean;
  /** Exact, case-sensitive lookup in the meme-hook catalog; without it, any memeHookName is refused. */
  memeHookExists?: (name: string) => boolean;
  supportedFeatures: ReadonlySet<'hookTitle' | 'memeHook' | 'gameVideo' | 'ctaEnabled' | 'music' | 'outroEnabled' | 'captionTranslation' | 'speechToEnglish'>;
}

/** The spec's request window (4.2), seconds: the API's rule; local mode allows longer ranges (issue 15). */
export const WINDOW_MIN = 60;
export const WINDOW_MAX = 1200;

function bad(message: string, field?: string): ShortsError {
  return new ShortsError('invalid_request', message, field ? { field } : undefined);
}

function readOption(def: OptionDef, raw: unknown): string | number | boolean | undefined {
  if (raw === undefined || raw === null) return undefined;
  const t = def.type;
  switch (t.kind) {
    case 'boolean':
      if (typeof raw !== 'boolean') throw bad(`${def.field} must be true or false`, def.field);
      return raw;
    case 'number': {
      if (typeof raw !== 'number' || !Number.isFinite(raw)) throw bad(`${def.field} must be a number`, def.field);
      if (t.integer && !Number.isInteger(raw)) throw bad(`${def.field} must be a whole number${rangeText(t.min, t.max)}`, def.field);
      if ((t.min !== undefined && raw < t.min) || (t.max !== undefined && raw > t.max))
        throw bad(`${def.field} must be${t.integer ? ' a whole number' : ''}${rangeText(t.min, t.max)}, got ${raw}`, def.field);
      return raw;
    }
    case 'enum':
      if (typeof raw !== 'string' || !t.values.includes(raw))
        throw bad(`${def.field} must be one of ${t.values.join(', ')}${typeof raw === 'string' ? `, got "${raw}"` : ''}`, def.field);
      return raw;
    case 'string': {
      if (typeof raw !== 'string') throw bad(`${def.field} must be a string`, def.field);
      if (t.maxLength !== undefined && raw.length > t.maxLength)
        throw bad(`${def.field} must be at most ${t.maxLength} characters (got ${raw.length})`, def.field);
      return t.trimTo !== undefined ? raw.trim().slice(0, t.trimTo) : raw;
    }
  }
}

function rangeText(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return ` from ${min} to ${max}`;
  if (min !== undefined) return ` >= ${min}`;
  return max !== undefined ? ` <= ${max}` : '';
}

const OPTION_BY_FIELD = new Map(CREATE_OPTIONS.map((o) => [o.field, o]));
const KNOWN_FIELDS = new Set([...OPTION_BY_FIELD.keys(), 'file']);

export function validateCreateRequest(body: unknown, ctx: ValidationContext): CreateRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('the request body must be a JSON object');
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(key)) throw bad(`unknown field "${key}"`, key);
  }
  // Spec 7.2 gives webhook URLs their own code, for length as for scheme.
  const hook = input.webhookUrl;
  if (typeof hook === 'string') {
    if (hook.length > 2048) throw new ShortsError('invalid_webhook_url', `webhookUrl must be at most 2048 characters (got ${hook.length})`);
    if (!/^https?:\/\//i.test(hook) || !URL.canParse(hook)) throw new ShortsError('invalid_webhook_url', `webhookUrl must be a valid http or https URL, got "${hook.slice(0, 100)}"`);
  }
  checkOutroImageUrl(input.outroImageUrl);
  // "auto" is not one of the spec's codes: the local CLI may ask for detection, the API keeps the spec's
  // languages (and its default "en"), so an API caller always knows which language the request is in.
  const auto = input.language === 'auto';
  // (With a local file outside local mode, the source's own refusal below says what is wrong.)
  if (auto && !ctx.allowLocalFile && input.file === undefined)
    throw bad('language "auto" (detect the spoken language) is only accepted in local mode; name the language (ISO 639-1, default "en")', 'language');
  const v: Record<string, string | number | boolean | undefined> = {};
  for (const def of CREATE_OPTIONS) {
    const value = def.field === 'language' && auto ? 'auto' : readOption(def, input[def.field]);
    v[def.field] = value === undefined ? (def.defaultValue ?? undefined) as typeof value : value;
  }

  const source = readSource(input, ctx);

  const { start, end, toSourceEnd } = readRange(v.start as number | undefined, v.end as number | undefined, ctx.allowLocalFile);

  const language = v.language as Language | 'auto';
  const captionLanguage = (v.captionLanguage as string | undefined) ?? language;

  const templateId = (v.templateId as string | undefined) ?? ctx.defaultTemplateId;
  if (!/^[0-9a-f]{24}$/i.test(templateId)) throw bad(`templateId must be a 24-character hex id, got "${templateId}"`, 'templateId');
  if (!ctx.templateExists(templateId)) throw bad(`templateId ${templateId} is not in the template library (see \`shorts templates\`)`, 'templateId');

  if (v.ctaEnabled === true && !v.ctaText) throw bad('ctaText is required when ctaEnabled is true', 'ctaText');
  const musicName = v.musicName as string | undefined;
  if (musicName !== undefined && !(ctx.musicExists?.(musicName) ?? false))
    throw bad(`musicName "${musicName}" is not in the music catalog; use an exact, case-sensitive name from GET /music`, 'musicName');
  const gameVideoName = v.gameVideoName as string | undefined;
  if (gameVideoName !== undefined && !(ctx.gameVideoExists?.(gameVideoName) ?? false))
    throw bad(`gameVideoName "${gameVideoName}" is not in the game-video catalog; use an exact, case-sensitive name from GET /game-videos`, 'gameVideoName');
  const memeHookName = v.memeHookName as string | undefined;
  if (memeHookName !== undefined && !(ctx.memeHookExists?.(memeHookName) ?? false))
    throw bad(`memeHookName "${memeHookName}" is not in the meme-hook catalog; use an exact, case-sensitive name from GET /meme-hooks`, 'memeHookName');

  const req: CreateRequest = {
    source,
    start,
    end,
    toSourceEnd,
    preferredLength: v.preferredLength as CreateRequest['preferredLength'],
    maxShorts: (v.maxShorts as number | undefined) ?? null,
    language,
    captionLanguage: captionLanguage === language ? '' : captionLanguage,
    templateId,
    noClipping: v.noClipping as boolean,
    captionsEnabled: v.captionsEnabled as boolean,
    hookTitle: v.hookTitle as boolean,
    memeHook: v.memeHook as boolean,
    memeHookName: (v.memeHookName as string | undefined) ?? null,
    gameVideo: v.gameVideo as boolean,
    gameVideoName: (v.gameVideoName as string | undefined) ?? null,
    ctaEnabled: v.ctaEnabled as boolean,
    ctaText: (v.ctaText as string | undefined) ?? null,
    music: v.music as boolean,
    musicName: (v.musicName as string | undefined) ?? null,
    musicVolume: v.musicVolume as number,
    layout: v.layout as CreateRequest['layout'],
    blurBackground: (v.blurBackground as boolean | undefined) ?? null,
    outroEnabled: v.outroEnabled as boolean,
    outroText: (v.outroText as string | undefined) ?? null,
    outroImageUrl: (v.outroImageUrl as string | undefined) ?? null,
    outroSeconds: v.outroSeconds as number,
    outroSting: v.outroSting as boolean,
    outroHandle: (v.outroHandle as string | undefined) ?? null,
    webhookUrl: (v.webhookUrl as string | undefined) ?? null,
  };
  refuseUnsupported(req, ctx);
  return req;
}

/**
 * The API keeps the spec's range (4.2): start and end required, a window of WINDOW_MIN to WINDOW_MAX s.
 * Local mode covers whole recordings (issue 15): start defaults to 0, a missing end means the source's
 * end, and a range may be as long as a source may be (MAX_SOURCE_SECONDS); it is scored in windows.
 */
function readRange(start: number | undefined, end: number | undefined, local: boolean): { start: number; end: number; toSourceEnd: boolean } {
  if (!local) {
    if (start === undefined) throw bad('start is required (seconds, >= 0)', 'start');
    if (end === undefined) throw bad('end is required (seconds, > start)', 'end');
  }
  const from = start ?? 0;
  if (end === undefined) {
    if (from >= MAX_SOURCE_SECONDS) throw bad(`start (${from}) must be less than the longest source accepted (${MAX_SOURCE_SECONDS} s)`, 'start');
    return { start: from, end: MAX_SOURCE_SECONDS, toSourceEnd: true };
  }
  if (from >= end) throw bad(`start (${from}) must be less than end (${end})`, 'end');
  const window = end - from;
  if (!local && (window < WINDOW_MIN || window > WINDOW_MAX))
    throw bad(`the window end - start must be from ${WINDOW_MIN} to ${WINDOW_MAX} seconds, got ${round(window)}`, 'end');
  if (local && (window < WINDOW_MIN || window > MAX_SOURCE_SECONDS))
    throw bad(`the window end - start must be from ${WINDOW_MIN} to ${MAX_SOURCE_SECONDS} seconds in local mode (leave out end for the whole recording), got ${round(window)}`, 'end');
  return { start: from, end, toSourceEnd: false };
}

/** What the upload server names uploads (src/server/uploads.ts): 32 lowercase hex characters. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

function readSource(input: Record<string, unknown>, ctx: ValidationContext): SourceInput {
  const given = (['url', 'fileUrl', 'uploadId', 'file'] as const).filter((k) => input[k] !== undefined && input[k] !== null && input[k] !== '');
  if (given.length === 0) throw bad(ctx.allowLocalFile ? 'a source is required: url, fileUrl or a local file' : 'url or fileUrl is required (or uploadId: a finished upload of this account)', 'url');
  if (given.length > 1) throw bad(`give exactly one source (url, fileUrl or uploadId), not ${given.join(' and ')}`, given[1]);
  const key = given[0]!;
  const value = input[key];
  if (typeof value !== 'string') throw bad(`${key} must be a string`, key);
  // Whether the upload exists, is finished and is the caller's is the service's check (it reads the blob store).
  if (key === 'uploadId') {
    if (!UPLOAD_ID.test(value)) throw bad(`uploadId must be the id of a finished upload (the last segment of its Location), got "${value.slice(0, 64)}"`, 'uploadId');
    return { kind: 'upload', uploadId: value };
  }
  if (key === 'file') {
    if (!ctx.allowLocalFile) throw bad('file is only accepted in local mode; use fileUrl', 'file');
    return { kind: 'file', path: value };
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ShortsError(key === 'url' ? 'invalid_video_site_url' : 'invalid_file_url', `${key} is not a valid URL: "${value}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ShortsError(key === 'url' ? 'invalid_video_site_url' : 'invalid_file_url', `${key} must use http or https, not ${parsed.protocol.replace(':', '')}`);
  if (key === 'url') {
    if (/^\/shorts\//i.test(parsed.pathname)) throw new ShortsError('invalid_video_site_url', 'short-form (/shorts/) pages are not supported; give the full video URL');
    return { kind: 'pageUrl', url: value };
  }
  return { kind: 'fileUrl', url: value };
}

/** Like webhookUrl (spec 4.2): a URL longer than this is not a link anyone hands out. */
export const OUTRO_IMAGE_URL_MAX = 2048;

/**
 * outroImageUrl is fetched by the server at render time, so it is held to the file URL's rules now
 * (spec 4.2: http or https only; ftp, file and others rejected) instead of failing (and refunding) at
 * render. The spec has no code of its own for it: an invalid parameter value is invalid_request, the
 * code the render-time refusals of the image (type, size, HTTP status) use too. Locally as on the API:
 * the image is downloaded in both modes, and a local file would need a path, not a URL. The address
 * (private, loopback, metadata) is the service's network check (UrlChecks.outroImageUrl), after these rules.
 */
function checkOutroImageUrl(raw: unknown): void {
  if (typeof raw !== 'string' || raw === '') return; // absent, or a type error readOption reports
  const bad = (why: string) => new ShortsError('invalid_request', `outroImageUrl ${why}`, { field: 'outroImageUrl' });
  if (raw.length > OUTRO_IMAGE_URL_MAX) throw bad(`must be at most ${OUTRO_IMAGE_URL_MAX} characters (got ${raw.length})`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad(`is not a valid URL: "${raw.slice(0, 100)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad(`must be a public http or https image URL, not ${url.protocol.replace(':', '')}`);
}

const FEATURE_LABELS = {
  hookTitle: 'hookTitle (animated hook title)',
  memeHook: 'memeHook (meme intro)',
  gameVideo: 'gameVideo (split-screen gameplay)',
  ctaEnabled: 'ctaEnabled (call-to-action banner)',
  music: 'music (background music)',
  outroEnabled: 'outroEnabled (end-screen outro)',
} as const;

function refuseUnsupported(req: CreateRequest, ctx: ValidationContext): void {
  for (const key of Object.keys(FEATURE_LABELS) as (keyof typeof FEATURE_LABELS)[]) {
    if (req[key] && !ctx.supportedFeatures.has(key))
      throw bad(`${FEATURE_LABELS[key]} is not available in this version of shortwright yet`, key);
  }
  // English captions can come from the speech itself (whisper.cpp's translate task, 'speechToEnglish').
  const offline = req.captionLanguage === 'en' && ctx.supportedFeatures.has('speechToEnglish');
  if (req.captionLanguage && !offline && !ctx.supportedFeatures.has('captionTranslation'))
    throw bad(`captions in "${req.captionLanguage}" for speech in "${req.language}" need a translation service, and none is configured` +
      (req.captionLanguage === 'en' ? ' (nor a multilingual Whisper model to translate offline: SHORTS_WHISPER_MULTILINGUAL_MODEL)' : ''), 'captionLanguage');
}

export interface ClipEditContext {
  templateExists: (id: string) => boolean;
  musicExists?: (name: string) => boolean;
  /** Parses `captionEdits` (throws invalid_request naming it); without it the field is refused. */
  parseCaptionEdits?: (raw: unknown) => unknown;
}

/** A clip is at least this long and at most the longest preferredLength (under10min). */
export const CLIP_MIN_SECONDS = 1;
export const CLIP_MAX_SECONDS = 600;

const EDIT_FIELDS = new Set([...CLIP_EDIT_OPTIONS.map((o) => o.field), 'title', 'captionEdits']);

/** The pure rules of a re-render body; the range against the clip and the source is checkClipRange's. */
export async function validateClipEdit(body: unknown, ctx: ClipEditContext): Promise<ClipEdit> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('the request body must be a JSON object');
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!EDIT_FIELDS.has(key)) {
      const create = OPTION_BY_FIELD.has(key) || key === 'file';
      throw bad(create ? `${key} is an option of the whole request and cannot change for one clip` : `unknown field "${key}"`, key);
    }
  }
  const edit: Record<string, unknown> = {};
  for (const def of CLIP_EDIT_OPTIONS) {
    const value = readOption(def, input[def.field]);
    if (value !== undefined) edit[def.field] = value;
  }
  if (input.title !== undefined) {
    if (typeof input.title !== 'string' || input.title.trim() === '') throw bad('title must be a non-empty string', 'title');
    if (input.title.length > CLIP_TITLE_MAX) throw bad(`title must be at most ${CLIP_TITLE_MAX} characters (got ${input.title.length})`, 'title');
    edit.title = input.title.trim();
  }
  const templateId = edit.templateId as string | undefined;
  if (templateId !== undefined) {
    if (!/^[0-9a-f]{24}$/i.test(templateId)) throw bad(`templateId must be a 24-character hex id, got "${templateId}"`, 'templateId');
    if (!ctx.templateExists(templateId)) throw bad(`templateId ${templateId} is not in the template library (see \`shorts templates\`)`, 'templateId');
  }
  const musicName = edit.musicName as string | undefined;
  if (musicName !== undefined && !(ctx.musicExists?.(musicName) ?? false))
    throw bad(`musicName "${musicName}" is not in the music catalog; use an exact, case-sensitive name from GET /music`, 'musicName');
  // A named track is music: asking for one on a clip without music turns it on, as creation's musicName implies.
  if (musicName !== undefined && edit.music === undefined) edit.music = true;
  if (input.captionEdits !== undefined && input.captionEdits !== null) {
    if (!ctx.parseCaptionEdits) throw bad('captionEdits are not available in this version of shortwright yet', 'captionEdits');
    edit.captionEdits = await ctx.parseCaptionEdits(input.captionEdits);
  }
  return edit as ClipEdit;
}

/**
 * The clip's range after an edit: the given ends, the clip's own for the others, inside the source, at
 * least CLIP_MIN_SECONDS and at most CLIP_MAX_SECONDS long. ctaEnabled needs a text, given now or before.
 */
export function checkClipEdit(edit: ClipEdit, current: { start: number; end: number; ctaText: string | null }, sourceSeconds: number): { start: number; end: number } {
  const start = edit.start ?? current.start;
  const end = edit.end ?? current.end;
  const field = edit.end !== undefined ? 'end' : 'start';
  if (start >= end) throw bad(`start (${start}) must be less than end (${end})`, field);
  // Probed durations and the request's stored range differ in the last milliseconds: a hair past the end is the end.
  if (end > sourceSeconds + 0.05) throw bad(`end (${end}) is past the end of the source (${round(sourceSeconds)} s)`, 'end');
  const length = Math.min(end, sourceSeconds) - start;
  if (length < CLIP_MIN_SECONDS || length > CLIP_MAX_SECONDS)
    throw bad(`a clip must last from ${CLIP_MIN_SECONDS} to ${CLIP_MAX_SECONDS} seconds, got ${round(length)}`, field);
  const ctaText = edit.ctaText !== undefined ? edit.ctaText : current.ctaText;
  if (edit.ctaEnabled === true && !ctaText) throw bad('ctaText is required when ctaEnabled is true', 'ctaText');
  return { start, end: Math.min(end, sourceSeconds) };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
