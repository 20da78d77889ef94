// What the highlight score may read from text in any of the spec's 55 languages without a word list:
// the speech language's base code, words as the language segments them (Intl.Segmenter, so Chinese and
// Japanese get words too), questions and exclamations by their marks in every script, numbers in any
// script's digits, and whether a sentence is finished. The English word lists of highlight-features.ts
// fire only where hasLexicon() says the text is in their language: the German article "die" is not the
// English verb, and a flat German paragraph must not score "emotion" from it.
import { endsWithSentenceMark, wordSegmenter } from '../shared/script-text.js';
import { baseLanguage as baseCode } from './stop-words.js';

/** Languages with their own highlight word lists (highlight-features.ts); every other one is scored language-neutrally. */
const LEXICON_LANGUAGES: ReadonlySet<string> = new Set(['en']);

/**
 * The speech language's ISO 639-1 base code (stop-words.ts baseLanguage: 'pt-BR' -> 'pt', 'EN' -> 'en'),
 * with the spec's default 'en' for an absent or malformed one, so the scorer always has a language.
 */
export function baseLanguage(language?: string | null): string {
  const code = baseCode(language ?? '');
  return /^[a-z]{2,3}$/.test(code) ? code : 'en';
}

/** Whether the highlight word lists are written in this speech language. */
export function hasLexicon(language?: string | null): boolean {
  return LEXICON_LANGUAGES.has(baseLanguage(language));
}

/** Lower case by the language's rules (Turkish dotted and dotless i), NFKC so full-width forms match. */
export function foldCase(text: string, language?: string | null): string {
  const t = text.normalize('NFKC');
  try {
    return t.toLocaleLowerCase(baseLanguage(language));
  } catch {
    return t.toLowerCase();
  }
}

/**
 * The words of a text as its language segments them, case-folded: ICU's dictionaries split Chinese
 * and Japanese, which have no spaces; apostrophes stay inside words ("l'homme" is one word in French).
 */
export function wordsOf(text: string, language?: string | null): string[] {
  const out: string[] = [];
  for (const seg of wordSegmenter(baseLanguage(language)).segment(foldCase(text, language))) {
    if (seg.isWordLike) out.push(seg.segment);
  }
  return out;
}

/** Closing quotes and brackets that may follow a sentence's last mark. */
const CLOSERS = String.raw`["'”’»」』)\]\s]*`;
/** Question marks of every script: Latin, full-width, Arabic (also Persian, Urdu), reversed, Ethiopic. */
const QUESTION_END = new RegExp(`[?？؟⸮፧]${CLOSERS}$`, 'u');
/** Greek writes its question mark as a semicolon (U+037E, and plain ';' in most typed text). */
const GREEK_QUESTION_END = new RegExp(`[;;]${CLOSERS}$`, 'u');

/**
 * A question by its punctuation alone, in any script: Spanish opens one with ¿, Armenian marks the
 * questioned word itself (՞ over its stressed vowel, anywhere in the sentence).
 */
export function endsAsQuestion(text: string, language?: string | null): boolean {
  const t = text.trim();
  if (QUESTION_END.test(t) || t.startsWith('¿') || t.includes('՞')) return true;
  return baseLanguage(language) === 'el' && GREEK_QUESTION_END.test(t);
}

/** An exclamation by its mark: Latin, Spanish's opening ¡, full-width. */
export function exclaims(text: string): boolean {
  const t = text.trim();
  return new RegExp(`[!！]${CLOSERS}$`, 'u').test(t) || t.startsWith('¡');
}

/** Whether the text ends as a finished sentence (a final mark of any script, script-text.ts) rather than cut mid-thought. */
export function endsSentence(text: string): boolean {
  return endsWithSentenceMark(text.trim());
}

/** A number in any script's decimal digits (Arabic-Indic, Devanagari, full-width...). */
export function hasDigits(text: string): boolean {
  return /\p{Nd}/u.test(text);
}

/** Whether a word is made of digits only (any script's). */
export function isNumeral(word: string): boolean {
  return /^[\p{Nd}.,]+$/u.test(word) && /\p{Nd}/u.test(word);
}

/**
 * Whether the first letter is lower case in a script that has case: Whisper starts a segment that
 * continues the previous sentence in lower case, so the line does not open a thought of its own.
 */
export function startsLowerCase(text: string): boolean {
  const first = /\p{L}/u.exec(text);
  return first !== null && /\p{Ll}/u.test(first[0]) && first[0] !== first[0].toUpperCase();
}
