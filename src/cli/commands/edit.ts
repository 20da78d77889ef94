// `shorts edit REQUEST_ID SHORT_ID [flags]` (issue 14): re-render one clip with a new range, template,
// layout, overlays, music or fixed caption words. The flags are the per-clip create options under the
// create command's names and rules; locally the re-render runs in the foreground, remotely the CLI waits
// until the clip's `recompiling` is false (unless --no-wait).
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { CLIP_EDIT_OPTIONS, type OptionDef } from '../../api/create-options.js';
import type { EditBody, ShortsClient } from '../../client/shorts-client.js';
import type { ShortObject } from '../../api/types.js';
import { captionEditsFromFlags } from '../../pipeline/captions/caption-edits.js';
import { CliError, EXIT } from '../cli-error.js';
import { note, printJson, progress } from '../output.js';
import { attr, parseNumber } from './create.js';

/**
 * A clip's option can be turned either way, whatever the request asked: every boolean has `--x` and
 * `--no-x` (create offers one of them, the one that changes its default).
 */
function optionsFor(def: OptionDef): Option[] {
  const t = def.type;
  if (t.kind === 'boolean') {
    // The create wording without its "(--no-x disables)" remark: here both ways are offered.
    const what = def.description.replace(/\s*\(--no-[^)]*\)/, '');
    return [new Option(`--${def.flag}`, `${what} (${def.field}: true)`), new Option(`--no-${def.flag}`, `the opposite (${def.field}: false)`)];
  }
  const o = new Option(`--${def.flag} <${t.kind === 'number' ? 'n' : 'value'}>`, def.field === 'start' || def.field === 'end'
    ? `${def.field} of the clip, source seconds (anywhere in the source)` : def.description);
  if (t.kind === 'enum') o.choices([...t.values]);
  if (t.kind === 'number') o.argParser(parseNumber);
  return [o];
}

export function addEditOptions(cmd: Command): Command {
  for (const def of CLIP_EDIT_OPTIONS) for (const o of optionsFor(def)) cmd.addOption(o);
  cmd.option('--title <text>', 'the clip\'s title (drawn by the hook title)');
  cmd.option('--captions-file <file>', 'fixed captions: an SRT or WebVTT file (e.g. from `shorts export`), its cues replace the words in their times');
  cmd.option('--word <N=text>', 'fix caption word N (or CUE.N) as numbered in `shorts export --format json`; repeatable', (v: string, all: string[] = []) => [...all, v]);
  cmd.option('--no-wait', 'with --remote: return once the re-render is accepted');
  cmd.option('--json', 'print the clip as JSON (stdout)');
  return cmd;
}

/** The API body from the flags the user gave (only those). */
export async function editBodyFromFlags(flags: Record<string, unknown>, cmd: Command): Promise<EditBody> {
  const body: Record<string, unknown> = {};
  const given = (key: string) => cmd.getOptionValueSource(key) === 'cli';
  for (const def of CLIP_EDIT_OPTIONS) {
    const key = attr(def.flag);
    if (given(key)) body[def.field] = flags[key];
  }
  if (given('title')) body.title = flags.title;
  const file = given('captionsFile') ? String(flags.captionsFile) : undefined;
  let captionsFileText: string | undefined;
  if (file !== undefined) {
    try {
      captionsFileText = await readFile(file, 'utf8');
    } catch (e) {
      throw new CliError(`--captions-file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, EXIT.usage);
    }
  }
  const captionEdits = captionEditsFromFlags({ captionsFileText, words: flags.word as string[] | undefined });
  if (captionEdits) body.captionEdits = captionEdits;
  return body as EditBody;
}

export interface EditFlags { json?: boolean; wait?: boolean }

export async function editCommand(client: ShortsClient, requestId: string, shortId: string, body: EditBody, flags: EditFlags): Promise<number> {
  if (Object.keys(body).length === 0) throw new CliError('nothing to change: give at least one of --start, --end, --template-id, --layout, --captions, --title, --word … (see `shorts edit --help`)', EXIT.usage);
  const started = await client.rerender(requestId, shortId, body);
  if (client.mode === 'remote' && flags.wait === false) {
    note(`clip ${shortId} is being re-rendered; \`shorts get ${requestId}\` shows it once recompiling is false`);
    if (flags.json) printJson(started);
    return EXIT.ok;
  }
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once('SIGINT', onSigint);
  process.once('SIGTERM', onSigint);
  let shown = -1;
  let short: ShortObject;
  try {
    short = await client.waitRerender(requestId, shortId, {
      signal: interrupt.signal,
      onProgress: (f) => {
        const pct = Math.floor(f * 10) * 10;
        if (pct > shown) progress(`rendering clip ${shortId}: ${(shown = pct)}%`);
      },
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
    process.removeListener('SIGTERM', onSigint);
  }
  if (short.editError) {
    note(`the re-render of clip ${shortId} failed: ${short.editError} (the clip is as it was)`);
    if (flags.json) printJson(short);
    return interrupt.signal.aborted ? EXIT.interrupted : EXIT.failure;
  }
  if (flags.json) printJson(short);
  else process.stdout.write(`${short.title} (${short.startTimestamp.toFixed(1)}-${short.endTimestamp.toFixed(1)} s, ${short.duration.toFixed(1)} s)\n   ${short.video_url}\n`);
  return EXIT.ok;
}
