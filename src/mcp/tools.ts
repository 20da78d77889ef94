// The MCP tools: one per thing the CLI does, each a thin call on a backend shaped like ShortsClient
// (LocalClient, RemoteClient, or the in-process Service of `shorts serve` for one account). Results
// are the ShortsClient shapes as structuredContent, with a one-screen summary for people and agents
// that read text only.
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ShortsClient, Query } from '../client/shorts-client.js';
import type { PostObject, RequestDetail, StatusResponse } from '../api/types.js';
import type { ConnectedAccount } from '../posts/connected-accounts.js';
import { PLATFORMS, type Platform } from '../publish/types.js';
import { TERMINAL } from '../ports/request-store.js';
import { ShortsError } from '../errors.js';
import { REQUEST_ID_INPUT, createInputSchema, outputSchema, queryInputSchema, renderInputSchema, requestBodyInputSchema, type ObjectSchema } from './tool-schemas.js';
import { EXPORT_FORMATS } from '../api/export-formats.js';

/** What the tools call: the ShortsClient operations, whoever implements them. */
export type McpBackend = Pick<ShortsClient, 'create' | 'status' | 'get' | 'list' | 'cancel' | 'templates' | 'music' | 'memeHooks' | 'gameVideos' | 'posts'
  | 'rerender' | 'exportShort'> & {
  /** Connected platform accounts, oldest first (issue 16). */
  connectedAccounts(platform?: Platform): Promise<ConnectedAccount[]>;
  /** POST /posts: a clip scheduled on a connected account. */
  schedulePost(body: Record<string, unknown>): Promise<PostObject>;
  /** DELETE /posts/:id. */
  cancelPost(id: string): Promise<PostObject>;
  /**
   * The status reads of wait_for_request after its first: in-process on serve they are not API calls, so
   * they do not count against the caller's limits (the tool call was counted once). Absent: `status`.
   */
  poll?: ShortsClient['status'];
};

/**
 * Where a created request runs, which decides what the create tool promises:
 * local = in this MCP process (no credits), remote = a `shorts serve` reached over HTTP, serve = this server.
 */
export type McpMode = 'local' | 'remote' | 'serve';

export interface ToolContext {
  backend: McpBackend;
  signal: AbortSignal;
  /** Progress notification, sent only when the client asked for them (a progressToken). */
  progress(progress: number, message: string): Promise<void>;
  /** How often wait_for_request looks at the status. */
  pollMs: number;
}

export interface ToolResult { structured: Record<string, unknown>; summary: string }

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  annotations: ToolAnnotations;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
}

/** What export_short gives: every export format but the cover (an image; get_request's thumbnail_url links it). */
const TEXT_EXPORT_FORMATS = EXPORT_FORMATS.filter((f) => f !== 'jpg');

const EXPORT_OUTPUT: ObjectSchema = {
  type: 'object',
  properties: {
    filename: { type: 'string', description: 'the name the file is served under' },
    contentType: { type: 'string' },
    content: { type: 'string', description: 'the file (UTF-8 text)' },
  },
  required: ['filename', 'contentType', 'content'],
};

/** wait_for_request blocks at most this long per call (MCP clients time out requests after about 60 s by default). */
export const WAIT_DEFAULT_SECONDS = 50;
export const WAIT_MAX_SECONDS = 300;

const CREATE_DESCRIPTIONS: Record<McpMode, string> = {
  serve: 'Spends one credit of this account when the request is accepted (refunded if processing fails; a refused request costs nothing). '
    + 'Processing runs on this server in the background: the tool answers at once with the request id.',
  remote: 'Spends one credit of the API account when the request is accepted (refunded if processing fails; a refused request costs nothing). '
    + 'Processing runs on the remote Shorts API in the background: the tool answers at once with the request id.',
  local: 'Local mode: no account and no credit balance (the response still says creditsUsed 1, as the API does). The job runs inside this MCP '
    + 'server process in the background, one at a time in creation order: the tool answers at once with the request id. If this MCP server '
    + 'stops before the job finishes, the job stops too and the request is marked failed ("interrupted").',
};

