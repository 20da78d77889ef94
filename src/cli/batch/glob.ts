// A small glob matcher for `shorts batch 'talks/**/*.mp4'`: Node 20 has no fs.glob, and a shell that
// found nothing (or a CI runner that quotes the pattern) hands the pattern to us unexpanded.
// Supported: `*` and `?` within one path segment, `[abc]` / `[a-z]` / `[!x]` classes, `{a,b}` choices and
// `**` for any number of folders. Hidden entries (a leading dot) match only a pattern segment that starts
// with a dot, as in a shell.
import { readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';

/** Whether the text has glob syntax at all (otherwise it names one path). */
export function isGlob(text: string): boolean {
  return /[*?[\]{}]/.test(text);
}

/** One path segment's pattern as an anchored regular expression. */
export function segmentRegExp(segment: string): RegExp {
  let re = '';
  let braces = 0;
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) { re += '\\['; continue; }
      let body = segment.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = close;
    } else if (c === '{') { braces++; re += '(?:'; }
    else if (c === '}' && braces > 0) { braces--; re += ')'; }
    else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The files (not folders) a pattern matches, sorted; relative patterns are read from `cwd`. */
export function expandGlob(pattern: string, cwd: string = process.cwd()): string[] {
  const absolute = path.resolve(cwd, pattern);
  const parts = absolute.split(path.sep);
  // The longest leading part without glob syntax is where the walk starts.
  let fixed = 0;
  while (fixed < parts.length && !isGlob(parts[fixed]!)) fixed++;
  const base = parts.slice(0, fixed).join(path.sep) || path.sep;
  const found = new Set<string>();
  walk(base, parts.slice(fixed), found);
  return [...found].sort(naturalCompare);
}

function walk(dir: string, rest: string[], found: Set<string>): void {
  if (rest.length === 0) return;
  const [head, ...tail] = rest as [string, ...string[]];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  if (head === '**') {
    // Zero folders, then one more folder deep with the same `**` still to apply.
    walk(dir, tail, found);
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) walk(path.join(dir, e.name), rest, found);
    return;
  }
  const re = segmentRegExp(head);
  for (const e of entries) {
    if (e.name.startsWith('.') && !head.startsWith('.')) continue;
    if (!re.test(e.name)) continue;
    const full = path.join(dir, e.name);
    if (tail.length === 0) {
      if (e.isFile() || e.isSymbolicLink()) found.add(full);
    } else if (e.isDirectory() || e.isSymbolicLink()) walk(full, tail, found);
  }
}

/** "talk2" before "talk10": names as a person sorts them. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}
