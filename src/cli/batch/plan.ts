// From the command line to the list of items: SOURCE arguments (a file, a folder's videos, a glob) or a
// manifest's rows, each merged with the options given on the command line (a manifest cell overrides
// them), validated, named and keyed.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CreateBody } from '../../client/shorts-client.js';
import { CliError, EXIT } from '../cli-error.js';
import { refuseRemoteRange } from '../remote-range.js';
import { expandGlob, isGlob, naturalCompare } from './glob.js';
import { folderNameFor, itemKey, sourceOf, uniqueName, type PlannedItem } from './items.js';
import { readManifest } from './manifest.js';
import { batchValidationContext, checkItemBody } from './validate.js';

/** What a folder SOURCE contributes: the files a video player would open. */
export const VIDEO_EXTENSIONS = new Set(['.mp4', '.m4v', '.mov', '.mkv', '.webm', '.avi', '.mpg', '.mpeg', '.ts', '.mts', '.m2ts', '.flv', '.wmv', '.3gp', '.ogv']);

/** The files SOURCE arguments name, in order, each once. */
export function expandSources(sources: string[], cwd: string = process.cwd()): string[] {
  const files: string[] = [];
  for (const source of sources) {
    const full = path.resolve(cwd, source);
    if (existsSync(full)) {
      if (statSync(full).isDirectory()) {
        const videos = readdirSync(full, { withFileTypes: true })
          .filter((e) => (e.isFile() || e.isSymbolicLink()) && !e.name.startsWith('.') && VIDEO_EXTENSIONS.has(path.extname(e.name).toLowerCase()))
          .map((e) => e.name).sort(naturalCompare);
        if (videos.length === 0) throw new CliError(`the folder ${source} has no video files (${[...VIDEO_EXTENSIONS].join(' ')})`, EXIT.usage);
        files.push(...videos.map((v) => path.join(full, v)));
      } else files.push(full);
    } else if (isGlob(source)) {
      const matched = expandGlob(source, cwd);
      if (matched.length === 0) throw new CliError(`no file matches ${source}`, EXIT.usage);
      files.push(...matched);
    } else {
      throw new CliError(`${source}: no such file or folder`, EXIT.usage);
    }
  }
  return [...new Set(files)];
}

export interface PlanInput {
  sources: string[];
  manifest?: string;
  /** The create options given on the command line (API names), applied to every item. */
  options: Record<string, unknown>;
  mode: 'local' | 'remote';
  cwd?: string;
}

export function planBatch(input: PlanInput): PlannedItem[] {
  if (input.manifest && input.sources.length > 0) throw new CliError('give SOURCE arguments or --manifest, not both', EXIT.usage);
  if (!input.manifest && input.sources.length === 0) throw new CliError('give the videos to process: files, folders or globs, or --manifest FILE', EXIT.usage);
  const ctx = batchValidationContext(input.mode);
  const taken = new Set<string>();
  const items: PlannedItem[] = [];
  const add = (body: Record<string, unknown>, origin: string, out: string | undefined) => {
    // A file on this machine is transcribed in the language its speech is in unless told otherwise (as create).
    if (body.file !== undefined && body.language === undefined) body.language = 'auto';
    // The API's range rule, with the same words as a remote `create` (local mode covers whole recordings).
    if (input.mode === 'remote') {
      try {
        refuseRemoteRange(body);
      } catch (e) {
        if (e instanceof CliError) throw new CliError(`${origin}: ${e.message}`, e.exitCode);
        throw e;
      }
    }
    checkItemBody(body, ctx, origin);
    const key = itemKey(body as CreateBody);
    const twin = items.find((i) => i.key === key);
    if (twin) throw new CliError(`${origin}: the same source, range and options as ${twin.origin}`, EXIT.usage);
    const name = out ?? uniqueName(folderNameFor(sourceOf(body as CreateBody)), taken);
    items.push({ key, name, body: body as CreateBody, origin });
  };
  if (input.manifest) {
    const manifestName = path.basename(input.manifest);
    const rows = readManifest(path.resolve(input.cwd ?? process.cwd(), input.manifest));
    // Folders named by `out` are reserved first, so a generated name never takes one a later row asks for.
    for (const row of rows) {
      if (row.out === undefined) continue;
      const origin = `${manifestName} line ${row.line}`;
      if (row.out.trim() === '' || row.out.includes('\0')) throw new CliError(`${origin}: out must be a folder name`, EXIT.usage);
      if (taken.has(row.out.toLowerCase())) throw new CliError(`${origin}: out "${row.out}" is already another row's folder`, EXIT.usage);
      taken.add(row.out.toLowerCase());
    }
    for (const row of rows) add({ ...input.options, ...row.fields }, `${manifestName} line ${row.line}`, row.out);
  } else {
    const cwd = input.cwd ?? process.cwd();
    for (const file of expandSources(input.sources, cwd)) add({ ...input.options, file }, path.relative(cwd, file) || file, undefined);
  }
  return items;
}
