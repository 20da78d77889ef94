// `shorts wait ID…` (issue 15): waits for several requests at once, as a CI script does after
// `create --no-wait`. Locally a request another process runs (its detached runner, a batch) is followed
// in the store; one nobody runs is run here. Remotely the server is polled. One stdout line per request
// as it ends (`<id> <status>[: reason]`), or with --json one array of the final statuses at the end; exit
// 0 only when every request completed. Ctrl-C stops waiting: it cancels only requests this process runs
// (locally, those it took because nobody ran them), never a runner's or a server's.
import type { Command } from 'commander';
import ora from 'ora';
import type { ShortsClient } from '../../client/shorts-client.js';
import type { StatusResponse } from '../../api/types.js';
import { TERMINAL } from '../../ports/request-store.js';
import { ShortsError } from '../../errors.js';
import { EXIT } from '../cli-error.js';
import { liveProgress, printJson, printWarnings, progress, useColor } from '../output.js';

type WithClient = (fn: (c: ShortsClient) => Promise<number>) => () => Promise<void>;

/** A request's outcome in `--json`: its final status, or why it could not be waited for. */
export type WaitOutcome = StatusResponse | { _id: string; error: { code: string; message: string } };

export function registerWaitCommand(program: Command, withClient: WithClient): void {
  program.command('wait <ids...>')
    .description('wait for requests (e.g. made with create --no-wait) to finish; exit 0 only when all completed')
    .option('--json', 'print the final statuses as a JSON array (stdout)')
    .action((ids: string[], f: { json?: boolean }) => withClient((c) => waitCommand(c, ids, f))());
}

export async function waitCommand(client: ShortsClient, ids: string[], flags: { json?: boolean }): Promise<number> {
  const unique = [...new Set(ids)];
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const board = new Board(unique);
  try {
    const outcomes = await Promise.all(unique.map(async (id): Promise<WaitOutcome> => {
      let outcome: WaitOutcome;
      try {
        outcome = await client.wait(id, { signal: interrupt.signal, cancelOnAbort: false, onStatus: (s) => board.update(id, s) });
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        outcome = { _id: id, error: { code: e instanceof ShortsError ? e.code : 'error', message: e.message } };
      }
      board.done(id, outcome);
      if (!flags.json) process.stdout.write(`${line(id, outcome)}\n`);
      if ('status' in outcome) printWarnings(outcome.warnings?.map((w) => `${id}: ${w}`));
      return outcome;
    }));
    board.stop();
    if (flags.json) printJson(outcomes);
    if (outcomes.every((o) => 'status' in o && o.status === 'completed')) return EXIT.ok;
    return interrupt.signal.aborted ? EXIT.interrupted : EXIT.failure;
  } finally {
    board.stop();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** `<id> <status>[: reason]`: one word a script can match in the second column. */
function line(id: string, o: WaitOutcome): string {
  if (!('status' in o)) return `${id} error: ${o.error.message}`;
  if (o.status === 'failed') return `${id} failed: ${o.failureReason ?? 'unknown reason'}`;
  if (!TERMINAL.has(o.status)) return `${id} ${o.status}: still running, no longer waited for`;
  return `${id} ${o.status}`;
}

/** Progress on stderr: a spinner with where each request is on a terminal, a line per step otherwise. */
class Board {
  /** Progress shown per request still waited for. */
  private readonly state = new Map<string, string>();
  private readonly steps = new Map<string, string>();
  private readonly finished = new Set<string>();
  private readonly spinner;

  constructor(private readonly ids: string[]) {
    this.spinner = liveProgress()
      ? ora({ text: this.text(), stream: process.stderr, color: useColor(process.stderr) ? 'cyan' : false }).start()
      : null;
  }

  update(id: string, s: StatusResponse): void {
    if (this.spinner) {
      this.state.set(id, `${s.progress}%`);
      this.spinner.text = this.text();
    } else if (this.steps.get(id) !== s.step) {
      progress(`${id}: ${s.stepMessage} (${s.progress}%)`);
    }
    this.steps.set(id, s.step);
  }

  done(id: string, o: WaitOutcome): void {
    this.finished.add(id);
    if (this.spinner) {
      // The outcome line goes to stdout: clear the spinner first so the two do not interleave on a terminal.
      this.spinner.clear();
      if (this.finished.size === this.ids.length) this.spinner.stop();
      else this.spinner.text = this.text();
    }
  }

  stop(): void {
    this.spinner?.stop();
  }

  private text(): string {
    const running = this.ids.filter((id) => !this.finished.has(id)).map((id) => `${id} ${this.state.get(id) ?? '…'}`);
    return `waiting for ${running.length} of ${this.ids.length}: ${running.slice(0, 3).join(', ')}${running.length > 3 ? ', …' : ''}`;
  }
}
