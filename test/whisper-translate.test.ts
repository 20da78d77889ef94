// English captions for Spanish speech with no translation service: whisper.cpp's translate task with the
// multilingual model, real recorded Spanish prompts (Debian asterisk-core-sounds-es-wav), real ffmpeg.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTranscriber } from '../src/pipeline/transcribe/transcribe.js';
import { phraseCues, phrasesFromJson, snapPhrases, type TranslatedPhrase } from '../src/pipeline/transcribe/whisper-translate.js';
import type { TimeRange } from '../src/domain/time.js';
import type { Transcript, Word } from '../src/domain/transcript.js';
import { captionCuesFor } from '../src/pipeline/captions/caption-cues.js';
import { DEFAULT_TEMPLATE } from '../src/catalog/templates.js';

const PROMPTS = '/usr/share/asterisk/sounds/es';
// Recorded prompts and their text (core-sounds-es.txt), with a second of silence between them.
const PARTS = ['vm-intro', 'conf-getpin', 'queue-thankyou'];
const ENGLISH_FUNCTION_WORDS = new Set(['the', 'a', 'an', 'to', 'for', 'your', 'you', 'of', 'and', 'please', 'after', 'or', 'thank', 'enter', 'in', 'is', 'it', 'leave', 'message']);
const SPANISH_WORDS = new Set(['por', 'favor', 'su', 'el', 'la', 'de', 'para', 'muchas', 'gracias', 'mensaje', 'tono', 'usted']);

