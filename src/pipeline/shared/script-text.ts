// What the text stages need to know about a writing system: whether it puts spaces between words
// (Chinese, Japanese, Thai do not), where its words are (Intl.Segmenter, which carries ICU's dictionaries
// for those scripts), how its sentences end (。 ؟ । ...), and which way it runs (Arabic, Hebrew: right to
// left). Pure and language-neutral: decided from the characters themselves, so a Latin brand name inside
// a Chinese sentence or a number inside Arabic is handled without asking which language the request was.

/** A character of a script written without spaces between words, or CJK punctuation/full-width forms. */
const NO_SPACE_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u3000-\u303f\u30fc\uff01-\uff65]/u;

/** True when the text holds a character of a script written without spaces between words. */
export function hasNoSpaceScript(text: string): boolean {
  return NO_SPACE_CHAR.test(text);
}

/**
 * Whether a space goes between two words written one after the other: not where either side of the
 * join is a character of a script without spaces ("我用" + "iPhone" + "拍照" is "我用iPhone拍照", as
 * Whisper wrote it), else yes.
 */
export function spaceBetween(before: string, after: string): boolean {
  const last = [...before].pop() ?? '';
  const first = [...after][0] ?? '';
  return !(NO_SPACE_CHAR.test(last) || NO_SPACE_CHAR.test(first));
}

/** Words joined back into text: spaces only where the script uses them. */
export function joinWords(words: readonly string[]): string {
  let out = '';
  for (const w of words) {
    const t = w.trim();
    if (!t) continue;
    out += out && spaceBetween(out, t) ? ` ${t}` : t;
  }
  return out;
}

/**
 * Sentence-final marks of every script: . ! ? … (Latin, Cyrillic, ...), 。！？．｡ (CJK), ؟ (Arabic
 * question mark), ۔ (Urdu full stop), । ॥ (Devanagari danda), ። ፧ (Ethiopic), ။ (Myanmar), ։
 * (Armenian full stop), and ";" as Greek writes its question mark (U+037E, which NFC turns into ";").
 * (Armenian ՞ sits on the stressed word, inside the sentence: not a sentence end.)
 */
const FINAL_MARKS = '.!?…。！？．｡؟۔।॥።፧။։';
/** Closing quotes and brackets that may follow a final mark ("Stop!" he said; 「はい。」). */
const CLOSERS = '"\'”’»)]）」』】〕〉》›';
const FINAL = new RegExp(`[${escapeClass(FINAL_MARKS)}][${escapeClass(CLOSERS)}]*$`, 'u');
const GREEK_QUESTION = new RegExp(`[\\p{Script=Greek}][;\\u037e][${escapeClass(CLOSERS)}]*$`, 'u');

function escapeClass(chars: string): string {
  return chars.replace(/[\]\\^-]/g, '\\$&');
}

/** True when a word ends with a sentence-final mark of any script (optionally followed by closers). */
export function endsWithSentenceMark(word: string): boolean {
  return FINAL.test(word) || GREEK_QUESTION.test(word);
}

/** The word without its trailing closing quotes and brackets. */
export function stripClosers(word: string): string {
  return word.replace(new RegExp(`[${escapeClass(CLOSERS)}]+$`, 'u'), '');
}

/** Characters of scripts written right to left (Arabic and its Persian/Urdu forms, Hebrew, Syriac, Thaana, N'Ko). */
const RTL_CHAR = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\u200f]/u;
/** Strong left-to-right characters: letters of every other script. */
const LTR_CHAR = /[\p{L}\u200e]/u;

/**
 * The direction of a paragraph as the Unicode bidi algorithm decides it (rule P2): that of its first
 * strong character. Digits and punctuation have none; text without any letter is left to right.
 */
export function isRightToLeft(text: string): boolean {
  for (const ch of text) {
    if (RTL_CHAR.test(ch)) return true;
    if (LTR_CHAR.test(ch)) return false;
  }
  return false;
}

/**
 * Whether a caption page reads right to left: more letters of right-to-left scripts than of others. Not
 * just the first letter: an Arabic phrase that opens with "iPhone" is still an Arabic line.
 */
export function readsRightToLeft(text: string): boolean {
  let rtl = 0, ltr = 0;
  for (const ch of text) {
    if (RTL_CHAR.test(ch)) rtl++;
    else if (LTR_CHAR.test(ch)) ltr++;
  }
  return rtl > ltr;
}

/** RIGHT-TO-LEFT MARK: an invisible strong right-to-left character. */
export const RLM = '\u200f';

/** A word found by the segmenter: its text and where it lies in the segmented string (UTF-16 offsets). */
export interface TextWord { text: string; from: number; to: number }

// Opening punctuation belongs to the word after it, everything else that is not a word to the word before.
const OPENING = /^[\p{Ps}\p{Pi}¿¡]+$/u;

/** Small kana, the long-vowel mark and the iteration mark: they continue the word before them. */
const CONTINUES_WORD = /^[ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶーゝゞヽヾ々]/u;

const segmenters = new Map<string, Intl.Segmenter>();
/** The word segmenter of a language, made once: building one per sentence costs more than segmenting it. */
export function wordSegmenter(language?: string): Intl.Segmenter {
  const key = language ?? '';
  let s = segmenters.get(key);
  if (!s) {
    try {
      s = new Intl.Segmenter(language || undefined, { granularity: 'word' });
    } catch {
      // An unknown tag ("auto", a typo): ICU's dictionaries for Chinese, Japanese and Thai apply anyway.
      s = new Intl.Segmenter(undefined, { granularity: 'word' });
    }
    segmenters.set(key, s);
  }
  return s;
}

