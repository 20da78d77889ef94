// What a batch is made of: planned items (a create body and a folder name) and how an item is identified
// across runs. The identity is the body itself (source, range and every option), so a re-run of the same
// command finds its items again, and a changed manifest row is a new item rather than a stale result.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CreateBody } from '../../client/shorts-client.js';

/** One item the command line or the manifest asks for, before it meets the saved state. */
export interface PlannedItem {
  /** Identity across runs: a digest of the create body (see itemKey). */
  key: string;
  /** The folder under the batch's --out, unique within the batch. */
  name: string;
  /** The create body as it will be sent (source, range, options). */
  body: CreateBody;
  /** Where it came from, for messages: "talks/a.mp4" or "manifest.csv line 4". */
  origin: string;
}

/** The source fields of a body, in the API's names. */
export const SOURCE_FIELDS = ['file', 'fileUrl', 'url'] as const;

/** A stable digest of a create body: keys sorted, so the order of columns or flags does not matter. */
export function itemKey(body: CreateBody): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The source of a body as one string (a path or a URL). */
export function sourceOf(body: CreateBody): string {
  const b = body as Record<string, unknown>;
  for (const f of SOURCE_FIELDS) if (typeof b[f] === 'string' && b[f] !== '') return b[f] as string;
  return '';
}

/** A readable folder name for a source: its file name without the extension, safe on every file system. */
export function folderNameFor(source: string): string {
  let base = source;
  try {
    if (/^https?:\/\//i.test(source)) {
      const url = new URL(source);
      base = path.posix.basename(url.pathname) || url.hostname;
      // A page URL's identity is often in its query (watch?v=...): keep it readable.
      if (url.search && !path.posix.extname(base)) base = `${base}-${url.search.slice(1)}`;
    }
  } catch { /* not a URL after all */ }
  const stem = path.basename(base).replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return stem.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 80) || 'item';
}

/** `name`, or `name-2`, `name-3`… whichever is not taken yet (case-insensitively: macOS and Windows folders). */
export function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${name}-${n}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}
