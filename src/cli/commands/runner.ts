// `create --no-wait` in local mode: the request is created in this process and run by a detached `shorts`
// child (the hidden `run-detached <id>` subcommand) that outlives it. The child's stdout and stderr go to
// <data dir>/runners/<id>.log (not inside jobs/<id>/: the engine removes that folder when a request fails or
// is cancelled, just when the log is wanted); it takes the request's lease (issue 22), so `shorts wait` from
// anywhere follows it, `shorts cancel` stops it, and a runner that was killed is told from a live one by its
// lease running out.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { LocalClient } from '../../client/local-client.js';
import { dataDir } from '../../client/data-dir.js';
import { EXIT } from '../cli-error.js';

/** The CLI's entry point (dist/cli/main.js), run again by the detached child. */
const MAIN = fileURLToPath(new URL('../main.js', import.meta.url));
/** How long `create --no-wait` waits for its runner to record itself (node's start on a loaded machine). */
const RUNNER_START_MS = 30_000;

export const RUNNER_COMMAND = 'run-detached';

export function runnerLogPath(root: string, id: string): string {
  return path.join(root, 'runners', `${id}.log`);
}

/**
 * Starts the detached runner of an unclaimed local request and returns once it has taken it, so when
 * `create --no-wait` exits the request is the runner's (a `shorts wait` started right after follows it,
 * never runs it a second time). If the runner does not take it, the request stays queued and unclaimed:
 * `shorts wait ID` runs it; the error says so.
 */
export async function startDetachedRunner(client: LocalClient, id: string): Promise<number> {
  const log = runnerLogPath(client.dataDir, id);
  mkdirSync(path.dirname(log), { recursive: true });
  const fd = openSync(log, 'a');
  let exited: number | null | undefined;
  let pid: number | undefined;
  try {
    // detached: its own session, so Ctrl-C in the terminal and the parent's exit do not reach it. The data
    // dir is passed explicitly: the child must open this store whatever its own settings would choose.
    const child = spawn(process.execPath, [MAIN, RUNNER_COMMAND, id], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: { ...process.env, SHORTS_DATA_DIR: client.dataDir },
    });
    child.on('exit', (code) => { exited = code; });
    child.on('error', () => { exited = -1; });
    child.unref();
    pid = child.pid;
  } finally {
    closeSync(fd);
  }
  const deadline = Date.now() + RUNNER_START_MS;
  for (;;) {
    // Held by another owner: the runner (or a `shorts wait` quicker than node's start); either way not ours to run.
    const holder = await client.leases.leases.holder({ kind: 'request', id });
    if (holder !== null && holder.owner !== client.leases.owner) return pid ?? -1;
    // Already finished: nothing to run.
    if ((await client.store.getRequest(id))?.status !== 'queued') return pid ?? -1;
    if (exited !== undefined || Date.now() > deadline) {
      throw new Error(`the runner of request ${id} did not start (see ${log}); the request is queued: \`shorts wait ${id}\` runs it`);
    }
    await sleep(50);
  }
}

/** The hidden subcommand the detached child runs. Its output is the runner.log: one line per step. */
export function registerRunnerCommand(program: Command, setExit: (code: number) => void): void {
  program.command(`${RUNNER_COMMAND} <id>`, { hidden: true })
    .description('run a queued local request in this process (started by create --no-wait)')
    .action(async (id: string) => {
      const client = new LocalClient(dataDir(), (line) => process.stdout.write(`${stamp()} ${line}\n`));
      const interrupt = new AbortController();
      // SIGTERM (a shutdown, `kill`) cancels the request as Ctrl-C cancels a foreground create; SIGHUP is
      // ignored: the runner has no terminal to lose.
      const onSignal = () => interrupt.abort();
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      process.on('SIGHUP', () => {});
      try {
        let last = '';
        const { ran, status } = await client.runDetached(id, {
          signal: interrupt.signal,
          onStatus: (s) => {
            if (s.step !== last) process.stdout.write(`${stamp()} ${s.stepMessage} (${s.progress}%)\n`);
            last = s.step;
          },
          onClipRendered: (done, total) => process.stdout.write(`${stamp()} rendered clip ${done}/${total}\n`),
        });
        if (!ran) process.stdout.write(`${stamp()} request ${id} is ${status.status} and run by another process; nothing to do\n`);
        else process.stdout.write(`${stamp()} request ${id} ${status.status}${status.failureReason ? `: ${status.failureReason}` : ''}\n`);
        setExit(status.status === 'completed' || !ran ? EXIT.ok : EXIT.failure);
      } finally {
        process.removeListener('SIGTERM', onSignal);
        process.removeListener('SIGINT', onSignal);
        client.close();
      }
    });
}

function stamp(): string {
  return new Date().toISOString();
}
