// The OpenAPI 3.1 document of the Shorts API as `shorts serve` implements it (docs/api.md says the
// same in prose). Nothing here is typed twice: the paths are made from the route table the server
// dispatches on (src/api/routes.ts), the create body is generated from CREATE_OPTIONS (the one
// definition of every option), error codes and their statuses come from ERROR_CODES, and the
// rate-limit pools from ENDPOINT_LIMITERS; test/openapi.test.ts validates real Service responses
// against these schemas, so the document cannot drift from the code. test/openapi-generated.test.ts
// generates a client from the served document with openapi-typescript (default options), type-checks
// it against src/api/types.ts and runs it against a live `serve`, and lints the document with
// Redocly's recommended-strict rules: generators are this document's main readers.
import { CLIP_EDIT_OPTIONS, CLIP_LAYOUTS, CLIP_TITLE_MAX, CREATE_OPTIONS, type OptionDef } from './create-options.js';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { PLATFORMS, POST_STATUSES } from '../domain/posts-query.js';
import { ENDPOINT_LIMITERS } from './limits.js';
import type { LimiterName } from './routes.js';
import { accountsOpenApiSchemas } from './accounts-openapi.js';
import { REQUEST_STATUSES, ROUTES, type EnvelopeRoute, type RouteSpec } from './routes.js';
import { bool, dateTime, enumOf, errorSchema, HEADERS_TOO_LARGE, int, link, nullable, num, obj, ref, str, type Schema } from './schema.js';

const STEPS = ['queued', 'fetching_video', 'transcribing_audio', 'finding_highlights', 'finalizing', 'completed', 'failed', 'cancelled'] as const;

// ---------------------------------------------------------------------------------------------------
// The create body, generated from CREATE_OPTIONS.

/** What an option's table row cannot say: the shape of URL and id strings. Keys must be option fields. */
export const CREATE_FIELD_FORMATS: Readonly<Record<string, Schema>> = {
  url: { format: 'uri' },
  fileUrl: { format: 'uri' },
  outroImageUrl: { format: 'uri' },
  webhookUrl: { format: 'uri' },
  templateId: { pattern: '^[0-9a-fA-F]{24}$' },
  uploadId: { pattern: '^[0-9a-f]{32}$' },
};

export function optionSchema(o: OptionDef): Schema {
  const t = o.type;
  const s: Schema = { description: o.description };
  if (o.defaultValue !== undefined && o.defaultValue !== null) s.default = o.defaultValue;
  switch (t.kind) {
    case 'boolean':
      s.type = 'boolean';
      break;
    case 'enum':
      s.type = 'string';
      s.enum = [...t.values];
      break;
    case 'string':
      s.type = 'string';
      if (t.maxLength !== undefined) s.maxLength = t.maxLength;
      // Longer text is accepted and cut, not refused: an annotation, not a constraint.
      if (t.trimTo !== undefined) s['x-trimmed-to'] = t.trimTo;
      break;
    case 'number':
      s.type = t.integer ? 'integer' : 'number';
      if (t.min !== undefined) s.minimum = t.min;
      if (t.max !== undefined) s.maximum = t.max;
      break;
  }
  return { ...s, ...CREATE_FIELD_FORMATS[o.field] };
}

/**
 * The create body. It lives in components.requestBodies, not components.schemas, on purpose: a field
 * with a `default` is one the server fills in, so a sender may leave it out, and generators read it that
 * way only for request bodies (openapi-typescript's default `defaultNonNullable` makes a defaulted
 * property of a shared component *schema* required, since a response always carries it). Response
 * schemas carry no defaults; what a response always holds is said by `required` alone.
 */
