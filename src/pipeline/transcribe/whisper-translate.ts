// English captions for speech in any language, offline: whisper.cpp's translate task (-tr) on each clip's
// audio. A multilingual model translates while it listens, so no translation service is needed for the
// pair "anything -> en". Its English phrases come with the model's own segment times, which are coarse
// (whole seconds, often 5 s apart); each phrase is moved onto the pauses of the original transcript, so
// a caption appears when its phrase is spoken and never straddles a sentence it does not translate.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { MediaRunner } from '../../ports/media-runner.js';
import { writeSpeechWav } from './speech-audio.js';
import { DEFAULT_DECODING, runWhisperCli, whisperCliPath, type WhisperJson } from './whisper-cli.js';
import type { CaptionCue } from '../../domain/captions.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';

const STAGE = 'finalizing';
/** How far (seconds) a phrase edge may move to reach a word edge of the original speech. */
const SNAP_SEC = 1.5;

export interface TranslatedPhrase { start: number; end: number; text: string }

export interface SpeechTranslationOptions {
  /** A multilingual ggml model: English-only models cannot translate. */
  modelPath: string;
  /** The spoken language (ISO 639-1); whisper translates from it. */
  language: string;
  threads?: number;
  media: MediaRunner;
  signal?: AbortSignal;
}

// Whisper writes sounds it hears but cannot read as "[Music]", "(laughs)", "♪": not captions of speech.
const NON_SPEECH = /^[\s\-–—.,!?]*([[(*♪].*[\])*♪]|♪+)[\s.!?]*$/u;

/** The English phrases whisper.cpp hears in `clip` of `mediaPath`, in source time. */
export async function translateSpeechToEnglish(mediaPath: string, clip: TimeRange, opts: SpeechTranslationOptions): Promise<TranslatedPhrase[]> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'shorts-translate-'));
  try {
    const wav = path.join(work, 'audio.wav');
    await writeSpeechWav(mediaPath, clip, wav, STAGE, opts.media, opts.signal);
    const json = await runWhisperCli(whisperCliPath(), {
      modelPath: opts.modelPath, wavPath: wav, language: opts.language, threads: opts.threads ?? os.availableParallelism(),
      outputBase: path.join(work, 'whisper'), decoding: DEFAULT_DECODING, translate: true,
    }, { signal: opts.signal, media: opts.media });
    return phrasesFromJson(json, clip);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Segments of whisper's JSON as phrases in source time (pure). */
export function phrasesFromJson(json: WhisperJson, clip: TimeRange): TranslatedPhrase[] {
  const out: TranslatedPhrase[] = [];
  for (const seg of json.transcription ?? []) {
    // runWhisperCli reads the file as latin1 (raw bytes); the segment text is UTF-8.
    const text = Buffer.from(seg.text, 'latin1').toString('utf8').replace(/\s+/g, ' ').trim();
    if (!text || NON_SPEECH.test(text)) continue;
    const start = clip.start + seg.offsets.from / 1000;
    const end = Math.min(clip.end, clip.start + seg.offsets.to / 1000);
    if (end > start) out.push({ start, end, text });
  }
  return out;
}

/**
 * Moves each phrase's edges onto the nearest word edges of the original transcript (starts onto word
 * starts, ends onto word ends) within SNAP_SEC, keeping phrases in order and apart. Pure.
 */
export function snapPhrases(phrases: readonly TranslatedPhrase[], words: readonly Word[], clip: TimeRange): TranslatedPhrase[] {
  const inClip = words.filter((w) => w.end > clip.start && w.start < clip.end);
  const nearest = (t: number, edges: number[]): number => {
    let best = t;
    let bestDist = SNAP_SEC;
    for (const e of edges) {
      const d = Math.abs(e - t);
      if (d < bestDist) {
        best = e;
        bestDist = d;
      }
    }
    return best;
  };
  const starts = inClip.map((w) => Math.max(clip.start, w.start));
  const ends = inClip.map((w) => Math.min(clip.end, w.end));
  const out: TranslatedPhrase[] = [];
  for (const p of phrases) {
    const floor = out.length ? out[out.length - 1]!.end : clip.start;
    const start = Math.max(floor, nearest(p.start, starts));
    const end = Math.min(clip.end, nearest(p.end, ends.filter((e) => e > start)));
    if (end - start >= 0.2) out.push({ start, end, text: p.text });
    else if (out.length) out[out.length - 1] = { ...out[out.length - 1]!, text: `${out[out.length - 1]!.text} ${p.text}` };
  }
  return out;
}

/**
 * Caption cues of translated phrases: a phrase longer than one page is cut into pages of at most
 * `wordsPerCue` words, each shown for a share of the phrase's time in proportion to its characters.
 * Words of two languages do not line up, so every word of a page spans the page (no per-word
 * highlight); `spoken` keeps the original words of that time for the emoji lookup. Pure.
 */
export function phraseCues(phrases: readonly TranslatedPhrase[], words: readonly Word[], wordsPerCue: number): CaptionCue[] {
  const per = Math.max(1, Math.floor(wordsPerCue));
  const cues: CaptionCue[] = [];
  for (const p of phrases) {
    const tokens = p.text.split(' ').filter(Boolean);
    if (!tokens.length) continue;
    const pages = Math.ceil(tokens.length / per);
    const chunks: string[][] = [];
    for (let g = 0, at = 0; g < pages; g++) {
      // Balanced pages: the first (tokens % pages) get one word more.
      const n = Math.floor(tokens.length / pages) + (g < tokens.length % pages ? 1 : 0);
      chunks.push(tokens.slice(at, at + n));
      at += n;
    }
    const total = chunks.reduce((a, c) => a + c.join(' ').length, 0);
    let t = p.start;
    chunks.forEach((chunk, k) => {
      const end = k === chunks.length - 1 ? p.end : t + ((p.end - p.start) * chunk.join(' ').length) / total;
      const spoken = words.filter((w) => w.start < end && w.end > t).map((w) => w.text);
      cues.push({
        start: t, end,
        words: chunk.map((text) => ({ text, start: t, end, probability: 1 })),
        ...(spoken.length ? { spoken } : {}),
      });
      t = end;
    });
  }
  return cues;
}
