// The OpenAPI document: structurally valid 3.1 (every $ref resolves, every operation complete), the
// create body generated from CREATE_OPTIONS, and — the part that keeps it honest — real responses of
// the real server (Service, accounts, limits on a temp SQLite store, HTTP on 127.0.0.1) validated
// against the schemas the document itself serves. test/openapi-generated.test.ts covers what generators
// and linters make of it.
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { type ShortRecord } from '../src/ports/request-store.js';
import { JobArtifacts } from '../src/engine/artifacts.js';
import { uploadInfoKey, uploadKey } from '../src/engine/uploads.js';
import { createApiServer } from '../src/server/http-server.js';
import { MediaLinks, loadOrCreateSecret } from '../src/server/media-links.js';
import { CREATE_FIELD_FORMATS, openApiDocument } from '../src/api/openapi.js';
import { RateLimiter } from '../src/server/rate-limit.js';
import { AccountStore, type AccountRecord } from '../src/service/accounts.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { SqliteRateLimits } from '../src/adapters/sqlite/rate-limits.js';
import { CREATE_OPTIONS } from '../src/api/create-options.js';
import { ERROR_CODES } from '../src/errors.js';
import { Service } from '../src/service/service.js';
import { video } from './helpers/media.js';
import { fakePlatformEnv, startFakePlatform } from './helpers/fake-platforms/index.js';
import { IdempotentRequests } from '../src/server/idempotency.js';
import { SqliteIdempotencyStore } from '../src/adapters/sqlite/idempotency.js';
import { SqlitePostStore } from '../src/adapters/sqlite/post-store.js';
import { postsStack } from './helpers/posts-stack.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

type Json = unknown;
type Obj = Record<string, Json>;
const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------------
// A JSON Schema (2020-12) checker for exactly the subset the document uses. Unknown keywords are an
// error, so the document cannot start relying on something this checker would silently skip.

const CONSTRAINTS = new Set(['$ref', 'type', 'enum', 'const', 'required', 'properties', 'additionalProperties', 'items',
  'minimum', 'maximum', 'maxLength', 'pattern', 'oneOf', 'format']);
const ANNOTATIONS = new Set(['description', 'default', 'title', 'contentMediaType']);
const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  uri: (s) => { try { new URL(s); return true; } catch { return false; } },
  uuid: (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
};

