// The metrics of `npm run eval` (scripts/eval.mjs), kept pure so test/eval-metrics.test.ts can check them
// on hand-made numbers. Nothing here knows how the ranker or the copywriter work: the word lists below are
// the eval's own closed-class English lists (grammar, not taste), written independently of src/pipeline so
// that the copy checks cannot agree with the copywriter merely by sharing its vocabulary.

/** Seconds two [start, end] spans share. */
export function overlapSec(a, b) {
  return Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
}

/**
 * A pick "hits" a labelled passage when their overlap covers at least half of the shorter of the two.
 * Why the shorter: a 45 s clip that holds a whole 20 s story hits it, and so does a 20 s clip cut from
 * the heart of a 60 s passage; a clip that only grazes a passage's edge does not.
 */
export function hits(pick, passage) {
  const shorter = Math.min(pick.end - pick.start, passage.end - passage.start);
  return shorter > 0 && overlapSec(pick, passage) >= 0.5 * shorter;
}

/** Rank (0-based) of the first of `picks` that hits a passage of `grade` or better; -1 when none does. */
export function firstHitRank(picks, passages, grade = 2) {
  const targets = passages.filter((p) => p.grade >= grade);
  return picks.findIndex((pick) => targets.some((t) => hits(pick, t)));
}

/** hit@k: one of the top k picks hits a best (grade-2) passage. */
export function hitAt(picks, passages, k) {
  const r = firstHitRank(picks.slice(0, k), passages, 2);
  return r >= 0;
}

/**
 * What hit@1 a ranker with no judgement would get: the share of windows of `lengthSec`, placed uniformly
 * over a source of `durationSec`, that hit a best passage. On short sources with long clips this is far
 * from zero, so hit rates are only worth what they add to it.
 */
export function chanceHit(lengthSec, durationSec, passages, grade = 2, stepSec = 0.5) {
  const targets = passages.filter((p) => p.grade >= grade);
  const last = Math.max(0, durationSec - lengthSec);
  let n = 0, hit = 0;
  for (let s = 0; s <= last + 1e-9; s += stepSec) {
    n++;
    if (targets.some((t) => hits({ start: s, end: s + lengthSec }, t))) hit++;
  }
  return n ? hit / n : 0;
}

/**
 * Graded gain of each pick, best first. A labelled passage is credited once: a second clip of the same
 * story earns nothing (a duplicate is not a second good short), and each pick takes the best passage
 * still uncredited among those it hits.
 */
export function pickGains(picks, passages) {
  const credited = new Set();
  return picks.map((pick) => {
    let best = -1;
    passages.forEach((p, i) => {
      if (!credited.has(i) && hits(pick, p) && (best < 0 || p.grade > passages[best].grade)) best = i;
    });
    if (best < 0) return 0;
    credited.add(best);
    return passages[best].grade;
  });
}

/** NDCG@k with exponential gain 2^grade - 1; null when the item has no labelled passage (nothing to find). */
export function ndcgAt(picks, passages, k) {
  const dcg = (grades) => grades.slice(0, k).reduce((s, g, i) => s + (2 ** g - 1) / Math.log2(i + 2), 0);
  const ideal = dcg([...passages.map((p) => p.grade)].sort((a, b) => b - a));
  if (ideal === 0) return null;
  return dcg(pickGains(picks.slice(0, k), passages)) / ideal;
}

/**
 * Share of (a, b) pairs with a from `high` and b from `low` where a scores above b (ties count half):
 * the area under the ROC curve. 1 = every pick of a best passage outscores every pick of a talk with
 * nothing worth posting; 0.5 = the scores say nothing.
 */
export function separation(high, low) {
  if (high.length === 0 || low.length === 0) return null;
  let wins = 0;
  for (const a of high) for (const b of low) wins += a > b ? 1 : a === b ? 0.5 : 0;
  return wins / (high.length * low.length);
}

// --- Copy checks: the eval's own closed-class lists ---------------------------------------------------

const ARTICLES = ['a', 'an', 'the'];
const PREPOSITIONS = ['about', 'above', 'across', 'after', 'against', 'along', 'amid', 'among', 'around', 'as', 'at',
  'before', 'behind', 'below', 'beneath', 'beside', 'besides', 'between', 'beyond', 'by', 'despite', 'down', 'during',
  'except', 'for', 'from', 'in', 'inside', 'into', 'like', 'near', 'of', 'off', 'on', 'onto', 'out', 'outside', 'over',
  'past', 'per', 'since', 'than', 'through', 'throughout', 'till', 'to', 'toward', 'towards', 'under', 'underneath',
  'until', 'unto', 'up', 'upon', 'via', 'with', 'within', 'without'];