function str(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== 'string' || v === '') throw new ShortsError('invalid_request', `${key} is required (a string)`, { field: key });
  return v;
}

/** Refuses arguments the schema does not list, the way the API refuses unknown fields. */
function checkKnown(args: Record<string, unknown>, schema: ObjectSchema): void {
  for (const key of Object.keys(args)) {
    if (!(key in schema.properties)) throw new ShortsError('invalid_request', `unknown argument "${key}"`, { field: key });
  }
}

/** Tool arguments to the query strings ShortsClient takes (the Service parses and checks them, as for HTTP). */
function toQuery(args: Record<string, unknown>): Query {
  const q: Query = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined && v !== null) q[k] = String(v);
  return q;
}

function pageLine(p: { page: number; totalPages: number; totalCount: number }): string {
  return `page ${p.page} of ${Math.max(p.totalPages, 1)} (${p.totalCount} in all)`;
}

function statusSummary(s: StatusResponse): string {
  const lines = [`request ${s._id}: ${s.status}, ${s.stepMessage} (${s.progress}%)`];
  if (s.failureReason) lines.push(`failure reason: ${s.failureReason}`);
  for (const w of s.warnings ?? []) lines.push(`warning: ${w}`);
  if (!TERMINAL.has(s.status)) lines.push('not finished: call wait_for_request or get_status again later');
  else if (s.status === 'completed') lines.push('finished: get_request lists the clips and their video_url');
  return lines.join('\n');
}

function detailSummary(d: RequestDetail): string {
  const head = `${d.title || d.url} [${d.status}, ${d.progress}%] range ${d.start}-${d.end} s, ${d.sentences.length} sentences, template ${d.template}, ${d.shorts.length} clips`;
  const clips = d.shorts.map((s, i) => `${i + 1}. [${s.viral_score}] ${s.title} (${s.startTimestamp.toFixed(1)}-${s.endTimestamp.toFixed(1)} s) `
    + (s.error ? `FAILED: ${s.errorMessage ?? ''}` : s.video_url));
  return [head, ...clips, ...(d.warnings ?? []).map((w) => `warning: ${w}`)].join('\n');
}

function catalogTool(name: string, title: string, path: string, key: 'music' | 'memeHooks' | 'gameVideos', component: string, what: string): ToolDef {
  const inputSchema = queryInputSchema(path);
  return {
    name, title, inputSchema,
    description: `Lists ${what} (paginated). Use an item's exact name as the matching create_shorts option.`,
    outputSchema: outputSchema(component),
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { backend }) {
      checkKnown(args, inputSchema);
      const q = toQuery(args);
      const page = key === 'music' ? await backend.music(q) : key === 'memeHooks' ? await backend.memeHooks(q) : await backend.gameVideos(q);
      const names = page.items.map((i) => i.name);
      return {
        structured: { [key]: page.items, pagination: page.pagination },
        summary: `${names.length ? names.join(', ') : 'none'}\n${pageLine(page.pagination)}`,
      };
    },
  };
}

