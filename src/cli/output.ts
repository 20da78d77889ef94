// Output discipline: data to stdout (tables for people, --json for scripts), everything else to stderr.
// Colour only for a person at a terminal: never into a pipe or a file, never when NO_COLOR is set
// (https://no-color.org: present and not empty). Progress (spinners, step lines) is silenced by the global
// --quiet; warnings and errors are not, so a quiet script still learns why something failed.
import type { Command } from 'commander';
import Table from 'cli-table3';

let quiet = false;

/** Set by the global --quiet (registerOutputOptions). */
export function setQuiet(value: boolean): void {
  quiet = value;
}

export function isQuiet(): boolean {
  return quiet;
}

/** Whether ANSI colour may be written to this stream: a terminal, and NO_COLOR not set. */
export function useColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '');
}

/**
 * Whether a live display (spinner, redrawn lines) fits stderr: a terminal with a width, and progress not
 * silenced. A pseudo-terminal without a size (script(1) in CI, `docker run -t`) reports 0 columns, and ora
 * then counts its line as taking infinitely many rows and clears upwards forever: plain lines there.
 */
export function liveProgress(): boolean {
  return !quiet && Boolean(process.stderr.isTTY) && (process.stderr.columns ?? 0) > 0;
}

/** The global output options: --quiet, applied before any command runs. */
export function registerOutputOptions(program: Command): void {
  program.option('--quiet', 'no progress on stderr (spinners, step lines); warnings and errors still show');
  program.hook('preAction', (cmd) => setQuiet(Boolean(cmd.opts<{ quiet?: boolean }>().quiet)));
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(head: string[], rows: (string | number | boolean | null | undefined)[][]): void {
  // cli-table3 colours the border grey and the head cyan by default, whatever the stream is: both are off
  // unless a person reads it on a terminal.
  const colour = useColor(process.stdout);
  const table = new Table({ head, style: colour ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] } });
  for (const row of rows) table.push(row.map((c) => (c === null || c === undefined ? '' : String(c))));
  process.stdout.write(`${table.toString()}\n`);
}

export function printPagination(p: { page: number; totalPages: number; totalCount: number }): void {
  process.stderr.write(`page ${p.page} of ${Math.max(p.totalPages, 1)} (${p.totalCount} in all)\n`);
}

/** A line for the user on stderr (notes, warnings, errors): never silenced. */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A progress line on stderr (a step reached, a clip rendered): silenced by --quiet. */
export function progress(line: string): void {
  if (!quiet) process.stderr.write(`${line}\n`);
}

/** A request's warnings (e.g. speech not in the requested language), one stderr line each. */
export function printWarnings(warnings: readonly string[] | undefined): void {
  for (const w of warnings ?? []) note(`warning: ${w}`);
}
