// Groups recognised words into sentences (spec 2.2). Pure: the highlight stage scores whole sentences
// and captions never cut one in half, so the boundaries must be predictable and testable.
import { endsWithSentenceMark, joinWords, stripClosers } from '../shared/script-text.js';
import type { Sentence, Word } from '../../domain/transcript.js';

/** A silence longer than this ends a sentence even without punctuation (Whisper often omits it). */
export const PAUSE_BREAK_SEC = 1.2;
/** Longer sentences are split at their best internal break, so one ramble cannot swallow a highlight. */
export const MAX_SENTENCE_SEC = 25;
export const MAX_SENTENCE_WORDS = 60;

// Sentence-final marks of every script (script-text.ts: . ! ? … 。！？ ؟ ۔ । ॥ ። and the Greek question
// mark), optionally followed by closing quotes or brackets ("Stop!" he said).
const COMMA_LIKE = /[,;:，、；：،؛—–-]["'”’)\]」』]*$/u;
// "Mr." and single initials end with a period but not a sentence.
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'etc', 'e.g', 'i.e', 'no', 'mt', 'ft', 'approx']);
const NO_ABBREVIATIONS = new Set<string>();

function endsSentence(text: string, next: string | undefined, abbreviations: ReadonlySet<string>): boolean {
  if (!endsWithSentenceMark(text)) return false;
  const bare = stripClosers(text);
  if (!bare.endsWith('.')) return true;
  const stem = bare.slice(0, -1).replace(/^["'“‘(\[]+/u, '');
  if (abbreviations.has(stem.toLowerCase())) return false;
  // Initials ("U.S.", "J.") may end a sentence or not: only a capitalised next word says it does.
  if (/^(\p{L}\.)*\p{Lu}$/u.test(stem)) return next === undefined || /^["'“‘(\[]*\p{Lu}/u.test(next);
  return true;
}

function gapAfter(words: readonly Word[], i: number): number {
  const next = words[i + 1];
  const cur = words[i];
  return next && cur ? Math.max(0, next.start - cur.end) : 0;
}

function tooLong(words: readonly Word[]): boolean {
  const first = words[0];
  const last = words[words.length - 1];
  if (!first || !last) return false;
  return words.length > MAX_SENTENCE_WORDS || last.end - first.start > MAX_SENTENCE_SEC;
}

/** Splits an over-long run at its largest pause, commas counting as a pause, until every piece fits. */
function splitLong(words: Word[]): Word[][] {
  if (words.length < 2 || !tooLong(words)) return [words];
  // Keep a few words on each side when possible so the cut does not leave a one-word fragment.
  const margin = words.length >= 8 ? 3 : 1;
  let best = -1;
  let bestScore = -Infinity;
  for (let i = margin - 1; i < words.length - margin; i++) {
    const w = words[i];
    if (!w) continue;
    const comma = COMMA_LIKE.test(w.text) ? 0.5 : 0;
    // A slight pull towards the middle breaks ties between equal pauses (all-zero gaps in dense speech).
    const centre = 1 - Math.abs((i + 1) / words.length - 0.5);
    const score = gapAfter(words, i) + comma + centre * 0.01;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  if (best < 0) best = Math.floor(words.length / 2) - 1;
  return [...splitLong(words.slice(0, best + 1)), ...splitLong(words.slice(best + 1))];
}

function toSentence(words: Word[], index: number): Sentence {
  const first = words[0]!;
  const last = words[words.length - 1]!;
  return {
    index,
    // Chinese and Japanese words are joined without spaces (script-text.ts).
    sentence: joinWords(words.map((w) => w.text)),
    start: first.start,
    end: last.end,
    words,
  };
}

/**
 * Groups words (in time order) into sentences, indexed from 0. Sentence marks and spacing are read from
 * the characters (every script's marks end a sentence; scripts without spaces are joined without them),
 * so `language` (the transcript's, ISO 639-1) only decides what the characters cannot: the English
 * abbreviations ("Mr.", "e.g.") that do not end a sentence are English only.
 */
export function buildSentences(words: Word[], language?: string): Sentence[] {
  const abbreviations = !language || /^en\b/i.test(language) ? ABBREVIATIONS : NO_ABBREVIATIONS;
  const groups: Word[][] = [];
  let current: Word[] = [];
  words.forEach((word, i) => {
    if (!word.text.trim()) return;
    current.push(word);
    if (endsSentence(word.text.trim(), words[i + 1]?.text.trim(), abbreviations) || gapAfter(words, i) > PAUSE_BREAK_SEC || i === words.length - 1) {
      groups.push(current);
      current = [];
    }
  });
  if (current.length) groups.push(current);
  return groups.flatMap(splitLong).map(toSentence);
}
