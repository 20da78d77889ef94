// The MCP server over any backend: the low-level SDK Server with ListTools/CallTool handlers, because
// the tool schemas are JSON Schema derived from the option table and the OpenAPI document (one source of
// truth, no zod copy). Failures are tool results with isError that name the spec's error code.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '../package-version.js';
import { ShortsError } from '../errors.js';
import { buildTools, type McpBackend, type McpMode, type ToolDef } from './tools.js';

export interface McpServerOptions {
  mode: McpMode;
  /** How often wait_for_request reads the status. */
  pollMs: number;
  /**
   * Whether an unexpected error's message may be shown to the caller: yes on the user's own machine
   * (stdio), no on `serve`, where it could name server paths (it is logged instead).
   */
  exposeInternalErrors: boolean;
  log?: (line: string) => void;
}

const INSTRUCTIONS = 'Turns long videos into ranked, captioned, vertical short clips. Typical use: create_shorts (a video URL, or a file in '
  + 'local mode, and a 60-1200 s range) returns a requestId at once; wait_for_request (or get_status) until it is completed; get_request '
  + 'lists the clips with their video_url. list_templates, list_music, list_meme_hooks and list_game_videos give the names create_shorts accepts.';

export function errorResult(e: unknown, opts: Pick<McpServerOptions, 'exposeInternalErrors' | 'log'>): CallToolResult {
  let error: { code: string; message: string; details?: Record<string, unknown> };
  if (e instanceof ShortsError) error = { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
  else {
    const message = e instanceof Error ? e.message : String(e);
    if (!opts.exposeInternalErrors) opts.log?.(`internal error in an MCP tool: ${e instanceof Error ? (e.stack ?? message) : message}`);
    error = { code: 'internal_error', message: opts.exposeInternalErrors ? message : 'internal error' };
  }
  // The second block is the API's error envelope, for callers that parse rather than read.
  return { isError: true, content: [{ type: 'text', text: `error (${error.code}): ${error.message}` }, { type: 'text', text: JSON.stringify({ error }) }] };
}

/** Tool definitions hold no state (the backend comes with each call), so `/mcp` builds them once per mode, not per request. */
const toolsByMode = new Map<McpMode, Map<string, ToolDef>>();
function toolsFor(mode: McpMode): Map<string, ToolDef> {
  let tools = toolsByMode.get(mode);
  if (!tools) toolsByMode.set(mode, tools = new Map(buildTools(mode).map((t) => [t.name, t])));
  return tools;
}

export function createMcpServer(backend: McpBackend, opts: McpServerOptions): Server {
  const tools = toolsFor(opts.mode);
  const server = new Server({ name: 'shortwright', title: 'Shorts (shortwright)', version: packageVersion() },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((t) => ({
      name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${request.params.name}"; tools/list names them`);
    const token = request.params._meta?.progressToken;
    try {
      const { structured, summary } = await tool.run(request.params.arguments ?? {}, {
        backend,
        signal: extra.signal,
        pollMs: opts.pollMs,
        progress: async (progress, message) => {
          if (token === undefined) return;
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100, message } });
        },
      });
      // The serialized JSON as well: clients that ignore structuredContent still get the data (MCP spec advice).
      return { structuredContent: structured, content: [{ type: 'text', text: `${summary}\n\n${JSON.stringify(structured)}` }] };
    } catch (e) {
      return errorResult(e, opts);
    }
  });
  return server;
}
