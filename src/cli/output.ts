// Output discipline: data to stdout (tables for people, --json for scripts), everything else to stderr.
import Table from 'cli-table3';

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(head: string[], rows: (string | number | boolean | null | undefined)[][]): void {
  const table = new Table({ head, style: { head: process.stdout.isTTY ? ['cyan'] : [] } });
  for (const row of rows) table.push(row.map((c) => (c === null || c === undefined ? '' : String(c))));
  process.stdout.write(`${table.toString()}\n`);
}

export function printPagination(p: { page: number; totalPages: number; totalCount: number }): void {
  process.stderr.write(`page ${p.page} of ${Math.max(p.totalPages, 1)} (${p.totalCount} in all)\n`);
}

export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A request's warnings (e.g. speech not in the requested language), one stderr line each. */
export function printWarnings(warnings: readonly string[] | undefined): void {
  for (const w of warnings ?? []) note(`warning: ${w}`);
}
