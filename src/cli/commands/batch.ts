// `shorts batch SOURCE… | --manifest FILE`: many videos in one command, for CI scripts and for a folder of
// recordings. Each item gets the folder `create --out` writes; `<out>/batch.json` is the report and the
// state a re-run resumes from; the exit code is 0 only when every item completed (--allow-failures N).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ShortsClient } from '../../client/shorts-client.js';
import { LocalClient } from '../../client/local-client.js';
import { CREATE_OPTIONS } from '../../api/create-options.js';
import { CliError, EXIT } from '../cli-error.js';
import { isQuiet, liveProgress, note, printJson } from '../output.js';
import { addCreateOptions, attr, bodyFromFlags } from './create.js';
import { planBatch } from '../batch/plan.js';
import { loadState } from '../batch/state.js';
import { mergeState, runBatch } from '../batch/runner.js';
import { LineProgress, LiveProgress, clock, type Throughput } from '../batch/progress.js';
import { writeJunit } from '../batch/junit.js';
import { lockBatchFolder } from '../batch/lock.js';
import { DEFAULT_REMOTE_JOBS, defaultLocalJobs } from '../batch/concurrency.js';

export interface BatchFlags {
  manifest?: string;
  out: string;
  jobs?: number;
  retryFailed?: boolean;
  json?: boolean;
  junit?: string;
  allowFailures: number;
}

function wholeNumber(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be a whole number >= ${min}, got "${value}"`);
    return n;
  };
}

export async function batchCommand(client: ShortsClient, sources: string[], flags: BatchFlags, options: Record<string, unknown>): Promise<number> {
  const jobs = flags.jobs ?? (client.mode === 'local' ? defaultLocalJobs() : DEFAULT_REMOTE_JOBS);
  const plan = planBatch({ sources, manifest: flags.manifest, options, mode: client.mode });
  const dir = path.resolve(flags.out);
  mkdirSync(dir, { recursive: true });
  const { release, killedOwner } = await lockBatchFolder(dir);
  // A batch killed here a moment ago: its running requests are settled (interrupted) once their leases run out,
  // so this run starts each again instead of following a request nobody runs.
  if (killedOwner && client instanceof LocalClient) await client.settleOrphansOf(killedOwner);
  const interrupt = new AbortController();
  // First Ctrl-C: cancel what runs and save the state (those items become `interrupted`). A second one
  // leaves at once; the state on disk is whole (every write is atomic) and a re-run still continues.
  // "Second" means a second later: when-exit (loaded by the settings file's writer) answers the first
  // SIGINT by sending the process another one at once, which must not count as the user's second.
  let firstSignalMs = 0;
  const onSignal = () => {
    if (interrupt.signal.aborted) {
      if (Date.now() - firstSignalMs < 1000) return;
      release();
      process.exit(EXIT.interrupted);
    }
    firstSignalMs = Date.now();
    note('stopping: cancelling the running items (Ctrl-C again to leave at once); run the same command again to continue');
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const startedMs = Date.now();
  try {
    const { state, dropped } = mergeState(plan, loadState(dir), client.mode, jobs);
    if (dropped.length > 0) {
      note(`${dropped.length} item${dropped.length === 1 ? '' : 's'} of the earlier batch in ${dir} ${dropped.length === 1 ? 'is' : 'are'} not in this one (another source, range or options): left out of batch.json, their folders kept`);
    }
    let throughput: Throughput | null = null;
    const progress = liveProgress() ? new LiveProgress(process.stderr, () => throughput) : new LineProgress(note, isQuiet(), () => throughput);
    await runBatch(state, {
      client, dir, concurrency: jobs, retryFailed: Boolean(flags.retryFailed), signal: interrupt.signal, progress,
      onThroughput: (t) => { throughput = t; },
    });
    const t = state.totals;
    const skipped = state.items.filter((i) => (i.status === 'failed' || i.status === 'cancelled') && !flags.retryFailed).length;
    note(`batch: ${t.completed} of ${t.items} completed, ${t.failed + t.cancelled} failed${t.interrupted + t.pending ? `, ${t.interrupted + t.pending} not finished` : ''}`
      + ` (${clock((Date.now() - startedMs) / 1000)}); report ${path.join(dir, 'batch.json')}`
      + (skipped > 0 && t.failed + t.cancelled > 0 ? '; --retry-failed runs the failed ones again' : ''));
    if (flags.junit) writeJunit(path.resolve(flags.junit), state);
    if (flags.json) printJson(state);
    if (interrupt.signal.aborted) return EXIT.interrupted;
    const notCompleted = state.items.filter((i) => i.status !== 'completed').length;
    return notCompleted <= flags.allowFailures ? EXIT.ok : EXIT.failure;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    release();
  }
}

/** The create options as `batch` takes them: the same flags and rules, the source flags left out (SOURCE/--manifest name the sources). */
function addItemOptions(cmd: Command): void {
  const wanted = new Set(CREATE_OPTIONS.filter((d) => d.group !== 'source').map((d) => attr(d.flag)));
  for (const o of addCreateOptions(new Command()).options) if (wanted.has(o.attributeName())) cmd.addOption(o);
}

/** Registers `batch` on the program; `withClient` is program.ts's (opens the local or remote client, closes it). */
export function registerBatchCommand(program: Command, withClient: (fn: (c: ShortsClient) => Promise<number>) => () => Promise<void>): void {
  const cmd = program.command('batch [sources...]')
    .description('create clips from many videos: files, folders (their videos), globs, or a CSV / JSON Lines manifest; resumable, with a JSON and JUnit report')
    .option('--manifest <file>', 'CSV with a header row, or JSON Lines: columns file / fileUrl / url, start, end, out (the item\'s folder) and any create option by its API name (maxShorts, templateId, layout…); a cell overrides the command line')
    .option('--out <dir>', 'the batch folder: one folder per item (what create --out writes) and batch.json, the report and resumable state', 'shorts-batch')
    .addOption(new Option('-j, --jobs <n>', `items at once (local; default ${defaultLocalJobs()}, measured: two jobs at once on 2 cores get 1.4x the items per hour) or requests in flight (remote; default ${DEFAULT_REMOTE_JOBS})`).argParser(wholeNumber(1)))
    .option('--retry-failed', 'run failed and cancelled items again (a re-run otherwise skips them, as it skips completed ones)')
    .option('--junit <file>', 'also write a JUnit XML report (one test case per item)')
    .addOption(new Option('--allow-failures <n>', 'exit 0 even when up to N items did not complete').argParser(wholeNumber(0)).default(0))
    .option('--json', 'print batch.json on stdout at the end');
  addItemOptions(cmd);
  cmd.addHelpText('after', '\nSources: a file, a folder (its video files, sorted by name) or a glob (quote it: \'talks/**/*.mp4\'). Options given here apply to every item.\n'
    + 'Re-running the same command skips completed items, continues interrupted ones (Ctrl-C, kill -9) and, with --retry-failed, retries failed ones.\n'
    + 'Exit code: 0 every item completed (or at most --allow-failures did not), 1 otherwise, 2 a usage error, 130 interrupted.');
  cmd.action(async (sources: string[], flags: BatchFlags & Record<string, unknown>, command: Command) => {
    const options = bodyFromFlags(flags, command);
    await withClient((c) => {
      if (flags.manifest === undefined && sources.length === 0) throw new CliError('give the videos to process (files, folders or globs) or --manifest FILE; see `shorts batch --help`', EXIT.usage);
      return batchCommand(c, sources, flags, options);
    })();
  });
}