const createRequest: Schema = {
  type: 'object',
  description: 'Exactly one of url / fileUrl / uploadId (extension: a finished tus 1.0 upload of this account to /uploads, whose id is the last '
    + 'segment of its Location; the request\'s title is its filename without the extension, and the server keeps the file for editing: the '
    + 'detail\'s source_video_url). The window end - start must be 60-1200 seconds. Unknown fields are refused (400 invalid_request), ' +
    'and so is a language the server\'s Whisper models cannot transcribe (an English-only model and no multilingual one), naming the model and the language.',
  additionalProperties: false,
  properties: Object.fromEntries(CREATE_OPTIONS.map((o) => [o.field, optionSchema(o)])),
  required: ['start', 'end'],
  oneOf: [
    { title: 'video-platform page', required: ['url'] },
    { title: 'direct file URL', required: ['fileUrl'] },
    { title: 'finished upload (extension)', required: ['uploadId'] },
  ],
};

/**
 * A re-render body (issue 14): the per-clip create options with their create rules but no defaults (what is
 * absent stays as the clip has it), the clip's title, and caption corrections. Every field is optional: an
 * empty body re-renders the clip as it is.
 */
const renderRequest: Schema = {
  type: 'object',
  description: 'Fields absent keep the clip\'s current value. start/end are source seconds, anywhere inside the source (past the request\'s range too: '
    + 'only the part not transcribed yet is transcribed); the clip lasts 1-600 s. Options of the whole request (source, language, maxShorts, '
    + 'captionLanguage, memeHook, gameVideo, outro*, webhookUrl) are refused with 400 invalid_request naming the field.',
  additionalProperties: false,
  properties: {
    ...Object.fromEntries(CLIP_EDIT_OPTIONS.map((o) => {
      const { default: _default, ...schema } = optionSchema(o);
      return [o.field, o.field === 'start' || o.field === 'end' ? { ...schema, description: `${o.field} of the clip in source seconds` } : schema];
    })),
    title: { type: 'string', minLength: 1, maxLength: CLIP_TITLE_MAX, description: 'The clip\'s title (what the hook title draws)' },
    captionEdits: {
      type: 'object', additionalProperties: false, minProperties: 1,
      description: 'Corrections of the captions as the clip shows them; the request\'s sentences keep the original transcript. Words keep their times.',
      properties: {
        words: {
          type: 'array', maxItems: 5000,
          items: obj({
            cue: { type: 'integer', minimum: 1, description: '1-based cue number as in the SRT/VTT export; absent: word counts over the whole clip' },
            word: { type: 'integer', minimum: 1, description: '1-based word number (as numbered by the JSON export)' },
            text: { type: 'string', maxLength: 200, description: 'The replacement; "" removes the word' },
          }, ['cue']),
        },
        subtitles: { type: 'string', description: 'An SRT or WebVTT file in clip time (e.g. the exported one, fixed): each cue\'s text replaces the words inside its time' },
      },
    },
  },
};

/** POST /posts (issue 16): which clip, where, when, with which text. */
const schedulePostRequest: Schema = {
  type: 'object', additionalProperties: false, required: ['shortId', 'platform'],
  description: 'Unknown fields, a clip that is not the caller\'s or has no video, an account that is not connected on that platform or needs '
    + 'reconnecting, a time in the past or without a zone, and text the platform refuses are 400 invalid_request naming the field.',
  properties: {
    shortId: { type: 'string', format: 'uuid', description: 'The clip (shorts[].id of one of the caller\'s requests)' },
    platform: enumOf(PLATFORMS),
    accountId: { ...str, description: 'The connected account (GET /accounts); or handle. Neither: the only account connected on that platform' },
    handle: { ...str, description: 'The connected account\'s handle (@ optional), instead of accountId' },
    scheduledAt: { ...dateTime, description: 'When to publish, with a time zone; default now. Up to 5 minutes in the past is taken as now' },
    title: { type: 'string', minLength: 1, description: 'The video title (video_site: at most 100 characters, no < or >) or the caption (photo_site, short_video_site: at most 2200); default the clip\'s title' },
    description: { ...str, description: 'The video description (video_site: at most 5000 bytes, no < or >) or text after the caption (at most 2200); default the clip\'s generated description' },
  },
};

