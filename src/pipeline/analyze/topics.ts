// Topic segmentation of a transcript, so that a clip holds one complete thought: TextTiling (Hearst
// 1997) over sentences. Each gap between two sentences gets the lexical cohesion of the blocks on
// either side (cosine of their stemmed content-word counts); where cohesion dips deeply relative to the
// peaks around it, the talk moved on to something else. No model: Porter stems and a stopword list.
// Spoken sentences are short and a story repeats few nouns, so each sentence's bag also holds its voice
// (first / second / third person, past tense, instructions, numbers: voiceMarkers): who is talking to
// whom about when changes with the thought as much as the nouns do, and it is what tells a told story
// from the menu instructions around it.
// Porter and the stopword list below are English. Other languages (and English measured without its word
// lists) take neutralStems: words as the language segments them (Intl.Segmenter: Chinese and Japanese
// too), case folded by the language's rules, function words dropped by the maintained stopwords-iso list
// of the language (stop-words.ts, with its stand-ins for Bosnian, Serbian, Macedonian, Azerbaijani and
// Nepali), forms of one word joined by cutting them to their first letters; words that fill a large share
// of the talk's sentences count as function words too (the spec languages with no list at all, like
// Albanian or Icelandic, have no other).
import { stemmer } from 'stemmer';
import { voiceMarkers } from './highlight-features.js';
import { baseLanguage, hasLexicon, isNumeral, wordsOf } from './neutral-signals.js';
import { isStopWord } from './stop-words.js';

/** A block on each side of a gap grows to this many stems (Hearst's pseudo-sentences), at most MAX_BLOCK sentences. */
const BLOCK_STEMS = 16;
const MIN_BLOCK = 2, MAX_BLOCK = 5;
/** A topic shorter than this many sentences is merged into its neighbour across the shallower gap. */
const MIN_TOPIC_SENTENCES = 2;
/** Shallower dips than this are the ordinary ebb of one subject (measured 0.25 inside a one-subject talk, 1.0 at a story's edges). */
const MIN_DEPTH = 0.3;

export interface TopicSegmentation {
  /** Topic number (0, 1, ...) of each sentence, in order. */
  topicOf: number[];
  /** Sentence positions (inclusive) of each topic. */
  topics: { first: number; last: number }[];
  /** Depth of the cohesion dip at each gap (gap g lies between sentence g and g+1), 0..1. */
  depth: number[];
}

const STOPWORDS = new Set(`a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only
or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which while who whom why will with would
you your yours yourself yourselves yes yeah oh okay ok um uh like well really just get got go going gonna know think thing
things say said says one two three four five six seven eight nine ten lot much many way make made let us can't don't it's
i'm that's there's he's she's you're they're we're i've you've we've i'll you'll we'll didn't doesn't isn't wasn't won't`.split(/\s+/).filter(Boolean));

/**
 * Stemmed content words of a sentence (what lexical cohesion counts), in the sentence's language;
 * `lexical` false takes the language-neutral path for English too (what every other language gets).
 */
