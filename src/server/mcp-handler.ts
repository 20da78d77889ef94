// `/mcp` on `shorts serve`: MCP over Streamable HTTP, stateless (a fresh server and transport per POST,
// no session to keep or leak), for the account whose key the HTTP server has already checked. The tools
// call the in-process Service for that account, with the rules the HTTP routes add around it (a
// subscription for create and posts, each tool call counted against its endpoint's limiter); the HTTP
// layer has counted the HTTP request itself against the Standard limiter.
import type http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ShortsError } from '../errors.js';
import type { AuthContext } from '../service/accounts.js';
import type { Service } from '../service/service.js';
import type { LimiterName } from './rate-limit.js';
import { createMcpServer } from '../mcp/server.js';
import type { McpBackend } from '../mcp/tools.js';
import { exportLocal } from '../service/export-service.js';
import type { PostsService } from '../posts/posts-service.js';

/** As the API's JSON bodies. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Status reads are in-process here, so waiting can look often. */
const POLL_MS = 1000;

/** The ShortsClient operations for one account over the Service, as the HTTP routes call them. */
export function serviceBackend(service: Service, posts: PostsService, auth: AuthContext, limit: RateLimit = () => {}): McpBackend {
  const { account } = auth;
  const subscribed = () => {
    if (!account.subscriptionActive) throw new ShortsError('subscription_required', 'this account has no active subscription');
  };
  // The limiter of the endpoint each tool stands for: a create over MCP is a creation like POST /shorts/create,
  // so an agent cannot get round the Video creation limit by calling the tool instead of the endpoint.
  const limited = <A extends unknown[], R>(name: LimiterName, fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    await limit(auth, name);
    return fn(...args);
  };
  return {
    create: limited('videoCreation', async (body) => {
      subscribed();
      return service.create(account, body, 'api');
    }),
    status: limited('statusCheck', async (id) => service.status(account, id)),
    poll: async (id) => service.status(account, id),
    get: limited('statusCheck', async (id) => service.detail(account, id)),
    list: limited('listRequests', async (q) => service.list(account, 'api', q)),
    cancel: limited('standard', async (id) => service.cancel(account, id)),
    templates: limited('standard', async () => service.templates()),
    music: limited('statusCheck', async (q) => service.catalog('music', q)),
    memeHooks: limited('statusCheck', async (q) => service.catalog('memeHooks', q)),
    gameVideos: limited('statusCheck', async (q) => service.catalog('gameVideos', q)),
    // As their endpoints: a re-render counts like POST …/render, an export like GET …/export.
    rerender: limited('standard', async (id, shortId, body) => service.rerender(account, id, shortId, body)),
    exportShort: limited('statusCheck', async (id, shortId, format) => exportLocal(service, account, id, shortId, format)),
    posts: limited('posts', async (q) => {
      subscribed();
      return service.posts(account, q);
    }),
    // As GET /accounts, POST /posts and DELETE /posts/:id.
    connectedAccounts: limited('standard', async (platform) => posts.accounts.list(account.id, platform)),
    schedulePost: limited('standard', async (body) => {
      subscribed();
      return posts.schedule(account, body);
    }),
    cancelPost: limited('standard', async (id) => posts.cancel(account, id)),
  };
}

/** Counts one call against a limiter; throws the 429 error (rate_limit_exceeded, retryAfter) when it is spent. */
export type RateLimit = (auth: AuthContext, limiter: LimiterName) => Promise<void> | void;

export interface McpHttpDeps { service: Service; posts: PostsService; limit: RateLimit; log: (line: string) => void }

export function mcpHttpHandler(deps: McpHttpDeps): (req: http.IncomingMessage, res: http.ServerResponse, auth: AuthContext) => Promise<void> {
  return async (req, res, auth) => {
    // Stateless: no session to resume (GET would open a stream nothing writes to) or to end (DELETE).
    if (req.method !== 'POST') {
      const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `${req.method} is not supported on /mcp: this server is stateless; POST JSON-RPC messages` }, id: null });
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const server = createMcpServer(serviceBackend(deps.service, deps.posts, auth, deps.limit), { mode: 'serve', pollMs: POLL_MS, exposeInternalErrors: false, log: deps.log });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: MAX_BODY_BYTES });
    // When the client goes away (or the answer is sent), stop a wait_for_request still polling.
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
}
