// Transcription that keeps words and time (issue 10), on real recordings whose truth is known: LibriVox
// utterances with their transcripts (Debian pocketsphinx-testdata) placed at known offsets with silence
// between them, and the same speech around ~6 s of a real pig squealing (GCompris's farm-animals sounds,
// Debian gcompris-qt-data). Recognition runs through the real transcriber: ffmpeg, whisper.cpp, tiny.en.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findForcedAligner } from '../src/pipeline/transcribe/forced-align.js';
import { createTranscriber, wavSamples } from '../src/pipeline/transcribe/transcribe.js';
import type { Word } from '../src/domain/transcript.js';
import { FIXTURES, JFK_TEXT, JFK_WAV } from './helpers/media.js';
import { normalizeWords, wordErrorRate } from './helpers/wer.js';
import { festivalWithWordTimes } from '../scripts/festival-words.mjs';

const SR = 16_000;
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const FARM_SOUNDS = '/usr/share/gcompris-qt/rcc/explore_farm_animals.rcc';

interface Utterance { samples: Int16Array; text: string }
interface Truth { text: string; onset: number; start: number }

function pcmOf(file: string): Int16Array {
  const wav = path.join(FIXTURES, `accuracy-${path.basename(file, path.extname(file))}.wav`);
  if (!existsSync(wav)) {
    mkdirSync(FIXTURES, { recursive: true });
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', file, '-ac', '1', '-ar', String(SR), '-c:a', 'pcm_s16le', `${wav}.tmp.wav`]);
    renameSync(`${wav}.tmp.wav`, wav);
  }
  return wavSamples(readFileSync(wav));
}

const rms = (s: Int16Array) => Math.sqrt(s.reduce((a, v) => a + (v / 32768) ** 2, 0) / Math.max(1, s.length));

/** Where the recording's speech starts: its first 10 ms frame within 30 dB of its loudest frames. */
function leadingSilence(s: Int16Array): number {
  const db: number[] = [];
  for (let i = 0; i + 160 <= s.length; i += 160) db.push(20 * Math.log10(rms(s.subarray(i, i + 160)) + 1e-9));
  const sorted = [...db].sort((a, b) => a - b);
  const threshold = Math.max(sorted[Math.floor(db.length * 0.05)]! + 12, sorted[Math.floor(db.length * 0.95)]! - 30);
  return Math.max(0, db.findIndex((v) => v > threshold)) * 0.01;
}

/** The pig's squeal: an Ogg file inside the Qt resource bundle of GCompris's farm-animals activity. */
function pigSqueal(): Int16Array {
  const ogg = path.join(FIXTURES, 'accuracy-pig.ogg');
  if (!existsSync(ogg)) {
    const d = readFileSync(FARM_SOUNDS);
    const tree = d.readUInt32BE(8), data = d.readUInt32BE(12), names = d.readUInt32BE(16);
    const nameAt = (off: number) => Buffer.from(d.subarray(names + off + 6, names + off + 6 + 2 * d.readUInt16BE(names + off))).swap16().toString('utf16le');
    let at = -1;
    const walk = (i: number): void => {
      const e = tree + i * 22; // rcc format 2+: name, flags, child count | locale, first child | data offset, mtime
      if (d.readUInt16BE(e + 4) & 2) {
        for (let c = d.readUInt32BE(e + 10), n = d.readUInt32BE(e + 6); n > 0; c++, n--) walk(c);
      } else if (nameAt(d.readUInt32BE(e)) === 'pig.ogg') {
        at = data + d.readUInt32BE(e + 10);
      }
    };
    walk(0);
    if (at < 0) throw new Error(`pig.ogg not found in ${FARM_SOUNDS}`);
    writeFileSync(`${ogg}.tmp`, d.subarray(at + 4, at + 4 + d.readUInt32BE(at)));
    renameSync(`${ogg}.tmp`, ogg);
  }
  return pcmOf(ogg);
}

/**
 * Parts laid end to end over a low hiss (about the recordings' own noise floor); gaps in seconds.
 * Each utterance's truth onset is where it is placed plus its own leading silence.
 */
function assemble(name: string, parts: (Utterance | { gap: number } | { burst: Int16Array })[]): { file: string; truth: Truth[]; burstEnd: number } {
  const pieces: { at: number; s: Int16Array; gain: number }[] = [];
  const truth: Truth[] = [];
  const speechLevel = rms(parts.find((p): p is Utterance => 'text' in p)!.samples);
  let t = 0, burstEnd = -1;
  for (const p of parts) {
    if ('gap' in p) { t += p.gap; continue; }
    const s = 'burst' in p ? p.burst : p.samples;
    // The burst is twice as loud as the speech (+6 dB), as screams are.
    pieces.push({ at: Math.round(t * SR), s, gain: 'burst' in p ? (2 * speechLevel) / rms(s) : 1 });
    if ('text' in p) truth.push({ text: p.text, onset: t + leadingSilence(s), start: t });
    t += s.length / SR;
    if ('burst' in p) burstEnd = t;
  }
  const total = new Int16Array(Math.round(t * SR));
  let seed = 12345;
  for (let i = 0; i < total.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    total[i] = Math.round((seed / 0x7fffffff - 0.5) * 200);
  }
  for (const { at, s, gain } of pieces) for (let i = 0; i < s.length && at + i < total.length; i++) total[at + i] = Math.max(-32768, Math.min(32767, total[at + i]! + s[i]! * gain));
  const file = path.join(FIXTURES, `accuracy-${name}.wav`);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1'); header.writeUInt32LE(36 + total.length * 2, 4); header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16); header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22); header.writeUInt32LE(SR, 24);
  header.writeUInt32LE(SR * 2, 28); header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34); header.write('data', 36, 'latin1');
  header.writeUInt32LE(total.length * 2, 40);
  writeFileSync(file, Buffer.concat([header, Buffer.from(total.buffer)]));
  return { file, truth, burstEnd };
}