function resolvePointer(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are used, got ${ref}`);
  let at: Json = doc;
  for (const part of ref.slice(2).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (!isObj(at) || !(part in at)) return undefined;
    at = at[part];
  }
  return at;
}

function typeOk(t: string, v: Json): boolean {
  switch (t) {
    case 'null': return v === null;
    case 'boolean': return typeof v === 'boolean';
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'array': return Array.isArray(v);
    case 'object': return isObj(v);
    default: throw new Error(`unknown type ${t}`);
  }
}

function validate(schema: Json, value: Json, doc: Json, at = '$'): string[] {
  if (!isObj(schema)) throw new Error(`schema at ${at} is not an object`);
  for (const k of Object.keys(schema)) {
    if (!CONSTRAINTS.has(k) && !ANNOTATIONS.has(k) && !k.startsWith('x-')) throw new Error(`keyword "${k}" at ${at} is outside the checked subset`);
  }
  const errors: string[] = [];
  if (typeof schema.$ref === 'string') {
    const target = resolvePointer(doc, schema.$ref);
    if (target === undefined) return [`${at}: $ref ${schema.$ref} does not resolve`];
    errors.push(...validate(target, value, doc, at));
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type as string[] : [schema.type as string];
    if (!types.some((t) => typeOk(t, value))) return [...errors, `${at}: expected ${types.join(' or ')}, got ${JSON.stringify(value)}`];
  }
  if (schema.enum !== undefined && !(schema.enum as Json[]).some((e) => e === value)) errors.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (schema.const !== undefined && schema.const !== value) errors.push(`${at}: expected ${JSON.stringify(schema.const)}, got ${JSON.stringify(value)}`);
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${at}: ${value} < ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${at}: ${value} > ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${at}: "${value}" does not match ${schema.pattern}`);
    if (typeof schema.format === 'string') {
      const check = FORMATS[schema.format];
      if (!check) throw new Error(`format ${schema.format} at ${at} is outside the checked subset`);
      if (!check(value)) errors.push(`${at}: "${value}" is not a ${schema.format}`);
    }
  }
  if (isObj(value)) {
    const props = isObj(schema.properties) ? schema.properties : {};
    for (const r of (schema.required as string[] | undefined) ?? []) if (!(r in value)) errors.push(`${at}: missing required "${r}"`);
    for (const [k, v] of Object.entries(value)) {
      if (k in props) errors.push(...validate(props[k], v, doc, `${at}.${k}`));
      else if (schema.additionalProperties === false) errors.push(`${at}: unexpected property "${k}"`);
      else if (isObj(schema.additionalProperties)) errors.push(...validate(schema.additionalProperties, v, doc, `${at}.${k}`));
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) value.forEach((v, i) => errors.push(...validate(schema.items, v, doc, `${at}[${i}]`)));
  if (Array.isArray(schema.oneOf)) {
    const passing = schema.oneOf.filter((s) => validate(s, value, doc, at).length === 0).length;
    if (passing !== 1) errors.push(`${at}: matches ${passing} of the oneOf alternatives, expected exactly 1`);
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------------

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const doc = openApiDocument({ serverUrl: 'http://127.0.0.1:8080/api/v1' }) as Obj;
const components = doc.components as Obj;
const schemas = components.schemas as Obj;
const paths = doc.paths as Record<string, Obj>;
const info = doc.info as Obj;

/** A response object, following a `$ref` to components.responses (the shared 431 is one). */
function responseObject(d: Obj, r: Json): Obj {
  if (isObj(r) && typeof r.$ref === 'string') return resolvePointer(d, r.$ref) as Obj;
  return r as Obj;
}

function operations(d: Obj = doc): { where: string; path: string; method: string; op: Obj }[] {
  const out: { where: string; path: string; method: string; op: Obj }[] = [];
  for (const [group, items] of [['paths', d.paths], ['webhooks', d.webhooks]] as const) {
    for (const [p, item] of Object.entries((items ?? {}) as Record<string, Obj>)) {
      for (const m of METHODS) if (isObj(item[m])) out.push({ where: `${group} ${m.toUpperCase()} ${p}`, path: p, method: m, op: item[m] as Obj });
    }
  }
  return out;
}

function walk(node: Json, visit: (n: Obj, at: string) => void, at = '#'): void {
  if (Array.isArray(node)) node.forEach((n, i) => walk(n, visit, `${at}/${i}`));
  else if (isObj(node)) {
    visit(node, at);
    for (const [k, v] of Object.entries(node)) walk(v, visit, `${at}/${k}`);
  }
}

/** Every schema object in the document (component schemas and the inline ones of parameters and bodies). */
function allSchemas(): { at: string; schema: Obj }[] {
  const found: { at: string; schema: Obj }[] = Object.entries(schemas).map(([k, s]) => ({ at: `#/components/schemas/${k}`, schema: s as Obj }));
  walk(doc.paths, (n, at) => { if (isObj(n.schema)) found.push({ at: `${at}/schema`, schema: n.schema }); });
  walk(components.requestBodies, (n, at) => { if (isObj(n.schema)) found.push({ at: `${at}/schema`, schema: n.schema }); });
  walk(doc.webhooks, (n, at) => { if (isObj(n.schema)) found.push({ at: `${at}/schema`, schema: n.schema }); });
  return found;
}

describe('the OpenAPI document is structurally valid OpenAPI 3.1', () => {
  it('declares 3.1, info, a server under /api/v1 and the key as X-API-Key or as a bearer token', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect((doc.info as Obj).title).toEqual(expect.any(String));
    expect((doc.info as Obj).version).toEqual(expect.any(String));
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.1:8080/api/v1' }]);
    expect(components.securitySchemes).toMatchObject({ apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, bearer: { type: 'http', scheme: 'bearer' } });
    // Two requirement objects: either one satisfies the operation (one object with both would demand both).
    expect(doc.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    for (const { where, op } of operations().filter((o) => (o.op.security as Obj[]).length > 0)) expect(op.security, where).toEqual(doc.security);
  });

  it('resolves every $ref', () => {
    const refs: string[] = [];
    walk(doc, (n) => { if (typeof n.$ref === 'string') refs.push(n.$ref); });
    expect(refs.length).toBeGreaterThan(20);
    for (const r of refs) expect(resolvePointer(doc, r), r).toBeDefined();
  });

  it('gives every operation a unique operationId, responses with descriptions, and a security requirement', () => {
    const ids = new Set<string>();
    for (const { where, op } of operations()) {
      expect(op.operationId, where).toEqual(expect.stringMatching(/^[A-Za-z][A-Za-z0-9]*$/));
      expect(ids.has(op.operationId as string), `${where} duplicates ${String(op.operationId)}`).toBe(false);
      ids.add(op.operationId as string);
      expect(Array.isArray(op.security), `${where} security`).toBe(true);
      for (const req of op.security as Obj[]) for (const name of Object.keys(req)) expect(components.securitySchemes, where).toHaveProperty(name);
      const responses = op.responses as Obj;
      expect(Object.keys(responses).length, where).toBeGreaterThan(0);
      for (const [code, r] of Object.entries(responses)) {
        expect(code, where).toMatch(/^([1-5]\d\d|[1-5]XX|default)$/);
        expect(responseObject(doc, r).description, `${where} ${code}`).toEqual(expect.any(String));
      }
    }
  });

  it('declares every path template parameter, and only those, as a required path parameter', () => {
    for (const { where, path: p, op } of operations()) {
      const inTemplate = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const params = (op.parameters ?? []) as Obj[];
      for (const prm of params) {
        expect(['query', 'header', 'path', 'cookie'], where).toContain(prm.in);
        expect(isObj(prm.schema), `${where} ${String(prm.name)} schema`).toBe(true);
      }
      const declared = params.filter((x) => x.in === 'path');
      expect(declared.map((x) => x.name).sort(), where).toEqual([...inTemplate].sort());
      for (const x of declared) expect(x.required, `${where} ${String(x.name)}`).toBe(true);
    }
  });

  it('uses only schema keywords the checker below understands, and only known types and formats', () => {
    for (const { at, schema } of allSchemas()) expect(() => validate(schema, null, doc, at)).not.toThrow();
  });

  it('covers every endpoint of the spec under /api/v1, plus health, readiness, this document and media links', () => {
    const listed = operations().filter((o) => o.where.startsWith('paths')).map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    expect(listed).toEqual([
      'DELETE /shorts/{id}', 'GET /game-videos', 'GET /healthz', 'GET /media/{requestId}/{shortId}.jpg', 'GET /media/{requestId}/{shortId}.mp4', 'GET /meme-hooks', 'GET /music',
      'GET /metrics', 'GET /openapi.json', 'GET /posts', 'GET /readyz', 'GET /shorts', 'GET /shorts/{id}', 'GET /shorts/{id}/export', 'GET /shorts/{id}/shorts/{shortId}/export',
      'GET /shorts/{id}/status', 'GET /templates', 'HEAD /media/{requestId}/{shortId}.jpg', 'HEAD /media/{requestId}/{shortId}.mp4', 'POST /shorts/create', 'POST /shorts/{id}/shorts/{shortId}/render',
      // Issue 16: connected accounts, their automation rules, scheduling and cancelling posts, the OAuth redirect.
      'DELETE /accounts/{accountId}', 'DELETE /accounts/{accountId}/automation/{ruleId}', 'DELETE /posts/{postId}', 'GET /accounts', 'GET /accounts/{accountId}',
      'GET /accounts/{accountId}/automation', 'GET /oauth/callback', 'GET /posts/{postId}', 'POST /accounts', 'POST /accounts/connect', 'POST /accounts/{accountId}/automation', 'POST /posts',
      // Issue 23: the callback's page posts the starting API account's key here.
      'POST /oauth/confirm',
      // Issue 25: live progress streams.
      'GET /shorts/{id}/events', 'GET /events',
      // Issue 25: a request's transcript words and the source it keeps (uploads speak tus, left out of the document).
      'GET /shorts/{id}/transcript', 'GET /media/{requestId}/source',
    ].sort());
    for (const p of ['/healthz', '/readyz', '/metrics', '/media/{requestId}/{shortId}.mp4', '/media/{requestId}/{shortId}.jpg', '/oauth/callback', '/oauth/confirm']) expect(paths[p]!.servers, p).toEqual([{ url: 'http://127.0.0.1:8080' }]);
    expect(Object.keys(doc.webhooks as Obj).sort()).toEqual(['shorts.completed', 'shorts.failed']);
  });

  it('lists the error codes of each endpoint under their HTTP status, with rate-limit headers where the server sends them', () => {
    const codesOf = (p: string, m: string) => {
      const out: Record<string, string[]> = {};
      for (const [status, r] of Object.entries((paths[p]![m] as Obj).responses as Obj)) {
        const schema = ((r as Obj).content as Obj | undefined)?.['application/json'] as Obj | undefined;
        const error = ((schema?.schema as Obj | undefined)?.properties as Obj | undefined)?.error as Obj | undefined;
        const code = (error?.properties as Obj | undefined)?.code as Obj | undefined;
        if (code?.enum) out[status] = code.enum as string[];
      }
      return out;
    };
    expect(codesOf('/shorts/{id}', 'delete')).toEqual({
      400: ['invalid_request'], 401: ['missing_api_key', 'invalid_api_key'], 404: ['resource_not_found'],
      409: ['request_not_cancellable'], 429: ['rate_limit_exceeded'], 500: ['internal_error'], 503: ['service_unavailable'],
    });
    expect((paths['/shorts/{id}']!.delete as Obj).responses).toHaveProperty(['200', 'content', 'application/json', 'schema'], {
      type: 'object', additionalProperties: false, properties: { data: { $ref: '#/components/schemas/Cancelled' } }, required: ['data'],
    });
    const create = codesOf('/shorts/create', 'post');
    expect(create[400]!.sort()).toEqual(['file_too_large', 'invalid_file_url', 'invalid_request', 'invalid_video_site_url', 'invalid_webhook_url', 'video_too_long']);
    expect(create[403]).toEqual(['subscription_required', 'insufficient_credits']);
    expect((paths['/shorts/create']!.post as Obj).responses).toHaveProperty('202');
    expect(codesOf('/posts', 'get')[403]).toEqual(['subscription_required']);
    expect(codesOf('/templates', 'get')).not.toHaveProperty('400');
    // Every code of the table is reachable somewhere, with the status the table gives it.
    const everywhere = new Map<string, Set<string>>();
    for (const { path: p, method } of operations().filter((o) => o.where.startsWith('paths'))) {
      for (const [status, codes] of Object.entries(codesOf(p, method))) for (const c of codes) everywhere.set(c, (everywhere.get(c) ?? new Set()).add(status));
    }
    for (const [code, { http }] of Object.entries(ERROR_CODES)) {
      // A wrong method is no operation's answer (OpenAPI lists the methods a path has): the document
      // states the 405 once for every path, in info.description.
      if (code === 'method_not_allowed') {
        expect(everywhere.has(code)).toBe(false);
        expect(info.description).toContain('405 `method_not_allowed` with an `Allow` header');
      } else if (code === 'forbidden') {
        // Issue 25: the answer of the studio's cookie (not a security scheme of this document), stated once likewise.
        expect(everywhere.has(code)).toBe(false);
        expect(info.description).toContain('403 `forbidden`');
      } else expect([...(everywhere.get(code) ?? [])], code).toEqual([String(http)]);
    }

    for (const { where, op } of operations().filter((o) => o.where.startsWith('paths') && (o.op.security as Obj[]).length > 0)) {
      for (const [status, r] of Object.entries(op.responses as Obj)) {
        const headers = Object.keys((responseObject(doc, r).headers ?? {}) as Obj);
        const expected = ['401', '431', '500', '503'].includes(status) ? [] : ['X-RateLimit-Limit-Hour', 'X-RateLimit-Remaining-Hour', 'X-RateLimit-Limit-Day', 'X-RateLimit-Remaining-Day', 'X-RateLimit-Reset'];
        if (status === '429' || status === '503') expected.push('Retry-After');
        // Exports answer the file itself, as an attachment with its name.
        if (status === '200' && /^paths GET .*\/export$/.test(where)) expected.push('Content-Disposition');
        expect(headers.sort(), `${where} ${status}`).toEqual(expected.sort());
      }
    }
  });

  it('gives the list endpoints the spec\'s query parameters, defaults and bounds', () => {
    const params = (p: string) => Object.fromEntries(((paths[p]!.get as Obj).parameters as Obj[]).map((x) => [x.name, x.schema]));
    expect(params('/shorts')).toEqual({
      page: { type: 'integer', minimum: 1, default: 1 }, limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      status: { type: 'string', enum: ['queued', 'processing', 'completed', 'failed', 'cancelled'] },
      sortBy: { type: 'string', enum: ['createdAt', 'updatedAt'], default: 'createdAt' }, sortOrder: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
    });
    expect(Object.keys(params('/posts')).sort()).toEqual(['date', 'limit', 'page', 'platform', 'requestId', 'shortId', 'since', 'source', 'status', 'until']);
    expect(params('/posts').limit).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(params('/posts').date).toEqual({ type: 'string', enum: ['scheduled', 'published'], default: 'scheduled' });
    for (const p of ['/music', '/meme-hooks', '/game-videos']) expect(Object.keys(params(p)), p).toEqual(['page', 'limit']);
  });
});

describe('the create body is generated from CREATE_OPTIONS', () => {
  const body = ((((components.requestBodies as Obj).CreateShortsRequest as Obj).content as Obj)['application/json'] as Obj).schema as Obj;
  const props = body.properties as Record<string, Obj>;

  it('is a reusable request body (so generators leave defaulted fields optional) referenced by POST /shorts/create', () => {
    expect((paths['/shorts/create']!.post as Obj).requestBody).toEqual({ $ref: '#/components/requestBodies/CreateShortsRequest' });
    expect(schemas).not.toHaveProperty('CreateRequest');
    // No response schema has a default: generators would read one as "always present".
    walk(schemas, (n, at) => expect(n, at).not.toHaveProperty('default'));
  });

  it('has exactly the option fields, start and end required, exactly one of url / fileUrl / uploadId, nothing else allowed', () => {
    expect(Object.keys(props).sort()).toEqual(CREATE_OPTIONS.map((o) => o.field).sort());
    expect(body.required).toEqual(['start', 'end']);
    expect(body.additionalProperties).toBe(false);
    expect(body.oneOf).toEqual([expect.objectContaining({ required: ['url'] }), expect.objectContaining({ required: ['fileUrl'] }), expect.objectContaining({ required: ['uploadId'] })]);
    for (const k of Object.keys(CREATE_FIELD_FORMATS)) expect(props, k).toHaveProperty(k);
  });

  it.each(CREATE_OPTIONS.map((o) => [o.field, o] as const))('%s has the type, enum, bounds, default and description of its option', (field, o) => {
    const s = props[field]!;
    expect(s.description).toBe(o.description);
    if (o.defaultValue === undefined || o.defaultValue === null) expect(s).not.toHaveProperty('default');
    else expect(s.default).toBe(o.defaultValue);
    const t = o.type;
    if (t.kind === 'boolean') expect(s.type).toBe('boolean');
    if (t.kind === 'enum') expect([s.type, s.enum]).toEqual(['string', [...t.values]]);
    if (t.kind === 'string') {
      expect(s.type).toBe('string');
      expect(s.maxLength).toBe(t.maxLength);
    }
    if (t.kind === 'number') expect([s.type, s.minimum, s.maximum]).toEqual([t.integer ? 'integer' : 'number', t.min, t.max]);
  });

  it('accepts and refuses bodies the way the spec says', () => {
    const ok = (b: Obj) => validate(body, b, doc);
    expect(ok({ fileUrl: 'https://cdn.example.com/v.mp4', start: 0, end: 120, maxShorts: 3, layout: 'fit', musicVolume: 40 })).toEqual([]);
    for (const layout of ['split', 'screen']) expect(ok({ fileUrl: 'https://cdn.example.com/v.mp4', start: 0, end: 120, layout })).toEqual([]);
    expect(ok({ url: 'https://video.example.com/watch?v=1', start: 10, end: 100, language: 'de', templateId: 'a'.repeat(24) })).toEqual([]);
    expect(ok({ url: 'https://a.example/x', fileUrl: 'https://b.example/y.mp4', start: 0, end: 60 }).join()).toMatch(/oneOf/);
    expect(ok({ start: 0, end: 60 }).join()).toMatch(/oneOf/);
    expect(ok({ fileUrl: 'https://b.example/y.mp4', start: 0, end: 60, maxShorts: 13 }).join()).toMatch(/13 > 12/);
    expect(ok({ fileUrl: 'https://b.example/y.mp4', start: 0, end: 60, maxShorts: 2.5 }).join()).toMatch(/expected integer/);
    expect(ok({ fileUrl: 'https://b.example/y.mp4', start: 0, end: 60, layout: 'stretch' }).join()).toMatch(/not one of/);
    expect(ok({ fileUrl: 'https://b.example/y.mp4', start: 0, end: 60, ctaText: 'x'.repeat(201) }).join()).toMatch(/longer than 200/);
    expect(ok({ fileUrl: 'https://b.example/y.mp4', start: 0, end: 60, colour: 'red' }).join()).toMatch(/unexpected property "colour"/);
  });
});

describe('the schema checker itself', () => {
  it('catches a missing field, an extra field, a wrong enum, a null that is not allowed and a bad date', () => {
    const good = { _id: 'a'.repeat(24), status: 'queued', step: 'queued', stepMessage: 'Waiting in queue...', progress: 0, userEmail: 'a@b.c', isDemo: false };
    const status = { $ref: '#/components/schemas/Status' };
    expect(validate(status, good, doc)).toEqual([]);
    expect(validate(status, { ...good, failureReason: 'x' }, doc)).toEqual([]);
    const { isDemo: _omit, ...missing } = good;
    expect(validate(status, missing, doc).join()).toMatch(/missing required "isDemo"/);
    expect(validate(status, { ...good, extra: 1 }, doc).join()).toMatch(/unexpected property "extra"/);
    expect(validate(status, { ...good, status: 'done' }, doc).join()).toMatch(/not one of/);
    expect(validate(status, { ...good, userEmail: null }, doc).join()).toMatch(/expected string/);
    expect(validate({ $ref: '#/components/schemas/RequestListItem' }, { requestId: 'x', status: 'queued', progress: 0, createdAt: 'yesterday', updatedAt: new Date().toISOString(), url: 'u', duration: 60 }, doc).join())
      .toMatch(/not a date-time/);
    expect(validate({ $ref: '#/components/schemas/Nope' }, {}, doc).join()).toMatch(/does not resolve/);
  });
});

// ---------------------------------------------------------------------------------------------------
// Real responses against the served document.

interface Exchange { method: string; template: string; status: number; headers: Headers; body: Json }

describe('real responses of the server validate against the served document', () => {
  let store: SqliteRequestStore;
  let accounts: AccountStore;
  let server: http.Server;
  let base: string;
  let links: MediaLinks | null = null;
  let service: Service;
  let served: Obj;
  let mp4: string;
  const keys: Record<'main' | 'nosub' | 'broke' | 'tight', string> = { main: '', nosub: '', broke: '', tight: '' };
  let main: AccountRecord;
  const seen: Exchange[] = [];

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
    // The clip and its cover beside it (JobArtifacts.coverPath), copied: the fixture cache is shared.
    mp4 = path.join(dir, 'clip.mp4');
    copyFileSync(video({ duration: 65, width: 160, height: 90, fps: 10 }), mp4);
    execFileSync('ffmpeg', ['-v', 'error', '-i', mp4, '-frames:v', '1', mp4.replace(/\.mp4$/, '.jpg')]);
    store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
    accounts = new AccountStore(new SqliteAccounts(store.db));
    // No URL checks and no workers: requests stay queued and nothing leaves this machine.
    service = new Service(store, { blobs: new FsBlobStore(store.dataDir), mediaUrl: (s) => links!.url(s.requestId, s.id), thumbnailUrl: (s) => links!.thumbnailUrl(s.requestId, s.id), sourceUrl: (id) => links!.sourceUrl(id), credits: accounts, posts: new SqlitePostStore(store.db) });
    const { posts, automation } = postsStack(store);
    server = createApiServer({
      service, store, accounts, limiter: new RateLimiter(new SqliteRateLimits(store.db)), posts, automation, publicUrl: () => base,
      get mediaLinks() { return links!; },
      openapi: () => openApiDocument({ serverUrl: `${base}/api/v1` }),
      readiness: async () => ({ ready: true, checks: { store: { ok: true, detail: 'sqlite ok' } } }),
      idempotency: new IdempotentRequests(new SqliteIdempotencyStore(store.db)),
      log: () => {},
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    links = new MediaLinks({ secret: loadOrCreateSecret(dir), publicBaseUrl: base });
    main = await accounts.createAccount({ email: 'main@example.com', credits: 10 });
    keys.main = (await accounts.createKey(main.id)).key;
    const keyOf = async (a: Parameters<AccountStore['createAccount']>[0]) => (await accounts.createKey((await accounts.createAccount(a)).id)).key;
    keys.nosub = await keyOf({ email: 'nosub@example.com', credits: 5, subscription: false });
    keys.broke = await keyOf({ email: 'broke@example.com', credits: 0 });
    keys.tight = await keyOf({ email: 'tight@example.com', credits: 1, hourlyLimit: 2 });
    served = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as Obj;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    store.close();
  });

  /** Calls the server and checks the answer against the operation `template` of the served document. */
  async function call(method: string, template: string, url: string, opts: { key?: keyof typeof keys | null; body?: Json; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Exchange> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key !== null) headers['x-api-key'] = keys[opts.key ?? 'main'];
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    // Media links come whole; health and readiness live at the root; everything else under /api/v1.
    const full = url.startsWith('http') ? url : ['/healthz', '/readyz'].includes(template) ? `${base}${url}` : `${base}/api/v1${url}`;
    const res = await fetch(full, { method, headers, body: opts.form !== undefined ? new URLSearchParams(opts.form) : opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const type = res.headers.get('content-type') ?? '';
    const body: Json = type.startsWith('application/json') ? await res.json() : Buffer.from(await res.arrayBuffer());
    const ex: Exchange = { method, template, status: res.status, headers: res.headers, body };
    seen.push(ex);

    const item = (served.paths as Record<string, Obj>)[template];
    expect(item, `path ${template} is in the document`).toBeDefined();
    const op = item![method.toLowerCase()] as Obj | undefined;
    expect(op, `${method} ${template} is in the document`).toBeDefined();
    const listed = (op!.responses as Obj)[String(res.status)];
    const response = listed === undefined ? undefined : responseObject(served, listed);
    expect(response, `${method} ${template} documents status ${res.status} (${JSON.stringify(body).slice(0, 200)})`).toBeDefined();
    const content = response!.content as Obj | undefined;
    // An answer in JSON is validated against its schema (an export may list JSON beside other files' types).
    const fileTypes = Object.keys(content ?? {}).filter((t) => t !== 'application/json');
    if (content?.['application/json'] && !(fileTypes.length > 0 && !type.startsWith('application/json'))) {
      expect(type, `${method} ${template} ${res.status} content type`).toMatch(/^application\/json/);
      expect(validate((content['application/json'] as Obj).schema, body, served), `${method} ${url} -> ${res.status}`).toEqual([]);
    } else if (content && Object.keys(content).length > 0) {
      // A file (a clip, a cover, an export): one of the documented media types.
      expect(Object.keys(content), `${method} ${template} ${res.status} content type ${type}`).toContain(type.split(';')[0]);
    } else if (method !== 'HEAD') {
      expect((body as Buffer).length, `${method} ${template} ${res.status} has no body`).toBe(0);
    }
    for (const [name, h] of Object.entries((response!.headers ?? {}) as Record<string, Obj>)) {
      const value = res.headers.get(name);
      expect(value, `${method} ${template} ${res.status} header ${name}`).not.toBeNull();
      const schema = h.schema as Obj;
      const parsed: Json = schema.type === 'integer' ? Number(value) : value;
      expect(validate(schema, parsed, served, name), `${name}: ${value}`).toEqual([]);
    }
    return ex;
  }

  /** The resource inside a success envelope. */
  const data = (ex: Exchange): Obj => {
    expect(Object.keys(ex.body as Obj), `${ex.method} ${ex.template} ${ex.status}`).toEqual(['data']);
    return (ex.body as Obj).data as Obj;
  };

  const createBody = (extra: Obj = {}) => ({ fileUrl: 'http://127.0.0.1:9/source.mp4', start: 0, end: 120, ...extra });

  it('create, status, detail with clips and posts, list, cancel, catalogs, health and media', async () => {
    const created = await call('POST', '/shorts/create', '/shorts/create', { body: createBody({ maxShorts: 3, webhookUrl: 'https://hooks.example.com/x' }) });
    expect(created.status).toBe(202);
    const id = data(created).requestId as string;
    expect((await call('GET', '/shorts/{id}/status', `/shorts/${id}/status`)).status).toBe(200);

    // A finished request, filled through the store the way the worker fills it.
    const doneId = data(await call('POST', '/shorts/create', '/shorts/create', { body: createBody() })).requestId as string;
    await store.saveSourceFacts(doneId, { title: 'A talk', heatmap: [{ start: 0, end: 5, value: 0.4 }, { start: 5, end: 10, value: 1 }], start: 0, end: 120, timeAdjustment: null });
    await store.saveSentences(doneId, [{ index: 0, sentence: 'Hello there.', start: 0.5, end: 1.7 }, { index: 1, sentence: 'Second one.', start: 2, end: 3.1 }]);
    const shortBase: Omit<ShortRecord, 'id' | 'rank' | 'error' | 'errorMessage' | 'fileKey'> = {
      requestId: doneId, title: 'Clip', sentenceIndexes: [0, 1], reason: 'strong hook', description: 'desc #tag', viralScore: 73.4,
      startTimestamp: 0.5, endTimestamp: 3.1, duration: 2.6, width: 1080, height: 1920, recompiling: false,
    };
    const okShort = randomUUID(), badShort = randomUUID();
    await store.replaceShorts(doneId, [
      { ...shortBase, id: okShort, rank: 0, error: false, errorMessage: null, fileKey: path.basename(mp4), coverKey: path.basename(mp4).replace(/\.mp4$/, '.jpg'), layout: 'split' },
      { ...shortBase, id: badShort, rank: 1, viralScore: 41, error: true, errorMessage: 'rendering failed: encoder crashed', fileKey: null },
    ]);
    const insertPost = store.db.prepare(`INSERT INTO posts (id, account_id, platform, status, scheduled_at, published_at, url, short_id, request_id, title,
      account_handle, source, error, error_code, retryable, created_at) VALUES (@id, @account, @platform, @status, @scheduled, @published, @url, @short,
      @request, 'My clip', '@me', @source, @error, @code, @retryable, '2026-01-01T00:00:00.000Z')`);
    insertPost.run({ id: 'p1', account: main.id, platform: 'video_site', status: 'published', scheduled: '2026-01-02T00:00:00.000Z', published: '2026-01-02T00:00:05.000Z',
      url: 'https://video.example.com/v/1', short: okShort, request: doneId, source: 'manual', error: null, code: null, retryable: null });
    insertPost.run({ id: 'p2', account: main.id, platform: 'short_video_site', status: 'failed', scheduled: '2026-01-03T00:00:00.000Z', published: null,
      url: null, short: okShort, request: doneId, source: 'automation', error: 'Daily limit reached', code: 'daily_cap', retryable: 1 });
    insertPost.run({ id: 'p3', account: main.id, platform: 'photo_site', status: 'scheduled', scheduled: '2026-01-04T00:00:00.000Z', published: null,
      url: null, short: okShort, request: doneId, source: 'manual', error: null, code: null, retryable: null });
    expect(await store.finish(doneId, 'completed')).toBe(true);

    const detail = await call('GET', '/shorts/{id}', `/shorts/${doneId}`);
    expect(detail.status).toBe(200);
    const shorts = data(detail).shorts as Obj[];
    expect(shorts.map((s) => s.error)).toEqual([false, true]);
    // The layout extension: shown where the engine recorded one, absent (not null) where it did not.
    expect(shorts.map((s) => s.layout)).toEqual(['split', undefined]);
    expect(shorts[1]).not.toHaveProperty('layout');
    expect((shorts[0]!.posts as Obj[]).length).toBe(3);
    expect(await call('GET', '/shorts/{id}/status', `/shorts/${doneId}/status`)).toMatchObject({ status: 200, body: { data: { status: 'completed', progress: 100 } } });
    // Issue 25: the live stream of an ended request sends its events and closes at once.
    const live = await call('GET', '/shorts/{id}/events', `/shorts/${doneId}/events`);
    expect(String(live.body)).toMatch(/event: status\n[^]*event: shorts\n[^]*event: end\n/);

    // A failed request carries failureReason.
    const failedId = data(await call('POST', '/shorts/create', '/shorts/create', { body: createBody() })).requestId as string;
    await store.finish(failedId, 'failed', 'the video could not be downloaded');
    expect(data(await call('GET', '/shorts/{id}/status', `/shorts/${failedId}/status`))).toHaveProperty('failureReason');
    expect((await call('GET', '/events', `/events?ids=${doneId},${failedId}`)).status).toBe(200);

    // The clip's signed link: whole file, a range, HEAD, and a tampered link.
    const videoUrl = shorts[0]!.video_url as string;
    expect((await call('GET', '/media/{requestId}/{shortId}.mp4', videoUrl)).status).toBe(200);
    expect((await call('GET', '/media/{requestId}/{shortId}.mp4', videoUrl, { headers: { range: 'bytes=0-99' } })).status).toBe(206);
    expect((await call('HEAD', '/media/{requestId}/{shortId}.mp4', videoUrl)).status).toBe(200);
    expect((await call('GET', '/media/{requestId}/{shortId}.mp4', videoUrl, { headers: { range: 'bytes=999999999-' } })).status).toBe(416);
    // Tampered: the signature's first character changed (to one it is not, or 1 run in 64 changes nothing).
    const tampered = videoUrl.replace(/sig=(.)/, (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
    expect((await call('GET', '/media/{requestId}/{shortId}.mp4', tampered)).status).toBe(403);
    // The cover's link (thumbnail_url): only where the cover exists; signed apart from the MP4's.
    expect(shorts[1]).not.toHaveProperty('thumbnail_url');
    const cover = shorts[0]!.thumbnail_url as string;
    expect((await call('GET', '/media/{requestId}/{shortId}.jpg', cover)).headers.get('content-type')).toBe('image/jpeg');
    expect((await call('HEAD', '/media/{requestId}/{shortId}.jpg', cover)).status).toBe(200);
    expect((await call('GET', '/media/{requestId}/{shortId}.jpg', videoUrl.replace('.mp4?', '.jpg?'))).status).toBe(403);
    // A clip's export (the file itself, as an attachment): its captions as burned in.
    await service.blobs.put(new JobArtifacts(service.blobs, doneId).captionsKey(okShort), '[Script Info]\nScriptType: v4.00+\n');
    const ass = await call('GET', '/shorts/{id}/shorts/{shortId}/export', `/shorts/${doneId}/shorts/${okShort}/export?format=ass`);
    expect(ass.status).toBe(200);
    expect(ass.headers.get('content-disposition')).toContain(`${okShort}.ass`);
    // The whole request on one timeline (an EDL), from the clip's render plan as the engine keeps it.
    await new JobArtifacts(service.blobs, doneId).write(JobArtifacts.renderPlanName(okShort), {
      version: 1, input: { path: mp4, start: 0.5, end: 3.1, width: 160, height: 90, hasAudio: false },
      output: { path: mp4, width: 1080, height: 1920, preset: 'ultrafast', crf: 23, fps: 10 },
      reframe: { layout: 'fill', cropWidth: 50, cropHeight: 90, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
      background: { blur: true, color: '#000000' }, captions: null, loudness: { targetLufs: -14, truePeakDb: -1 },
    });
    const edl = await call('GET', '/shorts/{id}/export', `/shorts/${doneId}/export?format=edl`);
    expect(edl.status, String(edl.body)).toBe(200);

    for (const q of ['', '?limit=2&sortOrder=asc', '?status=completed&sortBy=updatedAt']) expect((await call('GET', '/shorts', `/shorts${q}`)).status).toBe(200);
    for (const q of ['', '?platform=video_site&date=published', `?requestId=${doneId}&source=manual&since=2026-01-01`]) expect((await call('GET', '/posts', `/posts${q}`)).status).toBe(200);
    const ca = await postsStack(store).accounts.add(main.id, { platform: 'video_site', handle: 'chan', accessToken: 'at-x' });
    const sp = await call('POST', '/posts', '/posts', { body: { shortId: okShort, platform: 'video_site', scheduledAt: '2030-01-01T09:00:00Z' } });
    expect(sp.status).toBe(201);
    const postId = data(sp).id as string;
    expect((await call('GET', '/posts/{postId}', `/posts/${postId}`)).status).toBe(200);
    expect((await call('DELETE', '/posts/{postId}', `/posts/${postId}`)).status).toBe(200);
    expect((await call('DELETE', '/posts/{postId}', `/posts/${postId}`)).status).toBe(409);
    const rule = await call('POST', '/accounts/{accountId}/automation', `/accounts/${ca.id}/automation`, { body: { minViralScore: 60, slots: ['09:00'], timezone: 'Europe/Paris' } });
    expect(rule.status).toBe(201);
    expect((await call('GET', '/accounts/{accountId}/automation', `/accounts/${ca.id}/automation`)).status).toBe(200);
    expect((await call('DELETE', '/accounts/{accountId}/automation/{ruleId}', `/accounts/${ca.id}/automation/${data(rule).id}`)).status).toBe(200);
    expect((await call('GET', '/templates', '/templates')).status).toBe(200);
    for (const p of ['/music', '/meme-hooks', '/game-videos']) expect((await call('GET', p, `${p}?page=1&limit=5`)).status).toBe(200);

    // Issue 25: a request made from a finished upload keeps its source (source_video_url); its transcript's words.
    const uploadId = 'c'.repeat(32);
    await service.blobs.putFile(uploadKey(main.id, uploadId), mp4);
    await service.blobs.put(uploadInfoKey(main.id, uploadId), JSON.stringify({ filename: 'talk.mp4', filetype: 'video/mp4', size: 1 }));
    const fromUpload = await call('POST', '/shorts/create', '/shorts/create', { body: { uploadId, start: 0, end: 60 } });
    expect(fromUpload.status, JSON.stringify(fromUpload.body)).toBe(202);
    const uploadedId = data(fromUpload).requestId as string;
    const sourceUrl = data(await call('GET', '/shorts/{id}', `/shorts/${uploadedId}`)).source_video_url as string;
    expect((await call('GET', '/media/{requestId}/source', sourceUrl, { headers: { range: 'bytes=0-99' } })).status).toBe(206);
    expect((await call('GET', '/media/{requestId}/source', sourceUrl)).status).toBe(200);
    await new JobArtifacts(service.blobs, uploadedId).write('transcript', { language: 'en', model: 'tiny.en', range: { start: 0, end: 60 }, sentences: [],
      words: [{ text: 'Hello', start: 1, end: 1.4, probability: 0.9 }, { text: 'there.', start: 1.5, end: 2, probability: 0.9 }] });
    const words = await call('GET', '/shorts/{id}/transcript', `/shorts/${uploadedId}/transcript?start=1.2&end=30`);
    expect(data(words)).toEqual({ language: 'en', words: [{ text: 'there.', start: 1.5, end: 2 }] });

    expect((await call('DELETE', '/shorts/{id}', `/shorts/${id}`)).status).toBe(200);
    expect((await call('DELETE', '/shorts/{id}', `/shorts/${id}`)).status).toBe(409);

    // Re-render one clip (no workers here: it stays recompiling). 409 for a request still queued and for a
    // clip already re-rendering, 404 for an unknown clip, 400 naming a field.
    const render = (reqId: string, shortId: string, body: Json) => call('POST', '/shorts/{id}/shorts/{shortId}/render', `/shorts/${reqId}/shorts/${shortId}/render`, { body });
    expect((await render(id, okShort, {})).status).toBe(409);
    expect((await render(doneId, randomUUID(), {})).status).toBe(404);
    const badField = await render(doneId, okShort, { layout: 'diagonal' });
    expect(badField.status).toBe(400);
    expect((badField.body as Obj).error).toMatchObject({ code: 'invalid_request', details: { field: 'layout' } });
    const rendering = await render(doneId, okShort, { end: 3, title: 'Shorter', captionsEnabled: false });
    expect(rendering.status).toBe(202);
    expect(data(rendering)).toMatchObject({ id: okShort, recompiling: true, endTimestamp: 3.1, title: 'Clip' });
    expect((await render(doneId, okShort, {})).status).toBe(409);

    expect((await call('GET', '/healthz', '/healthz', { key: null })).status).toBe(200);
    expect((await call('GET', '/readyz', '/readyz', { key: null })).status).toBe(200);
    expect((await call('GET', '/openapi.json', '/openapi.json', { key: null })).status).toBe(200);
    expect((await call('GET', '/metrics', `${base}/metrics`, { key: null })).status).toBe(200);
    expect((await call('GET', '/metrics', `${base}/metrics`, { key: null, headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(401);
  });

  it('the create response with a time adjustment (a local source shorter than the range) matches CreateResponse', async () => {
    const res = await service.create({ id: main.id, email: main.email }, { file: mp4, start: 0, end: 100 }, 'local');
    expect(res.timeAdjustment).toEqual({ original: { start: 0, end: 100 }, adjusted: { start: 0, end: expect.closeTo(65, 0) } });
    expect(validate({ $ref: '#/components/schemas/CreateResponse' }, res, served)).toEqual([]);
  });

  it('error answers: 400, 401, 403, 404, 409 and 429 bodies and headers are as documented', async () => {
    const unknown = 'f'.repeat(24);
    const cases: [string, string, string, Parameters<typeof call>[3], number, string][] = [
      ['GET', '/shorts', '/shorts?page=0', {}, 400, 'invalid_request'],
      ['GET', '/shorts', '/shorts?limit=101', {}, 400, 'invalid_request'],
      ['GET', '/shorts/{id}/status', '/shorts/not-an-id/status', {}, 400, 'invalid_request'],
      ['GET', '/shorts/{id}', `/shorts/${unknown}`, {}, 404, 'resource_not_found'],
      ['DELETE', '/shorts/{id}', `/shorts/${unknown}`, {}, 404, 'resource_not_found'],
      ['GET', '/shorts', '/shorts', { key: null }, 401, 'missing_api_key'],
      ['GET', '/templates', '/templates', { headers: { 'x-api-key': 'sk_live_nope' }, key: null }, 401, 'invalid_api_key'],
      ['POST', '/shorts/create', '/shorts/create', { body: createBody({ url: 'https://v.example.com/watch?v=1' }) }, 400, 'invalid_request'],
      ['POST', '/shorts/create', '/shorts/create', { body: { url: 'ftp://v.example.com/x', start: 0, end: 90 } }, 400, 'invalid_video_site_url'],
      ['POST', '/shorts/create', '/shorts/create', { body: { fileUrl: 'file:///etc/passwd', start: 0, end: 90 } }, 400, 'invalid_file_url'],
      ['POST', '/shorts/create', '/shorts/create', { body: createBody({ end: 30 }) }, 400, 'invalid_request'],
      ['POST', '/shorts/create', '/shorts/create', { key: 'nosub', body: createBody() }, 403, 'subscription_required'],
      ['GET', '/posts', '/posts', { key: 'nosub' }, 403, 'subscription_required'],
      ['GET', '/posts', '/posts?platform=fax', {}, 400, 'invalid_request'],
      ['POST', '/shorts/create', '/shorts/create', { key: 'broke', body: createBody() }, 403, 'insufficient_credits'],
      ['GET', '/music', '/music?limit=0', {}, 400, 'invalid_request'],
    ];
    for (const [method, template, url, opts, status, code] of cases) {
      const ex = await call(method, template, url, opts);
      expect([ex.status, ((ex.body as Obj).error as Obj).code], `${method} ${url}`).toEqual([status, code]);
    }
    // The account allows 2 requests an hour: the third is refused, with the retry time in details.
    for (let i = 0; i < 2; i++) expect((await call('GET', '/templates', '/templates', { key: 'tight' })).status).toBe(200);
    const limited = await call('GET', '/templates', '/templates', { key: 'tight' });
    expect(limited.status).toBe(429);
    const details = ((limited.body as Obj).error as Obj).details as Obj;
    expect(details).toMatchObject({ retryAfter: expect.any(Number), reset: expect.any(String) });
    // One Retry-After header, equal to details.retryAfter (a duplicated header reads "313, 313").
    expect(limited.headers.get('retry-after')).toBe(String(details.retryAfter));
  });

  it('connected accounts: add, list, get, the consent start and its callback, remove', async () => {
    const fake = await startFakePlatform('video_site');
    for (const [k, v] of Object.entries(fakePlatformEnv(fake))) vi.stubEnv(k, v);
    try {
      const t = fake.issueTokens();
      const added = await call('POST', '/accounts', '/accounts', { body: { platform: 'video_site', handle: '@someone', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresIn: 3600 } });
      expect(added.status).toBe(201);
      const id = data(added).id as string;
      expect((await call('GET', '/accounts', '/accounts?platform=video_site')).status).toBe(200);
      expect((await call('GET', '/accounts/{accountId}', `/accounts/${id}`)).status).toBe(200);
      expect((await call('GET', '/accounts/{accountId}', '/accounts/ca_nope')).status).toBe(404);
      expect((await call('POST', '/accounts', '/accounts', { body: { platform: 'video_site', handle: 'x' } })).status).toBe(400);
      const consent = data(await call('POST', '/accounts/connect', '/accounts/connect', { body: { platform: 'video_site' } }));
      // The fake consent page answers 302 to the redirect URI with code and state, as if the user agreed.
      const back = (await fetch(consent.authorizationUrl as string, { redirect: 'manual' })).headers.get('location')!;
      const page = await call('GET', '/oauth/callback', back, { key: null });
      expect(page.status).toBe(200);
      expect((await call('GET', '/oauth/callback', `${base}/oauth/callback?state=e30.AAAA&code=x`, { key: null })).status).toBe(400);
      // The page's form, posted with the starting account's key (issue 23), then with none.
      const sealed = /name="consent" value="([^"]*)"/.exec(page.body.toString())![1]!.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n)));
      expect((await call('POST', '/oauth/confirm', `${base}/oauth/confirm`, { key: null, form: { consent: sealed, apiKey: keys.main } })).status).toBe(200);
      expect((await call('POST', '/oauth/confirm', `${base}/oauth/confirm`, { key: null, form: { consent: sealed } })).status).toBe(401);
      expect((await call('DELETE', '/accounts/{accountId}', `/accounts/${id}`)).status).toBe(200);
    } finally {
      vi.unstubAllEnvs();
      await fake.close();
    }
  });

  it('every operation of the document was answered with its success status above', () => {
    const expected = operations(served).filter((o) => o.where.startsWith('paths')).map((o) => {
      const ok = Object.keys(o.op.responses as Obj).find((s) => s.startsWith('2'))!;
      return `${o.method.toUpperCase()} ${o.path} ${ok}`;
    });
    const got = new Set(seen.map((e) => `${e.method} ${e.template} ${e.status}`));
    for (const e of expected) expect(got.has(e), e).toBe(true);
  });
});
