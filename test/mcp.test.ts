// `shorts mcp` driven by the MCP SDK's own client: over stdio (the built CLI, local mode, a real job on the
// shipped sample) and over Streamable HTTP at /mcp of a real `shorts serve` on loopback with a key. The
// client validates every structuredContent against the tool's outputSchema, so shapes are checked too.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { issueKey } from './helpers/issue-key.js';
import { seed, warmCache } from './helpers/seeded-cache.js';
import { fileHandler, loopback, serveEnv, startServe, type Loopback, type ServeProcess } from './helpers/serve.js';
import { CREATE_OPTIONS } from '../src/api/create-options.js';
import type { CreateResponse, RequestDetail, StatusResponse } from '../src/api/types.js';

const TOOLS = ['cancel_request', 'create_shorts', 'get_request', 'get_status', 'list_game_videos', 'list_meme_hooks', 'list_music',
  'list_posts', 'list_requests', 'list_templates', 'wait_for_request', 'edit_short', 'export_short', 'list_connected_accounts', 'schedule_post', 'cancel_post'].sort();

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return await client.callTool({ name, arguments: args }) as CallToolResult;
}

function structured<T>(r: CallToolResult): T {
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as T;
}

/** The error code a failed tool call names, from its text and its error envelope. */
function errorCode(r: CallToolResult): string {
  expect(r.isError).toBe(true);
  const [line, envelope] = r.content as { type: 'text'; text: string }[];
  const code = (JSON.parse(envelope!.text) as { error: { code: string; message: string } }).error.code;
  expect(line!.text).toContain(`error (${code}): `);
  return code;
}

async function listedTools(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
  for (const t of tools) {
    expect(t.outputSchema?.type, t.name).toBe('object');
    expect(t.inputSchema.type, t.name).toBe('object');
  }
  return tools;
}

