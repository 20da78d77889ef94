// Transcripts on disk, keyed by what determines them: transcription is the slowest stage, and a retry
// or a second request over the same source and range should not pay for it again.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TimeRange } from '../../domain/time.js';
import type { Transcript } from '../../domain/transcript.js';

export interface TranscriptCacheKey {
  /** FetchedSource.contentKey: identity of the media content, not of its path. */
  contentKey: string;
  range: TimeRange;
  language: string;
  modelName: string;
  /** A replaced model file with the same name must not reuse old transcripts. */
  modelSizeBytes: number;
  /** Decoding and word-timing version (transcribe.ts DECODER_VERSION): a new decoder makes new transcripts. */
  decoder: string;
}

export function transcriptCacheFile(dataDir: string, key: TranscriptCacheKey): string {
  const id = [key.contentKey, key.range.start, key.range.end, key.language, `${key.modelName}+${key.modelSizeBytes}`, key.decoder].join('|');
  const hash = createHash('sha256').update(id).digest('hex');
  return path.join(dataDir, 'cache', 'transcripts', `${hash}.json`);
}

function looksLikeTranscript(v: unknown): v is Transcript {
  const t = v as Partial<Transcript> | null;
  return Boolean(t && typeof t === 'object' && typeof t.language === 'string' && typeof t.model === 'string'
    && t.range && Array.isArray(t.words) && Array.isArray(t.sentences));
}

/** The cached transcript, or null when there is none or the file is unreadable (then it is re-made). */
export async function readCachedTranscript(dataDir: string, key: TranscriptCacheKey): Promise<Transcript | null> {
  let text: string;
  try {
    text = await readFile(transcriptCacheFile(dataDir, key), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return looksLikeTranscript(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export async function writeCachedTranscript(dataDir: string, key: TranscriptCacheKey, transcript: Transcript): Promise<void> {
  await writeJsonAtomically(transcriptCacheFile(dataDir, key), transcript);
}

/** Writes atomically (temp file + rename) so a crash or a parallel reader never sees half a file. */
export async function writeJsonAtomically(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(tmp, JSON.stringify(value));
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
