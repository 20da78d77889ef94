// `shorts create`: flags (derived from the one option table) -> API body -> create -> run/wait with
// progress -> optional --out folder with the clips and request.json shaped like GET /shorts/:id.
// --no-wait (issue 15): print the request id (or the create response with --json) and exit; locally a
// detached runner process runs the request (runner.ts), remotely the server does.
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import ora from 'ora';
import { CREATE_OPTIONS, type OptionDef } from '../../api/create-options.js';
import type { ShortsClient } from '../../client/shorts-client.js';
import type { RequestDetail, StatusResponse } from '../../api/types.js';
import { CliError, EXIT } from '../cli-error.js';
import { liveProgress, note, printJson, printWarnings, progress, useColor } from '../output.js';
import { writeOutFolder } from '../out-folder.js';
import { LocalClient } from '../../client/local-client.js';
import { runnerLogPath, startDetachedRunner } from './runner.js';
import { refuseRemoteRange } from '../remote-range.js';

export function parseNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`"${value}" is not a number`);
  return n;
}

/** commander's camelCase attribute for an option's flag. */
export function attr(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function optionsFor(def: OptionDef): Option[] {
  const t = def.type;
  if (t.kind === 'boolean') {
    if (def.field === 'blurBackground') {
      return [new Option(`--${def.flag}`, def.description), new Option(`--no-${def.flag}`, 'solid template colour instead of a blur')];
    }
    // Booleans on by default are offered as --no-x; noClipping is spelled --no-clipping as in the spec.
    return def.defaultValue === true || def.field === 'noClipping'
      ? [new Option(`--no-${def.flag}`, def.description)]
      : [new Option(`--${def.flag}`, def.description)];
  }
  if (def.field === 'language') {
    // "auto" (whisper.cpp detects the language) is a local-mode value: the API keeps the spec's codes.
    return [new Option(`--${def.flag} <value>`, `${def.description}, or auto to detect it (local mode; the default for --file, else en)`)
      .choices(['auto', ...(t as { values: readonly string[] }).values])];
  }
  const o = new Option(`--${def.flag} <${t.kind === 'number' ? 'n' : 'value'}>`, def.description);
  if (t.kind === 'enum') o.choices([...t.values]);
  if (t.kind === 'number') o.argParser(parseNumber);
  return [o];
}

export function addCreateOptions(cmd: Command): Command {
  cmd.option('--file <path>', 'a video file on this machine (local mode)');
  for (const def of CREATE_OPTIONS) for (const o of optionsFor(def)) cmd.addOption(o);
  cmd.option('--out <dir>', 'write the clips, their covers and request.json into this folder');
  cmd.option('--json', 'print the finished request as JSON (stdout); with --no-wait, the create response');
  cmd.option('--no-wait', 'print the request id and exit at once (locally a background process runs it; `shorts wait ID` waits for it)');
  cmd.option('--idempotency-key <key>', 'remote: a key of your own for this create (e.g. your CI job id); running the same create again with it within 24 h returns the first request instead of making and charging a second');
  return cmd;
}

/** Turns parsed flags into the API body; only flags the user actually gave are sent. */
export function bodyFromFlags(flags: Record<string, unknown>, cmd: Command): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  if (given('file')) body.file = flags.file;
  for (const def of CREATE_OPTIONS) {
    const key = attr(def.flag);
    if (!given(key)) continue;
    body[def.field] = def.field === 'noClipping' ? flags[key] === false : flags[key];
  }
  // A file on this machine is transcribed in the language its speech is in unless told otherwise: the
  // spec's default "en" would transcribe Spanish speech as English gibberish (issue 11).
  if (body.file !== undefined && body.language === undefined) body.language = 'auto';
  return body;
}

export interface CreateFlags { json?: boolean; out?: string; wait?: boolean; idempotencyKey?: string; [k: string]: unknown }