describe('shorts mcp over stdio, local mode', () => {
  const env = cliEnv();
  let client: Client;
  let stderr = '';
  const transportErrors: string[] = [];

  beforeAll(async () => {
    // What runs is the MCP server's job handling, not transcription: the sample's 0-60 s transcript is
    // seeded into the data dir (seeded-cache.ts, made once per machine), so whisper.cpp does not run again.
    seed(env.SHORTS_DATA_DIR!, await warmCache());
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: env as Record<string, string>, stderr: 'pipe' });
    transport.stderr?.on('data', (b: Buffer) => { stderr += b.toString(); });
    client = new Client({ name: 'shorts-test', version: '1.0.0' });
    // Anything but JSON-RPC on the server's stdout (a stray log line) would surface here.
    client.onerror = (e) => { if (!/progress notification for an unknown token/.test(e.message)) transportErrors.push(e.message); };
    await client.connect(transport);
  });
  afterAll(async () => { await client?.close(); });

  it('lists a tool per CLI command; create takes every option of the table plus a local file, and says what it costs', async () => {
    const tools = await listedTools(client);
    const create = tools.find((t) => t.name === 'create_shorts')!;
    const props = create.inputSchema.properties as Record<string, { type?: string; enum?: string[]; default?: unknown }>;
    expect(Object.keys(props).sort()).toEqual(['file', ...CREATE_OPTIONS.map((o) => o.field)].sort());
    // Locally a file without a range is the whole recording: nothing is required by the schema (the service checks the source).
    expect(create.inputSchema.required).toBeUndefined();
    expect(props.preferredLength).toMatchObject({ type: 'string', default: 'under60sec' });
    expect(props.maxShorts).toMatchObject({ type: 'integer', minimum: 1, maximum: 12 });
    expect(props.language!.enum).toContain('auto');
    expect(create.description).toMatch(/credit/);
    expect(create.description).toMatch(/inside this MCP server process/);
    expect(create.annotations).toMatchObject({ readOnlyHint: false });
    expect(tools.find((t) => t.name === 'get_status')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('lists the catalogs, templates and posts with the names create takes', async () => {
    const templates = structured<{ templates: { templateId: string }[]; defaultTemplateId: string }>(await call(client, 'list_templates'));
    expect(templates.templates.map((t) => t.templateId)).toContain(templates.defaultTemplateId);
    for (const [tool, key] of [['list_music', 'music'], ['list_meme_hooks', 'memeHooks'], ['list_game_videos', 'gameVideos']] as const) {
      const page = structured<Record<string, { name: string }[]> & { pagination: { totalCount: number } }>(await call(client, tool, { limit: 2 }));
      expect(page[key]!.length, tool).toBeGreaterThan(0);
      expect(page[key]!.length, tool).toBeLessThanOrEqual(2);
      expect(page.pagination.totalCount, tool).toBeGreaterThanOrEqual(page[key]!.length);
    }
    expect(structured<{ posts: unknown[] }>(await call(client, 'list_posts')).posts).toEqual([]);
    expect(errorCode(await call(client, 'list_music', { limit: 1000 }))).toBe('invalid_request');
    expect(errorCode(await call(client, 'list_music', { colour: 'red' }))).toBe('invalid_request');
  });

  it('answers an invalid create with isError naming invalid_request, and creates nothing', async () => {
    expect(errorCode(await call(client, 'create_shorts', { file: SAMPLE, start: 0, end: 10 }))).toBe('invalid_request');
    expect(errorCode(await call(client, 'create_shorts', { file: SAMPLE, start: 0, end: 60, maxShorts: 99 }))).toBe('invalid_request');
    expect(errorCode(await call(client, 'create_shorts', { file: SAMPLE, start: 0, end: 60, colour: 'red' }))).toBe('invalid_request');
    expect(errorCode(await call(client, 'get_status', { requestId: 'nope' }))).toBe('invalid_request');
    expect(errorCode(await call(client, 'get_status', { requestId: '0123456789abcdef01234567' }))).toBe('resource_not_found');
    const list = structured<{ requests: unknown[] }>(await call(client, 'list_requests'));
    expect(list.requests).toEqual([]);
  });

  it('runs a whole request: create answers at once, the job runs in the background, status and wait follow it, get lists the clip', async () => {
    const t0 = Date.now();
    const created = structured<CreateResponse>(await call(client, 'create_shorts',
      { file: SAMPLE, start: 0, end: 60, maxShorts: 1, preferredLength: 'under30sec' }));
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(created).toMatchObject({ status: 'processing', creditsUsed: 1 });
    expect(created.requestId).toMatch(/^[0-9a-f]{24}$/);

    const early = structured<StatusResponse>(await call(client, 'get_status', { requestId: created.requestId }));
    expect(['queued', 'processing']).toContain(early.status);

    const seen: number[] = [];
    let final: StatusResponse | undefined;
    for (let i = 0; i < 6 && !(final && ['completed', 'failed', 'cancelled'].includes(final.status)); i++) {
      const r = await client.callTool({ name: 'wait_for_request', arguments: { requestId: created.requestId, timeoutSeconds: 40 } }, undefined,
        { timeout: 60_000, onprogress: (p) => { seen.push(p.progress); } }) as CallToolResult;
      final = structured<StatusResponse>(r);
    }
    expect(final, stderr).toMatchObject({ _id: created.requestId, status: 'completed', progress: 100 });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // (The last notification may come in the same chunk as the result, which the SDK client then drops as late.)
    expect(seen.at(-1)).toBeGreaterThanOrEqual(60);

    const detailResult = await call(client, 'get_request', { requestId: created.requestId });
    const detail = structured<RequestDetail>(detailResult);
    expect(detail).toMatchObject({ _id: created.requestId, status: 'completed', start: 0, end: 60, language: 'en' });
    expect(detail.shorts).toHaveLength(1);
    expect(existsSync(fileURLToPath(detail.shorts[0]!.video_url))).toBe(true);
    expect((detailResult.content[0] as { text: string }).text).toContain(detail.shorts[0]!.video_url);

    const list = structured<{ requests: { requestId: string; status: string }[] }>(await call(client, 'list_requests', { status: 'completed' }));
    expect(list.requests.map((r) => [r.requestId, r.status])).toEqual([[created.requestId, 'completed']]);

    // The clip's captions as an agent gets them, then the clip re-rendered shorter in the background.
    const clip = detail.shorts[0]!;
    const srt = structured<{ filename: string; contentType: string; content: string }>(
      await call(client, 'export_short', { requestId: created.requestId, shortId: clip.id, format: 'srt' }));
    expect(srt.filename).toBe(`${clip.id}.srt`);
    expect(srt.content).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}/);
    expect(errorCode(await call(client, 'export_short', { requestId: created.requestId, shortId: clip.id, format: 'jpg' }))).toBe('invalid_request');
    const end = Math.round((clip.startTimestamp + 8) * 1000) / 1000;
    const editing = structured<{ id: string; recompiling: boolean }>(await call(client, 'edit_short',
      { requestId: created.requestId, shortId: clip.id, end }));
    expect(editing).toMatchObject({ id: clip.id, recompiling: true });
    let after = { ...clip, recompiling: true };
    for (let i = 0; i < 150 && after.recompiling; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      after = structured<RequestDetail>(await call(client, 'get_request', { requestId: created.requestId })).shorts[0]!;
    }
    expect(after, stderr).toMatchObject({ recompiling: false, startTimestamp: clip.startTimestamp });
    expect(after.editError ?? null).toBeNull();
    // The clip edge may move into the pause next to the asked end (clean edges), never far from it.
    expect(Math.abs(after.endTimestamp - end)).toBeLessThan(1);
    expect(transportErrors).toEqual([]);
  }, 360_000);

  it('cancels a request and refuses to cancel it twice', async () => {
    const created = structured<CreateResponse>(await call(client, 'create_shorts', { file: SAMPLE, start: 0, end: 60, maxShorts: 1 }));
    expect(structured(await call(client, 'cancel_request', { requestId: created.requestId }))).toEqual({ _id: created.requestId, status: 'cancelled' });
    expect(structured<StatusResponse>(await call(client, 'get_status', { requestId: created.requestId })).status).toBe('cancelled');
    expect(errorCode(await call(client, 'cancel_request', { requestId: created.requestId }))).toBe('request_not_cancellable');
  });

  it('leaves a job it could not finish marked failed (interrupted) when the client closes the server', async () => {
    const created = structured<CreateResponse>(await call(client, 'create_shorts', { file: SAMPLE, start: 0, end: 60, maxShorts: 1 }));
    await client.close();
    const r = await runCli(['status', created.requestId, '--json'], env);
    const status = JSON.parse(r.stdout) as StatusResponse;
    expect(status.status).toBe('failed');
    expect(status.failureReason).toMatch(/^interrupted: the MCP server/);
  });
});

