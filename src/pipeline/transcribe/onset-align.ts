// Word times from the audio. Whisper's per-token times drift inside a segment (words crammed towards the
// segment's start, or a second late after a pause), while its segment edges and the audio are close to
// right. So (1) each segment's words are spread over the speech inside it by their length, pauses going
// to the words after punctuation, and (2) each word start is moved to the energy rise nearest to it,
// within limits, and kept where the audio shows none (words running into each other without a dip).
// Measured against known onsets in docs/benchmarks.md (issue 10).
import { spokenLength } from '../shared/script-text.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';

export interface OnsetOptions {
  /** How far before Whisper's start a rise may be taken (s). */
  maxEarlier: number;
  /** How far after Whisper's start a rise may be taken (s). */
  maxLater: number;
  /** How far a word Whisper put in silence may move forward to the speech (s); 0 disables. */
  maxForward: number;
}

export const DEFAULT_ONSET_OPTIONS: OnsetOptions = { maxEarlier: 0.2, maxLater: 0.12, maxForward: 1.5 };

const FRAME_SEC = 0.005;
const WINDOW_SEC = 0.02;
/** Loud frames at least this far above the quiet ones: the audio has pauses the energy can see. */
const CLEAR_SPAN_DB = 20;

/** Frame energies in dB (20 ms windows every 5 ms) of 16-bit PCM. */
export interface EnergyEnvelope { frameSec: number; db: Float64Array; floor: number; loud: number }

export function energyEnvelope(samples: Int16Array, sampleRate: number): EnergyEnvelope {
  const hop = Math.max(1, Math.round(sampleRate * FRAME_SEC));
  const hopsPerWindow = Math.max(1, Math.round(WINDOW_SEC / FRAME_SEC));
  // Energy per hop, then windows as sums of consecutive hops: each sample is squared once.
  const hops = Math.floor(samples.length / hop);
  const e = new Float64Array(hops);
  for (let h = 0; h < hops; h++) {
    let sum = 0;
    for (let i = h * hop, end = i + hop; i < end; i++) sum += (samples[i]! / 32768) ** 2;
    e[h] = sum;
  }
  const n = Math.max(0, hops - hopsPerWindow + 1);
  const db = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    let sum = 0;
    for (let h = f; h < f + hopsPerWindow; h++) sum += e[h]!;
    db[f] = 10 * Math.log10(sum / (hop * hopsPerWindow) + 1e-10);
  }
  const sorted = Float64Array.from(db).sort();
  const floor = n ? sorted[Math.floor(n * 0.1)]! : -100;
  const loud = n ? sorted[Math.floor(n * 0.95)]! : -100;
  return { frameSec: FRAME_SEC, db, floor, loud };
}

/**
 * Frames where speech starts after a quieter stretch: the energy climbs at least `minRise` dB within
 * 60 ms from a low point that is itself quiet relative to the speech level. The onset is dated where the
 * climb crosses a third of the way up (the first audible part of the consonant, not the vowel's peak).
 */
export function energyRises(env: EnergyEnvelope, minRise = 12): number[] {
  const { db } = env;
  const span = env.loud - env.floor;
  // No clear silence anywhere (speech over music, constant noise): the energy says nothing about words.
  if (span < CLEAR_SPAN_DB) return [];
  // A dip counts when it lies in the lower part of the file's range: a breath between words, not a
  // vowel-to-vowel wobble.
  const quiet = env.floor + 0.55 * span;
  const look = Math.round(0.06 / env.frameSec);
  const rises: number[] = [];
  let f = 1;
  while (f < db.length) {
    // A local minimum that is quiet enough.
    if (!(db[f]! <= db[f - 1]! && db[f]! <= (db[f + 1] ?? Infinity) && db[f]! < quiet)) { f++; continue; }
    const low = db[f]!;
    let peak = f;
    for (let g = f + 1; g <= Math.min(db.length - 1, f + look); g++) if (db[g]! > db[peak]!) peak = g;
    if (db[peak]! - low < minRise) { f++; continue; }
    const cross = low + (db[peak]! - low) / 3;
    let at = f;
    while (at < peak && db[at]! < cross) at++;
    rises.push(at * env.frameSec + WINDOW_SEC / 2);
    f = peak + 1;
  }
  return rises;
}

