// What the transcriber hears: words with their source times, grouped into sentences.
import type { TimeRange } from './time.js';

/** One recognised word with absolute source times. */
export interface Word { text: string; start: number; end: number; probability: number }

/** Spec 2.2 plus the words that make it up (words are internal; the API shows the first four fields). */
export interface Sentence { index: number; sentence: string; start: number; end: number; words: Word[] }

export interface Transcript {
  language: string;
  model: string;
  range: TimeRange;
  words: Word[];
  sentences: Sentence[];
}
