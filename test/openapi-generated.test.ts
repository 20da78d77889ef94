// What generators and linters make of the OpenAPI document a live `shorts serve` publishes: the
// document is fetched from /api/v1/openapi.json, turned into TypeScript with openapi-typescript's
// default options, and a small client program written against those generated types (a create call
// with only fileUrl, start and end, then status, detail, list, cancel, templates and the catalogs) is
// type-checked strictly and run against the same server. The generated schemas must also agree, type
// for type, with src/api/types.ts and the library's interface, so the library and the document
// cannot describe two APIs. Finally Redocly lints the served document with recommended-strict
// (redocly.yaml) and must find nothing. Everything runs offline: loopback only, no telemetry.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, SAMPLE } from './helpers/cli.js';
import { createKey, fileHandler, loopback, serveEnv, startServe, type Loopback, type ServeProcess } from './helpers/serve.js';

const run = promisify(execFile);

let serve: ServeProcess;
let key: string;
let cdn: Loopback;
let dir: string;
let served: Record<string, unknown>;

beforeAll(async () => {
  const env = serveEnv();
  ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
  serve = await startServe(env);
  cdn = await loopback(fileHandler(SAMPLE));
  dir = mkdtempSync(path.join(os.tmpdir(), 'openapi-generated-'));
  served = (await (await fetch(`${serve.api}/openapi.json`)).json()) as Record<string, unknown>;
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(served, null, 2));
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await cdn?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------
// The program a user of a generated client would write. `call` is the typed fetch wrapper: path,
// query and body types and the success type all come from the generated `paths`, nothing is cast by hand
// except the parsed JSON.

const CLIENT = `
import type { paths } from './schema.js';

type Method = 'get' | 'post' | 'delete';
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { 'application/json': infer J } } ? J : never;
type Success<O> = O extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]> : never;
type Params<O> = O extends { parameters: infer X } ? X : never;
type PathOf<O> = Params<O> extends { path: infer X } ? X : undefined;
type QueryOf<O> = Params<O> extends { query?: infer Q } ? Q : undefined;
type BodyOf<O> = O extends { requestBody: infer B } ? JsonOf<B> : undefined;
type Init<O> = { query?: QueryOf<O> }
  & (PathOf<O> extends undefined ? { path?: undefined } : { path: PathOf<O> })
  & (BodyOf<O> extends undefined ? { body?: undefined } : { body: BodyOf<O> });

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: unknown) { super(\`HTTP \${status}: \${JSON.stringify(body)}\`); }
}

export type Auth = { apiKey: string } | { bearer: string };

export function client(base: string, auth: Auth) {
  const credentials: Record<string, string> = 'apiKey' in auth ? { 'x-api-key': auth.apiKey } : { authorization: \`Bearer \${auth.bearer}\` };
  return async function call<P extends keyof paths, M extends Method>(method: M, route: P, init: Init<Op<P, M>>): Promise<Success<Op<P, M>>> {
    const params = (init.path ?? {}) as Record<string, string>;
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries((init.query ?? {}) as Record<string, unknown>)) if (v !== undefined) query.set(k, String(v));
    const url = base + String(route).replace(/\\{(\\w+)\\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? '')) + (query.size ? \`?\${query}\` : '');
    const headers: Record<string, string> = { ...credentials };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, { method: method.toUpperCase(), headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
    const json: unknown = await res.json();
    if (!res.ok) throw new ApiError(res.status, json);
    return json as Success<Op<P, M>>;
  };
}

/** Everything a first integration does, with the fewest fields the document lets it send. */
export async function journey(base: string, key: string, fileUrl: string) {
  const api = client(base, { apiKey: key });
  const viaBearer = client(base, { bearer: key });

  const created = await api('post', '/shorts/create', { body: { fileUrl, start: 0, end: 80 } });
  const requestId: string = created.data.requestId;
  const status = await api('get', '/shorts/{id}/status', { path: { id: requestId } });
  const detail = await viaBearer('get', '/shorts/{id}', { path: { id: requestId } });
  const list = await viaBearer('get', '/shorts', { query: { limit: 5, sortOrder: 'desc' } });
  const cancelled = await api('delete', '/shorts/{id}', { path: { id: requestId } });
  const templates = await api('get', '/templates', {});
  const music = await api('get', '/music', { query: { limit: 2 } });
  const memeHooks = await api('get', '/meme-hooks', {});
  const gameVideos = await api('get', '/game-videos', { query: { page: 1 } });
  return {
    created: created.data, status: status.data, detail: detail.data, list: list.data, cancelled: cancelled.data,
    templates: templates.data, music: music.data, memeHooks: memeHooks.data, gameVideos: gameVideos.data,
  };
}

/** Never run: lines the generated types must refuse (each @ts-expect-error fails the check if they do not). */
export function refusals(api: ReturnType<typeof client>): void {
  // @ts-expect-error end is required
  void api('post', '/shorts/create', { body: { fileUrl: 'https://cdn.example.com/v.mp4', start: 0 } });
  // @ts-expect-error an option the document does not have
  void api('post', '/shorts/create', { body: { fileUrl: 'https://cdn.example.com/v.mp4', start: 0, end: 80, colour: 'red' } });
  // @ts-expect-error layout is one of auto, fill, fit, square, split, screen
  void api('post', '/shorts/create', { body: { fileUrl: 'https://cdn.example.com/v.mp4', start: 0, end: 80, layout: 'stretch' } });
  // @ts-expect-error GET /shorts/{id} needs its id
  void api('get', '/shorts/{id}', {});
  // @ts-expect-error there is no PUT on /shorts
  void api('put', '/shorts', {});
}

/** Never run: what the response types promise (always-present fields are not optional; the rest are). */
export async function promises(api: ReturnType<typeof client>): Promise<void> {
  const created = (await api('post', '/shorts/create', { body: { url: 'https://video.example.com/watch?v=1', start: 10, end: 100, maxShorts: 3 } })).data;
  const id: string = created.requestId;
  const position: number | null = created.queuePosition;
  // @ts-expect-error timeAdjustment is there only when the range was adjusted
  const adjusted: number = created.timeAdjustment.adjusted.end;
  // @ts-expect-error requestId is a string, not any
  const notANumber: number = created.requestId;
  const status = (await api('get', '/shorts/{id}/status', { path: { id } })).data;
  const progress: number = status.progress;
  const state: 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled' = status.status;
  // @ts-expect-error failureReason is there only for a failed request
  const reason: string = status.failureReason;
  const detail = (await api('get', '/shorts/{id}', { path: { id } })).data;
  const clipUrl: string | undefined = detail.shorts[0]?.video_url;
  const clipLayout: 'fill' | 'fit' | 'square' | 'split' | 'screen' | undefined = detail.shorts[0]?.layout;
  // @ts-expect-error layout is there only when the engine recorded it
  const alwaysLayout: string = detail.shorts[0]!.layout;
  const track = (await api('get', '/music', {})).data.music[0];
  const trackUrl: string | undefined = track?.url;
  const hook = (await api('get', '/meme-hooks', {})).data.memeHooks[0];
  const hookSeconds: number | undefined = hook?.video_duration;
  const game = (await api('get', '/game-videos', {})).data.gameVideos[0];
  const gameVideo: string | undefined = game?.video;
  void [position, adjusted, notANumber, progress, state, reason, clipUrl, clipLayout, alwaysLayout, trackUrl, hookSeconds, gameVideo];
}
`;

// The library's types against the generated ones: mutual assignability and the same keys, so a field
// added, dropped, renamed or made optional on either side fails the type check.
const agreement = (src: string) => `
import type { components } from './schema.js';
import type * as Api from '${src}/api/types.js';
import type { GameVideoItem, MemeHookItem, MusicTrackItem } from '${src}/catalog/catalog-assets.js';
import type { ShortsClient } from '${src}/client/shorts-client.js';

type S = components['schemas'];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? ([keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false) : false) : false;
type Result<K extends keyof ShortsClient> = ShortsClient[K] extends (...args: never[]) => Promise<infer R> ? R : never;

export const agree: Record<string, true> = {
  CreateResponse: true satisfies Same<Api.CreateResponse, S['CreateResponse']>,
  StatusResponse: true satisfies Same<Api.StatusResponse, S['Status']>,
  RequestDetail: true satisfies Same<Api.RequestDetail, S['RequestDetail']>,
  ShortObject: true satisfies Same<Api.ShortObject, S['Short']>,
  PostObject: true satisfies Same<Api.PostObject, S['Post']>,
  RequestListItem: true satisfies Same<Api.RequestListItem, S['RequestListItem']>,
  Pagination: true satisfies Same<Api.Pagination, S['Pagination']>,
  TemplateItem: true satisfies Same<Api.TemplateItem, S['Template']>,
  TemplateList: true satisfies Same<Api.TemplateList, S['TemplateList']>,
  CancelResponse: true satisfies Same<Api.CancelResponse, S['Cancelled']>,
  MusicTrackItem: true satisfies Same<MusicTrackItem, S['MusicTrack']>,
  MemeHookItem: true satisfies Same<MemeHookItem, S['MemeHook']>,
  GameVideoItem: true satisfies Same<GameVideoItem, S['GameVideo']>,
  'ShortsClient.create': true satisfies Same<Result<'create'>, S['CreateResponse']>,
  'ShortsClient.status': true satisfies Same<Result<'status'>, S['Status']>,
  'ShortsClient.get': true satisfies Same<Result<'get'>, S['RequestDetail']>,
  'ShortsClient.list': true satisfies Same<Result<'list'>, S['RequestList']>,
  'ShortsClient.posts': true satisfies Same<Result<'posts'>, S['PostList']>,
  'ShortsClient.cancel': true satisfies Same<Result<'cancel'>, S['Cancelled']>,
  'ShortsClient.templates': true satisfies Same<Result<'templates'>, S['TemplateList']>,
};

// Whatever a generated client may send to create, the library's create accepts.
type GeneratedBody = components['requestBodies']['CreateShortsRequest']['content']['application/json'];
export const accepts = (b: GeneratedBody): Parameters<ShortsClient['create']>[0] => b;
`;

/** `tsc --noEmit --strict` over the files (and whatever they import), as messages with file:line. */
function typeCheck(files: string[]): string[] {
  const options: ts.CompilerOptions = {
    noEmit: true, strict: true, noUncheckedIndexedAccess: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')],
  };
  return ts.getPreEmitDiagnostics(ts.createProgram(files, options)).map((d) => {
    const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1} ` : '';
    return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
  });
}

describe('a client generated from the served document with openapi-typescript (default options)', () => {
  type Step = 'created' | 'status' | 'detail' | 'list' | 'cancelled' | 'templates' | 'music' | 'memeHooks' | 'gameVideos';
  let journey: (base: string, key: string, fileUrl: string) => Promise<Record<Step, Record<string, unknown>>>;

  beforeAll(async () => {
    // Default options: no flags at all, as a user running `npx openapi-typescript <url>` gets.
    const generated = astToString(await openapiTS(served as unknown as OpenAPI3));
    writeFileSync(path.join(dir, 'schema.ts'), generated);
    writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}');
    writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    writeFileSync(path.join(dir, 'agreement.ts'), agreement(path.join(ROOT, 'src')));
    expect(typeCheck([path.join(dir, 'client.ts'), path.join(dir, 'agreement.ts')])).toEqual([]);
    // Checked, so only the types need to go: the client runs as the JavaScript tsc would emit.
    const js = ts.transpileModule(CLIENT, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 } }).outputText;
    writeFileSync(path.join(dir, 'client.mjs'), js);
    ({ journey } = (await import(pathToFileURL(path.join(dir, 'client.mjs')).href)) as { journey: typeof journey });
  }, 120_000);

  it('type-checks strictly: a create with only fileUrl, start and end, the refusals, and the library\'s types agreeing with the document', () => {
    // beforeAll failed otherwise; this names what it checked.
    expect(journey).toEqual(expect.any(Function));
  });

  it('runs against the live server: create, status, detail, list, cancel, templates and the three catalogs', async () => {
    const base = (served.servers as { url: string }[])[0]!.url;
    expect(base).toBe(serve.api);
    const fileUrl = `${cdn.url}/talk.mp4`;
    const r = await journey(base, key, fileUrl);

    const id = r.created.requestId as string;
    expect(r.created).toMatchObject({ requestId: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'processing', creditsUsed: 1 });
    expect(r.status).toMatchObject({ _id: id, status: expect.stringMatching(/^(queued|processing)$/), isDemo: false });
    expect(r.detail).toMatchObject({ _id: id, url: fileUrl, start: 0, end: 80 });
    expect(r.list.requests).toEqual(expect.arrayContaining([expect.objectContaining({ requestId: id })]));
    expect(r.list.pagination).toMatchObject({ page: 1, limit: 5 });
    expect(r.cancelled).toEqual({ _id: id, status: 'cancelled' });
    const templates = r.templates.templates as { templateId: string }[];
    expect(templates.length).toBeGreaterThan(0);
    expect(templates.map((t) => t.templateId)).toContain(r.templates.defaultTemplateId);

    // Catalog media links are absolute and play from a client: fetched here over loopback.
    const music = r.music.music as { url: string }[];
    const hooks = r.memeHooks.memeHooks as { preview: string; video: string; video_duration: number }[];
    const games = r.gameVideos.gameVideos as { preview: string; video: string; video_duration: number }[];
    expect(r.music.pagination).toMatchObject({ page: 1, limit: 2 });
    for (const [link, type] of [[music[0]?.url, /^audio\//], [hooks[0]?.video, /^video\//], [games[0]?.video, /^video\//], [hooks[0]?.preview, /^image\//]] as const) {
      expect(link, 'the shipped catalogs are not empty').toEqual(expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//));
      const res = await fetch(link!, { headers: { range: 'bytes=0-1023' } });
      expect([res.status, res.headers.get('content-type')], link).toEqual([206, expect.stringMatching(type)]);
      await res.arrayBuffer();
    }
    for (const item of [...hooks, ...games]) expect(item.video_duration).toBeGreaterThan(0);
  });
});

describe('what the document says about every path holds on the live server', () => {
  it('405 method_not_allowed with Allow, 400 invalid_request for a malformed path, 431 for oversized headers', async () => {
    const put = await fetch(`${serve.url}/healthz`, { method: 'PUT' });
    expect([put.status, put.headers.get('allow'), ((await put.json()) as { error: { code: string } }).error.code]).toEqual([405, 'GET, HEAD', 'method_not_allowed']);
    const wrong = await fetch(`${serve.api}/templates`, { method: 'POST' });
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET']);
    await wrong.arrayBuffer();
    const malformed = await fetch(`${serve.api}/shorts/%E0%A4%A/status`, { headers: { 'x-api-key': key } });
    expect([malformed.status, ((await malformed.json()) as { error: { code: string } }).error.code]).toEqual([400, 'invalid_request']);
    for (const url of [`${serve.url}/healthz`, `${serve.api}/shorts`]) {
      const big = await fetch(url, { headers: { 'x-api-key': key, 'x-padding': 'a'.repeat(20_000) } });
      expect(big.status, url).toBe(431);
      await big.arrayBuffer();
    }
  });
});

describe('Redocly lint (recommended-strict, redocly.yaml)', () => {
  it('finds no problem in the served document, offline', async () => {
    const bin = path.join(ROOT, 'node_modules', '.bin', 'redocly');
    const { stdout } = await run(bin, ['lint', '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', path.join(dir, 'openapi.json')], {
      cwd: dir,
      // No telemetry and no update check: the lint needs no network.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number; ignored: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });
});