/** Index of the first value >= x in a sorted array. */
function lowerBound(a: number[], x: number): number {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** True when the envelope stays quiet (no speech) for `sec` from time t. */
function quietFrom(env: EnergyEnvelope, t: number, sec: number): boolean {
  const quiet = env.floor + 0.45 * (env.loud - env.floor);
  const from = Math.max(0, Math.floor(t / env.frameSec));
  const to = Math.min(env.db.length, from + Math.round(sec / env.frameSec));
  for (let f = from; f < to; f++) if (env.db[f]! > quiet) return false;
  return from < env.db.length;
}

/**
 * Moves each word's start to the nearest energy rise within [start - maxEarlier, start + maxLater]; a
 * word Whisper put in silence (it crams a window's first words towards the window's start) moves to the
 * first rise after it, up to `maxForward` later. Words with no rise near them keep Whisper's time
 * (spreading a correction over them measured worse). Never before the previous word's start; times are
 * seconds from `offset` (the start of the samples on the source timeline).
 */
export function refineOnsets(words: Word[], env: EnergyEnvelope, offset = 0, opts: OnsetOptions = DEFAULT_ONSET_OPTIONS): Word[] {
  const rises = energyRises(env).map((t) => t + offset);
  if (!rises.length) return words;
  const delta: (number | null)[] = [];
  let prevStart = -Infinity;
  for (const w of words) {
    const inSilence = opts.maxForward > 0 && quietFrom(env, w.start - offset, 0.1);
    const lo = Math.max(w.start - opts.maxEarlier, prevStart + 0.05);
    const hi = w.start + opts.maxLater;
    let best: number | null = null;
    for (let i = lowerBound(rises, lo); i < rises.length && rises[i]! <= hi; i++) {
      if (best === null || Math.abs(rises[i]! - w.start) < Math.abs(best - w.start)) best = rises[i]!;
    }
    if (best === null && inSilence) {
      const i = lowerBound(rises, Math.max(w.start, prevStart + 0.05));
      if (i < rises.length && rises[i]! <= w.start + opts.maxForward) best = rises[i]!;
    }
    delta.push(best === null ? null : best - w.start);
    prevStart = best ?? w.start;
  }
  const out = words.map((w, i) => {
    const d = delta[i] ?? 0;
    return { ...w, start: w.start + d, end: Math.max(w.end, w.start + d) };
  });
  // Keep the words in order: a start never passes the next word's, an end never runs into the next start.
  for (let i = 1; i < out.length; i++) {
    if (out[i]!.start < out[i - 1]!.start) out[i]!.start = out[i - 1]!.start;
    if (out[i]!.end < out[i]!.start) out[i]!.end = out[i]!.start;
    if (out[i - 1]!.end > out[i]!.start) out[i - 1]!.end = out[i]!.start;
  }
  return out;
}

/** Voiced stretches of the envelope inside [from, to) (s), short stops (< 120 ms) bridged. */
function voicedRuns(env: EnergyEnvelope, from: number, to: number): [number, number][] {
  const threshold = Math.max(env.floor + 10, env.loud - 35);
  const runs: [number, number][] = [];
  const a = Math.max(0, Math.floor(from / env.frameSec)), b = Math.min(env.db.length, Math.ceil(to / env.frameSec));
  const bridge = Math.round(0.12 / env.frameSec);
  for (let f = a; f < b; f++) {
    if (env.db[f]! <= threshold) continue;
    const t0 = f * env.frameSec + WINDOW_SEC / 2;
    let g = f;
    while (g + 1 < b && env.db[g + 1]! > threshold) g++;
    const t1 = (g + 1) * env.frameSec + WINDOW_SEC / 2;
    const last = runs[runs.length - 1];
    if (last && t0 - last[1] < bridge * env.frameSec) last[1] = t1;
    else runs.push([t0, t1]);
    f = g;
  }
  return runs;
}

// How long a word is to say: letters of alphabets, a Han character or Hangul block as a syllable (three
// letters), a kana as a mora (two): counting a Chinese word as its two characters spread a phrase's words
// over its first half and capped it at 8 characters a second (script-text.ts).
const letters = (w: Word) => Math.max(2, spokenLength(w.text));

/**
 * Spreads a segment's words over the speech inside the segment in proportion to their letters, skipping
 * the pauses: Whisper's per-token times inside a segment drift by up to a second, while its segment
 * edges and the audio's voiced stretches are close to right. Returns the words unchanged when the
 * segment holds no clear speech (speech over music, constant noise).
 */
export function spreadOverSpeech(words: Word[], whole: TimeRange, env: EnergyEnvelope, offset = 0): Word[] {
  if (env.loud - env.floor < CLEAR_SPAN_DB || !words.length) return words;
  let start = whole.start;
  // Whisper's segment edge can fall a little after the speech starts: begin with the speech it cut into.
  const before = voicedRuns(env, start - 1 - offset, start + 0.02 - offset);
  const cut = before[before.length - 1];
  if (cut && cut[1] >= start - offset && cut[0] > start - 0.4 - offset && cut[0] > start - 1 - offset + 0.05) start = cut[0] + offset;
  const segment = { start, end: whole.end };
  const runs = voicedRuns(env, segment.start - offset, segment.end - offset);
  const plan = letterPlan(words, runs);
  if (!plan) return words;
  // A pause inside the segment is almost always between words, and speakers pause at punctuation: each
  // pause goes to the word whose letter position along the speech is nearest to it (a word after a
  // comma or full stop from 2.5 times as far), then each group of words is spread over its own stretch.
  const afterPunct = (k: number) => k > 0 && /[,.;:!?…]["')\]]*$/u.test(words[k - 1]!.text);
  const anchors: { word: number; run: number }[] = [{ word: 0, run: 0 }];
  let boundary = 0;
  runs.forEach(([a, b], r) => {
    if (r > 0) {
      const dist = (k: number) => Math.abs(plan.positions[k]! - boundary) / (afterPunct(k) ? 2.5 : 1);
      let best = -1;
      for (let k = anchors[anchors.length - 1]!.word + 1; k < words.length; k++) if (best < 0 || dist(k) < dist(best)) best = k;
      if (best > 0 && dist(best) < 0.3) anchors.push({ word: best, run: r });
    }
    boundary += b - a;
  });
  const out: Word[] = [];
  anchors.forEach((anchor, i) => {
    const next = anchors[i + 1];
    const group = words.slice(anchor.word, next?.word ?? words.length);
    const groupRuns = runs.slice(anchor.run, next?.run ?? runs.length);
    const part = letterPlan(group, groupRuns);
    // A group too long for its stretch keeps the whole segment's spread.
    const times = part ? part.positions.map((p) => timeAt(groupRuns, p)) : plan.positions.slice(anchor.word, next?.word ?? words.length).map((p) => timeAt(runs, p));
    const ends = part ? part.ends.map((p) => timeAt(groupRuns, p)) : plan.ends.slice(anchor.word, next?.word ?? words.length).map((p) => timeAt(runs, p));
    group.forEach((w, k) => out.push({ ...w, start: times[k]! + offset, end: Math.max(times[k]!, ends[k]!) + offset }));
  });
  return out;
}

/** Source time (relative to the envelope) of a position along the voiced time of `runs`. */
function timeAt(runs: [number, number][], pos: number): number {
  let left = pos;
  for (const [a, b] of runs) {
    if (left < b - a - 1e-6) return a + left;
    left -= b - a;
  }
  return runs[runs.length - 1]![1];
}

/**
 * Where each word starts and ends along the voiced time of `runs`, in proportion to its letters; null
 * when the runs hold too little speech for the words (a blip in music or noise).
 */
function letterPlan(words: Word[], runs: [number, number][]): { positions: number[]; ends: number[] } | null {
  const total = words.reduce((n, w) => n + letters(w), 0);
  // Nobody reads slower than about 8 letters a second: sound beyond that is not these words but a burst
  // Whisper let the segment run on over (a scream after the last word), so the words get the first part.
  const voiced = Math.min(runs.reduce((n, [a, b]) => n + b - a, 0), total / 8 + 0.5);
  if (!runs.length || voiced < Math.max(0.2, 0.04 * words.length)) return null;
  const positions: number[] = [];
  const ends: number[] = [];
  let before = 0;
  for (const w of words) {
    positions.push((voiced * before) / total);
    before += letters(w);
    ends.push(Math.max(0, (voiced * before) / total - 1e-3));
  }
  return { positions, ends };
}

/** The shortest time a word is given: about one short syllable. */
export const MIN_WORD_SEC = 0.1;

/**
 * Gives every word at least MIN_WORD_SEC. Segment edges and alignment can squeeze a word to nothing
 * (Whisper's last word of a segment stamped at the next one's start): a caption page made of it would be
 * shown for no time and libass drops it, so a spoken word went missing from the burned captions. The end
 * is extended first (starts are what the timing work measured); where the next word follows at once the
 * start moves back into the pause before it, taking at most half of the previous word.
 */
export function giveEveryWordTime(words: Word[], rangeEnd: number): Word[] {
  const out = words.map((w) => ({ ...w }));
  out.forEach((w, i) => {
    if (w.end - w.start >= MIN_WORD_SEC) return;
    const nextStart = out[i + 1]?.start ?? rangeEnd;
    w.end = Math.max(w.end, Math.min(w.start + MIN_WORD_SEC, nextStart));
    if (w.end - w.start >= MIN_WORD_SEC) return;
    const prev = out[i - 1];
    const floor = prev ? (prev.start + prev.end) / 2 : 0;
    w.start = Math.max(floor, Math.min(w.start, w.end - MIN_WORD_SEC));
    if (prev && prev.end > w.start) prev.end = w.start;
  });
  return out;
}
