// The route table of `shorts serve`: every HTTP route, declared once. The server's dispatch
// (src/server/router.ts, http-server.ts) and the OpenAPI `paths` (src/server/openapi.ts) are both made
// from it, so a route cannot be served without being documented, or documented without being served
// (test/route-table.test.ts checks both against a live server).
//
// An entry names its handler by its operationId: the server binds a handler to every operationId in a map
// whose type is derived from this table, so a route without a handler (or a handler without a route) does
// not compile. The contract stays free of the implementation: nothing here imports the service.
//
// Two kinds of answer:
// - 'envelope': the API's own routes. The server checks the key, counts `limiter`, requires a
//   subscription where `subscription` says so, reads the JSON body of a POST, and sends the handler's
//   result as `{ "data": ... }` (or an export file as it is); the OpenAPI operation is built the shared
//   way (key security, X-RateLimit-* headers, the error codes under their statuses).
// - 'self': the handler writes the whole answer (health, readiness, the document, signed media links,
//   public catalog files, the OAuth redirect, MCP); `openapi` is its operation as written, or why the
//   route is left out of the document.
import type { ErrorCode } from '../errors.js';
import { PLATFORMS } from '../domain/posts-query.js';
import { EXPORT_FORMATS } from './export-formats.js';
import { EXPORT_PATHS_NOTE, exportFileAnswer, exportFormatParam, WHOLE_REQUEST_FORMATS } from './export-openapi.js';
import { enumOf, errorSchema, HEADERS_TOO_LARGE, int, obj, pageParams, query, ref, str, type Schema } from './schema.js';
import { POST_STATUSES } from '../domain/posts-query.js';

/** The API's base path; routes with `mount: 'root'` live outside it. */
export const API_BASE = '/api/v1';

/** The endpoint limiters of spec 8.1 (their pools: ENDPOINT_LIMITERS in src/server/rate-limit.ts). */
export type LimiterName = 'videoCreation' | 'statusCheck' | 'listRequests' | 'standard' | 'posts';

export const REQUEST_STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'DELETE';

interface RouteCommon {
  /** 'ANY': every method reaches the handler, which answers a wrong one itself (MCP). */
  method: HttpMethod | 'ANY';
  /** The OpenAPI path template, relative to the mount; `{name}` is one path segment, handed to the handler percent-decoded. */
  path: string;
  /** 'api': under /api/v1 (the document's server URL); 'root': from the server's root. */
  mount: 'api' | 'root';
  operationId: string;
}

/** The 2xx of an enveloped operation: `{data: <schema>}`, or (an export) files of their own types. */
export type OkAnswer =
  | { status: number; description: string; schema: string }
  | { status: number; file: { description: string; content: Schema; headers: Schema } };

export interface EnvelopeRoute extends RouteCommon {
  answer: 'envelope';
  limiter: LimiterName;
  /** Spec 5.4: create and posts need an active subscription. */
  subscription?: boolean;
  summary: string;
  description?: string;
  tag: string;
  ok: OkAnswer;
  /** Codes besides the ones every authenticated endpoint can return (401s, 429, 500). */
  errors: readonly ErrorCode[];
  parameters?: readonly Schema[];
  requestBody?: Schema;
}

interface SelfRouteCommon extends RouteCommon {
  answer: 'self';
  /** HEAD is answered by this GET route too (no operation of its own in the document). */
  alsoHead?: boolean;
  /** Served only when the server is given a handler for it. */
  optional?: boolean;
  /** The operation as the document states it (its operationId is the entry's), or why the route is not in the document. */
  openapi: Schema | { undocumented: string };
}

/** 'none': public; 'apiKey': the key is checked and `limiter` counted before the handler runs. */
export type SelfRoute = (SelfRouteCommon & { auth: 'none' }) | (SelfRouteCommon & { auth: 'apiKey'; limiter: LimiterName });

export type RouteSpec = EnvelopeRoute | SelfRoute;

// ---------------------------------------------------------------------------------------------------
// Parameters shared by several routes.

const idParam: Schema = {
  name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' },
  description: '24-character hex request id; anything else (a malformed percent-encoding included) is 400 invalid_request',
};
const shortIdParam: Schema = { name: 'shortId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, description: 'The clip\'s id (`shorts[].id`)' };
const isoFilter = { type: 'string', description: 'ISO 8601 date or date-time' };
const postIdParam: Schema = {
  name: 'postId', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' }, description: '24-character hex post id',
};
const automationAccountParam: Schema = { name: 'accountId', in: 'path', required: true, schema: str, description: 'The connected account\'s id (GET /accounts)' };
const connectedAccountParam: Schema = { name: 'accountId', in: 'path', required: true, schema: str, description: 'The connected account\'s id (ca_…)' };
const platform: Schema = enumOf(PLATFORMS);
const requestJson = (schema: Schema): Schema => ({ required: true, content: { 'application/json': { schema } } });
const lifetime = (what: string): Schema => ({ type: 'integer', minimum: 1, maximum: 10 * 365 * 86_400, description: `Seconds ${what} has left` });
const token = (what: string): Schema => ({ type: 'string', minLength: 1, maxLength: 8192, description: what });
const html = (description: string): Schema => ({ description, content: { 'text/html': { schema: str } } });

