// Builds realistic Transcript objects from plain text for the highlight and copy tests: every word gets
// a plausible time at a steady talking pace, sentences are separated by a short breath.
import type { Sentence, Transcript, Word } from '../../src/domain/transcript.js';

export interface SpokenSentence { text: string; wordsPerSec?: number; pauseAfter?: number }

export function makeTranscript(
  lines: (string | SpokenSentence)[],
  opts: { start?: number; wordsPerSec?: number; pause?: number } = {},
): Transcript {
  let t = opts.start ?? 0;
  const sentences: Sentence[] = [];
  const words: Word[] = [];
  lines.forEach((line, index) => {
    const spoken = typeof line === 'string' ? { text: line } : line;
    const perWord = 1 / (spoken.wordsPerSec ?? opts.wordsPerSec ?? 2.7);
    const sentenceWords = spoken.text.split(/\s+/).filter(Boolean).map((text) => {
      const w = { text, start: round(t), end: round(t + perWord * 0.9), probability: 0.9 };
      t += perWord;
      return w;
    });
    words.push(...sentenceWords);
    sentences.push({ index, sentence: spoken.text, start: sentenceWords[0]!.start, end: sentenceWords[sentenceWords.length - 1]!.end, words: sentenceWords });
    t += spoken.pauseAfter ?? opts.pause ?? 0.4;
  });
  const start = opts.start ?? 0;
  return { language: 'en', model: 'test', range: { start, end: round(t) }, words, sentences };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
