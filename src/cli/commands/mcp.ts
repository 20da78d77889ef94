// `shorts mcp`: the Model Context Protocol over stdio, for AI agents. Local or remote like every other
// subcommand (the same --remote/--api-key flags, environment and saved settings). stdout carries only
// JSON-RPC; notes go to stderr. Runs until the client closes stdin or sends SIGINT/SIGTERM.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ShortsClient } from '../../client/shorts-client.js';
import { LocalClient } from '../../client/local-client.js';
import { createMcpServer } from '../../mcp/server.js';
import { LocalJobRunner } from '../../mcp/local-runner.js';
import { clientBackend } from '../../mcp/client-backend.js';
import { DEFAULT_POLL_INTERVAL_MS, RemoteClient } from '../../client/remote-client.js';
import { EXIT } from '../cli-error.js';
import { note } from '../output.js';

/**
 * In-process status reads are free; a remote server's are counted against the account's hourly limit, so
 * remote mode polls as `shorts create` does (the client's SHORTS_POLL_INTERVAL_MS, default 10 s).
 */
const LOCAL_POLL_MS = 1000;

export async function mcpCommand(client: ShortsClient): Promise<number> {
  const local = client instanceof LocalClient ? client : null;
  const runner = local ? new LocalJobRunner(local, note) : null;
  const server = createMcpServer(runner ? runner.backend() : clientBackend(client), {
    mode: runner ? 'local' : 'remote',
    pollMs: runner ? LOCAL_POLL_MS : client instanceof RemoteClient ? client.pollIntervalMs : DEFAULT_POLL_INTERVAL_MS,
    exposeInternalErrors: true,
    log: note,
  });
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => { stop = resolve; });
  // The SDK's stdio client ends our stdin first and signals only if we linger.
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  server.onclose = stop;
  try {
    await server.connect(new StdioServerTransport());
    note(`shorts mcp: serving over stdio (${local ? `local mode, data in ${local.dataDir}` : 'remote mode'})`);
    await stopped;
  } finally {
    process.stdin.removeListener('end', stop);
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    await runner?.stop();
    await server.close();
  }
  return EXIT.ok;
}
