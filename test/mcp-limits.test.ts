// The tools of /mcp count against the limiter of the endpoint each stands for (create_shorts against Video
// creation, get_status against Status check …), so an agent cannot get round a limit by calling a tool
// instead of the endpoint; wait_for_request counts once, not once per in-process status read. Real SQLite
// store, real limiter and Service, the SDK's own client over its in-memory transport.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { AccountStore } from '../src/service/accounts.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { Service } from '../src/service/service.js';
import { SqlitePostStore } from '../src/adapters/sqlite/post-store.js';
import { postsStack } from './helpers/posts-stack.js';
import { RateLimiter } from '../src/server/rate-limit.js';
import { SqliteRateLimits } from '../src/adapters/sqlite/rate-limits.js';
import { serviceBackend } from '../src/server/mcp-handler.js';
import { createMcpServer } from '../src/mcp/server.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';

let dir: string;
let store: SqliteRequestStore;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-limits-'));
  store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
  const accounts = new AccountStore(new SqliteAccounts(store.db));
  // A frozen clock: the windows are aligned to the UTC minute, and a minute turning between the calls below
  // (about 2 % of runs: they span a second) reset the counts and failed the test once in CI.
  const limiter = new RateLimiter(new SqliteRateLimits(store.db), { now: () => Date.UTC(2026, 0, 1, 0, 0, 30), limiters: { videoCreation: { limit: 2, windowSec: 60 }, statusCheck: { limit: 2, windowSec: 60 } } });
  const account = await accounts.createAccount({ email: 'agent@example.com', credits: 5 });
  const auth = await accounts.authenticate((await accounts.createKey(account.id)).key);
  const backend = serviceBackend(new Service(store, { blobs: new FsBlobStore(store.dataDir), credits: accounts, posts: new SqlitePostStore(store.db) }), postsStack(store).posts, auth, async (a, name) => {
    const r = await limiter.check(a.keyId, a.account, name);
    if (r.error) throw r.error;
  });
  const server = createMcpServer(backend, { mode: 'serve', pollMs: 10, exposeInternalErrors: false, log: () => {} });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: 'limits-test', version: '1' });
  await client.connect(b);
});

afterAll(async () => {
  await client.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function code(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await client.callTool({ name, arguments: args }) as CallToolResult;
  expect(r.isError).toBe(true);
  const envelope = (r.content as { text: string }[])[1]!.text;
  return (JSON.parse(envelope) as { error: { code: string } }).error.code;
}

describe('/mcp tools and the rate limits', () => {
  let requestId: string;
  it('create_shorts is a creation: the third one in the minute is refused with rate_limit_exceeded', async () => {
    // No worker here: the request stays queued, which is what the wait below needs.
    const r = await client.callTool({ name: 'create_shorts', arguments: { fileUrl: 'https://example.com/a.mp4', start: 0, end: 60 } }) as CallToolResult;
    expect(r.isError).toBeFalsy();
    requestId = (r.structuredContent as { requestId: string }).requestId;
    // Counted even though the body is refused, as POST /shorts/create is.
    expect(await code('create_shorts', { start: 0, end: 60 })).toBe('invalid_request');
    expect(await code('create_shorts', { fileUrl: 'https://example.com/b.mp4', start: 0, end: 60 })).toBe('rate_limit_exceeded');
  });

  it('wait_for_request counts once against Status check however often it looks (every 10 ms for 1 s here)', async () => {
    const waited = await client.callTool({ name: 'wait_for_request', arguments: { requestId, timeoutSeconds: 1 } }) as CallToolResult;
    expect(waited.isError).toBeFalsy();
    expect((waited.structuredContent as { status: string }).status).toBe('queued');
    const status = await client.callTool({ name: 'get_status', arguments: { requestId } }) as CallToolResult;
    expect(status.isError).toBeFalsy();
    expect(await code('get_status', { requestId })).toBe('rate_limit_exceeded');
  });
});
