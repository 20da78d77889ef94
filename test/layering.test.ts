// The directories of src/ form layers, so each can be read, tested and replaced from the bottom up:
// - the top-level modules (errors, languages, settings, ...) are neutral: they import no directory;
// - src/domain is the ground floor (the records the stages pass on and the engine stores): it imports only
//   neutral modules; src/ports (the interfaces of what the engine needs from outside: store, leases, blobs, the
//   media runner) import only the domain and neutral modules, so a stage may take a port without knowing its
//   adapter; src/api (the API contract) imports only the domain and neutral modules;
// - the stages (pipeline, media, net, catalog, publish) stay usable without the service around them: they
//   import each other, the ground floor and the neutral modules, never the layers that drive them;
// - no two directories import each other, directly or round a loop: a cycle means neither side can be
//   understood, moved or replaced alone. Nested folders (src/adapters/sqlite, src/pipeline/<stage>) count
//   as their top-level directory; a top-level file counts as its own node (`errors`, `settings`).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '..', 'src');
const STAGES = ['pipeline', 'media', 'net', 'catalog', 'publish'];
const GROUND = ['domain', 'ports', 'api'];
/** The library entry re-exports everything: it sits above all and is no neutral module. */
const ENTRY = 'index';

/**
 * Directory edges that still close a loop, each to be cut by the change named beside it. The test fails
 * when one of them is gone, so the list only shrinks.
 */
const PENDING_EDGES: Record<string, string> = {};

interface Edge { from: string; to: string; example: string }

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** `pipeline` for src/pipeline/captions/ass.ts, `settings` for src/settings.ts. */
function nodeOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length === 1 ? parts[0]!.replace(/\.(ts|js)$/, '') : parts[0]!;
}

/** Relative specifiers of static imports, re-exports, side-effect and dynamic imports (type-only included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']*)'/g)].map((m) => m[1]!);
}

function directoryEdges(): Edge[] {
  const edges = new Map<string, Edge>();
  for (const file of sourceFiles(SRC)) {
    const from = nodeOf(file);
    for (const spec of importsOf(file)) {
      const to = nodeOf(path.resolve(path.dirname(file), spec));
      const key = `${from} -> ${to}`;
      if (to !== from && !edges.has(key)) edges.set(key, { from, to, example: `src/${path.relative(SRC, file)} imports '${spec}'` });
    }
  }
  return [...edges.values()];
}

/** Tarjan's strongly connected components with more than one node: the knots of the graph. */
function knots(nodes: string[], edges: Edge[]): string[][] {
  const next = new Map(nodes.map((n) => [n, edges.filter((e) => e.from === n).map((e) => e.to)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return found;
}

const EDGES = directoryEdges();
const NODES = [...new Set(EDGES.flatMap((e) => [e.from, e.to]))].sort();
const NEUTRAL = readdirSync(SRC).filter((n) => n.endsWith('.ts')).map((n) => n.replace(/\.ts$/, '')).filter((n) => n !== ENTRY);

function reachingOutside(from: string, allowed: readonly string[]): string[] {
  return EDGES.filter((e) => e.from === from && !allowed.includes(e.to)).map((e) => `${e.from} -> ${e.to}: ${e.example}`);
}

describe('layering', () => {
  for (const stage of STAGES) {
    it(`src/${stage} imports only the stages, the ground floor and the neutral modules`, () => {
      expect(reachingOutside(stage, [...STAGES, ...GROUND, ...NEUTRAL])).toEqual([]);
    });
  }

  it('src/domain imports only the neutral modules, src/ports and src/api only those and the domain', () => {
    expect(reachingOutside('domain', NEUTRAL)).toEqual([]);
    expect(reachingOutside('ports', ['domain', ...NEUTRAL])).toEqual([]);
    expect(reachingOutside('api', ['domain', ...NEUTRAL])).toEqual([]);
  });

  it('the neutral top-level modules import no directory', () => {
    expect(NEUTRAL.flatMap((n) => reachingOutside(n, NEUTRAL))).toEqual([]);
  });

  it('no directory cycle under src/', () => {
    const pending = (e: Edge) => `${e.from} -> ${e.to}` in PENDING_EDGES;
    const report = knots(NODES, EDGES.filter((e) => !pending(e))).map((knot) => [
      `cycle: ${knot.join(', ')}`,
      ...EDGES.filter((e) => knot.includes(e.from) && knot.includes(e.to) && !pending(e)).map((e) => `  ${e.from} -> ${e.to}   (${e.example})`),
    ].join('\n'));
    expect(report.join('\n'), 'move a shared type to src/domain or a helper to the layer that uses it').toBe('');
  });

  it('every pending edge still exists (strike it from PENDING_EDGES once it is cut)', () => {
    const present = new Set(EDGES.map((e) => `${e.from} -> ${e.to}`));
    expect(Object.keys(PENDING_EDGES).filter((k) => !present.has(k))).toEqual([]);
  });
});