const CONJUNCTIONS = ['and', 'but', 'or', 'nor', 'so', 'yet', 'because', 'although', 'though', 'unless', 'whereas',
  'while', 'whether', 'if', 'that', 'than', 'when', 'whenever', 'where', 'wherever', 'once', 'lest'];
const AUXILIARIES = ['am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had', 'having', 'do',
  'does', 'did', 'will', 'would', 'shall', 'should', 'can', 'could', 'may', 'might', 'must', 'ought', 'not',
  "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't", "don't", "doesn't", "didn't", "won't",
  "wouldn't", "shan't", "shouldn't", "can't", 'cannot', "couldn't", "mightn't", "mustn't"];
const POSSESSIVES = ['my', 'your', 'his', 'her', 'its', 'our', 'their', 'whose'];
const PRONOUNS = ['i', 'me', 'you', 'he', 'him', 'she', 'it', 'we', 'us', 'they', 'them', 'this', 'these', 'those',
  'who', 'whom', 'which', 'what', 'myself', 'yourself', 'himself', 'herself', 'itself', 'ourselves', 'themselves',
  "i'm", "you're", "he's", "she's", "it's", "we're", "they're", "i've", "you've", "we've", "they've", "i'd", "you'd",
  "he'd", "she'd", "we'd", "they'd", "i'll", "you'll", "he'll", "she'll", "we'll", "they'll", "that's", "there's",
  'someone', 'something', 'anyone', 'anything', 'everyone', 'everything'];
/** Determiners that always need a noun after them. */
const DETERMINERS = ['each', 'every', 'no', 'such', 'another'];
/**
 * Prepositions that are also verb particles: a title may end on them ("Give It Up", "Log In") without
 * stopping mid-phrase, so they are not counted against the end of a title.
 */
const PARTICLES = new Set(['up', 'out', 'off', 'down', 'over', 'around', 'along', 'through', 'in', 'on', 'by', 'about']);

/** Words a title must not end on: it would stop mid-phrase ("...the First Three Letters of Your"). */
export const FUNCTION_WORDS = new Set([...ARTICLES, ...PREPOSITIONS, ...CONJUNCTIONS, ...AUXILIARIES, ...POSSESSIVES,
  ...PRONOUNS, ...DETERMINERS]);
/**
 * Pronouns a clause can end on: objects and indefinites ("Who Actually Calls You?", "Nobody Said Anything").
 * Subject and relative pronouns ("...and I", "...the Part Which") and contractions ("...Because It's")
 * still need the rest of their clause.
 */
const OBJECT_PRONOUNS = new Set(['me', 'you', 'him', 'her', 'it', 'us', 'them', 'this', 'these', 'those', 'myself',
  'yourself', 'himself', 'herself', 'itself', 'ourselves', 'themselves', 'someone', 'something', 'anyone', 'anything',
  'everyone', 'everything']);
const BAD_TITLE_ENDINGS = new Set([...FUNCTION_WORDS].filter((w) => !PARTICLES.has(w) && !OBJECT_PRONOUNS.has(w)));

/** Words a title must not start on: they join to a clause the title does not have ("Unless...", "Instead..."). */
export const CONNECTIVES = new Set(['and', 'but', 'or', 'nor', 'so', 'yet', 'because', 'although', 'though', 'unless',
  'whereas', 'which', 'whom', 'whose', 'however', 'instead', 'therefore', 'thus', 'hence', 'moreover', 'furthermore',
  'besides', 'otherwise', 'meanwhile', 'anyway', 'plus', 'also', 'then', 'too', 'nevertheless', 'nonetheless',
  'consequently', 'accordingly', 'rather', 'than']);

const ORDINALS = new Set(['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth',
  'last', 'next', 'same', 'following', 'previous']);

/** Nouns and adjectives that end in -ly but are not adverbs. */
const LY_NOT_ADVERBS = new Set(['family', 'july', 'italy', 'supply', 'assembly', 'belly', 'jelly', 'rally', 'ally',
  'reply', 'butterfly', 'anomaly', 'monopoly', 'fly', 'lily', 'holly', 'bully', 'ugly', 'lonely', 'friendly',
  'lovely', 'silly', 'holy', 'elderly', 'chilly', 'curly', 'melancholy', 'emily', 'kelly', 'sally', 'billy']);

/** Lowercase words of a title, without punctuation ("It's" keeps its apostrophe). */
export function titleWords(title) {
  return (title.toLowerCase().replace(/[\u2018\u2019]/g, "'").match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? []);
}

