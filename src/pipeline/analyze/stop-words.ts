// Function words of every spoken language of the spec, for the copywriter: a hashtag must never be one,
// and a title must not stop on one. The lists are the stopwords-iso collection (MIT, maintained, one
// JSON file), which covers 44 of the spec's 54 codes. For the others a list of a closely related language
// stands in where one exists (Bosnian and Serbian share their function words with Croatian, Macedonian
// most of its with Bulgarian, Azerbaijani with Turkish, Nepali with Hindi); the copywriter adds what a
// transcript itself shows (the words it says in most sentences) for every language without a list of
// its own. Words are compared in Unicode NFC, lower case, and Serbian Cyrillic is read through its
// one-to-one Latin spelling, so Cyrillic and Latin transcripts both meet the Croatian list.
import { createRequire } from 'node:module';
import { wordSegmenter } from '../shared/script-text.js';

type IsoLists = Record<string, string[]>;

let iso: IsoLists | null = null;
/** Loaded on first use (about 1 MB of JSON): English requests never read it. */
function isoLists(): IsoLists {
  iso ??= createRequire(import.meta.url)('stopwords-iso/stopwords-iso.json') as IsoLists;
  return iso;
}

/** The list that stands in for a language the collection lacks, and why in one word. */
const RELATED_LIST: Readonly<Record<string, string>> = { bs: 'hr', sr: 'hr', mk: 'bg', az: 'tr', ne: 'hi' };

/** Languages written without spaces between words: words come from ICU's dictionary segmenter. */
const UNSPACED = new Set(['zh', 'ja', 'th', 'lo', 'km', 'my']);