/** POST /accounts/{id}/automation. */
const automationRuleRequest: Schema = {
  type: 'object', additionalProperties: false, required: ['minViralScore', 'slots'],
  properties: {
    minViralScore: { type: 'integer', minimum: 0, maximum: 100, description: 'Post clips whose viral_score (0-100) is at least this' },
    slots: { type: 'array', minItems: 1, maxItems: 24, items: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }, description: 'Daily posting times "HH:MM"' },
    timezone: { type: 'string', default: 'UTC', description: 'IANA time zone of the slots, e.g. Europe/Paris' },
  },
};

// ---------------------------------------------------------------------------------------------------
// Response schemas (src/api/types.ts, field for field).

const timeRange = obj({ start: num, end: num });
const WARNINGS: Schema = {
  type: 'array', items: str,
  description: 'Present only when there are any: what the caller should know about a request that ran, e.g. that the speech sounds like another ' +
    'language than the one requested (language detection is confident); the request is still processed in the requested language',
};

const schemas: Record<string, Schema> = {
  Pagination: obj({ page: int, limit: int, totalPages: int, totalCount: int }),
  TimeRange: timeRange,
  TimeAdjustment: { ...obj({ original: ref('TimeRange'), adjusted: ref('TimeRange') }), description: 'The range as requested and as processed (it ran past the end of the video).' },
  CreateResponse: obj({
    requestId: { type: 'string', pattern: '^[0-9a-f]{24}$' },
    status: { type: 'string', const: 'processing' },
    creditsUsed: { type: 'integer', const: 1 },
    estimatedCompletionTime: dateTime,
    queuePosition: { ...nullable(int), description: '1 = next in the queue; null when not waiting' },
    timeAdjustment: ref('TimeAdjustment'),
  }, ['timeAdjustment']),
  Status: obj({
    _id: str, status: enumOf(REQUEST_STATUSES), step: enumOf(STEPS), stepMessage: str, progress: { ...num, minimum: 0, maximum: 100 },
    userEmail: str, failureReason: { ...str, description: 'Present only when status is failed' }, isDemo: bool,
    warnings: WARNINGS,
  }, ['failureReason', 'warnings']),
  Sentence: obj({ index: int, sentence: str, start: num, end: num }),
  HeatmapPoint: { ...obj({ start: num, end: num, value: { ...num, minimum: 0, maximum: 1 } }), description: 'One point of the platform\'s most-replayed graph (seconds, value 0..1)' },
  PostAccount: obj({ handle: str }),
  Post: obj({
    id: str, platform: enumOf(PLATFORMS), status: enumOf(POST_STATUSES),
    scheduledAt: dateTime, publishedAt: nullable(dateTime), url: nullable(str), shortId: str, requestId: str, title: str,
    account: ref('PostAccount'), source: enumOf(['manual', 'automation']),
    error: nullable(str), errorCode: nullable(str), retryable: nullable(bool), createdAt: dateTime,
  }),
  AutomationRule: obj({
    id: { type: 'string', pattern: '^[0-9a-f]{24}$' },
    accountId: { ...str, description: 'The connected account the rule posts to' },
    platform: enumOf(PLATFORMS), handle: str,
    minViralScore: { type: 'integer', minimum: 0, maximum: 100, description: 'Clips with viral_score (0-100) at or above this are posted' },
    slots: { type: 'array', items: { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }, description: 'Daily posting times "HH:MM" in timezone, earliest first' },
    timezone: { ...str, description: 'IANA time zone of the slots' },
    createdAt: dateTime,
  }),
  AutomationRuleList: obj({ rules: { type: 'array', items: ref('AutomationRule') } }),
  Short: obj({
    id: str, title: str, sentenceIndexes: { type: 'array', items: int }, reason: str, description: str,
    viral_score: { ...num, minimum: 0, maximum: 100 },
    video_url: { ...str, description: 'Signed link to the MP4; expires (default 24 h). Empty when error is true.' },
    thumbnail_url: { ...str, description: 'Extension: signed link to the clip\'s cover image (1080x1920 JPEG, its best frame: face sharp and centred, hook title drawn when hookTitle was on); expires like video_url. Absent when the clip has no cover.' },
    startTimestamp: num, endTimestamp: num, duration: num, width: int, height: int, recompiling: bool, error: bool,
    errorMessage: { ...str, description: 'Present only when error is true' },
    posts: { type: 'array', items: ref('Post') },
    layout: {
      ...enumOf(CLIP_LAYOUTS),
      description: 'Extension: the layout the clip was rendered with (what layout "auto" chose, or the one asked for); split and screen are ' +
        'extensions of spec 4.2. Absent for clips rendered before the service recorded it',
    },
    editError: { ...str, description: 'Extension: why the clip\'s last re-render failed; the clip is then the one before it. Absent otherwise' },
  }, ['errorMessage', 'layout', 'thumbnail_url', 'editError']),
  RequestDetail: obj({
    _id: str, status: enumOf(REQUEST_STATUSES), progress: { ...num, minimum: 0, maximum: 100 }, userEmail: str, url: str,
    start: num, end: num, title: str,
    language: { ...str, description: 'The spoken language: as requested, or (local mode, language "auto") the one detected, empty until it is' },
    template: str,
    captionLanguage: { ...str, description: 'Empty when the same as language' },
    heatmap: { type: 'array', items: ref('HeatmapPoint') }, sentences: { type: 'array', items: ref('Sentence') },
    preferredLength: str, projectId: nullable(str), shorts: { type: 'array', items: ref('Short') },
    warnings: WARNINGS,
    createdAt: { ...dateTime, description: 'Extension: when the request was made (as in the list)' },
    source_video_url: { ...str, description: 'Extension: signed link (Range requests) to the source video the server keeps for editing (a request made from an upload); expires like video_url. Absent when no source is kept.' },
  }, ['warnings', 'source_video_url']),
  // Issue 25: a request's transcript words (GET /shorts/{id}/transcript).
  Transcript: obj({
    language: { ...str, description: 'The language of the words; "" until the request is transcribed' },
    words: { type: 'array', items: obj({ text: str, start: { ...num, description: 'Source seconds' }, end: { ...num, description: 'Source seconds' } }) },
  }),
  RequestListItem: obj({
    requestId: str, status: enumOf(REQUEST_STATUSES), progress: { ...num, minimum: 0, maximum: 100 },
    createdAt: dateTime, updatedAt: dateTime, url: str, duration: num,
  }),
  Template: obj({ templateId: str, name: str, displayName: str, thumbnail: str, order: int, preview: str, gif: str }),
  TemplateList: obj({ templates: { type: 'array', items: ref('Template') }, defaultTemplateId: str, defaultTemplateName: str }),
  MusicTrack: obj({
    name: { ...str, description: 'Used exactly as musicName' },
    duration: { ...num, description: 'Seconds' },
    url: { ...link, description: 'The audio file (public, unsigned: the catalog is the same for every account)' },
  }),
  MemeHook: obj({
    name: { ...str, description: 'Used exactly as memeHookName' },
    preview: { ...link, description: 'Preview image' },
    video: { ...link, description: 'The clip as it is prepended to a short (public, unsigned)' },
    video_duration: { ...num, description: 'Seconds of picture the hook adds to a short' },
  }),
  GameVideo: obj({
    name: { ...str, description: 'Used exactly as gameVideoName' },
    preview: { ...link, description: 'Preview image' },
    video: { ...link, description: 'The gameplay loop (public, unsigned; its sound is never used)' },
    video_duration: { ...num, description: 'Seconds of the loop' },
  }),
  Cancelled: obj({ _id: str, status: { type: 'string', const: 'cancelled' } }),
  WebhookShort: obj({ id: str, title: str, video_url: str, duration: num, viral_score: { ...num, minimum: 0, maximum: 10, description: '0-10 here (the detail uses 0-100)' } }),
  ShortsCompletedEvent: obj({
    event: { type: 'string', const: 'shorts.completed' }, requestId: str, status: { type: 'string', const: 'completed' }, timestamp: dateTime,
    data: obj({ shorts: { type: 'array', items: ref('WebhookShort') } }),
  }),
  ShortsFailedEvent: obj({
    event: { type: 'string', const: 'shorts.failed' }, requestId: str, status: { type: 'string', const: 'failed' }, timestamp: dateTime,
    data: obj({ failureReason: str }),
  }),
  Health: obj({ status: { type: 'string', const: 'ok' } }),
  Readiness: obj({
    ready: bool,
    checks: { type: 'object', additionalProperties: obj({ ok: bool, detail: str }) },
  }),
};

