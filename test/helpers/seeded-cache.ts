// Tests about processes and scripting (issue 15) run many requests over the same 60 s of the sample talk:
// what they check is who runs a request, not transcription. The transcript (and language check) of that
// range is made once per machine and model, kept under os.tmpdir keyed by what determines it, and copied
// into each fresh data dir's cache/ (only the cache: the SQLite store stays fresh).
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SAMPLE, cliEnv, runCli } from './cli.js';

/** The range every seeded request uses (the spec's shortest window). */
export const SEEDED_RANGE = ['--start', '0', '--end', '60'] as const;

/**
 * The cheapest render of a real request: a fitted picture (no face sampling for a crop) on a solid
 * background, one clip of under 30 s. What the seeded tests check is who runs a request and how it ends,
 * not what the clip looks like; none of this is part of the transcript's cache key.
 */
export const CHEAP_RENDER = ['--max-shorts', '1', '--preferred-length', 'under30sec', '--layout', 'fit', '--no-blur-background'] as const;

/** The create arguments whose transcript the seed holds (local mode; remote sends the same range). */
export const SEEDED_CREATE = ['--file', SAMPLE, ...SEEDED_RANGE, '--language', 'en', ...CHEAP_RENDER];

/** Longer than the seeding create takes on a loaded machine: a lock this old was left by a killed run. */
const STALE_LOCK_MS = 300_000;

function seedDir(): string {
  const model = process.env.SHORTS_WHISPER_MODEL ?? '';
  const id = [statSync(SAMPLE).size, model, existsSync(model) ? statSync(model).size : 0, 'v1'].join('|');
  return path.join(os.tmpdir(), `shorts-seed-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`);
}

/** The folder holding a warm cache/ (made by one local create the first time). */
export async function warmCache(): Promise<string> {
  const dir = seedDir();
  const ready = () => existsSync(path.join(dir, 'cache', 'transcripts'));
  if (ready()) return dir;
  // Two test files starting at once: one makes the seed while the other waits for it, instead of both paying
  // for the same create. A lock left by a killed run (older than any create takes) is taken over.
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (ready()) return dir;
      const age = (() => { try { return Date.now() - statSync(lock).mtimeMs; } catch { return 0; } })();
      if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    if (ready()) return dir;
    const env = cliEnv();
    // The transcript and language check are what is kept: the clip itself is made as cheaply as it can be.
    const r = await runCli(['create', ...SEEDED_CREATE, '--no-captions', '--json'], env);
    if (r.code !== 0) throw new Error(`warming the transcript cache failed: ${r.stderr}`);
    // The rename is atomic: a reader never sees half a cache.
    const staging = `${dir}.${process.pid}`;
    mkdirSync(staging, { recursive: true });
    renameSync(path.join(env.SHORTS_DATA_DIR!, 'cache'), path.join(staging, 'cache'));
    try { renameSync(staging, dir); } catch { rmSync(staging, { recursive: true, force: true }); }
    rmSync(env.SHORTS_DATA_DIR!, { recursive: true, force: true });
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Copies the warm cache into a data dir (created if needed). */
export function seed(dataDir: string, warm: string): void {
  mkdirSync(dataDir, { recursive: true });
  cpSync(path.join(warm, 'cache'), path.join(dataDir, 'cache'), { recursive: true });
}