/** ISO 639-1 base code of a request or transcript language ("pt-BR" -> "pt", "EN" -> "en"). */
export function baseLanguage(language: string): string {
  return language.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

/** The code as an ICU locale, or undefined (the root locale) for a code ICU would refuse ("auto", ""). */
export function icuLocale(language: string): string | undefined {
  const base = baseLanguage(language);
  try {
    return base && Intl.getCanonicalLocales(base).length > 0 ? base : undefined;
  } catch {
    return undefined;
  }
}

export function isEnglish(language: string): boolean {
  const base = baseLanguage(language);
  return base === 'en' || base === '';
}

export function writtenWithoutSpaces(language: string): boolean {
  return UNSPACED.has(baseLanguage(language));
}

const SERBIAN_CYRILLIC: Readonly<Record<string, string>> = {
  а: 'a', б: 'b', в: 'v', г: 'g', д: 'd', ђ: 'đ', е: 'e', ж: 'ž', з: 'z', и: 'i', ј: 'j', к: 'k', л: 'l', љ: 'lj', м: 'm',
  н: 'n', њ: 'nj', о: 'o', п: 'p', р: 'r', с: 's', т: 't', ћ: 'ć', у: 'u', ф: 'f', х: 'h', ц: 'c', ч: 'č', џ: 'dž', ш: 'š',
};

/**
 * The form a word is looked up in: NFC, lower case in the language's rules, Serbian in Latin letters,
 * and Arabic script without its optional marks (harakat, tatweel) and with one alef: the Arabic list
 * itself spells "امام" without hamza and "إذن" with it, and Whisper writes either.
 */
export function lookupForm(word: string, language: string): string {
  const base = baseLanguage(language);
  let lower = word.normalize('NFC').toLocaleLowerCase(icuLocale(base)).replace(/[\u2018\u2019\u02bc]/g, '\'');
  if (/\p{Script=Arabic}/u.test(lower)) lower = lower.replace(/[\u064b-\u065f\u0670\u0640]/gu, '').replace(/[\u0622\u0623\u0625\u0671]/gu, '\u0627');
  return base === 'sr' ? [...lower].map((c) => SERBIAN_CYRILLIC[c] ?? c).join('') : lower;
}

const cache = new Map<string, ReadonlySet<string> | null>();

/** The maintained stop-word list for the language (or its stand-in), null when there is none. */
export function stopWordList(language: string): ReadonlySet<string> | null {
  const base = baseLanguage(language);
  if (cache.has(base)) return cache.get(base)!;
  const source = isoLists()[base] ? base : RELATED_LIST[base];
  const list = source ? new Set(isoLists()[source]!.map((w) => lookupForm(w, source))) : null;
  cache.set(base, list);
  return list;
}

/** Whether the language has a list of its own (not a stand-in): the copywriter leans less on frequency then. */
export function hasOwnStopWordList(language: string): boolean {
  return Boolean(isoLists()[baseLanguage(language)]);
}

export function isStopWord(word: string, language: string): boolean {
  return stopWordList(language)?.has(lookupForm(word, language)) ?? false;
}

/**
 * Words that tie a sentence to the one before it ("and", "but", "so"): a title must not start on one.
 * "and" and "or" come from ICU's list patterns (CLDR) for every language; the rest are written out for
 * the languages the copy has templates in, where we can write them correctly.
 */
const CONNECTIVES: Readonly<Record<string, string>> = {
  es: 'y e o u pero sino entonces pues además también luego así',
  fr: 'et ou mais donc alors puis ensuite aussi cependant pourtant car sinon bref',
  de: 'und oder aber denn doch also dann außerdem sondern jedoch trotzdem deshalb dabei',
  it: 'e ed o oppure ma però quindi allora poi anche inoltre invece dunque comunque',
  pt: 'e ou mas porém então também contudo entretanto logo pois',
  ca: 'i o però doncs llavors també',
  nl: 'en of maar dus dan toen ook want echter bovendien',
};

const connectiveCache = new Map<string, ReadonlySet<string>>();

export function connectives(language: string): ReadonlySet<string> {
  const base = baseLanguage(language);
  let set = connectiveCache.get(base);
  if (!set) {
    const found = new Set((CONNECTIVES[base] ?? '').split(/\s+/).filter(Boolean).map((w) => lookupForm(w, base)));
    for (const type of ['conjunction', 'disjunction'] as const) {
      try {
        // "A y B" -> "y"; "A和B" -> "和"; "A وB" -> "و" (Arabic writes "and" onto the next word).
        const joined = new Intl.ListFormat(icuLocale(base), { type }).format(['\u0001', '\u0002']);
        const word = joined.slice(joined.indexOf('\u0001') + 1, joined.indexOf('\u0002')).replace(/[\s,\u3001\u060c]+/g, '');
        if (word) found.add(lookupForm(word, base));
      } catch {
        // A code ICU does not know keeps the written list alone.
      }
    }
    connectiveCache.set(base, found);
    set = found;
  }
  return set;
}

/** Whether the text uses letters that have upper and lower case (Latin, Greek, Cyrillic, Armenian …). */
export function hasCase(text: string): boolean {
  for (const c of text) if (c.toLowerCase() !== c.toUpperCase()) return true;
  return false;
}

export interface WordSpan {
  /** The word as written, punctuation after it included ("volumen,", "会议。"). */
  text: string;
  /** The word alone, without the punctuation around it. */
  core: string;
  /** Whether ICU counts it as a word (not punctuation or a symbol). */
  wordLike: boolean;
}

/**
 * The words of a sentence. Spaced scripts split at spaces (punctuation stays on its word, as the English
 * path has it); Chinese, Japanese, Thai and the like through Intl.Segmenter's dictionary, with
 * punctuation joined to the word before it, so a title can still end "at a comma".
 */
export function splitWords(text: string, language: string): WordSpan[] {
  if (!writtenWithoutSpaces(language) && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]{4}/u.test(text)) {
    return [...text.matchAll(/\S+/g)].map((m) => {
      const core = coreOf(m[0]);
      return { text: m[0], core, wordLike: /[\p{L}\p{N}]/u.test(core) };
    });
  }
  const out: WordSpan[] = [];
  for (const s of wordSegmenter(icuLocale(language)).segment(text)) {
    if (/^\s+$/.test(s.segment)) continue;
    const last = out[out.length - 1];
    if (!s.isWordLike && last && !/[\p{L}\p{N}]/u.test(s.segment)) {
      last.text += s.segment;
      continue;
    }
    out.push({ text: s.segment, core: coreOf(s.segment), wordLike: Boolean(s.isWordLike) });
  }
  return out;
}

/** A word without the punctuation around it; letters' combining marks (Devanagari vowel signs, Arabic harakat) stay. */
export function coreOf(word: string): string {
  return word.replace(/^[^\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}]+$/gu, '');
}

/** Elided articles and pronouns written onto the next word ("l'agent", "dell'utente", "d'un"). */
const ELISION: Readonly<Record<string, RegExp>> = {
  fr: /^(?:l|d|j|m|n|s|t|c|qu|jusqu|lorsqu|puisqu)['\u2019]/i,
  it: /^(?:l|d|un|dell|all|dall|nell|sull|coll|quest|quell|c|s|m|t|v|n)['\u2019]/i,
  ca: /^(?:l|d|s|m|t|n)['\u2019]/i,
};

/** The word a hashtag or a lookup should see: "l'agent" -> "agent"; other languages unchanged. */
export function withoutElision(word: string, language: string): string {
  const re = ELISION[baseLanguage(language)];
  const bare = re ? word.replace(re, '') : word;
  return bare.length > 0 ? bare : word;
}