/**
 * Splits text into words (Intl.Segmenter, word granularity: dictionary-based for Chinese, Japanese,
 * Thai, Lao, Khmer and Burmese), punctuation attached to its word the way captions and sentences want
 * it: closing marks to the word before ("好吗？"), opening ones to the word after ("「はい"). Spaces
 * separate words and are dropped. `from`/`to` are offsets into `text` covering the attached marks.
 */
export function segmentWords(text: string, language?: string): TextWord[] {
  const words: TextWord[] = [];
  let pending: TextWord | null = null;
  for (const s of wordSegmenter(language).segment(text)) {
    const seg = s.segment;
    if (!seg.trim()) continue;
    const from = s.index, to = s.index + seg.length;
    const last = words[words.length - 1];
    // ICU sometimes cuts before a character no word starts with (っ, ー, 々): it stays with its word.
    if (last && !pending && last.to === from && CONTINUES_WORD.test(seg)) {
      words.push({ ...words.pop()!, text: last.text + seg, to });
      continue;
    }
    if (s.isWordLike || /[\p{L}\p{N}]/u.test(seg)) {
      words.push(pending ? { text: pending.text + seg, from: pending.from, to } : { text: seg, from, to });
      pending = null;
      continue;
    }
    if (pending) pending = { text: pending.text + seg, from: pending.from, to };
    else if (OPENING.test(seg) || !last) pending = { text: seg, from, to };
    else words.push({ ...words.pop()!, text: last.text + seg, to });
  }
  // Marks after the last word (or text that is only marks).
  if (pending) {
    const last = words.pop();
    words.push(last ? { text: last.text + pending.text, from: last.from, to: pending.to } : pending);
  }
  return words;
}

/**
 * How long a word takes to say relative to others, in "letters": a Han character or a Hangul block is
 * a syllable (about three Latin letters), a kana a mora (about two), anything else one per letter or
 * digit. Used to spread a segment's words over its speech.
 */
export function spokenLength(text: string): number {
  let n = 0;
  for (const ch of text) {
    if (/[\p{Script=Han}\p{Script=Hangul}]/u.test(ch)) n += 3;
    else if (/[\p{Script=Hiragana}\p{Script=Katakana}\u30fc]/u.test(ch)) n += 2;
    else if (/[\p{L}\p{N}]/u.test(ch)) n += 1;
  }
  return n;
}

// --- The script a transcript is written in ------------------------------------------------------

/** Scripts a transcript's letters are counted in (Japanese: kanji and both kana together). */
const SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ['Latin', /\p{Script=Latin}/u], ['Cyrillic', /\p{Script=Cyrillic}/u], ['Greek', /\p{Script=Greek}/u],
  ['Arabic', /\p{Script=Arabic}/u], ['Hebrew', /\p{Script=Hebrew}/u], ['Devanagari', /\p{Script=Devanagari}/u],
  ['Armenian', /\p{Script=Armenian}/u], ['Georgian', /\p{Script=Georgian}/u], ['Hangul', /\p{Script=Hangul}/u],
  ['Japanese', /[\p{Script=Hiragana}\p{Script=Katakana}]/u], ['Han', /\p{Script=Han}/u],
  ['Thai', /\p{Script=Thai}/u], ['Bengali', /\p{Script=Bengali}/u], ['Telugu', /\p{Script=Telugu}/u], ['Tamil', /\p{Script=Tamil}/u],
];

/** The one script each spec language is written in; Latin for the rest, none for Serbian (both). */
const LANGUAGE_SCRIPT: Readonly<Record<string, readonly string[]>> = {
  hi: ['Devanagari'], mr: ['Devanagari'], ne: ['Devanagari'],
  ar: ['Arabic'], fa: ['Arabic'], ur: ['Arabic'], he: ['Hebrew'],
  ru: ['Cyrillic'], uk: ['Cyrillic'], bg: ['Cyrillic'], mk: ['Cyrillic'],
  el: ['Greek'], hy: ['Armenian'], ka: ['Georgian'], ko: ['Hangul'],
  zh: ['Han'], ja: ['Japanese', 'Han'], sr: [],
};

export interface ScriptMismatch { expected: string; found: string; share: number }

/**
 * Whether a transcript is mostly written in another script than its language's: a multilingual model too
 * small for a language may write Hindi in Urdu letters or Marathi in Latin ones (measured with base-q5_1,
 * docs/benchmarks.md). null when it is not, or when there are too few letters to tell (under 20).
 */
export function scriptMismatch(language: string, text: string): ScriptMismatch | null {
  const code = language.toLowerCase().split(/[-_]/)[0] ?? '';
  const expected = LANGUAGE_SCRIPT[code] ?? ['Latin'];
  if (expected.length === 0) return null;
  const counts = new Map<string, number>();
  let letters = 0;
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    letters++;
    const script = SCRIPTS.find(([, re]) => re.test(ch))?.[0] ?? 'other';
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  if (letters < 20) return null;
  const own = expected.reduce((n, s) => n + (counts.get(s) ?? 0), 0);
  if (own / letters >= 0.5) return null;
  const [found, n] = [...counts].filter(([s]) => !expected.includes(s)).sort((a, b) => b[1] - a[1])[0]!;
  return { expected: expected[0]!, found, share: n / letters };
}
