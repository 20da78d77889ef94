// The OpenAPI 3.1 document of the Shorts API. The create body is generated from CREATE_OPTIONS (the
// one definition of every option), so the document cannot drift from the validator.
import { CREATE_OPTIONS, type OptionDef } from '../service/create-options.js';
import { ERROR_CODES } from '../service/errors.js';

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const str: Schema = { type: 'string' };
const num: Schema = { type: 'number' };
const bool: Schema = { type: 'boolean' };
const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
const obj = (properties: Record<string, Schema>, optional: string[] = []): Schema => ({
  type: 'object', additionalProperties: false, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
});

function optionSchema(o: OptionDef): Schema {
  const t = o.type;
  const base: Schema = { description: o.description };
  if (o.defaultValue !== undefined && o.defaultValue !== null) base.default = o.defaultValue;
  switch (t.kind) {
    case 'boolean': return { ...base, type: 'boolean' };
    case 'enum': return { ...base, type: 'string', enum: [...t.values] };
    case 'string': return { ...base, type: 'string', ...(t.maxLength !== undefined ? { maxLength: t.maxLength } : {}) };
    case 'number': return { ...base, type: t.integer ? 'integer' : 'number', ...(t.min !== undefined ? { minimum: t.min } : {}), ...(t.max !== undefined ? { maximum: t.max } : {}) };
  }
}

const STATUS = { type: 'string', enum: ['queued', 'processing', 'completed', 'failed', 'cancelled'] };
const STEP = { type: 'string', enum: ['queued', 'fetching_video', 'transcribing_audio', 'finding_highlights', 'finalizing', 'completed', 'failed', 'cancelled'] };
const range = obj({ start: num, end: num });

const schemas: Record<string, Schema> = {
  Error: obj({ error: obj({ code: { type: 'string', enum: Object.keys(ERROR_CODES) }, message: str, details: { type: 'object' } }, ['details']) }),
  Pagination: obj({ page: { type: 'integer' }, limit: { type: 'integer' }, totalPages: { type: 'integer' }, totalCount: { type: 'integer' } }),
  CreateRequest: {
    type: 'object', additionalProperties: false,
    properties: Object.fromEntries(CREATE_OPTIONS.map((o) => [o.field, optionSchema(o)])),
    required: ['start', 'end'],
    oneOf: [{ required: ['url'] }, { required: ['fileUrl'] }],
  },
  CreateResponse: obj({
    requestId: str, status: { type: 'string', enum: ['processing'] }, creditsUsed: { type: 'integer', enum: [1] },
    estimatedCompletionTime: { type: 'string', format: 'date-time' }, queuePosition: nullable({ type: 'integer' }),
    timeAdjustment: obj({ original: range, adjusted: range }),
  }, ['timeAdjustment']),
  Status: obj({ _id: str, status: STATUS, step: STEP, stepMessage: str, progress: num, userEmail: str, failureReason: str, isDemo: bool }, ['failureReason']),
  Sentence: obj({ index: { type: 'integer' }, sentence: str, start: num, end: num }),
  HeatmapPoint: obj({ start: num, end: num, value: num }),
  Post: obj({
    id: str, platform: { type: 'string', enum: ['video_site', 'photo_site', 'short_video_site'] },
    status: { type: 'string', enum: ['scheduled', 'processing', 'published', 'failed', 'canceled'] },
    scheduledAt: str, publishedAt: nullable(str), url: nullable(str), shortId: str, requestId: str, title: str,
    account: obj({ handle: str }), source: { type: 'string', enum: ['manual', 'automation'] },
    error: nullable(str), errorCode: nullable(str), retryable: nullable(bool), createdAt: str,
  }),
  Short: obj({
    id: str, title: str, sentenceIndexes: { type: 'array', items: { type: 'integer' } }, reason: str, description: str,
    viral_score: { type: 'number', minimum: 0, maximum: 100 }, video_url: str, startTimestamp: num, endTimestamp: num, duration: num,
    width: { type: 'integer' }, height: { type: 'integer' }, recompiling: bool, error: bool, errorMessage: str,
    posts: { type: 'array', items: ref('Post') },
  }, ['errorMessage']),
  RequestDetail: obj({
    _id: str, status: STATUS, progress: num, userEmail: str, url: str, start: num, end: num, title: str, language: str, template: str,
    captionLanguage: str, heatmap: { type: 'array', items: ref('HeatmapPoint') }, sentences: { type: 'array', items: ref('Sentence') },
    preferredLength: str, projectId: nullable(str), shorts: { type: 'array', items: ref('Short') },
  }),
  RequestListItem: obj({ requestId: str, status: STATUS, progress: num, createdAt: str, updatedAt: str, url: str, duration: num }),
  Template: obj({ templateId: str, name: str, displayName: str, thumbnail: str, order: { type: 'integer' }, preview: str, gif: str }),
  TemplateList: obj({ templates: { type: 'array', items: ref('Template') }, defaultTemplateId: str, defaultTemplateName: str }),
  Cancelled: obj({ _id: str, status: { type: 'string', enum: ['cancelled'] } }),
};

