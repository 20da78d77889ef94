// The MCP backend over a ShortsClient (local or remote): its own operations, plus posts and connected
// accounts through the clients of those resources (which speak to the same store or server).
import { accountsClient } from '../client/accounts-client.js';
import { postsClient, type ScheduleBody } from '../client/posts-client.js';
import type { ShortsClient } from '../client/shorts-client.js';
import type { McpBackend } from './tools.js';

/** schedule_post, cancel_post and list_connected_accounts over a client. */
function postsBackend(client: ShortsClient): Pick<McpBackend, 'connectedAccounts' | 'schedulePost' | 'cancelPost'> {
  const accounts = accountsClient(client);
  const posts = postsClient(client);
  return {
    connectedAccounts: (platform) => accounts.list(platform),
    // The tool has checked the fields against the schema; the service checks the values, as for the API.
    schedulePost: (body) => posts.schedule(body as unknown as ScheduleBody),
    cancelPost: (id) => posts.cancel(id),
  };
}

/** Every tool's operation over a client (remote mode of `shorts mcp`; local mode starts jobs in the background on top). */
export function clientBackend(c: ShortsClient): McpBackend {
  return {
    create: (body) => c.create(body),
    status: (id) => c.status(id),
    get: (id) => c.get(id),
    list: (q) => c.list(q),
    cancel: (id) => c.cancel(id),
    templates: () => c.templates(),
    music: (q) => c.music(q),
    memeHooks: (q) => c.memeHooks(q),
    gameVideos: (q) => c.gameVideos(q),
    posts: (q) => c.posts(q),
    rerender: (id, shortId, body) => c.rerender(id, shortId, body),
    exportShort: (id, shortId, format) => c.exportShort(id, shortId, format),
    ...postsBackend(c),
  };
}
