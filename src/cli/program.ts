// The commander program: one subcommand per API operation, each a plain async function that returns
// an exit code or throws. Nothing here prints errors; main.ts does.
import { Command, Option } from 'commander';
import type { ShortsClient } from '../client/shorts-client.js';
import { addCreateOptions, bodyFromFlags, createCommand } from './commands/create.js';
import { cancelCommand, getCommand, listCommand, statusCommand } from './commands/requests.js';
import { addEditOptions, editBodyFromFlags, editCommand } from './commands/edit.js';
import { registerExportCommand } from './commands/export.js';
import { catalogCommand, templatesCommand } from './commands/catalogs.js';
import { registerPostsCommand } from './commands/posts.js';
import { registerAccountsCommand } from './commands/accounts.js';
import { registerBatchCommand } from './commands/batch.js';
import type { ServeFlags } from './commands/serve.js';
import type { StudioFlags } from './commands/studio.js';
import type { WorkerFlags } from './commands/worker.js';
import { STAGE_QUEUES } from '../engine/jobs.js';
import { registerKeysCommand } from './commands/keys.js';
import { registerConfigCommand } from './commands/config.js';
import { registerWaitCommand } from './commands/wait.js';
import { registerRunnerCommand } from './commands/runner.js';
import { registerDbCommand } from './commands/db.js';
import { registerOutputOptions } from './output.js';
import { packageVersion } from '../package-version.js';
import { createEngine } from '../app/create-engine.js';
import { dataDir } from '../client/data-dir.js';

/** Global connection options: a remote `shorts serve` and its key (else env, saved config, local). */
export interface ConnectionOptions { remote?: string; apiKey?: string }
export type ClientFactory = (opts: ConnectionOptions) => ShortsClient;

export function buildProgram(makeClient: ClientFactory, setExit: (code: number) => void): Command {
  const program = new Command('shorts')
    .description('Turn long videos into ranked, captioned, vertical short clips.')
    .option('--remote <url>', 'use the Shorts API at this base URL (…/api/v1) instead of running locally')
    .option('--api-key <key>', 'API key for --remote')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();
  registerOutputOptions(program);
  const withClient = (fn: (c: ShortsClient) => Promise<number>) => async () => {
    const client = makeClient(program.opts<ConnectionOptions>());
    try {
      setExit(await fn(client));
    } finally {
      client.close();
    }
  };

  const create = addCreateOptions(program.command('create').description('create short clips from a video (locally in the foreground, or on the remote instance)'));
  create.action(async (flags: Record<string, unknown>, cmd: Command) => {
    await withClient((c) => createCommand(c, bodyFromFlags(flags, cmd), flags))();
  });

  const edit = addEditOptions(program.command('edit <requestId> <shortId>')
    .description('re-render one clip of a completed request: new range, template, layout, overlays, music or fixed caption words (no credit)'));
  edit.action(async (requestId: string, shortId: string, flags: Record<string, unknown>, cmd: Command) => {
    const body = await editBodyFromFlags(flags, cmd);
    await withClient((c) => editCommand(c, requestId, shortId, body, flags))();
  });

  program.command('status <id>').description('show the status of a request').option('--json', 'JSON output')
    .action((id: string, f: { json?: boolean }) => withClient((c) => statusCommand(c, id, f))());
  program.command('get <id>').description('show a request with its clips').option('--json', 'JSON output')
    .action((id: string, f: { json?: boolean }) => withClient((c) => getCommand(c, id, f))());
  program.command('list').description('list requests, newest first')
    .addOption(new Option('--status <status>', 'only requests in this status').choices(['queued', 'processing', 'completed', 'failed', 'cancelled']))
    .option('--page <n>', 'page number', '1').option('--limit <n>', 'items per page (1-100)', '20')
    .addOption(new Option('--sort-by <field>').choices(['createdAt', 'updatedAt']))
    .addOption(new Option('--sort-order <order>').choices(['asc', 'desc']))
    .option('--json', 'JSON output')
    .action((f: Record<string, string | undefined> & { json?: boolean }) => withClient((c) => listCommand(c, f))());
  program.command('cancel <id>').description('cancel a queued or running request').option('--json', 'JSON output')
    .action((id: string, f: { json?: boolean }) => withClient((c) => cancelCommand(c, id, f))());
  program.command('templates').description('list caption templates').option('--json', 'JSON output')
    .action((f: { json?: boolean }) => withClient((c) => templatesCommand(c, f))());
  for (const [name, kind, what] of [['music', 'music', 'background music tracks'], ['meme-hooks', 'memeHooks', 'meme intro clips'], ['game-videos', 'gameVideos', 'gameplay videos']] as const) {
    program.command(name).description(`list ${what}`).option('--page <n>', 'page number').option('--limit <n>', 'items per page (1-100)').option('--json', 'JSON output')
      .action((f: { json?: boolean; page?: string; limit?: string }) => withClient((c) => catalogCommand(c, kind, f))());
  }
  registerPostsCommand(program, withClient);
  program.command('mcp').description('serve every command above as tools of the Model Context Protocol over stdio, for AI agents (local or --remote)')
    // Loaded on use: the SDK (zod, ajv) would otherwise slow the start of every other command.
    .action(() => withClient(async (c) => (await import('./commands/mcp.js')).mcpCommand(c))());
  registerExportCommand(program, withClient);
  registerAccountsCommand(program, withClient);
  registerBatchCommand(program, withClient);
  registerWaitCommand(program, withClient);
  registerRunnerCommand(program, setExit);
  registerConfigCommand(program, setExit);
  registerDbCommand(program, setExit);
  registerKeysCommand(program, () => {
    const engine = createEngine({ dataDir: dataDir() });
    return { accounts: engine.accounts, close: () => { void engine.close(); } };
  }, setExit);
  program.command('serve').description('serve the Shorts API over HTTP, with workers that process requests')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '8080')
    .option('--workers <n>', 'jobs run at once (default 1; 0: an API process that runs none, beside `shorts worker` processes)')
    // Loaded on use, like mcp: the HTTP server, its MCP endpoint and the publishers slow every other command's start.
    .action(async (f: ServeFlags) => setExit(await (await import('./commands/serve.js')).serveCommand(f)));
  program.command('studio').description('open the web studio on this machine: the API server on 127.0.0.1 with the local data, signed in through a one-time link')
    .option('--host <host>', 'loopback address to listen on (the local studio is never reachable from elsewhere)', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '4321')
    .option('--no-open', 'print the sign-in link without opening a browser')
    .action(async (f: StudioFlags) => setExit(await (await import('./commands/studio.js')).studioCommand(f)));
  program.command('worker').description('run the jobs of the API\'s requests (stage queues) with no HTTP server, beside `serve --workers 0`')
    .option('--queues <list>', `comma-separated queues to take jobs from: ${STAGE_QUEUES.join(', ')} (default all)`)
    .option('--concurrency <n>', 'jobs run at once (default 1)')
    .option('--metrics-port <port>', 'serve this worker\'s Prometheus /metrics on this port (stage durations are counted where stages run)')
    .option('--metrics-host <host>', 'address for --metrics-port (default 127.0.0.1)')
    .action(async (f: WorkerFlags) => setExit(await (await import('./commands/worker.js')).workerCommand(f)));
  return program;
}