/** `{ <key>: [...], pagination }`: a page of a list (inside the `data` envelope like every other success). */
const listOf = (key: string, item: string): Schema => obj({ [key]: { type: 'array', items: ref(item) }, pagination: ref('Pagination') });
Object.assign(schemas, accountsOpenApiSchemas(), {
  RequestList: listOf('requests', 'RequestListItem'),
  PostList: listOf('posts', 'Post'),
  MusicList: listOf('music', 'MusicTrack'),
  MemeHookList: listOf('memeHooks', 'MemeHook'),
  GameVideoList: listOf('gameVideos', 'GameVideo'),
});

// ---------------------------------------------------------------------------------------------------
// Errors and headers

const RATE_HEADERS: Record<string, Schema> = {
  'X-RateLimit-Limit-Hour': { description: 'Requests allowed per hour (account)', schema: int },
  'X-RateLimit-Remaining-Hour': { description: 'Requests left in the current hour (account)', schema: int },
  'X-RateLimit-Limit-Day': { description: 'Requests allowed per day (account)', schema: int },
  'X-RateLimit-Remaining-Day': { description: 'Requests left today, UTC (account)', schema: int },
  'X-RateLimit-Reset': { description: 'When the hourly limit resets (ISO 8601)', schema: dateTime },
};
const RETRY_AFTER: Schema = { description: 'Seconds until the blocking limit resets (same as details.retryAfter)', schema: int, required: true };
const UNAVAILABLE_RETRY_AFTER: Schema = { description: 'Seconds after which to try again (same as details.retryAfter)', schema: int, required: true };