export async function createCommand(client: ShortsClient, body: Record<string, unknown>, flags: CreateFlags): Promise<number> {
  if (Object.keys(body).length === 0) {
    if (!process.stdin.isTTY || !process.stderr.isTTY) throw new CliError('give a source (--file, --file-url or --url; remote mode also needs --start and --end); see `shorts create --help`', EXIT.usage);
    // Loaded only for a person at a terminal: the prompt library slows the start of every scripted create.
    const { askForCreateOptions } = await import('../prompts.js');
    Object.assign(body, await askForCreateOptions(client, undefined, { wholeFile: client instanceof LocalClient }));
    if (body.file !== undefined && body.language === undefined) body.language = 'auto';
  }
  // The API keeps the spec's range rule; local mode covers whole recordings (issue 15, remote-range.ts).
  if (!(client instanceof LocalClient)) refuseRemoteRange(body);
  if (flags.wait === false && flags.out) {
    throw new CliError('--out needs the finished clips, so it cannot go with --no-wait; run `shorts wait ID` and then `shorts get ID`', EXIT.usage);
  }
  if (flags.idempotencyKey !== undefined && client instanceof LocalClient) {
    throw new CliError('--idempotency-key is for a remote server (a local create has no answer to lose); drop it, or name a server with --remote (or SHORTS_REMOTE)', EXIT.usage);
  }
  const created = client instanceof LocalClient
    ? await client.create(body, { claim: flags.wait !== false })
    : await client.create(body, { idempotencyKey: flags.idempotencyKey });
  if (created.timeAdjustment) {
    const { original, adjusted } = created.timeAdjustment;
    note(`range adjusted to the video's length: ${original.start}-${original.end} s -> ${adjusted.start}-${adjusted.end} s`);
  }
  if (flags.wait === false) {
    if (client instanceof LocalClient) {
      const pid = await startDetachedRunner(client, created.requestId);
      progress(`request ${created.requestId} runs in the background (process ${pid}, log ${runnerLogPath(client.dataDir, created.requestId)})`);
    }
    if (flags.json) printJson(created);
    else process.stdout.write(`${created.requestId}\n`);
    return EXIT.ok;
  }
  // --json keeps stdout for the result only; progress still goes to stderr, as lines when it is not a terminal.
  const spinner = progressDisplay(liveProgress());
  if (!spinner.isEnabled) progress(`request ${created.requestId} created`);
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigint);
  let lastStep = '';
  let clips = '';
  let final: StatusResponse;
  try {
    final = await client.wait(created.requestId, {
      signal: interrupt.signal,
      onStatus: (s) => {
        spinner.text = `${s.stepMessage}${clips} ${s.progress}%`;
        if (!spinner.isEnabled && s.step !== lastStep) progress(`${s.stepMessage} (${s.progress}%)`);
        lastStep = s.step;
      },
      onClipRendered: (done, total) => {
        clips = ` rendered clip ${done}/${total}`;
        spinner.text = `Rendering clips:${clips}`;
        if (!spinner.isEnabled) progress(`rendered clip ${done}/${total}`);
      },
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigint);
  }
  printWarnings(final.warnings);
  if (final.status === 'cancelled') {
    spinner.warn(`request ${created.requestId} cancelled`);
    return interrupt.signal.aborted ? EXIT.interrupted : EXIT.failure;
  }
  if (final.status === 'failed') {
    spinner.fail(`request ${created.requestId} failed: ${final.failureReason ?? 'unknown reason'}`);
    if (flags.json) printJson(final);
    return EXIT.failure;
  }
  spinner.succeed(`request ${created.requestId} completed`);
  let detail = await client.get(created.requestId);
  if (flags.out) detail = await writeOutFolder(client, detail, path.resolve(flags.out));
  for (const s of detail.shorts.filter((x) => x.error)) note(`clip ${s.id} failed to render: ${s.errorMessage ?? ''}`);
  if (flags.json) printJson(detail);
  else printSummary(detail, flags.out);
  return EXIT.ok;
}

function printSummary(detail: RequestDetail, out: string | undefined): void {
  for (const [i, s] of detail.shorts.entries()) {
    const where = s.error ? `FAILED: ${s.errorMessage}` : s.video_url;
    process.stdout.write(`${i + 1}. [${s.viral_score}] ${s.title} (${s.startTimestamp.toFixed(1)}-${s.endTimestamp.toFixed(1)} s, ${s.duration.toFixed(1)} s)\n   ${where}\n`);
  }
  if (out) note(`clips and request.json written to ${out}`);
}

/**
 * ora on a terminal (uncoloured under NO_COLOR); plain lines on stderr otherwise (ora's disabled mode still
 * prints its frames). The outcome line (completed, failed) is not progress: --quiet keeps it.
 */
function progressDisplay(live: boolean) {
  if (live) return ora({ text: 'Waiting in queue...', stream: process.stderr, color: useColor(process.stderr) ? 'cyan' : false }).start();
  return {
    isEnabled: false,
    text: '',
    succeed: (t: string) => progress(t),
    fail: (t: string) => note(t),
    warn: (t: string) => note(t),
  };
}
