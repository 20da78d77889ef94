// The stages (pipeline, media, net, catalog) must stay usable without the service around them: they may
// import each other and the neutral top-level modules (errors, languages, settings), never the layers
// that drive them. A stage reaching up would make the engine impossible to reuse from a script or a test.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..', 'src');
const STAGES = ['pipeline', 'media', 'net', 'catalog', 'publish'];
const DRIVERS = ['service', 'engine', 'server', 'client', 'cli'];

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);
}

describe('layering', () => {
  for (const stage of STAGES) {
    it(`src/${stage} imports nothing from ${DRIVERS.join(', ')}`, () => {
      const dir = path.join(SRC, stage);
      const offending: string[] = [];
      for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
        for (const spec of importsOf(path.join(dir, name))) {
          if (!spec.startsWith('.')) continue;
          const target = path.relative(SRC, path.resolve(dir, spec)).split(path.sep)[0]!;
          if (DRIVERS.includes(target)) offending.push(`${stage}/${name} -> ${spec}`);
        }
      }
      expect(offending).toEqual([]);
    });
  }
});
