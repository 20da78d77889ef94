// `shorts worker [--queues LIST] [--concurrency N]` (issue 24): runs the jobs of the given stage queues (default
// all) with no HTTP server, beside API processes (`serve --workers 0`) that share its store and queues — so
// transcription can run on GPU machines and rendering on CPU ones. One line per job started and ended. On
// SIGINT/SIGTERM it stops taking jobs, hands the running ones back (they resume elsewhere from their
// checkpoints) and exits 0. Media links in webhooks are made from SHORTS_PUBLIC_URL (the API's address).
import { dataDir } from '../../client/data-dir.js';
import { STAGE_QUEUES, parseQueues } from '../../engine/jobs.js';
import { createApiEngine } from '../../server/api-engine.js';
import { startMetricsServer } from '../../server/metrics-endpoint.js';
import { setting } from '../../settings.js';
import { checkSecretKeySetting } from '../../posts/secret-key.js';
import { CliError, EXIT } from '../cli-error.js';
import { note } from '../output.js';

export interface WorkerFlags { queues?: string; concurrency?: string; metricsPort?: string; metricsHost?: string }

export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const queues = flags.queues === undefined ? undefined : parseQueues(flags.queues);
  if (flags.queues !== undefined && !queues) throw new CliError(`--queues takes names among ${STAGE_QUEUES.join(', ')}, comma-separated; got "${flags.queues}"`, EXIT.usage);
  const concurrency = flags.concurrency === undefined ? 1 : Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new CliError(`--concurrency must be a whole number >= 1, got "${flags.concurrency}"`, EXIT.usage);
  const metricsPort = flags.metricsPort === undefined ? undefined : Number(flags.metricsPort);
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) throw new CliError(`--metrics-port must be a port number (0-65535), got "${flags.metricsPort}"`, EXIT.usage);
  checkSecretKeySetting();
  const stamp = (line: string) => note(`${new Date().toISOString()} ${line}`);
  const { engine, worker: workers } = createApiEngine({
    dataDir: dataDir(), log: stamp,
    baseUrl: () => setting('SHORTS_PUBLIC_URL') ?? 'http://127.0.0.1:8080',
  });
  const worker = workers({ concurrency, queues });
  worker.start();
  // Posts are published by their own worker (src/posts/publish-worker.ts), on `publish`.
  const publishing = (queues ?? STAGE_QUEUES).includes('publish') ? engine.publishing({ scope: { kind: 'api' }, concurrency }) : null;
  publishing?.worker.start();
  // Stage durations and failures are counted in the process that runs the stages: Prometheus scrapes it here.
  const metricsServer = metricsPort === undefined ? null
    : await startMetricsServer({ metrics: engine.metrics, host: flags.metricsHost ?? '127.0.0.1', port: metricsPort, token: setting('SHORTS_METRICS_TOKEN') });
  if (metricsServer) stamp(`metrics on ${metricsServer.url}`);
  stamp(`shorts worker taking jobs of ${(queues ?? STAGE_QUEUES).join(', ')} (${concurrency} at a time)`);
  // The worker's own timers do not hold the process (serve's listening socket does): this one does, until a signal.
  const alive = setInterval(() => {}, 1 << 30);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      stamp(`${signal}: handing the running jobs back, then exiting`);
      void Promise.all([worker.stop(), publishing?.worker.stop(), metricsServer?.close()]).then(() => engine.close()).then(() => { clearInterval(alive); resolve(); });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return EXIT.ok;
}
