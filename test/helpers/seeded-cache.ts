// Tests about processes and scripting (issue 15) run many requests over the same 60 s of the sample talk:
// what they check is who runs a request, not transcription. The transcript (and language check) of that
// range is made once per machine and model, kept under os.tmpdir keyed by what determines it, and copied
// into each fresh data dir's cache/ (only the cache: the SQLite store stays fresh).
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { SAMPLE, cliEnv, runCli } from './cli.js';

/** The range every seeded request uses (the spec's shortest window). */
export const SEEDED_RANGE = ['--start', '0', '--end', '60'] as const;

/** The create arguments whose transcript the seed holds (local mode; remote sends the same range). */
export const SEEDED_CREATE = ['--file', SAMPLE, ...SEEDED_RANGE, '--max-shorts', '1', '--language', 'en'];

function seedDir(): string {
  const model = process.env.SHORTS_WHISPER_MODEL ?? '';
  const id = [statSync(SAMPLE).size, model, existsSync(model) ? statSync(model).size : 0, 'v1'].join('|');
  return path.join(os.tmpdir(), `shorts-seed-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`);
}

/** The folder holding a warm cache/ (made by one local create the first time). */
export async function warmCache(): Promise<string> {
  const dir = seedDir();
  if (existsSync(path.join(dir, 'cache', 'transcripts'))) return dir;
  const env = cliEnv();
  const r = await runCli(['create', ...SEEDED_CREATE, '--json'], env);
  if (r.code !== 0) throw new Error(`warming the transcript cache failed: ${r.stderr}`);
  // Two test files warming at once: the rename is atomic, the loser's copy is dropped.
  const staging = `${dir}.${process.pid}`;
  mkdirSync(staging, { recursive: true });
  renameSync(path.join(env.SHORTS_DATA_DIR!, 'cache'), path.join(staging, 'cache'));
  try { renameSync(staging, dir); } catch { rmSync(staging, { recursive: true, force: true }); }
  rmSync(env.SHORTS_DATA_DIR!, { recursive: true, force: true });
  return dir;
}

/** Copies the warm cache into a data dir (created if needed). */
export function seed(dataDir: string, warm: string): void {
  mkdirSync(dataDir, { recursive: true });
  cpSync(path.join(warm, 'cache'), path.join(dataDir, 'cache'), { recursive: true });
}