/**
 * The counters as one response carries them: always, once the limiter has run. Only a 400 can come
 * before it (a path with a malformed percent-encoding is refused before the key is looked at), so its
 * headers are documented but not promised.
 */
function rateHeaders(status: number): Record<string, Schema> {
  const promised = status !== 400;
  return Object.fromEntries(Object.entries(RATE_HEADERS).map(([name, h]) => [name, { ...h, required: promised }]));
}

const LIMITER_TITLES: Record<LimiterName, string> = {
  videoCreation: 'Video creation', statusCheck: 'Status check', listRequests: 'List requests', standard: 'Standard', posts: 'Posts',
};

const AUTH_ERRORS: readonly ErrorCode[] = ['missing_api_key', 'invalid_api_key', 'rate_limit_exceeded', 'internal_error', 'service_unavailable'];

/** Either header carries the key; an operation names both alternatives. */
const KEY_SECURITY = [{ apiKey: [] }, { bearer: [] }];

/** Success bodies of the API: `{ "data": <the resource> }` (integrations read `result.data.<field>`). */
const envelope = (schema: string): Schema => obj({ data: ref(schema) });

/** Every state-changing POST takes an Idempotency-Key (issue 23; src/server/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAM: Schema = {
  name: 'Idempotency-Key', in: 'header', required: false,
  description: 'A unique string of the client (a UUID), 1-255 printable ASCII characters. Sent again with the same method, path and body '
    + 'within 24 hours, the first success answer is returned (header Idempotent-Replayed: true) without running the request again '
    + '(no second request, no second charge); with another body it is 409 idempotency_key_reused. A duplicate sent while the first '
    + 'still runs waits for its answer (409 idempotency_key_in_use after a minute). Error answers are not kept: a retry runs again.',
  schema: { type: 'string' },
};
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = ['invalid_request', 'idempotency_key_reused', 'idempotency_key_in_use'];

/** An enveloped route's operation: key security, rate-limit headers, the `{data}` envelope (or an export's files), error bodies per status. */
function operation(d: EnvelopeRoute): Schema {
  const post = d.method === 'POST';
  // Idempotent-Replayed is sent only on a replay, so it is named in the parameter's description, not listed as an answer header.
  const okHeaders = rateHeaders(d.ok.status);
  const ok = 'file' in d.ok
    ? { description: d.ok.file.description, headers: { ...okHeaders, ...d.ok.file.headers }, content: d.ok.file.content }
    : { description: d.ok.description, headers: okHeaders, content: { 'application/json': { schema: envelope(d.ok.schema) } } };
  const responses: Record<string, Schema> = { [d.ok.status]: ok };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...d.errors, ...(post ? IDEMPOTENCY_ERRORS : []), ...AUTH_ERRORS])) {
    const status = ERROR_CODES[code].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    // The key is checked before the limiters, so a 401 has no counters to report; a crash has none either, nor
    // an answer given while the database that holds the key is unreachable (only when to try again).
    const headers = status === 401 || status === 500 ? undefined : status === 503 ? { 'Retry-After': UNAVAILABLE_RETRY_AFTER }
      : status === 429 ? { ...rateHeaders(status), 'Retry-After': RETRY_AFTER } : rateHeaders(status);
    responses[status] = {
      description: codes.join(', '),
      ...(headers ? { headers } : {}),
      content: { 'application/json': { schema: errorSchema(codes) } },
    };
  }
  responses[431] = HEADERS_TOO_LARGE;
  const pool = ENDPOINT_LIMITERS[d.limiter];
  return {
    operationId: d.operationId,
    summary: d.summary,
    ...(d.description ? { description: d.description } : {}),
    tags: [d.tag],
    security: KEY_SECURITY,
    ...(d.parameters || post ? { parameters: [...(d.parameters ?? []), ...(post ? [IDEMPOTENCY_KEY_PARAM] : [])] } : {}),
    ...(d.requestBody ? { requestBody: d.requestBody } : {}),
    responses,
    'x-rate-limiter': { name: LIMITER_TITLES[d.limiter], limit: pool.limit, windowSeconds: pool.windowSec },
  };
}