export function contentStems(text: string, language = 'en', lexical = true): string[] {
  if (!lexical || !hasLexicon(language)) return neutralStems(text, language);
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, '\'')
    .split(/[^\p{L}\p{N}']+/u)
    .map((t) => t.replace(/^'+|'+$/g, ''))
    .filter((t) => t.length > 2 && !STOPWORDS.has(t) && /\p{L}/u.test(t))
    .map((t) => stemmer(t.replace(/'s$/, '')));
}

/** Letters kept of a word in a language without a stemmer: "canción", "canciones" -> "canci" (truncation stemming). */
const STEM_LETTERS = 5;
/** Scripts written without spaces, where one Han or Katakana character is already a word of content. */
const CJK = /[\p{Script=Han}\p{Script=Katakana}]/u;
const KANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;

/** Content words without a stemmer or an English list: segmented, folded, function words out, truncated. */
function neutralStems(text: string, language: string): string[] {
  const lang = baseLanguage(language);
  const stop = (w: string) => (lang === 'en' ? STOPWORDS.has(w) : isStopWord(w, lang));
  const out: string[] = [];
  for (const w of wordsOf(text, lang)) {
    if (isNumeral(w) || stop(w) || !/\p{L}/u.test(w)) continue;
    const letters = [...w];
    if (CJK.test(w)) {
      out.push(w);
      continue;
    }
    if (KANA_ONLY.test(w) || letters.length <= 2) continue;
    out.push(letters.slice(0, STEM_LETTERS).join(''));
  }
  return out;
}

/** Sentences (of at least this many) in which a stem may appear before it counts as a function word of the talk. */
const FREQUENT_MIN_SENTENCES = 8;
const FREQUENT_SHARE = 0.3;

/** Drops stems found in a large share of sentences: the function words a missing or short stopword list let through. */
function dropFrequent(stems: string[][]): string[][] {
  if (stems.length < FREQUENT_MIN_SENTENCES) return stems;
  const df = new Map<string, number>();
  for (const s of stems) for (const w of new Set(s)) df.set(w, (df.get(w) ?? 0) + 1);
  return stems.map((s) => s.filter((w) => df.get(w)! / stems.length < FREQUENT_SHARE));
}

/**
 * Topics of the sentences, read in their language (see contentStems); `lexical` false reads English
 * like a language without word lists.
 */
export function segmentTopics(sentenceTexts: readonly string[], language = 'en', lexical = true): TopicSegmentation {
  const n = sentenceTexts.length;
  if (n === 0) return { topicOf: [], topics: [], depth: [] };
  const english = lexical && hasLexicon(language);
  const words = sentenceTexts.map((t) => contentStems(t, language, english));
  // English read without its lists gets the markers any language gets: voiceMarkers of a list-less language.
  const markerLanguage = english || !hasLexicon(language) ? language : 'und';
  const stems = (english ? words : dropFrequent(words)).map((w, k) => [...w, ...voiceMarkers(sentenceTexts[k]!, markerLanguage)]);
  const bags = stems.map(countBag);
  const gaps = Math.max(0, n - 1);
  const cohesion: number[] = [];
  const block = (from: number, step: 1 | -1): Bag[] => {
    const out: Bag[] = [];
    let size = 0;
    for (let i = from; i >= 0 && i < n && out.length < MAX_BLOCK && (out.length < MIN_BLOCK || size < BLOCK_STEMS); i += step) {
      out.push(bags[i]!);
      size += stems[i]!.length;
    }
    return out;
  };
  for (let g = 0; g < gaps; g++) cohesion.push(cosine(merge(block(g, -1)), merge(block(g + 1, 1))));
  const depth = cohesion.map((c, g) => {
    // Hearst's depth score: climb to the highest cohesion on each side, then sum the two drops.
    let l = c, r = c;
    for (let k = g - 1; k >= 0 && cohesion[k]! >= l; k--) l = cohesion[k]!;
    for (let k = g + 1; k < gaps && cohesion[k]! >= r; k++) r = cohesion[k]!;
    return Math.min(1, (l - c) + (r - c));
  });
  // Hearst's cut-off: gaps deeper than mean - sd/2 of all depths are boundaries; a floor keeps a
  // uniformly cohesive talk in one piece instead of cutting at noise.
  const mean = depth.reduce((a, b) => a + b, 0) / Math.max(1, depth.length);
  const sd = Math.sqrt(depth.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, depth.length));
  const cutoff = Math.max(MIN_DEPTH, mean - sd / 2);
  let boundaries = depth.map((d, g) => (d > cutoff ? g : -1)).filter((g) => g >= 0);
  // A boundary counts only at a local maximum of depth: two neighbouring deep gaps are one change of topic.
  boundaries = boundaries.filter((g) => !(depth[g - 1]! > depth[g]!) && !(depth[g + 1]! >= depth[g]! + 1e-9));
  boundaries = mergeShort(boundaries, depth, n);

  const topics: { first: number; last: number }[] = [];
  let first = 0;
  for (const g of boundaries) {
    topics.push({ first, last: g });
    first = g + 1;
  }
  topics.push({ first, last: n - 1 });
  const topicOf = new Array<number>(n);
  topics.forEach((t, k) => { for (let i = t.first; i <= t.last; i++) topicOf[i] = k; });
  return { topicOf, topics, depth };
}

/** Drops the shallower boundary of any topic shorter than MIN_TOPIC_SENTENCES. */
function mergeShort(boundaries: number[], depth: number[], n: number): number[] {
  const b = [...boundaries].sort((x, y) => x - y);
  for (;;) {
    const edges = [-1, ...b, n - 1];
    let worst = -1;
    for (let k = 0; k + 1 < edges.length; k++) {
      if (edges[k + 1]! - edges[k]! >= MIN_TOPIC_SENTENCES) continue;
      // The short topic lies between edges k and k+1: remove whichever of its two boundaries is shallower.
      const left = k > 0 ? k - 1 : -1, right = k < b.length ? k : -1;
      if (left < 0 && right < 0) break;
      worst = left < 0 ? right : right < 0 ? left : depth[b[left]!]! <= depth[b[right]!]! ? left : right;
      break;
    }
    if (worst < 0) return b;
    b.splice(worst, 1);
  }
}

type Bag = Map<string, number>;

function countBag(stems: string[]): Bag {
  const m: Bag = new Map();
  for (const s of stems) m.set(s, (m.get(s) ?? 0) + 1);
  return m;
}

function merge(bags: Bag[]): Bag {
  const m: Bag = new Map();
  for (const b of bags) for (const [k, v] of b) m.set(k, (m.get(k) ?? 0) + v);
  return m;
}

function cosine(a: Bag, b: Bag): number {
  let dot = 0, na = 0, nb = 0;
  for (const [k, v] of a) {
    na += v * v;
    dot += v * (b.get(k) ?? 0);
  }
  for (const v of b.values()) nb += v * v;
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