/**
 * Levenshtein alignment of the reference to the recognised words: per reference word, the index of the
 * recognised word equal to it (or -1), and whether it was deleted (heard as nothing, not as another word).
 */
function matchWords(reference: string, words: Word[]): { ref: string[]; hyp: { t: string; start: number }[]; match: number[]; deleted: boolean[] } {
  const ref = normalizeWords(reference);
  const hyp = words.flatMap((w) => normalizeWords(w.text).map((t) => ({ t, start: w.start })));
  const d = Array.from({ length: ref.length + 1 }, (_, i) => Array.from({ length: hyp.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= hyp.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1]!.t ? 0 : 1));
  }
  const match = new Array<number>(ref.length).fill(-1);
  const deleted = new Array<boolean>(ref.length).fill(false);
  let i = ref.length, j = hyp.length;
  while (i > 0 && j > 0) {
    const same = ref[i - 1] === hyp[j - 1]!.t;
    if (d[i]![j] === d[i - 1]![j - 1]! + (same ? 0 : 1)) {
      if (same) match[i - 1] = j - 1;
      i--; j--;
    } else if (d[i]![j] === d[i - 1]![j]! + 1) deleted[--i] = true;
    else j--;
  }
  while (i > 0) deleted[--i] = true;
  return { ref, hyp, match, deleted };
}

/** Recognised start of each utterance's first word minus its true onset (null: first word not recognised). */
function onsetErrors(truth: Truth[], words: Word[]): (number | null)[] {
  const { hyp, match } = matchWords(truth.map((u) => u.text).join(' '), words);
  let at = 0;
  return truth.map((u) => {
    const first = match[at];
    at += normalizeWords(u.text).length;
    return first !== undefined && first >= 0 ? hyp[first]!.start - u.onset : null;
  });
}

const librivox: Utterance[] = readFileSync(path.join(LIBRIVOX, 'transcription'), 'utf8').trim().split('\n').map((line) => {
  const m = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim())!;
  return { samples: pcmOf(path.join(LIBRIVOX, `${m[2]}.wav`)), text: m[1]! };
});
const jfk: Utterance = { samples: pcmOf(JFK_WAV), text: JFK_TEXT };

describe('transcription accuracy on real recordings (whisper.cpp beam search + onset refinement)', () => {
  const transcriber = createTranscriber({ dataDir: path.join(FIXTURES, 'accuracy-data') });
  const transcribe = (file: string, end: number) => transcriber.transcribe({ mediaPath: file, range: { start: 0, end }, language: 'en' });
  let spaced: { file: string; truth: Truth[]; burstEnd: number };
  let spacedWords: Word[];
  beforeAll(async () => {
    // Five LibriVox utterances, 0.8-2.8 s of silence between them.
    spaced = assemble('librivox-spaced', [{ gap: 0.8 }, librivox[0]!, { gap: 1.3 }, librivox[1]!, { gap: 2.1 }, librivox[2]!, { gap: 1.6 }, librivox[3]!, { gap: 2.8 }, librivox[4]!, { gap: 1.0 }]);
    spacedWords = (await transcribe(spaced.file, 40)).words;
  });

  it('recognises the LibriVox utterances with a word error rate under 6 % (greedy decoding made 8.5 %)', () => {
    const wer = wordErrorRate(spaced.truth.map((u) => u.text).join(' '), spacedWords.map((w) => w.text).join(' '));
    expect(wer).toBeLessThan(0.06);
  });

  it('starts utterances where their speech begins: median within 50 ms, none off by more than 300 ms', () => {
    // The old greedy decoding with its energy squeeze put the first one 1 s early and another 0.7 s off.
    const errors = onsetErrors(spaced.truth, spacedWords).filter((e): e is number => e !== null);
    // A misheard first word ("But he married" for "Had he married") has no time to compare.
    expect(errors.length).toBeGreaterThanOrEqual(4);
    const abs = errors.map(Math.abs).sort((a, b) => a - b);
    expect(abs[Math.floor((abs.length - 1) / 2)]!).toBeLessThanOrEqual(0.05);
    expect(abs.at(-1)!).toBeLessThanOrEqual(0.3);
  });

  it('keeps every word and its timing after ~6 s of a pig squealing louder than the speech', async () => {
    const { file, truth, burstEnd } = assemble('burst', [
      { gap: 0.5 }, librivox[0]!, { gap: 0.6 }, librivox[1]!, { gap: 0.6 }, librivox[2]!, { gap: 0.4 },
      { burst: pigSqueal() }, { gap: 0.4 }, librivox[3]!, { gap: 0.6 }, librivox[4]!, { gap: 0.8 }, jfk, { gap: 0.6 },
    ]);
    expect(burstEnd).toBeGreaterThan(20);
    const words = (await transcribe(file, 60)).words;
    const reference = truth.map((u) => u.text).join(' ');
    expect(wordErrorRate(reference, words.map((w) => w.text).join(' '))).toBeLessThan(0.08);
    // No word of the speech after the burst is lost (a word misheard as another is not lost)...
    const { deleted } = matchWords(reference, words);
    const afterFrom = truth.filter((u) => u.start < burstEnd).reduce((n, u) => n + normalizeWords(u.text).length, 0);
    // The reader stumbles ("a more a amiable woman") and the transcript keeps the stumble; Whisper writes
    // the fluent phrase, so that one "a" may be missing. Greedy decoding lost words here; see the bench.
    expect(deleted.slice(afterFrom).filter(Boolean).length).toBeLessThanOrEqual(1);
    // ...nothing is put inside the burst, and nothing after it drifts.
    expect(words.filter((w) => w.start > burstEnd - 5.5 && w.start < burstEnd - 0.3).map((w) => w.text)).toEqual([]);
    const after = onsetErrors(truth, words).filter((e, i): e is number => e !== null && truth[i]!.start > burstEnd);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const e of after) expect(Math.abs(e)).toBeLessThanOrEqual(0.25);
  });
});