const listOf = (key: string, item: Schema): Schema => obj({ data: obj({ [key]: { type: 'array', items: item }, pagination: ref('Pagination') }) });
Object.assign(schemas, {
  RequestList: listOf('requests', ref('RequestListItem')),
  PostList: listOf('posts', ref('Post')),
  MusicList: listOf('music', obj({ name: str, duration: num })),
  MemeHookList: listOf('memeHooks', obj({ name: str, preview: str })),
  GameVideoList: listOf('gameVideos', obj({ name: str, preview: str })),
});

const RATE_HEADERS = Object.fromEntries(['X-RateLimit-Limit-Hour', 'X-RateLimit-Remaining-Hour', 'X-RateLimit-Limit-Day', 'X-RateLimit-Remaining-Day', 'X-RateLimit-Reset']
  .map((h) => [h, { schema: h.endsWith('Reset') ? { type: 'string', format: 'date-time' } : { type: 'integer' } }]));

function op(operationId: string, summary: string, ok: [number, string], errors: number[], extra: Schema = {}): Schema {
  const responses: Record<string, Schema> = {
    [ok[0]]: { description: 'OK', headers: RATE_HEADERS, content: { 'application/json': { schema: ref(ok[1]) } } },
  };
  for (const code of errors) responses[code] = { description: errorDescription(code), headers: RATE_HEADERS, content: { 'application/json': { schema: ref('Error') } } };
  return { operationId, summary, security: [{ apiKey: [] }], responses, ...extra };
}

function errorDescription(status: number): string {
  return Object.entries(ERROR_CODES).filter(([, v]) => v.http === status).map(([k]) => k).join(', ');
}

const q = (name: string, schema: Schema, description = ''): Schema => ({ name, in: 'query', required: false, schema, description });
const pageParams = (defaultLimit: number) => [q('page', { type: 'integer', minimum: 1, default: 1 }), q('limit', { type: 'integer', minimum: 1, maximum: 100, default: defaultLimit })];
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{24}$' } };

export function openApiDocument(opts: { serverUrl: string }): object {
  return {
    openapi: '3.1.0',
    info: { title: 'Shorts API (shortwright)', version: '1.0.0', description: 'Long videos to ranked, captioned vertical clips. See docs/api.md.' },
    servers: [{ url: opts.serverUrl }],
    components: { schemas, securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
    security: [{ apiKey: [] }],
    paths: {
      '/shorts': { get: op('listShorts', 'List requests made through the API', [200, 'RequestList'], [400, 401, 429], {
        parameters: [...pageParams(20), q('status', STATUS), q('sortBy', { type: 'string', enum: ['createdAt', 'updatedAt'], default: 'createdAt' }),
          q('sortOrder', { type: 'string', enum: ['asc', 'desc'], default: 'desc' })] }) },
      '/shorts/create': { post: op('createShorts', 'Create shorts from a video (1 credit)', [202, 'CreateResponse'], [400, 401, 403, 429], {
        requestBody: { required: true, content: { 'application/json': { schema: ref('CreateRequest') } } } }) },
      '/shorts/{id}/status': { get: op('getStatus', 'Status of a request', [200, 'Status'], [400, 401, 404, 429], { parameters: [idParam] }) },
      '/shorts/{id}': {
        get: op('getShorts', 'A request with its clips', [200, 'RequestDetail'], [400, 401, 404, 429], { parameters: [idParam] }),
        delete: op('cancelShorts', 'Cancel a queued or processing request', [200, 'Cancelled'], [400, 401, 404, 409, 429], { parameters: [idParam] }),
      },
      '/posts': { get: op('listPosts', 'Social posts made from clips', [200, 'PostList'], [400, 401, 403, 429], {
        parameters: [...pageParams(50), q('status', { type: 'string', enum: ['scheduled', 'processing', 'published', 'failed', 'canceled'] }),
          q('platform', { type: 'string', enum: ['video_site', 'photo_site', 'short_video_site'] }), q('source', { type: 'string', enum: ['manual', 'automation'] }),
          q('requestId', str), q('shortId', str), q('since', { type: 'string', format: 'date-time' }), q('until', { type: 'string', format: 'date-time' }),
          q('date', { type: 'string', enum: ['scheduled', 'published'], default: 'scheduled' })] }) },
      '/templates': { get: op('listTemplates', 'Caption templates', [200, 'TemplateList'], [401, 429]) },
      '/music': { get: op('listMusic', 'Background music', [200, 'MusicList'], [400, 401, 429], { parameters: pageParams(20) }) },
      '/meme-hooks': { get: op('listMemeHooks', 'Meme intro clips', [200, 'MemeHookList'], [400, 401, 429], { parameters: pageParams(20) }) },
      '/game-videos': { get: op('listGameVideos', 'Gameplay videos for split screen', [200, 'GameVideoList'], [400, 401, 429], { parameters: pageParams(20) }) },
      '/openapi.json': { get: { operationId: 'openapi', summary: 'This document', security: [], responses: { 200: { description: 'OpenAPI 3.1' } } } },
    },
  };
}
