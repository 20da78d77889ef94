// `shorts batch --manifest FILE`: one source per row, as CSV with a header row or as JSON Lines. Columns
// are the create body's API names (`file` / `fileUrl` / `url`, `start`, `end`, any option) plus `out`, the
// item's folder. CSV cells are text, so each is read by its option's type from the one option table
// (numbers, true/false); a cell that is not of that type is passed on as text and refused by the create
// validator with its usual words. An empty cell (or a JSON null) means "not given": the command line's
// value applies.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CREATE_OPTIONS } from '../../api/create-options.js';
import { CliError, EXIT } from '../cli-error.js';

/** One row: its line in the file (for messages), the body fields it gives and its `out` folder, if any. */
export interface ManifestRow {
  line: number;
  fields: Record<string, unknown>;
  out?: string;
}

const OPTION_BY_FIELD = new Map(CREATE_OPTIONS.map((o) => [o.field, o]));

export function readManifest(file: string): ManifestRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read the manifest ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.usage);
  }
  text = text.replace(/^\uFEFF/, ''); // a spreadsheet's byte-order mark is not part of the first column's name
  const name = path.basename(file);
  const jsonLines = /\.(jsonl|ndjson)$/i.test(file) || text.trimStart().startsWith('{');
  const rows = jsonLines ? parseJsonLines(text, name) : parseCsvRows(text, name);
  if (rows.length === 0) throw new CliError(`the manifest ${name} has no rows`, EXIT.usage);
  // Relative file paths are read from the manifest's folder, so a manifest travels with its videos.
  const base = path.dirname(path.resolve(file));
  for (const row of rows) {
    if (typeof row.fields.file === 'string' && row.fields.file !== '') row.fields.file = path.resolve(base, row.fields.file);
  }
  return rows;
}

function parseJsonLines(text: string, name: string): ManifestRow[] {
  const rows: ManifestRow[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new CliError(`${name} line ${i + 1}: not valid JSON (${(e as Error).message})`, EXIT.usage);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CliError(`${name} line ${i + 1}: each line must be a JSON object`, EXIT.usage);
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== '') fields[k] = v;
    rows.push(takeOut({ line: i + 1, fields }, name));
  }
  return rows;
}

function parseCsvRows(text: string, name: string): ManifestRow[] {
  const records = parseCsv(text);
  const header = records.shift();
  if (!header) return [];
  const columns = header.cells.map((c) => c.trim());
  const seen = new Set<string>();
  for (const c of columns) {
    if (c === '') throw new CliError(`${name} line ${header.line}: a column has no name`, EXIT.usage);
    if (seen.has(c)) throw new CliError(`${name} line ${header.line}: the column "${c}" appears twice`, EXIT.usage);
    seen.add(c);
  }
  const rows: ManifestRow[] = [];
  for (const record of records) {
    if (record.cells.every((c) => c.trim() === '')) continue;
    if (record.cells.length > columns.length) throw new CliError(`${name} line ${record.line}: ${record.cells.length} cells for ${columns.length} columns`, EXIT.usage);
    const fields: Record<string, unknown> = {};
    for (const [i, column] of columns.entries()) {
      const cell = (record.cells[i] ?? '').trim();
      if (cell !== '') fields[column] = cellValue(column, cell);
    }
    rows.push(takeOut({ line: record.line, fields }, name));
  }
  return rows;
}

function takeOut(row: ManifestRow, name: string): ManifestRow {
  if ('out' in row.fields) {
    const out = row.fields.out;
    if (typeof out !== 'string') throw new CliError(`${name} line ${row.line}: out must be a folder name`, EXIT.usage);
    row.out = out;
    delete row.fields.out;
  }
  return row;
}

/** A CSV cell by its column's type in the option table; anything that does not read as that type stays text. */
function cellValue(column: string, cell: string): unknown {
  const def = OPTION_BY_FIELD.get(column);
  if (!def) return cell;
  if (def.type.kind === 'number') {
    const n = Number(cell);
    return Number.isFinite(n) ? n : cell;
  }
  if (def.type.kind === 'boolean') {
    const lower = cell.toLowerCase();
    if (['true', 'yes', '1'].includes(lower)) return true;
    if (['false', 'no', '0'].includes(lower)) return false;
    return cell;
  }
  return cell;
}

interface CsvRecord { line: number; cells: string[] }

/** RFC 4180: quoted cells may hold commas, doubled quotes and line breaks; CRLF or LF line ends. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const endRecord = () => {
    cells.push(cell);
    records.push({ line: recordLine, cells });
    cells = [];
    cell = '';
  };
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      if (c === '\n') line++;
      cell += c;
      i++;
      continue;
    }
    if (c === '"' && cell.trim() === '') { quoted = true; cell = ''; i++; continue; }
    if (c === ',') { cells.push(cell); cell = ''; i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') i++;
    if (c === '\n' || c === '\r') {
      endRecord();
      line++;
      recordLine = line;
      i++;
      continue;
    }
    cell += c;
    i++;
  }
  if (cell !== '' || cells.length > 0) endRecord();
  return records;
}
