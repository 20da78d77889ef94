// `shorts worker` processes for the stage-queue tests (issue 24): start one on some queues and read its log.
import { startCli } from './cli.js';

export interface WorkerProcess { log: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; kill(signal: NodeJS.Signals): void }

export function startWorkerProcess(queues: string, env: NodeJS.ProcessEnv): WorkerProcess {
  const { child, done, stderrSoFar } = startCli(['worker', '--queues', queues], env);
  return { log: stderrSoFar, exited: done.then((r) => ({ code: r.code, signal: r.signal })), kill: (s) => { child.kill(s); } };
}

/** The queues of the jobs a worker's log says it started (`<queue>/<job id> started`). */
export function queuesRun(log: string): string[] {
  return [...new Set([...log.matchAll(/ (\w+)\/\S+ started/g)].map((m) => m[1]!))].sort();
}
