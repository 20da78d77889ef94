// The real Whisper transcript (tiny.en q8_0 through createTranscriber) of the assembled dry talk
// (test/helpers/dry-talk.ts), saved so highlight tests run in milliseconds; sentences are rebuilt by the
// real sentence splitter. Re-record it with the transcriber if dry-talk.ts changes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSentences } from '../../src/pipeline/transcribe/sentences.js';
import type { Transcript, Word } from '../../src/domain/transcript.js';

export function dryTalkTranscript(): Transcript {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'highlights', 'dry-talk.transcript.json');
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { language: string; model: string; range: Transcript['range']; words: Word[] };
  return { language: saved.language, model: saved.model, range: saved.range, words: saved.words, sentences: buildSentences(saved.words) };
}
