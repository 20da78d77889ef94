// The SHORTS_* settings are declared once (src/settings.ts). A user reads them in the README, so the README's
// table must be exactly the declaration, and no code may read a SHORTS_* variable the README does not explain.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, setting, settingsTable } from '../src/settings.js';

const root = path.resolve(import.meta.dirname, '..');

function files(dir: string, exts: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p, exts) : exts.test(name) ? [p] : [];
  });
}

describe('settings', () => {
  it('the README table is the declaration, row for row', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const at = readme.indexOf('| Variable | Default | Meaning |');
    expect(at, 'README needs the Configuration table printed by `node scripts/settings-table.mjs`').toBeGreaterThan(0);
    const table = readme.slice(at).split('\n').filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('|'))).join('\n');
    expect(table).toBe(settingsTable());
  });

  it('every SHORTS_* name used by the code and scripts is declared', () => {
    const declared = new Set(Object.keys(SETTINGS));
    const used = new Map<string, string>();
    for (const f of [...files(path.join(root, 'src'), /\.ts$/), ...files(path.join(root, 'scripts'), /\.m?js$/), path.join(root, 'bin', 'shorts')]) {
      // A name followed by "_" is a family in prose ("SHORTS_LLM_*"), not a variable.
      for (const m of readFileSync(f, 'utf8').matchAll(/SHORTS_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_])/g)) used.set(m[0], path.relative(root, f));
    }
    const undeclared = [...used].filter(([name]) => !declared.has(name)).map(([name, f]) => `${name} (${f})`);
    expect(undeclared).toEqual([]);
  });

  it('a blank value counts as unset', () => {
    expect(setting('SHORTS_WORKERS', { SHORTS_WORKERS: ' ' })).toBeUndefined();
    expect(setting('SHORTS_WORKERS', { SHORTS_WORKERS: '3' })).toBe('3');
  });
});