/** A signed media link: the clip's MP4 (`video_url`) or its cover image (`thumbnail_url`, extension); GET, or HEAD without a body. */
function mediaOperation(kind: 'mp4' | 'jpg' | 'source', summary: string, withBody: boolean): Schema {
  // A kept source is served as it was uploaded: its `filetype`.
  const types = kind === 'mp4' ? ['video/mp4'] : kind === 'source' ? ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-matroska'] : ['image/jpeg'];
  const fileHeaders: Record<string, Schema> = {
    'Accept-Ranges': { schema: { type: 'string', const: 'bytes' } },
    'Content-Length': { schema: int },
    ETag: { schema: str, description: 'From the file\'s size and modification time' },
    'Last-Modified': { schema: str },
  };
  const video = withBody ? { content: Object.fromEntries(types.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])) } : {};
  const linkError = (codes: ErrorCode[], description: string): Schema =>
    ({ description, ...(withBody ? { content: { 'application/json': { schema: errorSchema(codes) } } } : {}) });
  return {
    summary, tags: ['media'],
    description: `${kind === 'mp4' ? 'The `video_url` of a clip' : kind === 'source' ? 'The `source_video_url` of a request (extension): the source video it keeps for editing, as uploaded'
      : 'The `thumbnail_url` of a clip (extension): its cover image, 1080x1920 JPEG'}. `
      + 'Signed and temporary: no API key; the link itself is the credential (a clip\'s two links are signed apart). '
      + 'One byte range per request (several ranges get the whole file).',
    security: [],
    parameters: [
      { name: 'requestId', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } },
      ...(kind === 'source' ? [] : [{ name: 'shortId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }]),
      { name: 'expires', in: 'query', required: true, schema: { type: 'string', pattern: '^[0-9]{1,12}$' }, description: 'Unix time the link expires' },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string' }, description: 'base64url HMAC-SHA256 of the link (requestId, shortId, kind, expires)' },
      { name: 'Range', in: 'header', required: false, schema: { type: 'string' }, description: 'bytes=a-b, bytes=a- or bytes=-n' },
      { name: 'If-Range', in: 'header', required: false, schema: { type: 'string' }, description: 'ETag or Last-Modified; a stale one gets the whole file' },
    ],
    responses: {
      200: { description: 'The whole file', headers: fileHeaders, ...video },
      206: { description: 'The requested range', headers: { ...fileHeaders, 'Content-Range': { schema: str, description: 'bytes a-b/size' } }, ...video },
      304: { description: 'Not modified (If-None-Match / If-Modified-Since)' },
      403: linkError(['invalid_media_link'], 'invalid_media_link: the link expired or was altered; GET /shorts/{id} hands out a fresh one'),
      404: linkError(['resource_not_found'], kind === 'source' ? 'resource_not_found: the request keeps no source (any more)' : `resource_not_found: the clip has no ${kind === 'mp4' ? 'file' : 'cover'} (any more)`),
      416: { description: 'Range not satisfiable', headers: { 'Content-Range': { schema: str, description: 'bytes */size' } } },
      431: HEADERS_TOO_LARGE,
    },
  };
}

/** Exports (issue 14): the file itself, not an envelope; one clip, or the whole request in rank order. */
function exportRoute<const Id extends string>(operationId: Id, path: string, summary: string, description: string, oneClip: boolean): EnvelopeRoute & { operationId: Id } {
  const formats = oneClip ? EXPORT_FORMATS : WHOLE_REQUEST_FORMATS;
  return {
    method: 'GET', path, mount: 'api', operationId, answer: 'envelope', limiter: 'statusCheck',
    summary, description: description + EXPORT_PATHS_NOTE, tag: 'shorts',
    ok: { status: 200, file: exportFileAnswer(formats, oneClip) },
    errors: ['invalid_request', 'resource_not_found', 'short_not_editable'],
    parameters: [...(oneClip ? [idParam, shortIdParam] : [idParam]), exportFormatParam(formats)],
  };
}

/** Issue 25: a live progress stream (text/event-stream); `one`: a request's stream (its clips too), else the list's. */
function liveOperation(summary: string, parameters: Schema[], one: boolean): Schema {
  const events = one
    ? '`event: status` (data: LiveStatus) at once and on every change of status, step, progress or queue position; `event: shorts` '
      + '(data: `{"shorts": Short[]}`, the clips with fresh signed links) at once when there are any and whenever a clip appears (each one as '
      + 'soon as its MP4 is stored, while the others still render), finishes re-rendering or changes; `event: end` (data: LiveStatus) once '
      + 'the request is completed, failed or cancelled, after which the server closes the stream. A completed request with a clip re-rendering '
      + 'keeps its stream open until no clip is `recompiling`.'
    : '`event: status` and `event: end` (data: LiveStatus, its `_id` naming the request) for each request, as on a request\'s own stream; '
      + 'the server closes the stream once every request has ended.';
  return {
    summary, tags: ['shorts'],
    description: `${events} A request already ended gets its events and \`end\` at once. A \`: ping\` comment every 15 s keeps proxies from `
      + 'closing an idle stream; `retry: 3000` tells EventSource to reconnect after 3 s. Counted once per connection by the Status check limiter, '
      + 'and not held against any limit while open; at most 50 streams open per account (more: 429 rate_limit_exceeded). The server polls '
      + 'its store once a second for all open streams together, so it works whichever process runs the work.',
    parameters,
    responses: {
      200: {
        description: 'The stream: Cache-Control: no-store, X-Accel-Buffering: no (proxies pass each event on at once), never compressed',
        content: { 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events; each `data:` line is one JSON object (LiveStatus or {shorts})' } } },
      },
      400: { description: 'invalid_request: a malformed id, no ids or more than 100', content: { 'application/json': { schema: errorSchema(['invalid_request']) } } },
      401: { description: 'missing_api_key or invalid_api_key', content: { 'application/json': { schema: errorSchema(['missing_api_key', 'invalid_api_key']) } } },
      404: { description: 'resource_not_found: no such request for this account (sent before any stream starts)', content: { 'application/json': { schema: errorSchema(['resource_not_found']) } } },
      429: { description: 'rate_limit_exceeded: the Status check limiter, or 50 streams already open for this account', content: { 'application/json': { schema: errorSchema(['rate_limit_exceeded']) } } },
      431: HEADERS_TOO_LARGE,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The table. Order matters where two paths can match one request: the first entry with the request's
// method wins, and a 405's Allow lists the methods in table order (`/shorts/create` also fits
// `/shorts/{id}`: PUT there answers Allow: POST, GET, DELETE). The document lists paths in table order.

export const ROUTES = [
  {
    method: 'GET', path: '/shorts', mount: 'api', operationId: 'listShorts', answer: 'envelope', limiter: 'listRequests',
    summary: 'List requests made through the API with this account', tag: 'shorts',
    ok: { status: 200, schema: 'RequestList', description: 'A page of requests' },
    errors: ['invalid_request'],
    parameters: [
      ...pageParams(20),
      query('status', enumOf(REQUEST_STATUSES), 'Only requests in this status; absent means all'),
      query('sortBy', { type: 'string', enum: ['createdAt', 'updatedAt'], default: 'createdAt' }, 'Sort key'),
      query('sortOrder', { type: 'string', enum: ['asc', 'desc'], default: 'desc' }, 'asc = oldest first, desc = newest first'),
    ],
  },
  {
    method: 'POST', path: '/shorts/create', mount: 'api', operationId: 'createShorts', answer: 'envelope', limiter: 'videoCreation', subscription: true,
    summary: 'Create shorts from a video (1 credit)', tag: 'shorts',
    description: 'Accepted requests answer 202 and are processed asynchronously; poll GET /shorts/{id}/status or give a webhookUrl. '
      + 'A rejected request (any 4xx) costs nothing.',
    ok: { status: 202, schema: 'CreateResponse', description: 'Accepted; 1 credit taken' },
    errors: ['invalid_request', 'invalid_video_site_url', 'invalid_file_url', 'invalid_webhook_url', 'file_too_large', 'video_too_long',
      'subscription_required', 'insufficient_credits'],
    requestBody: { $ref: '#/components/requestBodies/CreateShortsRequest' },
  },
  {
    method: 'GET', path: '/shorts/{id}/status', mount: 'api', operationId: 'getShortsStatus', answer: 'envelope', limiter: 'statusCheck',
    summary: 'Status, step and progress of a request', tag: 'shorts',
    ok: { status: 200, schema: 'Status', description: 'The request\'s status' },
    errors: ['invalid_request', 'resource_not_found'],
    parameters: [idParam],
  },
  {
    method: 'GET', path: '/shorts/{id}', mount: 'api', operationId: 'getShorts', answer: 'envelope', limiter: 'statusCheck',
    summary: 'A request with its sentences and clips', tag: 'shorts',
    description: 'Call after the status is completed; before that `shorts` may be empty or incomplete.',
    ok: { status: 200, schema: 'RequestDetail', description: 'The request' },
    errors: ['invalid_request', 'resource_not_found'],
    parameters: [idParam],
  },
  {
    method: 'DELETE', path: '/shorts/{id}', mount: 'api', operationId: 'cancelShorts', answer: 'envelope', limiter: 'standard',
    summary: 'Cancel a queued or processing request', tag: 'shorts',
    description: 'Stops the work at once. The credit comes back only if the request was still queued.',
    ok: { status: 200, schema: 'Cancelled', description: 'Cancelled' },
    errors: ['invalid_request', 'resource_not_found', 'request_not_cancellable'],
    parameters: [idParam],
  },
  {
    method: 'POST', path: '/shorts/{id}/shorts/{shortId}/render', mount: 'api', operationId: 'renderShort', answer: 'envelope', limiter: 'standard',
    summary: 'Re-render one clip with changes (extension)', tag: 'shorts',
    description: 'Re-renders one clip of a completed request: a new range, template, layout, overlays, music or corrected caption words. '
      + 'Answers at once with the clip, `recompiling` true; its previous `video_url` keeps serving the previous MP4 until the new one replaces it. '
      + 'Poll GET /shorts/{id} until the clip\'s `recompiling` is false: then video_url, startTimestamp, endTimestamp, duration and sentenceIndexes '
      + 'are the new ones, or `editError` says why it failed (the clip unchanged). Uses the cached transcript: an unchanged range costs one '
      + 'render, no transcription. Costs no credit and sends no webhook. 409 while the request is not completed or the clip is already re-rendering.',
    ok: { status: 202, schema: 'Short', description: 'The clip, recompiling' },
    errors: ['invalid_request', 'resource_not_found', 'short_not_editable'],
    parameters: [idParam, shortIdParam],
    requestBody: { $ref: '#/components/requestBodies/RenderShortRequest' },
  },
  exportRoute('exportShort', '/shorts/{id}/shorts/{shortId}/export', 'Export one clip: captions, render plan, editor project or cover (extension)',
    'Captions in the MP4\'s time (SRT, WebVTT; the ASS file as burned in), the render plan as rendered (json), and editor projects '
    + '(CMX3600 EDL, FCPXML, MLT for Shotcut/Kdenlive) placing the source\'s range on the vertical timeline with the crop path as keyframes '
    + 'and the captions as a caption track; jpg is the cover. 409 while the request is not completed; 404 for a clip that failed, or a '
    + 'file the clip does not have (captions of a clip rendered without them). ', true),
  exportRoute('exportRequest', '/shorts/{id}/export', 'Export every clip of a request on one timeline (extension)',
    'Every clip that rendered, in rank order, one after the other: the timelines (edl, fcpxml, mlt), the captions on that timeline\'s clock '
    + '(srt, vtt) and the list of render plans (json). ass and jpg are one clip\'s: 400, use the clip\'s export. ', false),
  // Issue 25: live progress for the studio, pushed as server-sent events (src/server/event-stream.ts, live-hub.ts).
  {
    method: 'GET', path: '/shorts/{id}/events', mount: 'api', operationId: 'streamShortsEvents', answer: 'self', auth: 'apiKey', limiter: 'statusCheck',
    openapi: liveOperation('Live progress of a request, pushed as server-sent events (extension)', [idParam], true),
  },
  {
    method: 'GET', path: '/events', mount: 'api', operationId: 'streamEvents', answer: 'self', auth: 'apiKey', limiter: 'statusCheck',
    openapi: liveOperation('Live progress of several requests on one stream (extension)', [{
      name: 'ids', in: 'query', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}(,[0-9a-f]{24}){0,99}$' },
      description: 'Comma-separated request ids, at most 100; each one must be the caller\'s',
    }], false),
  },
  // Issue 25: the studio's uploads, the kept source of a request and its transcript's words.
  {
    method: 'GET', path: '/shorts/{id}/transcript', mount: 'api', operationId: 'getTranscript', answer: 'envelope', limiter: 'statusCheck',
    summary: 'The words of a request\'s transcript in a range of the source (extension)', tag: 'shorts',
    description: 'The transcript\'s words (as transcribed: the request\'s range, and what re-renders past it added) whose time is inside '
      + '[start, end], in source seconds. Without start/end the whole transcript; at most 600 s per call. Until the request is transcribed '
      + '(and for a request that failed before) `words` is empty and `language` "".',
    ok: { status: 200, schema: 'Transcript', description: 'The words' },
    errors: ['invalid_request', 'resource_not_found'],
    parameters: [idParam,
      query('start', { type: 'number', minimum: 0 }, 'Start of the range, source seconds (default 0)'),
      query('end', { type: 'number', minimum: 0 }, 'End of the range, source seconds (default the transcript\'s end); end - start at most 600')],
  },
  {
    // tus 1.0 (creation, expiration, termination): POST makes an upload, OPTIONS tells what the server supports.
    method: 'ANY', path: '/uploads', mount: 'api', operationId: 'uploads', answer: 'self', auth: 'apiKey', limiter: 'statusCheck',
    openapi: { undocumented: 'resumable uploads speak the tus 1.0 protocol (its own specification states the methods and headers); see the uploadId field of POST /shorts/create' },
  },
  {
    // tus: HEAD (the offset to resume from), PATCH (a chunk), DELETE (give up), OPTIONS.
    method: 'ANY', path: '/uploads/{uploadId}', mount: 'api', operationId: 'upload', answer: 'self', auth: 'apiKey', limiter: 'statusCheck',
    openapi: { undocumented: 'resumable uploads speak the tus 1.0 protocol (its own specification states the methods and headers); see the uploadId field of POST /shorts/create' },
  },
  {
    method: 'GET', path: '/media/{requestId}/source', mount: 'root', operationId: 'getSourceVideo', answer: 'self', auth: 'none', alsoHead: true,
    openapi: mediaOperation('source', 'Stream the source video a request keeps (extension)', true),
  },
  // Issue 16: scheduling and canceling posts, connected accounts and the automation rules of a connected account.
  {
    method: 'GET', path: '/posts', mount: 'api', operationId: 'listPosts', answer: 'envelope', limiter: 'posts', subscription: true,
    summary: 'Social posts made from clips, newest first', tag: 'posts',
    ok: { status: 200, schema: 'PostList', description: 'A page of posts' },
    errors: ['invalid_request', 'subscription_required'],
    parameters: [
      ...pageParams(50),
      query('status', enumOf(POST_STATUSES), 'Only posts in this status'),
      query('platform', platform, 'Only posts on this platform'),
      query('source', enumOf(['manual', 'automation']), 'Only manual or automation posts'),
      query('requestId', { type: 'string', pattern: '^[0-9a-f]{24}$' }, 'Only posts from this request'),
      query('shortId', { type: 'string', format: 'uuid' }, 'Only posts from this clip'),
      query('since', isoFilter, 'Lower bound (inclusive) of the timestamp chosen by `date`'),
      query('until', isoFilter, 'Upper bound (inclusive) of the timestamp chosen by `date`'),
      query('date', { type: 'string', enum: ['scheduled', 'published'], default: 'scheduled' },
        'Timestamp used by since, until and the sort; published implies status=published'),
    ],
  },
  {
    method: 'POST', path: '/posts', mount: 'api', operationId: 'schedulePost', answer: 'envelope', limiter: 'standard', subscription: true,
    summary: 'Schedule a clip on a connected account (extension: the spec leaves it "not shown")', tag: 'posts',
    description: 'The post is `scheduled`; the server\'s scheduler publishes it at scheduledAt (`processing`, then `published` with url and '
      + 'publishedAt, or `failed` with error, errorCode and retryable per spec 7.3). Retryable failures are tried 3 times in all, 1 and 5 minutes '
      + 'apart (longer when the platform says so) before the post fails; a daily cap fails it at once, its error naming the platform\'s reset.',
    ok: { status: 201, schema: 'Post', description: 'The post, scheduled' },
    errors: ['invalid_request', 'subscription_required'],
    requestBody: { $ref: '#/components/requestBodies/SchedulePostRequest' },
  },
  {
    method: 'GET', path: '/accounts', mount: 'api', operationId: 'listConnectedAccounts', answer: 'envelope', limiter: 'standard',
    summary: 'Connected platform accounts of this API account (extension)', tag: 'accounts',
    ok: { status: 200, schema: 'ConnectedAccountList', description: 'Every connected account, oldest first' }, errors: ['invalid_request'],
    parameters: [{ name: 'platform', in: 'query', required: false, schema: platform, description: 'Only accounts on this platform' }],
  },
  {
    method: 'POST', path: '/accounts', mount: 'api', operationId: 'addConnectedAccount', answer: 'envelope', limiter: 'standard',
    summary: 'Add an account with tokens obtained elsewhere (extension)', tag: 'accounts',
    description: 'The platform is asked whose the tokens are and whether that account can post, as the consent flow does: a token it '
      + 'refuses or an account that cannot post (no channel, no professional account) is 400 invalid_request, a platform account another API '
      + 'account holds is 409 account_already_connected, a platform that cannot be reached is 502 platform_unreachable; nothing is saved then. '
      + 'platformUserId is the platform\'s (one given that differs is refused). The same platform and handle again replaces the tokens and '
      + 'makes the account active again (a reconnect). The tokens are stored encrypted with the server\'s SHORTS_SECRET_KEY and never returned.',
    ok: { status: 201, schema: 'ConnectedAccount', description: 'The account' }, errors: ['invalid_request', 'account_already_connected', 'platform_unreachable'],
    requestBody: requestJson(obj({
      platform,
      handle: { type: 'string', minLength: 1, maxLength: 101, description: 'The account\'s name on the platform (@ optional)' },
      accessToken: token('The access token'),
      refreshToken: token('The refresh token; without one the account stops working when the access token ends (photo_site renews its long-lived token itself)'),
      expiresIn: lifetime('the access token'),
      refreshExpiresIn: lifetime('the refresh token'),
      platformUserId: { type: 'string', minLength: 1, maxLength: 200, description: 'The platform\'s id of the account' },
      scopes: { type: 'array', items: str },
    }, ['refreshToken', 'expiresIn', 'refreshExpiresIn', 'platformUserId', 'scopes'])),
  },
  {
    method: 'POST', path: '/accounts/connect', mount: 'api', operationId: 'connectAccount', answer: 'envelope', limiter: 'standard',
    summary: 'Start connecting an account through the platform\'s consent page (extension)', tag: 'accounts',
    description: 'Answers the consent page to open (with a PKCE challenge where the platform takes one). When the user agrees, the platform sends '
      + 'the browser to this server\'s /oauth/callback, whose page names this API account and asks for its API key; once it is posted to '
      + '/oauth/confirm the account is saved and appears in GET /accounts. A forwarded link completed by someone without the key saves nothing; '
      + 'a platform account another API account holds is refused. 400 when the server has no OAuth app for the platform '
      + '(SHORTS_OAUTH_<PLATFORM>_CLIENT_ID and _SECRET).',
    ok: { status: 200, schema: 'AccountConsent', description: 'The consent page' }, errors: ['invalid_request'],
    requestBody: requestJson(obj({ platform, handle: { type: 'string', minLength: 1, maxLength: 101, description: 'Save the account under this name instead of the platform\'s' } }, ['handle'])),
  },
  {
    method: 'GET', path: '/accounts/{accountId}', mount: 'api', operationId: 'getConnectedAccount', answer: 'envelope', limiter: 'standard',
    summary: 'One connected account (extension)', tag: 'accounts',
    ok: { status: 200, schema: 'ConnectedAccount', description: 'The account' }, errors: ['resource_not_found'], parameters: [connectedAccountParam],
  },
  {
    method: 'DELETE', path: '/accounts/{accountId}', mount: 'api', operationId: 'removeConnectedAccount', answer: 'envelope', limiter: 'standard',
    summary: 'Remove a connected account; its scheduled posts are canceled (extension)', tag: 'accounts',
    ok: { status: 200, schema: 'ConnectedAccountRemoved', description: 'Removed' }, errors: ['resource_not_found'], parameters: [connectedAccountParam],
  },
  {
    // The browser's consent redirect: no API key, the signed state names the API account.
    method: 'GET', path: '/oauth/callback', mount: 'root', operationId: 'oauthCallback', answer: 'self', auth: 'none',
    openapi: {
      summary: 'Where the platform\'s consent page sends the browser back (extension)', tags: ['accounts'], security: [],
      description: 'Opened by the user\'s browser, not by API clients: no API key; the signed `state` names the API account that started the consent. '
        + 'Exchanges the code for tokens (with the PKCE verifier derived from the state) and saves nothing: it answers a page naming that API account '
        + '(its email) and the platform account, whose form posts that API account\'s key to /oauth/confirm.',
      parameters: [
        { name: 'state', in: 'query', required: true, schema: str, description: 'From POST /accounts/connect, signed by this server' },
        { name: 'code', in: 'query', required: false, schema: str, description: 'The authorization code' },
        { name: 'error', in: 'query', required: false, schema: str, description: 'The platform\'s refusal (access_denied…)' },
        { name: 'error_description', in: 'query', required: false, schema: str },
      ],
      responses: {
        200: html('The confirmation page: the API account and the platform account, and a form for the API key'),
        400: html('Not connected: the page says why (a refusal, an invalid or expired state, a failed code exchange, an account that cannot publish)'),
        409: html('Not connected: another API account holds this platform account'),
        431: HEADERS_TOO_LARGE,
      },
    },
  },
  {
    // The confirmation page's form: the sealed grant and the starting API account's key, in a POST body.
    method: 'POST', path: '/oauth/confirm', mount: 'root', operationId: 'oauthConfirm', answer: 'self', auth: 'none',
    openapi: {
      summary: 'Confirm a consent with the API key of the account that started it (extension)', tags: ['accounts'], security: [],
      description: 'Posted by the page of /oauth/callback, not by API clients. Saves the platform account for the API account that started the '
        + 'consent only when `apiKey` is that account\'s key; any other key, or none, saves nothing. A browser POST from another origin is refused.',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: obj({
              consent: { type: 'string', description: 'The sealed consent of the confirmation page (opaque)' },
              apiKey: { type: 'string', description: 'The API key of the account the page names' },
            }),
          },
        },
      },
      responses: {
        200: html('Connected: the page names the account'),
        400: html('Not connected: not the page\'s form, or a confirmation that is altered or too old'),
        401: html('Not connected: no API key, or not a valid one'),
        403: html('Not connected: the key of another API account, or a cross-site POST'),
        409: html('Not connected: another API account holds this platform account'),
        431: HEADERS_TOO_LARGE,
      },
    },
  },
  {
    method: 'GET', path: '/posts/{postId}', mount: 'api', operationId: 'getPost', answer: 'envelope', limiter: 'posts', subscription: true,
    summary: 'One post (extension)', tag: 'posts',
    ok: { status: 200, schema: 'Post', description: 'The post' },
    errors: ['invalid_request', 'resource_not_found', 'subscription_required'],
    parameters: [postIdParam],
  },
  {
    method: 'DELETE', path: '/posts/{postId}', mount: 'api', operationId: 'cancelPost', answer: 'envelope', limiter: 'standard',
    summary: 'Cancel a scheduled post', tag: 'posts',
    description: 'A scheduled post becomes `canceled` and never goes out. Once it is being published (`processing`: uploading, or handed to the '
      + 'platform and waiting for it) or has ended (published, failed, canceled) it is 409 `post_not_cancelable`, details.status saying which.',
    ok: { status: 200, schema: 'Post', description: 'The post, canceled' },
    errors: ['invalid_request', 'resource_not_found', 'post_not_cancelable'],
    parameters: [postIdParam],
  },
  {
    method: 'GET', path: '/accounts/{accountId}/automation', mount: 'api', operationId: 'listAutomationRules', answer: 'envelope', limiter: 'standard',
    summary: 'Automation rules of a connected account (extension)', tag: 'posts',
    ok: { status: 200, schema: 'AutomationRuleList', description: 'The rules, oldest first' },
    errors: ['resource_not_found'],
    parameters: [automationAccountParam],
  },
  {
    method: 'POST', path: '/accounts/{accountId}/automation', mount: 'api', operationId: 'addAutomationRule', answer: 'envelope', limiter: 'standard', subscription: true,
    summary: 'Post new clips automatically at the free slots of a daily schedule (extension)', tag: 'posts',
    description: 'When one of the caller\'s requests completes after the rule was made, each of its clips with viral_score >= minViralScore, best '
      + 'first, becomes a post with source "automation" at the next free slot (one post per slot per connected account; a slot is taken by '
      + 'any post of the account at that time that is not canceled or failed). A clip is posted once per account by automation, even if that post was canceled.',
    ok: { status: 201, schema: 'AutomationRule', description: 'The rule' },
    errors: ['invalid_request', 'resource_not_found', 'subscription_required'],
    parameters: [automationAccountParam],
    requestBody: { $ref: '#/components/requestBodies/AutomationRuleRequest' },
  },
  {
    method: 'DELETE', path: '/accounts/{accountId}/automation/{ruleId}', mount: 'api', operationId: 'removeAutomationRule', answer: 'envelope', limiter: 'standard',
    summary: 'Remove an automation rule (the posts it made stay)', tag: 'posts',
    ok: { status: 200, schema: 'AutomationRule', description: 'The rule removed' },
    errors: ['invalid_request', 'resource_not_found'],
    parameters: [automationAccountParam, { name: 'ruleId', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' }, description: 'The rule\'s id' }],
  },
  {
    method: 'GET', path: '/templates', mount: 'api', operationId: 'listTemplates', answer: 'envelope', limiter: 'standard',
    summary: 'Caption templates and the default one', tag: 'catalogs',
    ok: { status: 200, schema: 'TemplateList', description: 'Every template' }, errors: [],
  },
  {
    method: 'GET', path: '/music', mount: 'api', operationId: 'listMusic', answer: 'envelope', limiter: 'statusCheck',
    summary: 'Background music tracks', tag: 'catalogs',
    ok: { status: 200, schema: 'MusicList', description: 'A page of tracks' }, errors: ['invalid_request'], parameters: pageParams(20),
  },
  {
    method: 'GET', path: '/meme-hooks', mount: 'api', operationId: 'listMemeHooks', answer: 'envelope', limiter: 'statusCheck',
    summary: 'Meme intro clips', tag: 'catalogs',
    ok: { status: 200, schema: 'MemeHookList', description: 'A page of meme hooks' }, errors: ['invalid_request'], parameters: pageParams(20),
  },
  {
    method: 'GET', path: '/game-videos', mount: 'api', operationId: 'listGameVideos', answer: 'envelope', limiter: 'statusCheck',
    summary: 'Gameplay videos for split screen', tag: 'catalogs',
    ok: { status: 200, schema: 'GameVideoList', description: 'A page of game videos' }, errors: ['invalid_request'], parameters: pageParams(20),
  },
  // Health, readiness and the document: not API resources, read-only (GET and HEAD), no key, bare objects.
  {
    method: 'GET', path: '/openapi.json', mount: 'api', operationId: 'getOpenApiDocument', answer: 'self', auth: 'none', alsoHead: true,
    openapi: {
      summary: 'This document', tags: ['service'], security: [],
      responses: { 200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } }, 431: HEADERS_TOO_LARGE },
    },
  },
  {
    method: 'GET', path: '/healthz', mount: 'root', operationId: 'getHealth', answer: 'self', auth: 'none', alsoHead: true,
    openapi: {
      summary: 'Liveness: the process answers', tags: ['service'], security: [],
      responses: { 200: { description: 'Alive', content: { 'application/json': { schema: ref('Health') } } }, 431: HEADERS_TOO_LARGE },
    },
  },
  {
    method: 'GET', path: '/readyz', mount: 'root', operationId: 'getReadiness', answer: 'self', auth: 'none', alsoHead: true,
    openapi: {
      summary: 'Readiness: each engine configured answers (the store; Redis with SHORTS_REDIS_URL), disk, ffmpeg, whisper and model present', tags: ['service'], security: [],
      responses: {
        200: { description: 'Ready', content: { 'application/json': { schema: ref('Readiness') } } },
        431: HEADERS_TOO_LARGE,
        503: { description: 'Not ready; `checks` says what is missing', content: { 'application/json': { schema: ref('Readiness') } } },
      },
    },
  },
  {
    // Prometheus scrapes it; volumes are not public (src/server/metrics-endpoint.ts).
    method: 'GET', path: '/metrics', mount: 'root', operationId: 'getMetrics', answer: 'self', auth: 'none',
    openapi: {
      summary: 'Metrics in Prometheus text format: queue depths, stage durations and failures, credits, HTTP answers', tags: ['service'], security: [],
      description: 'No API key. With SHORTS_METRICS_TOKEN set on the server, send it as `Authorization: Bearer <token>`; without it, '
        + 'only callers on the server\'s own machine (loopback, with no proxy forwarding header) are answered.',
      responses: {
        200: { description: 'The metrics (text exposition format 0.0.4)', content: { 'text/plain': { schema: str } } },
        401: { description: 'missing_api_key or invalid_api_key: no token, a wrong one, or (without a token configured) a caller from elsewhere', content: { 'application/json': { schema: errorSchema(['missing_api_key', 'invalid_api_key']) } } },
        431: HEADERS_TOO_LARGE,
      },
    },
  },
  // Signed media links: no key, the link itself is the credential.
  {
    method: 'GET', path: '/media/{requestId}/{shortId}.mp4', mount: 'root', operationId: 'getClipVideo', answer: 'self', auth: 'none',
    openapi: mediaOperation('mp4', 'Download or stream a rendered clip', true),
  },
  {
    method: 'HEAD', path: '/media/{requestId}/{shortId}.mp4', mount: 'root', operationId: 'headClipVideo', answer: 'self', auth: 'none',
    openapi: mediaOperation('mp4', 'Headers of a rendered clip', false),
  },
  {
    method: 'GET', path: '/media/{requestId}/{shortId}.jpg', mount: 'root', operationId: 'getClipCover', answer: 'self', auth: 'none',
    openapi: mediaOperation('jpg', 'Download a clip\'s cover image (extension)', true),
  },
  {
    method: 'HEAD', path: '/media/{requestId}/{shortId}.jpg', mount: 'root', operationId: 'headClipCover', answer: 'self', auth: 'none',
    openapi: mediaOperation('jpg', 'Headers of a clip\'s cover image', false),
  },
  // Catalog images and media (template and catalog-item previews): public, no key, no rate limit; static files only.
  {
    method: 'GET', path: '/assets/templates/{file}', mount: 'root', operationId: 'getTemplateAsset', answer: 'self', auth: 'none', alsoHead: true,
    openapi: { undocumented: 'a catalog answer\'s own links (templates[].preview and .gif), public files rather than API operations' },
  },
  {
    method: 'GET', path: '/assets/catalog/{catalog}/{name}/{part}', mount: 'root', operationId: 'getCatalogAsset', answer: 'self', auth: 'none', alsoHead: true,
    openapi: { undocumented: 'a catalog answer\'s own links (preview, url, video of music, meme hooks and game videos), public files rather than API operations' },
  },
  {
    // Streamable HTTP for MCP clients (`shorts mcp` documents its tools); counted once per HTTP request.
    method: 'ANY', path: '/mcp', mount: 'root', operationId: 'mcp', answer: 'self', auth: 'apiKey', limiter: 'standard', optional: true,
    openapi: { undocumented: 'the MCP endpoint speaks JSON-RPC (Model Context Protocol, Streamable HTTP): its tools are listed by the protocol itself, not by OpenAPI' },
  },
  // Issue 25: the web studio's sign-in. Left out of the document: browser-only routes of the studio's own pages (a
  // cookie session, same-origin only); integrations send the key itself on the routes above.
  {
    method: 'POST', path: '/studio/session', mount: 'root', operationId: 'studioSignIn', answer: 'self', auth: 'none',
    openapi: { undocumented: 'the web studio\'s sign-in: trades an API key for the shorts_session cookie of a browser; integrations send the key itself' },
  },
  {
    method: 'GET', path: '/studio/session', mount: 'root', operationId: 'studioSession', answer: 'self', auth: 'none',
    openapi: { undocumented: 'the web studio\'s session behind its cookie (who is signed in, until when): browser-only' },
  },
  {
    method: 'DELETE', path: '/studio/session', mount: 'root', operationId: 'studioSignOut', answer: 'self', auth: 'none',
    openapi: { undocumented: 'the web studio\'s sign-out: ends the cookie\'s session on the server; browser-only' },
  },
  {
    method: 'GET', path: '/studio/sign-in/{token}', mount: 'root', operationId: 'studioSignInLink', answer: 'self', auth: 'none',
    openapi: { undocumented: 'the one-time sign-in link `shorts studio` prints for the local studio; not served by `shorts serve`' },
  },
] as const satisfies readonly RouteSpec[];

export type Route = (typeof ROUTES)[number];
export type OperationId = Route['operationId'];

/** A route's path as requested: the mount's base, then the template. */
export function fullPath(route: RouteSpec): string {
  return (route.mount === 'api' ? API_BASE : '') + route.path;
}
