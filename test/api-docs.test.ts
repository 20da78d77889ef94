// docs/api.md and the code cannot drift: the error table matches ERROR_CODES, every endpoint of the
// OpenAPI document has its row, and every "not shown" of the spec has its row in the decisions table,
// quoting the spec's own words.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/api/openapi.js';
import { ERROR_CODES } from '../src/errors.js';
import { ROOT } from './helpers/cli.js';
import { SHARED } from './helpers/media.js';

const docs = readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
const SPEC = path.join(SHARED, 'spec', 'shorts-api.md');

function section(title: string): string {
  const start = docs.indexOf(`## ${title}\n`);
  expect(start, `docs/api.md has a "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const next = docs.indexOf('\n## ', start + 3);
  return docs.slice(start, next === -1 ? undefined : next);
}

/** Rows of the first markdown table of `text`, cells trimmed (escaped pipes stay inside their cell). */
function tableRows(text: string): string[][] {
  const lines = text.split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
}

/**
 * The words the spec uses for each thing it leaves open: the clause in front of each "not shown"
 * ("Item shape", "Which tier gets which value", ...), from the last sentence or cell boundary.
 */
function notShownSubjects(spec: string): string[] {
  const out: string[] = [];
  for (const line of spec.split('\n')) {
    let from = 0;
    for (;;) {
      const at = line.toLowerCase().indexOf('not shown', from);
      if (at < 0) break;
      const before = line.slice(0, at);
      const cut = Math.max(before.lastIndexOf('. '), before.lastIndexOf('| '));
      out.push(before.slice(cut < 0 ? 0 : cut + 2).replace(/(:|\bis)\s*$/, '').trim());
      from = at + 'not shown'.length;
    }
  }
  return out;
}

/** Recorded from the spec so the check still runs where the workplace's shared folder is absent. */
const RECORDED_SUBJECTS = [
  'Item shape',
  'Transitions between post states',
  'The wrapping of the other responses',
  'Its inner fields',
  'Request parameters, response body and error codes of this endpoint',
  'The operation that schedules or cancels posts',
  'How keys are issued and their exact format',
  'Contents of `data` for each event kind',
  'Body encoding, delivery headers and any signature of the delivery',
  'Exact envelope structure',
  'Exact bodies of the per-endpoint, hourly and daily 429 variants',
  'Which tier gets which value',
  'Deprecation policy and any other version mechanism',
];

describe('docs/api.md', () => {
  it('lists exactly the error codes of ERROR_CODES, with their HTTP status and CLI exit code', () => {
    const rows = tableRows(section('Error codes'));
    expect(rows.length).toBeGreaterThan(0);
    const documented = Object.fromEntries(rows.map(([code, http, exit]) => [code, { http: Number(http), exit: Number(exit) }]));
    expect(rows.map((r) => r[0])).toHaveLength(Object.keys(documented).length); // no code twice
    expect(documented).toEqual(Object.fromEntries(Object.entries(ERROR_CODES).map(([k, v]) => [k, { http: v.http, exit: v.exit }])));
    for (const r of rows) expect(r[3], `${r[0]} says when`).toMatch(/\w{3}/);
  });

  it('has a row for every /api/v1 operation of the OpenAPI document, and mentions the others', () => {
    const doc = openApiDocument({ serverUrl: 'http://127.0.0.1:1/api/v1' }) as { paths: Record<string, Record<string, unknown> & { servers?: unknown }> };
    const rows = new Set(tableRows(section('Endpoints')).map((r) => r[0]));
    for (const [p, item] of Object.entries(doc.paths)) {
      const spelled = p.replace(/\{([^}]+)\}/g, ':$1');
      for (const method of ['get', 'post', 'delete', 'head'].filter((m) => m in item)) {
        if (item.servers) expect(docs, `${method.toUpperCase()} ${spelled}`).toContain(spelled);
        else expect(rows.has(`${method.toUpperCase()} ${spelled}`), `${method.toUpperCase()} ${spelled} has a row`).toBe(true);
      }
    }
  });

  it('answers every "not shown" of the spec with a row that quotes it', () => {
    const spec = existsSync(SPEC) ? readFileSync(SPEC, 'utf8') : null;
    const subjects = spec ? notShownSubjects(spec) : RECORDED_SUBJECTS;
    if (spec) {
      expect(subjects).toHaveLength(spec.match(/not shown/gi)!.length);
      expect(subjects).toEqual(RECORDED_SUBJECTS);
    }
    const rows = tableRows(section('Where the spec says "not shown"'));
    expect(rows).toHaveLength(subjects.length);
    expect(rows.map((r) => Number(r[0]))).toEqual(subjects.map((_, i) => i + 1));
    subjects.forEach((subject, i) => {
      const row = rows[i]!;
      expect(row[2], `row ${i + 1} quotes the spec`).toContain(`${subject}`);
      expect(row[3]!.length, `row ${i + 1} says what shortwright does`).toBeGreaterThan(20);
    });
  });
});