/** A title is complete when it neither ends on a function word nor starts on a connective. */
export function titleProblem(title) {
  const words = titleWords(title);
  if (words.length === 0) return 'empty';
  const last = words[words.length - 1];
  if (BAD_TITLE_ENDINGS.has(last)) return `ends on "${last}"`;
  const before = words[words.length - 2];
  // "...on the First", "...More Than 12": a number or ordinal that still waits for its noun.
  if (before && ORDINALS.has(last) && (ARTICLES.includes(before) || POSSESSIVES.includes(before))) return `ends on "${before} ${last}"`;
  if (before === 'than' && /^[\d.,]+$/.test(last)) return `ends on "than ${last}"`;
  if (CONNECTIVES.has(words[0])) return `starts on "${words[0]}"`;
  return null;
}

/** Hashtags in a piece of copy, without the '#'. */
export function hashtagsIn(text) {
  return [...(text ?? '').matchAll(/#([\p{L}\p{N}_]+)/gu)].map((m) => m[1]);
}

/** "CreativeCommons" -> ["creative", "commons"]; "creative_commons" too. */
export function tagWords(tag) {
  return tag.replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2').split(/[\s_]+/).filter(Boolean).map((w) => w.toLowerCase());
}

/** null when a hashtag is a content word (or ends on one); else why not. */
export function hashtagProblem(tag) {
  const words = tagWords(tag);
  if (words.length === 0) return 'empty';
  const last = words[words.length - 1];
  if (words.every((w) => FUNCTION_WORDS.has(w) || CONNECTIVES.has(w))) return 'function word';
  if (FUNCTION_WORDS.has(last)) return `ends on "${last}"`;
  if (words.length === 1 && last.length > 4 && last.endsWith('ly') && !LY_NOT_ADVERBS.has(last)) return 'adverb (-ly)';
  if (/^\d+$/.test(tag)) return 'number';
  return null;
}

/**
 * A stricter look at hashtags: is the tag's (last) word a noun or a name? `lexicon` is WordNet's word
 * lists (Debian wordnet-base, see eval.mjs): a word WordNet knows as a noun passes, a word it knows only as
 * a verb, adjective or adverb ("#Understand", "#Lazy") does not, and a word it does not know at all is
 * taken for a name, a brand or a topic and passes.
 */
export function hashtagNounProblem(tag, lexicon) {
  const closed = hashtagProblem(tag);
  if (closed) return closed;
  const last = tagWords(tag).at(-1);
  const forms = [last, lexicon.nounExceptions.get(last), last.replace(/ies$/, 'y'), last.replace(/es$/, ''), last.replace(/s$/, '')]
    .filter(Boolean);
  if (forms.some((f) => lexicon.nouns.has(f))) return null;
  if (forms.some((f) => lexicon.others.has(f))) return 'not a noun';
  return null;
}

/** Parses WordNet's index.* files (lemma first on each line; spaces in lemmas are underscores). */
export function wordNetLexicon(read) {
  const lemmas = (text) => new Set(text.split('\n').filter((l) => l && !l.startsWith(' ')).map((l) => l.slice(0, l.indexOf(' '))));
  const nouns = lemmas(read('index.noun'));
  const others = new Set([...lemmas(read('index.verb')), ...lemmas(read('index.adj')), ...lemmas(read('index.adv'))]);
  const nounExceptions = new Map(read('noun.exc').split('\n').filter(Boolean).map((l) => l.split(' ')));
  return { nouns, others, nounExceptions };
}

/** Normalised word set of a title, for "near-identical" checks. */
function wordSet(s) {
  return new Set(titleWords(s));
}

function jaccard(a, b) {
  const inter = [...a].filter((w) => b.has(w)).length;
  const union = new Set([...a, ...b]).size;
  return union === 0 ? 1 : inter / union;
}

/**
 * Pairs of picks in one request that duplicate each other: they share a transcript sentence (or overlap
 * in time when sentence indexes are missing), or their titles are the same or nearly so (word Jaccard ≥ 0.8).
 */
export function duplicatePairs(picks) {
  const out = [];
  for (let i = 0; i < picks.length; i++) {
    for (let j = i + 1; j < picks.length; j++) {
      const a = picks[i], b = picks[j];
      const shared = a.sentenceIndexes && b.sentenceIndexes
        ? a.sentenceIndexes.some((s) => b.sentenceIndexes.includes(s))
        : overlapSec(a, b) > 0;
      const sameTitle = jaccard(wordSet(a.title ?? ''), wordSet(b.title ?? '')) >= 0.8;
      if (shared || sameTitle) out.push({ i, j, why: shared ? 'shared sentence' : 'same title' });
    }
  }
  return out;
}

export function mean(xs) {
  const v = xs.filter((x) => x !== null && x !== undefined && !Number.isNaN(x));
  return v.length ? v.reduce((s, x) => s + x, 0) / v.length : null;
}
