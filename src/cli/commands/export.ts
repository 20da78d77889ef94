// `shorts export REQUEST_ID [SHORT_ID] --format F [--out FILE]` (issue 14): one clip's export, or the whole
// request's (timelines with every clip in rank order). Text formats go to stdout without --out; a cover
// (jpg) needs --out or a redirected stdout, never a terminal.
import { existsSync, statSync } from 'node:fs';
import { writeFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { ShortsClient } from '../../client/shorts-client.js';
import { EXPORT_FORMATS, FORMAT_INFO, type ExportFormat } from '../../api/export-formats.js';
import { CliError, EXIT } from '../cli-error.js';
import { note } from '../output.js';

export interface ExportFlags { format: ExportFormat; out?: string }

export async function exportCommand(client: ShortsClient, requestId: string, shortId: string | undefined, flags: ExportFlags): Promise<number> {
  const info = FORMAT_INFO[flags.format];
  if (!flags.out && !info.text && process.stdout.isTTY) {
    throw new CliError(`${flags.format} is binary: give --out FILE (or redirect stdout)`, EXIT.usage);
  }
  const file = await client.exportShort(requestId, shortId ?? null, flags.format);
  if (!flags.out) {
    await new Promise<void>((resolve, reject) => process.stdout.write(file.body, (e) => (e ? reject(e) : resolve())));
    return EXIT.ok;
  }
  // --out naming a folder (an existing one, or any path ending in /) writes the export's own file name into it.
  const folder = flags.out.endsWith(path.sep) || flags.out.endsWith('/') || (existsSync(flags.out) && statSync(flags.out).isDirectory());
  const dest = folder ? path.join(flags.out, file.filename) : flags.out;
  const part = `${dest}.${process.pid}.part`;
  try {
    await writeFile(part, file.body);
    await rename(part, dest);
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  }
  note(`${info.what}: ${dest} (${file.body.length} bytes)`);
  return EXIT.ok;
}

/** Registers `export` on the program; `withClient` is program.ts's (opens the local or remote client, closes it). */
export function registerExportCommand(program: Command, withClient: (fn: (c: ShortsClient) => Promise<number>) => () => Promise<void>): void {
  program.command('export <requestId> [shortId]')
    .description('export a clip (or, without SHORT_ID, every clip of the request on one timeline): captions, the render plan, an editor project or the cover')
    .addOption(new Option('--format <format>', EXPORT_FORMATS.map((f) => `${f}: ${FORMAT_INFO[f].what}`).join('; ')).choices([...EXPORT_FORMATS]).makeOptionMandatory())
    .option('--out <file>', 'write to this file, or into this folder under the export\'s own name (<shortId>.<format>); default stdout')
    .action((requestId: string, shortId: string | undefined, flags: ExportFlags) =>
      withClient((c) => exportCommand(c, requestId, shortId, flags))());
}