describe('/mcp on shorts serve (Streamable HTTP)', () => {
  let serve: ServeProcess;
  let cdn: Loopback;
  let key: string;
  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'shorts-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers } }));
    return client;
  };

  beforeAll(async () => {
    serve = await startServe(serveEnv());
    cdn = await loopback(fileHandler(SAMPLE));
    ({ key } = await issueKey(serve.env));
  });
  afterAll(async () => {
    await serve?.kill();
    await cdn?.close();
  });

  it('refuses a connection without a valid key with the API\'s 401', async () => {
    const client = new Client({ name: 'shorts-test', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`)))).rejects.toThrow(/missing_api_key/);
    const res = await fetch(`${serve.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'sk_live_wrong' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  it('drives a request with the key: create (creditsUsed 1), status, get, list and cancel answer for that account only', async () => {
    const client = await connect({ 'X-API-Key': key });
    try {
      const tools = await listedTools(client);
      const create = tools.find((t) => t.name === 'create_shorts')!;
      expect(Object.keys(create.inputSchema.properties!).sort()).toEqual(CREATE_OPTIONS.map((o) => o.field).sort());
      expect(create.description).toMatch(/Spends one credit/);

      expect(errorCode(await call(client, 'create_shorts', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 30 }))).toBe('invalid_request');
      const created = structured<CreateResponse>(await call(client, 'create_shorts', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60, maxShorts: 1 }));
      expect(created).toMatchObject({ status: 'processing', creditsUsed: 1 });
      const status = structured<StatusResponse>(await call(client, 'get_status', { requestId: created.requestId }));
      expect(['queued', 'processing']).toContain(status.status);
      const detail = structured<RequestDetail>(await call(client, 'get_request', { requestId: created.requestId }));
      expect(detail).toMatchObject({ _id: created.requestId, url: `${cdn.url}/talk.mp4`, start: 0, end: 60 });
      const list = structured<{ requests: { requestId: string }[] }>(await call(client, 'list_requests'));
      expect(list.requests.map((r) => r.requestId)).toEqual([created.requestId]);
      expect(structured(await call(client, 'cancel_request', { requestId: created.requestId }))).toEqual({ _id: created.requestId, status: 'cancelled' });
      const after = structured<StatusResponse>(await call(client, 'wait_for_request', { requestId: created.requestId, timeoutSeconds: 5 }));
      expect(after.status).toBe('cancelled');
      // Only a local file is refused over HTTP: `file` is not even offered.
      expect(errorCode(await call(client, 'create_shorts', { file: SAMPLE, start: 0, end: 60 }))).toBe('invalid_request');
    } finally {
      await client.close();
    }
    // Another account cannot see the request.
    const other = await connect({ Authorization: `Bearer ${(await issueKey(serve.env)).key}` });
    try {
      const list = structured<{ requests: unknown[] }>(await call(other, 'list_requests'));
      expect(list.requests).toEqual([]);
      expect(structured<{ templates: unknown[] }>(await call(other, 'list_templates')).templates.length).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it('serves stdio in remote mode too, with --remote and --api-key like every command', async () => {
    const http = await connect({ 'X-API-Key': key });
    const created = structured<CreateResponse>(await call(http, 'create_shorts', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60, maxShorts: 1 }));
    await http.close();
    const client = new Client({ name: 'shorts-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({
      command: process.execPath, args: [BIN, '--remote', serve.api, '--api-key', key, 'mcp'],
      env: { ...serve.env, SHORTS_POLL_INTERVAL_MS: '200' } as Record<string, string>, stderr: 'ignore',
    }));
    try {
      const create = (await client.listTools()).tools.find((t) => t.name === 'create_shorts')!;
      expect(create.inputSchema.properties).not.toHaveProperty('file');
      expect(create.description).toMatch(/remote Shorts API/);
      expect(structured<StatusResponse>(await call(client, 'get_status', { requestId: created.requestId }))._id).toBe(created.requestId);
      expect(structured(await call(client, 'cancel_request', { requestId: created.requestId }))).toEqual({ _id: created.requestId, status: 'cancelled' });
      expect(structured<StatusResponse>(await call(client, 'wait_for_request', { requestId: created.requestId, timeoutSeconds: 5 })).status).toBe('cancelled');
      expect(errorCode(await call(client, 'cancel_request', { requestId: created.requestId }))).toBe('request_not_cancellable');
    } finally {
      await client.close();
    }
  });

  it('needs a subscription to create, as the API does', async () => {
    const client = await connect({ 'X-API-Key': (await issueKey(serve.env, { subscription: false })).key });
    try {
      expect(errorCode(await call(client, 'create_shorts', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60 }))).toBe('subscription_required');
      expect(errorCode(await call(client, 'list_posts'))).toBe('subscription_required');
    } finally {
      await client.close();
    }
  });

  it('answers GET with 405: the endpoint is stateless', async () => {
    const res = await fetch(`${serve.url}/mcp`, { headers: { 'x-api-key': key, accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