/** Festival's SLT voice reading `text`, with its own start time of every word (its Segment relation). */
function festivalWithTimes(name: string, text: string): { file: string; words: { text: string; onset: number }[] } {
  mkdirSync(FIXTURES, { recursive: true });
  const file = path.join(FIXTURES, `accuracy-${name}.wav`);
  return { file, words: festivalWithWordTimes(text, file, { sampleRate: SR }) };
}

/** |recognised start - true onset| of every word recognised as said, sorted. */
function wordOnsetErrors(truth: { text: string; onset: number }[], words: Word[]): number[] {
  const { hyp, match } = matchWords(truth.map((w) => w.text).join(' '), words);
  return truth.flatMap((w, i) => (match[i]! >= 0 ? [Math.abs(hyp[match[i]!]!.start - w.onset)] : [])).sort((a, b) => a - b);
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

describe('word-exact timing with the forced aligner (pocketsphinx)', () => {
  // Festival speech: every word's true start is known from the synthesiser itself.
  const story = festivalWithTimes('festival-story', 'My sister bought a bicycle last summer and rode it to work for three months. Then she moved to a city with steep hills, ' +
    'sold the bicycle, and bought a small electric scooter instead. She says it was the best decision she ever made.');
  const aligned = findForcedAligner() !== null;

  it.runIf(aligned)('starts every word where it is spoken: median within 50 ms, 90 % within 120 ms', async () => {
    const transcriber = createTranscriber({ dataDir: path.join(FIXTURES, 'accuracy-data') });
    const words = (await transcriber.transcribe({ mediaPath: story.file, range: { start: 0, end: 20 }, language: 'en' })).words;
    const errors = wordOnsetErrors(story.words, words);
    expect(errors.length).toBeGreaterThanOrEqual(story.words.length - 3);
    // Whisper's own times with the energy-based alignment: median 95 ms, p90 242 ms on such speech (bench).
    expect(quantile(errors, 0.5)).toBeLessThanOrEqual(0.05);
    expect(quantile(errors, 0.9)).toBeLessThanOrEqual(0.12);
  });

  it('without pocketsphinx (SHORTS_POCKETSPHINX=off) still times the words from the audio', async () => {
    const before = process.env.SHORTS_POCKETSPHINX;
    process.env.SHORTS_POCKETSPHINX = 'off';
    try {
      expect(findForcedAligner()).toBeNull();
      const transcriber = createTranscriber({ dataDir: path.join(FIXTURES, 'accuracy-data') });
      const words = (await transcriber.transcribe({ mediaPath: story.file, range: { start: 0, end: 20 }, language: 'en' })).words;
      const errors = wordOnsetErrors(story.words, words);
      expect(errors.length).toBeGreaterThanOrEqual(story.words.length - 3);
      // The energy-based timing: looser, but no word far from where it is said.
      expect(quantile(errors, 0.5)).toBeLessThanOrEqual(0.2);
      expect(quantile(errors, 0.9)).toBeLessThanOrEqual(0.6);
    } finally {
      if (before === undefined) delete process.env.SHORTS_POCKETSPHINX;
      else process.env.SHORTS_POCKETSPHINX = before;
    }
  });
});
