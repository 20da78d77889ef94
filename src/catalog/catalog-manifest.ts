// The shape shared by the shipped catalogs (music now; meme hooks and game videos follow the same
// manifest): a folder with media files, preview images and a manifest.json that records, per item,
// where it came from and under which licence. Operators add items by dropping files into the folder
// and an entry into the manifest (assets/catalog/README.md). Names are exact and case-sensitive.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setting } from '../settings.js';

export type CatalogKind = 'music' | 'memeHooks' | 'gameVideos';

export type CatalogSource =
  /** Built by scripts/build-catalog.mjs from a Debian package. */
  | { kind: 'debian'; package: string; version: string; path: string }
  /** Made by scripts/build-catalog.mjs itself (e.g. FFmpeg's generative sources); `recipe` remakes it. */
  | { kind: 'generated'; tool: string; recipe: string }
  /** Added by the operator of this installation; `note` says where it came from. */
  | { kind: 'operator'; note?: string };

export interface CatalogItemBase {
  /** Exact, case-sensitive name that requests use (musicName, memeHookName, gameVideoName). */
  name: string;
  /** Media file, relative to the catalog folder. */
  file: string;
  /** Preview image (PNG), relative to the catalog folder. */
  preview: string;
  /** Licence of the item (SPDX id or the licence statement it ships under). */
  licence: string;
  /** Credit line the licence asks for. */
  attribution: string;
  source: CatalogSource;
}

export interface CatalogManifest<T extends CatalogItemBase> {
  version: 1;
  kind: CatalogKind;
  items: T[];
}

export class CatalogError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CatalogError';
  }
}

/** Manifest check shared by the video catalogs: `width` and `height` of the file, positive integer pixels. */
export function checkPictureSize(item: Record<string, unknown>, where: string): void {
  for (const key of ['width', 'height'] as const) {
    const v = item[key];
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) throw new CatalogError(`${where} needs "${key}" (pixels, a positive integer)`);
  }
}

/** assets/catalog: next to src/ in a checkout, next to dist/ in the installed package. */
export function catalogRoot(): string {
  return setting('SHORTS_CATALOG_DIR')
    ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'catalog');
}

/**
 * Reads and checks a catalog manifest. A broken manifest is an operator error that must be seen at
 * once, so every problem (missing fields, duplicate names, files that are not there) throws with the
 * item named, instead of the item silently disappearing from the listing.
 */
export function readManifest<T extends CatalogItemBase>(dir: string, kind: CatalogKind, checkItem: (item: Record<string, unknown>, where: string) => void): CatalogManifest<T> {
  const file = path.join(dir, 'manifest.json');
  if (!existsSync(file)) return { version: 1, kind, items: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CatalogError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
  const m = raw as { version?: unknown; kind?: unknown; items?: unknown };
  if (m.version !== 1 || m.kind !== kind || !Array.isArray(m.items)) throw new CatalogError(`${file} must be {"version": 1, "kind": "${kind}", "items": [...]}`);
  const names = new Set<string>();
  m.items.forEach((item: unknown, i) => {
    const where = `${file} item ${i}`;
    if (typeof item !== 'object' || item === null) throw new CatalogError(`${where} is not an object`);
    const it = item as Record<string, unknown>;
    for (const key of ['name', 'file', 'preview', 'licence', 'attribution'] as const) {
      if (typeof it[key] !== 'string' || (it[key] as string).trim() === '') throw new CatalogError(`${where} needs a non-empty "${key}"`);
    }
    const name = it.name as string;
    if (names.has(name)) throw new CatalogError(`${where}: the name "${name}" is used twice`);
    names.add(name);
    const source = it.source as Record<string, unknown> | undefined;
    if (!source || (source.kind !== 'debian' && source.kind !== 'generated' && source.kind !== 'operator')) throw new CatalogError(`${where} ("${name}") needs "source": {"kind": "debian" | "generated" | "operator", ...}`);
    for (const key of ['file', 'preview'] as const) {
      const rel = it[key] as string;
      const abs = path.resolve(dir, rel);
      if (!abs.startsWith(path.resolve(dir) + path.sep)) throw new CatalogError(`${where} ("${name}"): ${key} must stay inside the catalog folder`);
      if (!existsSync(abs)) throw new CatalogError(`${where} ("${name}"): ${key} ${rel} does not exist`);
    }
    checkItem(it, `${where} ("${name}")`);
  });
  return { version: 1, kind, items: m.items as T[] };
}

/** One catalog folder: its manifest (read once per folder), exact lookup, random pick, file paths. */
export interface Catalog<T extends CatalogItemBase> {
  dir(): string;
  manifest(): CatalogManifest<T>;
  /** Exact, case-sensitive lookup, as the spec asks for names. */
  find(name: string): T | undefined;
  /** An item chosen at random (name omitted); `random` is injectable so tests are repeatable. */
  random(random?: () => number): T | undefined;
  filePath(item: T): string;
  previewPath(item: T): string;
}

export function defineCatalog<T extends CatalogItemBase>(folder: string, kind: CatalogKind,
  checkItem: (item: Record<string, unknown>, where: string) => void): Catalog<T> {
  let cached: { dir: string; manifest: CatalogManifest<T> } | null = null;
  const dir = () => path.join(catalogRoot(), folder);
  // Operators restart to add items: the manifest is read at first use, again only if the folder moves.
  const manifest = () => {
    const d = dir();
    if (cached?.dir !== d) cached = { dir: d, manifest: readManifest<T>(d, kind, checkItem) };
    return cached.manifest;
  };
  return {
    dir,
    manifest,
    find: (name) => manifest().items.find((i) => i.name === name),
    random: (random = Math.random) => {
      const items = manifest().items;
      return items[Math.min(items.length - 1, Math.floor(random() * items.length))];
    },
    filePath: (item) => path.resolve(dir(), item.file),
    previewPath: (item) => path.resolve(dir(), item.preview),
  };
}