export function buildTools(mode: McpMode): ToolDef[] {
  const createInput = createInputSchema(mode === 'local');
  const listInput = queryInputSchema('/shorts');
  const postsInput = queryInputSchema('/posts');
  const waitInput: ObjectSchema = {
    ...REQUEST_ID_INPUT,
    properties: {
      ...REQUEST_ID_INPUT.properties,
      timeoutSeconds: { type: 'number', minimum: 0, maximum: WAIT_MAX_SECONDS, default: WAIT_DEFAULT_SECONDS,
        description: `seconds to wait at most (0-${WAIT_MAX_SECONDS}); keep it under your client's request timeout` },
    },
  };
  const source = mode === 'local' ? 'exactly one of file, url or fileUrl' : 'exactly one of url or fileUrl';
  const scheduleInput = requestBodyInputSchema('SchedulePostRequest');
  const accountsInput: ObjectSchema = {
    type: 'object', additionalProperties: false,
    properties: { platform: { type: 'string', enum: [...PLATFORMS], description: 'only accounts of this platform' } },
  };
  const postIdInput: ObjectSchema = {
    type: 'object', additionalProperties: false,
    properties: { postId: { type: 'string', minLength: 1, description: 'the id schedule_post or list_posts gave' } },
    required: ['postId'],
  };
  // Who publishes a scheduled post when its time comes.
  const publisher = mode === 'local'
    ? 'In local mode nothing publishes by itself: `shorts posts run --watch` (or `shorts serve` on the same data folder) does.'
    : 'The server publishes it at its time.';
  const renderInput = renderInputSchema();
  const exportInput: ObjectSchema = {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...REQUEST_ID_INPUT.properties,
      shortId: { type: 'string', pattern: '^[0-9a-f-]{36}$', description: "a clip's id; leave it out for every clip of the request on one timeline" },
      // The cover is an image, not text: get_request's thumbnail_url links it.
      format: { type: 'string', enum: TEXT_EXPORT_FORMATS, description: 'what to export' },
    },
    required: ['requestId', 'format'],
  };
  return [
    {
      name: 'create_shorts',
      title: 'Create short clips from a video',
      description: `Creates vertical, captioned short clips from a range of a long video: ${source}, plus start and end in seconds `
        + (mode === 'local'
          ? '(end - start between 60 and 18000; with file, leave both out for the whole recording, ranked as one). '
          : '(end - start between 60 and 1200). ')
        + 'Every other field is an option with the default shown in the schema. '
        + `${CREATE_DESCRIPTIONS[mode]} Then call wait_for_request or get_status, and get_request for the clips.`,
      inputSchema: createInput,
      outputSchema: outputSchema('CreateResponse'),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run(args, { backend }) {
        const body = { ...args };
        // As `shorts create --file`: a file on this machine is transcribed in the language its speech is in unless told.
        if (mode === 'local' && body.file !== undefined && body.language === undefined) body.language = 'auto';
        const r = await backend.create(body);
        const lines = [`request ${r.requestId} accepted (${mode === 'local' ? 'local mode, no credit taken' : '1 credit used'})`,
          `queue position ${r.queuePosition ?? 'none (starting)'}, estimated completion ${r.estimatedCompletionTime}`];
        if (r.timeAdjustment) {
          const { original, adjusted } = r.timeAdjustment;
          lines.push(`range adjusted to the video's length: ${original.start}-${original.end} s -> ${adjusted.start}-${adjusted.end} s`);
        }
        lines.push('next: wait_for_request or get_status with this requestId');
        return { structured: { ...r }, summary: lines.join('\n') };
      },
    },
    {
      name: 'get_status',
      title: 'Status of a request',
      description: 'Status, step and progress (0-100) of a request; failureReason when it failed.',
      inputSchema: REQUEST_ID_INPUT,
      outputSchema: outputSchema('Status'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, REQUEST_ID_INPUT);
        const s = await backend.status(str(args, 'requestId'));
        return { structured: { ...s }, summary: statusSummary(s) };
      },
    },
    {
      name: 'wait_for_request',
      title: 'Wait for a request to finish',
      description: `Blocks until the request is completed, failed or cancelled, or until timeoutSeconds (default ${WAIT_DEFAULT_SECONDS}) pass, `
        + 'and returns its status (not finished yet: call again). Sends progress notifications when the call carries a progressToken. '
        + 'Does not cancel anything when it gives up.',
      inputSchema: waitInput,
      outputSchema: outputSchema('Status'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, ctx) {
        checkKnown(args, waitInput);
        const id = str(args, 'requestId');
        const raw = args.timeoutSeconds ?? WAIT_DEFAULT_SECONDS;
        if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0 || raw > WAIT_MAX_SECONDS)
          throw new ShortsError('invalid_request', `timeoutSeconds must be a number from 0 to ${WAIT_MAX_SECONDS}`, { field: 'timeoutSeconds' });
        const s = await waitFor(id, raw * 1000, ctx);
        return { structured: { ...s }, summary: statusSummary(s) };
      },
    },
    {
      name: 'get_request',
      title: 'A request with its clips',
      description: 'The request with its transcript sentences and its clips: title, viral_score (0-100), timestamps and video_url '
        + '(a temporary link on the API, a file:// URL in local mode). Call after the status is completed.',
      inputSchema: REQUEST_ID_INPUT,
      outputSchema: outputSchema('RequestDetail'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, REQUEST_ID_INPUT);
        const d = await backend.get(str(args, 'requestId'));
        return { structured: { ...d }, summary: detailSummary(d) };
      },
    },
    {
      name: 'list_requests',
      title: 'List requests',
      description: 'Requests of this account, newest first by default (paginated; filter by status).',
      inputSchema: listInput,
      outputSchema: outputSchema('RequestList'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, listInput);
        const r = await backend.list(toQuery(args));
        const lines = r.requests.map((q) => `${q.requestId} ${q.status} ${q.progress}% created ${q.createdAt} ${q.duration} s ${q.url}`);
        return { structured: { ...r }, summary: [...lines, pageLine(r.pagination)].join('\n') };
      },
    },
    {
      name: 'cancel_request',
      title: 'Cancel a request',
      description: 'Cancels a queued or processing request and stops its work at once. On the API the credit comes back only if it was still queued.',
      inputSchema: REQUEST_ID_INPUT,
      outputSchema: outputSchema('Cancelled'),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, REQUEST_ID_INPUT);
        const r = await backend.cancel(str(args, 'requestId'));
        return { structured: { ...r }, summary: `request ${r._id} cancelled` };
      },
    },
    {
      name: 'list_templates',
      title: 'Caption templates',
      description: 'Caption templates (templateId for create_shorts) with preview images, and the default one.',
      inputSchema: { type: 'object', additionalProperties: false, properties: {} },
      outputSchema: outputSchema('TemplateList'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, { type: 'object', properties: {} });
        const t = await backend.templates();
        const lines = t.templates.map((x) => `${x.templateId} ${x.displayName}${x.templateId === t.defaultTemplateId ? ' (default)' : ''}`);
        return { structured: { ...t }, summary: lines.join('\n') };
      },
    },
    catalogTool('list_music', 'Background music', '/music', 'music', 'MusicList', 'background music tracks (musicName)'),
    catalogTool('list_meme_hooks', 'Meme hooks', '/meme-hooks', 'memeHooks', 'MemeHookList', 'meme intro clips (memeHookName)'),
    catalogTool('list_game_videos', 'Game videos', '/game-videos', 'gameVideos', 'GameVideoList', 'gameplay videos for the split screen (gameVideoName)'),
    {
      name: 'list_posts',
      title: 'Social posts',
      description: 'Social posts made from clips, newest first (paginated; filters as the schema says).',
      inputSchema: postsInput,
      outputSchema: outputSchema('PostList'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, postsInput);
        const r = await backend.posts(toQuery(args));
        const lines = r.posts.map((p) => `${p.id} ${p.platform} ${p.status} ${p.scheduledAt} ${p.url ?? ''} ${p.title}`);
        return { structured: { ...r }, summary: [...lines, pageLine(r.pagination)].join('\n') };
      },
    },
    {
      name: 'list_connected_accounts',
      title: 'Connected platform accounts',
      description: 'The platform accounts clips can be posted to (connected with `shorts accounts connect` or the API), with their id for '
        + 'schedule_post and whether their token still works (status expired: connect it again).',
      inputSchema: accountsInput,
      outputSchema: outputSchema('ConnectedAccountList'),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, accountsInput);
        if (args.platform !== undefined && !PLATFORMS.includes(args.platform as Platform))
          throw new ShortsError('invalid_request', `platform must be one of ${PLATFORMS.join(', ')}`, { field: 'platform' });
        const accounts = await backend.connectedAccounts(args.platform as Platform | undefined);
        const lines = accounts.map((a) => `${a.id} ${a.platform} @${a.handle} ${a.status}`);
        return { structured: { accounts }, summary: lines.length ? lines.join('\n') : 'no connected accounts' };
      },
    },
    {
      name: 'schedule_post',
      title: 'Post a clip to a platform',
      description: 'Schedules one finished clip (shortId from get_request) on a platform\'s connected account (accountId from '
        + 'list_connected_accounts, or handle; neither when the platform has only one) at scheduledAt (ISO 8601; now when left out), '
        + 'with a title and description within the platform\'s limits. '
        + `${publisher} Follow it with list_posts; cancel_post while it is still scheduled.`,
      inputSchema: scheduleInput,
      outputSchema: outputSchema('Post'),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run(args, { backend }) {
        checkKnown(args, scheduleInput);
        const p = await backend.schedulePost(args);
        return { structured: { ...p }, summary: `post ${p.id}: ${p.platform} @${p.account.handle} ${p.status} at ${p.scheduledAt}` };
      },
    },
    {
      name: 'cancel_post',
      title: 'Cancel a scheduled post',
      description: 'Cancels a post that has not started publishing (a post being uploaded or already published cannot be: post_not_cancelable).',
      inputSchema: postIdInput,
      outputSchema: outputSchema('Post'),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, postIdInput);
        const p = await backend.cancelPost(str(args, 'postId'));
        return { structured: { ...p }, summary: `post ${p.id} ${p.status}` };
      },
    },
    {
      name: 'edit_short',
      title: 'Re-render one clip with changes',
      description: 'Re-renders one clip of a completed request (as shorts edit): a new range in source seconds (anywhere in the source), '
        + 'template, layout, captions on or off, hook title and title, CTA, music, background, and captionEdits to fix caption words '
        + '(numbers as in export_short json captionWords). Answers at once with the clip, recompiling true; call get_request until its '
        + 'recompiling is false (video_url, timestamps and duration then show the new render; editError says why if it failed and the clip '
        + 'stayed as it was). Costs no credit.',
      inputSchema: renderInput,
      outputSchema: outputSchema('Short'),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, renderInput);
        const { requestId: _r, shortId: _s, ...body } = args;
        const s = await backend.rerender(str(args, 'requestId'), str(args, 'shortId'), body);
        return { structured: { ...s }, summary: `clip ${s.id} is being re-rendered (recompiling ${String(s.recompiling)}): call get_request until recompiling is false` };
      },
    },
    {
      name: 'export_short',
      title: 'Export captions, the render plan or an editor project',
      description: 'A finished clip (or, without shortId, every clip of the request on one timeline) as text: srt or vtt captions in the clip\'s '
        + 'time, ass (as burned in), json (the render plan as rendered, with captionWords numbered for edit_short), edl (CMX3600), '
        + 'fcpxml (Final Cut Pro / DaVinci Resolve) or mlt (Shotcut / Kdenlive). The cover image is thumbnail_url in get_request.',
      inputSchema: exportInput,
      outputSchema: EXPORT_OUTPUT,
      annotations: { readOnlyHint: true, openWorldHint: false },
      async run(args, { backend }) {
        checkKnown(args, exportInput);
        const shortId = args.shortId === undefined ? null : str(args, 'shortId');
        if (!TEXT_EXPORT_FORMATS.includes(args.format as never))
          throw new ShortsError('invalid_request', `format must be one of ${TEXT_EXPORT_FORMATS.join(', ')} (the cover is thumbnail_url in get_request)`, { field: 'format' });
        const f = await backend.exportShort(str(args, 'requestId'), shortId, args.format as never);
        return { structured: { filename: f.filename, contentType: f.contentType, content: f.body.toString('utf8') }, summary: f.body.toString('utf8') };
      },
    },
  ];
}

/** Polls the status until it is terminal or `timeoutMs` pass; a client's cancellation of the call stops it early. */
async function waitFor(id: string, timeoutMs: number, ctx: ToolContext): Promise<StatusResponse> {
  const end = Date.now() + timeoutMs;
  let lastProgress = -1;
  for (let first = true; ; first = false) {
    const s = first || !ctx.backend.poll ? await ctx.backend.status(id) : await ctx.backend.poll(id);
    // MCP progress must only grow; a status read twice at the same percentage is not news.
    if (s.progress > lastProgress) {
      lastProgress = s.progress;
      await ctx.progress(s.progress, `${s.stepMessage} (${s.status})`);
    }
    const left = end - Date.now();
    if (TERMINAL.has(s.status) || left <= 0 || ctx.signal.aborted) return s;
    await sleep(Math.min(ctx.pollMs, left), ctx.signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