// ---------------------------------------------------------------------------------------------------
// Endpoints outside /api/v1 (health, readiness, media links) are served from the root.

function rootOf(serverUrl: string): string {
  const trimmed = serverUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/api/v1') ? trimmed.slice(0, -'/api/v1'.length) : trimmed;
}

/**
 * A route that writes its own answer behind the key (the live streams): the key's security, and the counters
 * on every answer the limiter has run before (Retry-After on its 429), as the enveloped operations have them.
 */
function keyedSelfOperation(operationId: string, written: Schema): Schema {
  const responses = Object.fromEntries(Object.entries(written.responses as Record<string, Schema>).map(([status, r]) => {
    const code = Number(status);
    if (!Number.isInteger(code) || code === 401 || code === 500 || r.$ref) return [status, r];
    const headers = code === 429 ? { ...rateHeaders(code), 'Retry-After': RETRY_AFTER } : rateHeaders(code);
    return [status, { ...r, headers: { ...headers, ...(r.headers as Schema | undefined) } }];
  }));
  return { operationId, security: KEY_SECURITY, ...written, responses };
}

/**
 * The document's `paths`, made from the route table: one path item per template, in table order, its
 * operations in table order; a route served from the root names the root as its server.
 */
function paths(root: string): Record<string, Schema> {
  const items: Record<string, Schema> = {};
  for (const route of ROUTES as readonly RouteSpec[]) {
    const op = route.answer === 'envelope' ? operation(route) : 'undocumented' in route.openapi ? null
      : route.auth === 'apiKey' ? keyedSelfOperation(route.operationId, route.openapi) : { operationId: route.operationId, ...route.openapi };
    if (!op) continue;
    const item = (items[route.path] ??= route.mount === 'root' ? { servers: [{ url: root }] } : {});
    item[route.method.toLowerCase()] = op;
  }
  return items;
}