let dir: string;
let wav: string;
let transcript: Transcript;
let phrases: TranslatedPhrase[];
let partStarts: number[];
let clip: TimeRange;
let captions: Awaited<ReturnType<typeof captionCuesFor>>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-whisper-translate-'));
  wav = path.join(dir, 'es.wav');
  const inputs = PARTS.flatMap((p) => ['-i', path.join(PROMPTS, `${p}.wav`)]);
  const chain = PARTS.map((_, i) => `[${i}]aresample=16000,apad=pad_dur=1[a${i}]`).join(';');
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex',
    `${chain};${PARTS.map((_, i) => `[a${i}]`).join('')}concat=n=${PARTS.length}:v=0:a=1`, '-ac', '1', wav]);
  // Where each prompt starts: the durations of the ones before it, plus their second of padding.
  partStarts = [];
  let t = 0;
  for (const p of PARTS) {
    partStarts.push(t);
    t += Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path.join(PROMPTS, `${p}.wav`)]).toString()) + 1;
  }
  clip = { start: 0, end: t };
  // The transcriber the engine uses: tiny.en main model (English-only), so Spanish goes to the multilingual one.
  const transcriber = createTranscriber({ dataDir: dir });
  transcript = await transcriber.transcribe({ mediaPath: wav, range: clip, language: 'es' });
  let heard: TranslatedPhrase[] = [];
  captions = await captionCuesFor([{ id: 'clip', clip }], transcript, DEFAULT_TEMPLATE, {
    from: 'es', to: 'en', translator: null,
    speechToEnglish: async (range) => (heard = await transcriber.translateToEnglish({ mediaPath: wav, range, language: 'es' })),
  });
  phrases = snapPhrases(heard, transcript.words, clip);
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tokens = (s: string) => s.toLowerCase().split(/[^\p{L}']+/u).filter(Boolean);

describe('offline English captions (whisper translate task)', () => {
  it('the prompts exist', () => expect(existsSync(path.join(PROMPTS, 'vm-intro.wav'))).toBe(true));

  it('turns Spanish speech into English phrases, not Spanish ones', () => {
    const words = phrases.flatMap((p) => tokens(p.text));
    expect(words.length).toBeGreaterThan(10);
    const english = words.filter((w) => ENGLISH_FUNCTION_WORDS.has(w)).length / words.length;
    const spanish = words.filter((w) => SPANISH_WORDS.has(w)).length / words.length;
    expect(english).toBeGreaterThan(0.25);
    expect(spanish).toBeLessThan(0.05);
    // The last prompt is "Muchas gracias por su paciencia".
    expect(phrases.map((p) => p.text).join(' ')).toMatch(/thank/i);
  });

  it('shows each phrase while it is spoken: edges on the Spanish words, in order, inside the clip', () => {
    const spoken = transcript.words;
    const starts = new Set(spoken.map((w) => w.start));
    const ends = new Set(spoken.map((w) => w.end));
    let prev = 0;
    for (const p of phrases) {
      expect(p.start).toBeGreaterThanOrEqual(prev);
      expect(p.end).toBeGreaterThan(p.start);
      expect(starts.has(p.start) || p.start === prev).toBe(true);
      expect(ends.has(p.end)).toBe(true);
      prev = p.end;
    }
    // "Thank you for your patience" starts when "Muchas" does (the third prompt), not seconds before.
    const thanks = phrases.find((p) => /thank/i.test(p.text))!;
    const muchas = spoken.find((w) => /muchas/i.test(w.text)) ?? spoken.find((w) => w.start >= partStarts[2]! - 0.3)!;
    expect(Math.abs(thanks.start - muchas.start)).toBeLessThan(0.6);
  });

  it('pages long phrases for the template, keeping their time and the spoken words for emoji', () => {
    const cues = phraseCues(phrases, transcript.words, 4);
    expect(cues.length).toBeGreaterThanOrEqual(phrases.length);
    for (const cue of cues) {
      expect(cue.words.length).toBeLessThanOrEqual(4);
      for (const w of cue.words) expect([w.start, w.end]).toEqual([cue.start, cue.end]);
      expect(cue.spoken?.length).toBeGreaterThan(0);
    }
    expect(cues[0]!.start).toBe(phrases[0]!.start);
    expect(cues.at(-1)!.end).toBe(phrases.at(-1)!.end);
  });
});

describe('English captions of a request in Spanish with no translation service', () => {
  it('are the translated phrases, paged for the template, without per-word highlight', () => {
    expect(transcript.language).toBe('es');
    expect(transcript.model).toMatch(/base/);
    const cues = captions.cues.get('clip')!;
    expect(cues.map((c) => c.words.map((w) => w.text).join(' ')).join(' ')).toBe(phrases.map((p) => p.text).join(' '));
    expect(cues.length).toBeGreaterThanOrEqual(phrases.length);
    expect(captions.template.animation).toBe('none');
    for (const cue of cues) expect(cue.words.length).toBeLessThanOrEqual(DEFAULT_TEMPLATE.wordsPerLine * DEFAULT_TEMPLATE.maxLines);
  });
});

describe('phrasesFromJson', () => {
  it('drops what whisper writes for sounds and keeps phrases in source time', () => {
    // whisper-cli's JSON is read as raw bytes (latin1), as runWhisperCli does.
    const seg = (from: number, to: number, text: string) => ({ offsets: { from, to }, text: Buffer.from(text, 'utf8').toString('latin1') });
    const out = phrasesFromJson({ transcription: [seg(0, 2000, ' [Music]'), seg(2000, 5000, ' Please leave a message.'), seg(5000, 6000, ' ♪ ♪')] }, { start: 10, end: 20 });
    expect(out).toEqual([{ start: 12, end: 15, text: 'Please leave a message.' }]);
  });

  it('snaps phrase edges onto word edges within reach, and leaves them when no word is near', () => {
    const w = (text: string, start: number, end: number): Word => ({ text, start, end, probability: 1 });
    const words = [w('Por', 1.1, 1.3), w('favor', 1.3, 1.7), w('gracias', 5.2, 5.9)];
    const out = snapPhrases([{ start: 0.5, end: 2.5, text: 'Please' }, { start: 4.5, end: 9, text: 'Thanks' }], words, { start: 0, end: 10 });
    expect(out).toEqual([{ start: 1.1, end: 1.7, text: 'Please' }, { start: 5.2, end: 9, text: 'Thanks' }]);
  });
});
