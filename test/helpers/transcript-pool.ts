// The CLI tests (create, contract, errors, export) run the shipped sample's 0-80 s again and again to
// check clips, exports, exit codes and the two backends — not transcription, which test/transcribe.test.ts
// and the language tests judge. Each run would pay whisper.cpp (language detection and transcription)
// and forced alignment anew in its fresh data dir. This pool keeps the engine's own cache entries
// (cache/transcripts and cache/languages) once per machine, under os.tmpdir, and copies them into fresh
// data dirs. The entries are named by the engine's own keys (content, range, language, model file and
// size, decoder version), so one is only ever read where the engine would have made the same one; an
// entry of an older decoder is simply not found. Nothing is made here: the first test that needs an entry
// makes it with real whisper.cpp in its own run and hands it in with keepTranscripts().
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const POOL = path.join(os.tmpdir(), 'shorts-transcript-pool-v1');
const KINDS = ['transcripts', 'languages'] as const;

/** Copies `from`'s entries that `to` lacks; each lands through a rename, so a reader never sees half a file. */
function merge(from: string, to: string): void {
  for (const kind of KINDS) {
    const src = path.join(from, kind);
    if (!existsSync(src)) continue;
    const dst = path.join(to, kind);
    mkdirSync(dst, { recursive: true });
    for (const name of readdirSync(src)) {
      if (!name.endsWith('.json') || existsSync(path.join(dst, name))) continue;
      const tmp = path.join(dst, `.${name}.${process.pid}.tmp`);
      try {
        copyFileSync(path.join(src, name), tmp);
        // Two test files handing in the same entry at once: both copies are the same engine output.
        renameSync(tmp, path.join(dst, name));
      } catch {
        rmSync(tmp, { force: true });
      }
    }
  }
}

/** Gives a data dir (created if needed) the pooled transcripts and language detections. */
export function shareTranscripts(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(POOL)) merge(POOL, path.join(dataDir, 'cache'));
}

/** Hands a data dir's transcripts and detections to the pool (those it does not hold yet). */
export function keepTranscripts(dataDir: string): void {
  merge(path.join(dataDir, 'cache'), POOL);
}