/** Spec 6 deliveries, signed the Standard Webhooks way with the account's whsec_ secret. */
function webhook(operationId: string, summary: string, schema: string): Schema {
  const header = (name: string, description: string): Schema => ({ name, in: 'header', required: true, schema: str, description });
  return {
    post: {
      operationId, summary, tags: ['shorts'], security: [],
      description: 'POSTed to the request\'s webhookUrl. At most 3 attempts (at once, after 1 s, after 3 s), 10 s each; any 2xx acknowledges.',
      parameters: [
        header('webhook-id', 'Message id, the same on every attempt (deduplicate on it)'),
        header('webhook-timestamp', 'Unix seconds of this attempt'),
        header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>"> keyed with the base64-decoded part of the whsec_ secret'),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: ref(schema) } } },
      responses: { '2XX': { description: 'Acknowledged; anything else (or no answer within 10 s) is retried' } },
    },
  };
}

export function openApiDocument(opts: { serverUrl: string }): object {
  const root = rootOf(opts.serverUrl);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Shorts API (shortwright)',
      version: '1.0.0',
      summary: 'Long videos in, ranked, captioned vertical clips out.',
      description: 'The Shorts API as `shorts serve` implements it. Prose reference: docs/api.md. Send the API key as X-API-Key or as '
        + '`Authorization: Bearer <key>` (both at once must name the same key). Every authenticated response except a 401 carries the '
        + 'X-RateLimit-* headers. Every success of /api/v1 is {"data": <the resource>} (paginated lists: {"data": {"<items>": [...], '
        + '"pagination": {...}}}); errors are {"error": {"code", "message", "details"?}}. Health, readiness and this document are not '
        + 'API resources and answer bare objects.\n\nOn every path of this document: a method the path does not have is answered 405 '
        + '`method_not_allowed` with an `Allow` header listing the methods it has (details.allow the same), before the key is checked; '
        + 'a request target that does not parse or a path with a malformed percent-encoding is 400 `invalid_request`.\n\n'
        + 'The web studio (served at / by the same server) signs a browser in at /studio/session and sends its `shorts_session` cookie '
        + 'instead of a key; a POST or DELETE authenticated by that cookie without this server\'s Origin is 403 `forbidden`. '
        + 'The studio\'s routes are its own pages\' and are not listed here.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: opts.serverUrl }],
    security: KEY_SECURITY,
    tags: [
      { name: 'shorts', description: 'Creation requests and their clips' },
      { name: 'posts', description: 'Social posts made from clips' },
      { name: 'accounts', description: 'Connected platform accounts that posts go out as (extension)' },
      { name: 'catalogs', description: 'Caption templates, music, meme hooks, game videos' },
      { name: 'service', description: 'Health, readiness and this document' },
      { name: 'media', description: 'Signed, temporary clip links' },
    ],
    components: {
      schemas,
      requestBodies: {
        CreateShortsRequest: { required: true, content: { 'application/json': { schema: createRequest } } },
        RenderShortRequest: { required: false, content: { 'application/json': { schema: renderRequest } } },
        SchedulePostRequest: { required: true, content: { 'application/json': { schema: schedulePostRequest } } },
        AutomationRuleRequest: { required: true, content: { 'application/json': { schema: automationRuleRequest } } },
      },
      responses: {
        HeadersTooLarge: { description: 'Request headers larger than 16 KB: refused by the HTTP layer before any route, with no body' },
      },
      securitySchemes: {
        apiKey: {
          type: 'apiKey', in: 'header', name: 'X-API-Key',
          description: 'A key from `shorts keys create`: its prefix (sk_live_ unless the operator sets SHORTS_API_KEY_PREFIX) followed by 43 base62 characters',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same key as `Authorization: Bearer <key>`' },
      },
    },
    paths: paths(root),
    webhooks: {
      'shorts.completed': webhook('shortsCompletedWebhook', 'All clips were generated', 'ShortsCompletedEvent'),
      'shorts.failed': webhook('shortsFailedWebhook', 'Processing failed (the credit is refunded)', 'ShortsFailedEvent'),
    },
  };
}
