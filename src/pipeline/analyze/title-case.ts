// How a title and a hashtag are cased, by the language's own rules. English titles take title case
// ("Why Do Ninety Percent of New Restaurants Fail?"), a convention of English alone. Every other
// language takes sentence case: the first letter up, everything else as Whisper wrote it, so German
// nouns and names in any language keep the capitals they were transcribed with. Scripts without case
// (Chinese, Arabic, Devanagari …) are left as they are. Upper-casing follows the language's locale
// (Turkish and Azerbaijani "i" -> "İ"), and Dutch "ij" opens a sentence as "IJ".
import { baseLanguage, isEnglish } from './stop-words.js';

/** Short English function words that stay lower case inside a title. */
const SMALL_WORDS = new Set(['a', 'an', 'the', 'and', 'but', 'or', 'nor', 'for', 'so', 'yet', 'on', 'at', 'to', 'of', 'in', 'by', 'with', 'as', 'vs', 'from', 'into', 'per', 'via']);

export function caseTitle(text: string, language: string): string {
  return isEnglish(language) ? titleCase(text) : sentenceCase(text, language);
}

/** English title case; acronyms, "iPhone"-style names and numbers keep their shape. */
export function titleCase(s: string): string {
  const words = s.split(' ').filter(Boolean);
  return words.map((w, k) => {
    const core = w.replace(/^[^\p{L}\p{N}]+/u, '');
    const lead = w.slice(0, w.length - core.length);
    if (core.length === 0) return w;
    if (/\p{Lu}.*\p{Lu}/u.test(core) || /^\p{Ll}+\p{Lu}/u.test(core) || /^\d/.test(core)) return w;
    const lower = core.toLowerCase();
    const bare = lower.replace(/[^\p{L}']/gu, '');
    if (k > 0 && k < words.length - 1 && SMALL_WORDS.has(bare)) return lead + lower;
    return lead + lower.charAt(0).toUpperCase() + lower.slice(1);
  }).join(' ');
}

/** The first letter up (after any opening punctuation such as "¿" or "«"), the rest untouched. */
export function sentenceCase(text: string, language: string): string {
  const m = /^([^\p{L}\p{N}]*)(\p{L})/u.exec(text);
  if (!m) return text;
  const at = m[1]!.length;
  return text.slice(0, at) + upperFirst(m[2]!, text.slice(at + m[2]!.length), language);
}

/** A word with its first letter up in the language's locale ("canción" -> "Canción", "istanbul" -> "İstanbul" in Turkish). */
export function capitaliseWord(word: string, language: string): string {
  const first = [...word][0];
  if (first === undefined) return word;
  return upperFirst(first, word.slice(first.length), language);
}

/** `letter` up, followed by `rest`. */
function upperFirst(letter: string, rest: string, language: string): string {
  const base = baseLanguage(language);
  // Dutch capitalises the digraph: "ijsland" -> "IJsland".
  if (base === 'nl' && letter === 'i' && rest.startsWith('j')) return `IJ${rest.slice(1)}`;
  try {
    return letter.toLocaleUpperCase(base || undefined) + rest;
  } catch {
    return letter.toUpperCase() + rest;
  }
}

/**
 * Columns a line takes on screen: two for the wide characters of Chinese, Japanese and Korean (and
 * full-width forms), none for combining marks, one otherwise.
 */
export function displayWidth(s: string): number {
  let width = 0;
  for (const c of s) {
    if (/\p{M}/u.test(c)) continue;
    width += /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60]/u.test(c) ? 2 : 1;
  }
  return width;
}
