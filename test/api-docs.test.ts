// docs/api.md and the code cannot drift: the error table matches ERROR_CODES, and every "not shown"
// in the spec has its row in the decisions table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/service/errors.js';
import { ROOT } from './helpers/cli.js';
import { SHARED } from './helpers/media.js';

const docs = readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');

function section(title: string): string {
  const start = docs.indexOf(`## ${title}`);
  const next = docs.indexOf('\n## ', start + 3);
  return docs.slice(start, next === -1 ? undefined : next);
}

describe('docs/api.md', () => {
  it('lists exactly the error codes of the code, with their HTTP status and CLI exit code', () => {
    const rows = section('Error codes').split('\n').filter((l) => /^\| [a-z_]+ \|/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()).filter(Boolean));
    const documented = Object.fromEntries(rows.map(([code, http, exit]) => [code, { http: Number(http), exit: Number(exit) }]));
    expect(documented).toEqual(Object.fromEntries(Object.entries(ERROR_CODES).map(([k, v]) => [k, { http: v.http, exit: v.exit }])));
  });

  it('answers every "not shown" of the spec', () => {
    const spec = readFileSync(path.join(SHARED, 'spec', 'shorts-api.md'), 'utf8');
    const occurrences = spec.match(/not shown/gi)?.length ?? 0;
    const rows = section('Where the spec says "not shown"').split('\n').filter((l) => /^\| \d+ \|/.test(l));
    expect(occurrences).toBeGreaterThan(0);
    expect(rows).toHaveLength(occurrences);
  });
});
