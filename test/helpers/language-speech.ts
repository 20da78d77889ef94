// Speech with known text in many languages (scripts/language-speech.mjs: Festival voices, espeak-ng and
// recorded telephone prompts from Debian packages, cached under os.tmpdir()), transcribed once per file by
// the project's own transcriber with the models the tests configure: SHORTS_WHISPER_MODEL (English-only
// tiny.en) for English, SHORTS_WHISPER_MULTILINGUAL_MODEL (base-q5_1) for the rest and for detection.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTranscriber, type Transcriber } from '../../src/pipeline/transcribe/transcribe.js';
import type { LanguageDetection } from '../../src/pipeline/transcribe/model-choice.js';
import type { Transcript } from '../../src/domain/transcript.js';
import * as speech from '../../scripts/language-speech.mjs';

export interface LanguageSample {
  /** The language code, or code-engine where a language has two samples ("it", "it-festival"). */
  id: string;
  lang: string;
  name: string;
  engine: 'festival' | 'espeak-ng' | 'asterisk';
  voice: string;
  text: string;
  /** Written without spaces between words: error rate by characters. */
  script?: 'chars';
  packages: string[];
}

export const LANGUAGE_SAMPLES = speech.LANGUAGE_SAMPLES as LanguageSample[];
export const languageSample = speech.languageSample as (id: string) => LanguageSample;
/** What the speech says (for prompts: their text from the Debian package). */
export const sampleText = speech.sampleText as (sample: LanguageSample) => string;
/** 16 kHz mono WAV of the sample, made once per machine. */
export const languageSpeech = speech.languageSpeech as (sample: LanguageSample) => string;
export const wavSeconds = speech.wavSeconds as (file: string) => number;
/** Levenshtein distance over the reference length, by words or (Chinese, Japanese) by characters. */
export const errorRate = speech.errorRate as (reference: string, hypothesis: string, unit?: 'words' | 'chars') => number;

export interface HeardSpeech {
  sample: LanguageSample;
  wav: string;
  /** The language asked for: the sample's own, or "auto". */
  asked: string;
  transcript: Transcript;
  detection: LanguageDetection | null;
  /** The transcript's words joined as they would be shown. */
  heard: string;
  /** WER, or CER for scripts without spaces, against the known text. */
  error: number;
}

/**
 * One transcriber and one memo per test file: every case that needs a language's transcript shares the
 * single whisper.cpp run that made it (the multilingual model costs a few seconds per sample on 2 cores).
 */
export function speechTranscripts(): { hear(id: string, asked?: 'named' | 'auto'): Promise<HeardSpeech>; transcriber: Transcriber; cleanup(): void } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shorts-languages-test-'));
  const transcriber = createTranscriber({ dataDir });
  const memo = new Map<string, Promise<HeardSpeech>>();
  function hear(id: string, asked: 'named' | 'auto' = 'named'): Promise<HeardSpeech> {
    const key = `${id}:${asked}`;
    let p = memo.get(key);
    if (!p) {
      p = (async () => {
        const sample = languageSample(id);
        const wav = languageSpeech(sample);
        let detection: LanguageDetection | null = null;
        const language = asked === 'auto' ? 'auto' : sample.lang;
        const transcript = await transcriber.transcribe({
          mediaPath: wav, range: { start: 0, end: wavSeconds(wav) }, language, onLanguageDetected: (d) => { detection = d; },
        });
        const heard = transcript.words.map((w) => w.text).join(sample.script === 'chars' ? '' : ' ');
        return { sample, wav, asked: language, transcript, detection, heard, error: errorRate(sampleText(sample), heard, sample.script === 'chars' ? 'chars' : 'words') };
      })();
      memo.set(key, p);
    }
    return p;
  }
  return { hear, transcriber, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
}
