// `shorts serve`: the HTTP API with in-process workers, until SIGINT/SIGTERM. Running requests are
// left `processing` with their checkpoints on shutdown and resume on the next start.
import { dataDir } from '../../client/data-dir.js';
import { startServer } from '../../server/serve.js';
import { CliError, EXIT } from '../cli-error.js';
import { note } from '../output.js';

export interface ServeFlags { host: string; port: string; workers?: string }

export async function serveCommand(flags: ServeFlags): Promise<number> {
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number, got "${flags.port}"`, EXIT.usage);
  const workers = flags.workers === undefined ? undefined : Number(flags.workers);
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 0)) throw new CliError(`--workers must be a whole number >= 0 (0: an API process that runs no jobs), got "${flags.workers}"`, EXIT.usage);
  const stamp = (line: string) => note(`${new Date().toISOString()} ${line}`);
  const running = await startServer({ host: flags.host, port, dataDir: dataDir(), workers, log: stamp });
  // Scripts and tests read this line to learn the port when --port 0 was given.
  note(`shorts serve listening on ${running.url} (API at ${running.url}/api/v1)`);
  await untilStopped(running, stamp);
  return EXIT.ok;
}

/** Serves until SIGINT or SIGTERM, then stops cleanly: running requests are left to resume on the next start. */
export async function untilStopped(running: { close(): Promise<void> }, stamp: (line: string) => void): Promise<void> {
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      stamp(`${signal}: finishing; running requests resume on the next start`);
      void running.close().then(resolve);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}
