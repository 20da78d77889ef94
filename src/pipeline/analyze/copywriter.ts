// Stage 4: title, reason and social description for the highlights of one request, written from the
// clips' own words. Deterministic and local; llm.ts may polish the result when a model is configured.
import { hookScore, NUMBER_WORDS, startCleanliness, tokens } from './highlight-features.js';
import { writeReason } from './reason.js';
import { baseLanguage, connectives, coreOf, hasOwnStopWordList, lookupForm, splitWords, withoutElision, writtenWithoutSpaces } from './stop-words.js';
import { caseTitle, capitaliseWord, displayWidth } from './title-case.js';
import type { ClipCopy, Highlight } from '../../domain/highlight.js';
import type { Sentence, Transcript } from '../../domain/transcript.js';
import {
  canEndTitle, classifyWords, isEnglish, isTopicWord, LEADING_CONNECTIVES, normWord, SUBORDINATORS, wordTrail, type ClassedWord,
} from './word-classes.js';

export const TITLE_MAX_CHARS = 60;
/** Ten words fit the 60 characters when they are short; the character limit is the one viewers see. */
const TITLE_MAX_WORDS = 10;
const TITLE_MIN_WORDS = 4;
const SUMMARY_MAX_CHARS = 180;

/** Copy for one clip on its own; the clips of one request go through writeCopies together. */
export function writeCopy(h: Highlight, transcript: Transcript): ClipCopy {
  return writeCopies([h], transcript)[0]!;
}

/**
 * Copy for every clip of one request, in the order given (best first). Clips of a request often share
 * sentences (neighbouring moments, one moment at two lengths), and the best line of each would then be
 * the same; posted side by side, two clips with one caption read as a duplicate. So each clip takes its
 * best title and description that no earlier clip has taken, and avoids titling from a sentence that
 * already titled another clip when it has a line of its own.
 */
export function writeCopies(highlights: readonly Highlight[], transcript: Transcript): ClipCopy[] {
  const language = baseLanguage(transcript.language) || 'en';
  const classes = new WordClassCache(language, isEnglish(language) ? new Set() : commonWords(transcript, language));
  const totals = transcriptTotals(transcript, classes);
  const taken: Taken = { titles: new Set(), titleSources: new Set(), descriptions: new Set() };
  return highlights.map((h) => {
    const wanted = new Set(h.sentenceIndexes);
    const clip = transcript.sentences.filter((s) => wanted.has(s.index));
    const title = pickTitle(titleCandidates(clip, classes), taken, classes.english);
    return {
      title,
      reason: writeReason(h, clip, language),
      description: pickDescription(clip, totals, classes, title, taken),
    };
  });
}

interface Taken { titles: Set<string>; titleSources: Set<string>; descriptions: Set<string> }

/**
 * Words that stand in for a stop-word list in a language that has none of its own: short words (four
 * letters at most) said in at least a sixth of the transcript's sentences. In any language the commonest
 * words of a text are its articles, prepositions, pronouns and conjunctions; the length bound keeps a
 * talk's repeated topic word ("conference", "volume") out.
 */
function commonWords(transcript: Transcript, language: string): ReadonlySet<string> {
  const out = new Set<string>();
  if (hasOwnStopWordList(language) || writtenWithoutSpaces(language) || transcript.sentences.length < 6) return out;
  const inSentences = new Map<string, number>();
  for (const s of transcript.sentences) {
    for (const w of new Set(splitWords(s.sentence, language).map((x) => lookupForm(x.core, language)))) inSentences.set(w, (inSentences.get(w) ?? 0) + 1);
  }
  for (const [w, n] of inSentences) if (n >= Math.max(3, transcript.sentences.length / 6) && [...w].length <= 4) out.add(w);
  return out;
}

/** Word classes per sentence text, computed once per request (the tagger is the costly part). */
class WordClassCache {
  readonly english: boolean;
  /** What goes between two words of a title: nothing in Chinese or Japanese. */
  readonly joiner: string;
  /** Lookup forms of the words a title must not open on, for languages without the English rules. */
  readonly connectives: ReadonlySet<string>;
  private readonly memo = new Map<string, ClassedWord[]>();
  constructor(readonly language: string, private readonly common: ReadonlySet<string>) {
    this.english = isEnglish(language);
    this.joiner = writtenWithoutSpaces(language) ? '' : ' ';
    this.connectives = this.english ? new Set() : connectives(language);
  }

  join(words: readonly ClassedWord[]): string {
    return words.map((w) => w.text).join(this.joiner);
  }
  /**
   * The words of `text` with their classes. `text` cut from a transcript sentence (filler or a leading
   * connective dropped) takes its classes from that sentence, `from`, read once as a whole: the tagger
   * then sees the words in their real context, and no sentence is tagged twice.
   */
  of(text: string, from?: string): ClassedWord[] {
    let words = this.memo.get(text);
    if (!words) {
      words = (this.english && from !== undefined && from !== text ? this.derive(text, this.of(from)) : null) ?? classifyWords(text, this.language, this.common);
      this.memo.set(text, words);
    }
    return words;
  }

  private derive(text: string, whole: readonly ClassedWord[]): ClassedWord[] | null {
    const out: ClassedWord[] = [];
    let j = 0;
    for (const m of text.matchAll(/\S+/g)) {
      const norm = normWord(m[0]);
      let k = j;
      while (k < whole.length && whole[k]!.norm !== norm) k++;
      if (k === whole.length) return null;
      out.push({ text: m[0], norm, cls: whole[k]!.cls, trail: wordTrail(m[0]) });
      j = k + 1;
    }
    return out;
  }
}

// ---------------------------------------------------------------- title

const LEADING_FILLER = [
  'so', 'um', 'uh', 'umm', 'er', 'erm', 'well', 'okay', 'ok', 'and', 'yeah', 'oh',
  'you know', 'i mean', 'basically', 'honestly', 'anyway', 'alright', 'all right',
];
/** Words that are filler only when set off by a comma ("Look, ..." but not "Look at this"). */
const LEADING_FILLER_WITH_COMMA = ['like', 'now', 'look', 'listen', 'right', 'see', 'man', 'guys'];
// Hesitations always go; "you know" / "I mean" only when set off by a comma ("do you know why" stays).
const INNER_FILLER = /(^|[\s,])(?:(?:um+|uh+|erm?)(?=[\s,.!?]|$),?|(?:you know|i mean),)/gi;
/** Punctuation after a word that closes a clause: a title may end there. */
const CLAUSE_END = /[,;:\u2013\u2014\-，、；：،؛]/u;
/** Classes that open a new phrase: a title cut just before one leaves whole phrases behind it. */
const PHRASE_OPENERS = new Set(['preposition', 'conjunction', 'subordinator', 'wh', 'infinitive-to']);
/** Openers that qualify a claim made before ("unless …", "whereas …"): without a main clause they are a tail. */
const NEEDS_PREVIOUS = new Set(['unless', 'whereas', 'except', 'lest']);
/** Nouns that count or measure the noun after "of": a title cannot stop on them. */
const PARTITIVES = new Set(`set sets bit bits lot lots number numbers kind kinds sort sorts type types couple piece pieces group groups
  list series pair part half rest amount variety range bunch ton tons dozen dozens hundreds thousands millions one none`.split(/\s+/));
/** Openers that argue with or explain something ("Because …", "Although …"): a title reads better from its main clause. */
const CONCESSIVE = new Set(['because', 'although', 'though', 'whereas', 'while']);
/** Relative words that hang on the noun before them; a clause they open cannot stand alone. */
const RELATIVES = new Set(['who', 'whom', 'whose', 'which', 'that']);

interface TitleCandidate { text: string; score: number; source: string }

/** The best title for one clip on its own. */
export function writeTitle(clip: readonly Sentence[], language = 'en'): string {
  const classes = new WordClassCache(baseLanguage(language) || 'en', new Set());
  return pickTitle(titleCandidates(clip, classes), { titles: new Set(), titleSources: new Set(), descriptions: new Set() }, classes.english);
}

/** Every acceptable title from every sentence of the clip, best first. */
function titleCandidates(clip: readonly Sentence[], classes: WordClassCache): TitleCandidate[] {
  const out: TitleCandidate[] = [];
  clip.forEach((s, k) => {
    const source = stripFiller(s.sentence, classes.english);
    const words = classes.of(source, s.sentence);
    if (words.length === 0) return;
    const position = (k === 0 ? 0.15 : k === 1 ? 0.05 : 0) - (words.length < 3 ? 0.5 : 0) - (words.length > 30 ? 0.1 : 0);
    for (const c of sentenceTitles(words, classes)) out.push({ text: c.text, score: c.score + position, source });
  });
  // Last resort, for a clip whose every line is too long to cut at a phrase or leans on the line before:
  // the longest prefix that fits, still never ending on a function word.
  if (out.length === 0) {
    clip.forEach((s, k) => {
      const source = stripFiller(s.sentence, classes.english);
      const words = classes.of(source, s.sentence);
      if (words.length > 0) out.push({ text: caseTitle(prefixCut(words, firstWordAt(words, classes), classes), classes.language), score: -1 - k / 100, source });
    });
  }
  // A stable sort keeps the earlier sentence first on equal scores.
  return out.sort((a, b) => b.score - a.score);
}

function pickTitle(candidates: readonly TitleCandidate[], taken: Taken, english: boolean): string {
  let best: TitleCandidate | null = null;
  let bestScore = -Infinity;
  for (const c of candidates) {
    if (taken.titles.has(titleKey(c.text))) continue;
    const score = c.score - (taken.titleSources.has(c.source) ? 0.4 : 0);
    if (score > bestScore + 1e-9) {
      best = c;
      bestScore = score;
    }
  }
  // A clip without words: English says so; other languages get an ellipsis rather than English words.
  const fallback = english ? 'Untitled Clip' : '…';
  let title = best?.text ?? candidates[0]?.text ?? fallback;
  // Only when the clip has no line that another clip has not used already (the same sentences twice).
  for (let part = 2; taken.titles.has(titleKey(title)); part++) title = `${candidates[0]?.text ?? fallback} (${english ? 'Part ' : ''}${part})`;
  taken.titles.add(titleKey(title));
  if (best) taken.titleSources.add(best.source);
  return title;
}

function titleKey(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

function stripFiller(sentence: string, english: boolean): string {
  // English filler only: "er" is German for "he", "so" Italian for "I know".
  if (!english) return sentence.replace(/\s+/g, ' ').trim();
  let t = sentence.replace(/\s+/g, ' ').trim().replace(INNER_FILLER, '$1').replace(/\s+/g, ' ').replace(/\s+([,.!?;:])/g, '$1');
  for (let changed = true; changed;) {
    changed = false;
    for (const [f, sep] of [...LEADING_FILLER.map((w) => [w, '[,.!\\s]+']), ...LEADING_FILLER_WITH_COMMA.map((w) => [w, ',\\s*'])]) {
      const m = new RegExp(`^${f!.replace(/ /g, '\\s+')}(?:${sep!})`, 'i').exec(t);
      if (m && t.length > m[0].length) {
        t = t.slice(m[0].length);
        changed = true;
      }
    }
  }
  return t.replace(/^[,;:\-–—\s]+/, '').trim();
}

interface TitleStart {
  at: number;
  /** For a start on "if", "when", "to …": where its main clause begins; null when the sentence has none. */
  main: number | null;
  dependent: boolean;
}

/**
 * The titles one sentence offers: the whole sentence when it fits, else a run of words that starts at
 * the sentence's start, a clause's start or its main clause, and ends where a phrase closes (on a noun,
 * a name, a number or an adjective, right before a preposition, a conjunction or a new clause, or at a
 * comma). "Please enter the first three letters of your party's first name using your keypad" gives
 * "Please Enter the First Three Letters", never "… of Your Party's".
 */
function sentenceTitles(words: readonly ClassedWord[], classes: WordClassCache): { text: string; score: number }[] {
  const { english } = classes;
  const n = words.length;
  const first = firstWordAt(words, classes);
  // Only a sentence that opens like a question keeps its "?" when cut ("Just come to our website and … ?" does not).
  const question = QUESTION_END.test(words[n - 1]!.text) && (!english || ['wh', 'auxiliary'].includes(words[first]!.cls));
  const spelledOut = spelledPenalty(words, classes);
  const out: { text: string; score: number }[] = [];
  for (const start of titleStarts(words, classes)) {
    for (let e = start.at; e < n; e++) {
      const span = words.slice(start.at, e + 1);
      const whole = e === n - 1;
      const raw = classes.join(span);
      if (!fitsTitle(cleanEnd(raw), TITLE_MAX_WORDS)) break;
      if (span.length < Math.min(TITLE_MIN_WORDS, n)) continue;
      const cut = cutKind(words, start.at, e, classes);
      if (!cut) continue;
      let text = whole ? raw.replace(/[.。।]+$/u, '').trim() : cleanEnd(raw);
      // A question cut short still reads as a question: "Why Do Ninety Percent of New Restaurants Fail?"
      if (question && start.at === first && !/[?!？！؟]$/.test(text)) text += questionMark(words[n - 1]!.text);
      // A subordinate clause without its main clause ("If You Are Using a Console Channel Driver") makes no
      // sense alone; after "because" or "although" the main clause alone usually reads better.
      const fragment = (start.dependent && (start.main === null || e < start.main + 1)) || (english && openSubordinate(words, start.at, e));
      const score = hook(text, english) + (cut === 'whole' ? (start.at === first ? 0.25 : 0.15) : cut === 'clause' ? 0.1 : 0)
        + (start.at === first ? 0.1 : 0) - (fragment ? 1 : 0) - (english && startCleanliness(text) === 0 ? 0.3 : 0) + span.length / 100
        - weakStart(words[start.at]!, question) - spelledOut - (CONCESSIVE.has(words[start.at]!.norm) ? 0.2 : 0);
      out.push({ text: caseTitle(text, classes.language), score });
    }
  }
  return out;
}

/** A sentence's last word ends a question: "?", and the full-width and Arabic question marks. */
const QUESTION_END = /[?？؟]["')\]»”]?$/u;

function questionMark(lastWord: string): string {
  return /؟/.test(lastWord) ? '؟' : /？/.test(lastWord) ? '？' : '?';
}

/** Spelled-out letters ("M I S D N") are an identifier read aloud, not a title. */
function spelledPenalty(words: readonly ClassedWord[], classes: WordClassCache): number {
  // Chinese and Japanese words are often one character long: nothing is spelled there.
  if (!classes.joiner) return 0;
  const letters = classes.english
    ? words.filter((w) => w.norm.length === 1 && w.norm !== 'a' && w.norm !== 'i')
    : words.filter((w) => [...w.norm].length === 1 && w.cls !== 'stop' && w.cls !== 'number');
  return letters.length * 2 >= words.length ? 0.5 : 0;
}

/**
 * How strongly a title line hooks. English reads the scorer's lexicon (questions, numbers, contrast,
 * address, surprise); no other language is scored with English words, so the rest count only what
 * punctuation and digits show: a question, a number.
 */
function hook(text: string, english: boolean): number {
  if (english) return hookScore(text);
  return (/[?？؟]/.test(text) ? 0.45 : 0) + (/\p{N}/u.test(text) ? 0.25 : 0);
}

/** Where a title may end at word e: 'whole' (the sentence's end), 'clause' (at a comma), 'phrase' (before a new phrase). */
function cutKind(words: readonly ClassedWord[], at: number, e: number, classes: WordClassCache): 'whole' | 'clause' | 'phrase' | null {
  const { english } = classes;
  const w = words[e]!;
  if (e === words.length - 1) return !english || canEndTitle(words, e, true) ? 'whole' : null;
  const clause = CLAUSE_END.test(w.trail);
  if (!english) {
    // Without a tagger, the stop-word list stands in for the grammar: a cut never leaves a function word
    // last ("… su número de"), and away from a comma it falls where a function word opens the next phrase
    // ("Por favor ingrese su número | de agente"), never between two content words of one phrase.
    if (w.cls === 'stop' || w.cls === 'interjection') return null;
    if (clause) return 'clause';
    return words[e + 1]!.cls === 'stop' ? 'phrase' : null;
  }
  // A phrase also closes before "and"/"or" ("… by Hanging Up | or by pressing the pound key").
  if (!canEndTitle(words, e, clause || words[e + 1]!.cls === 'conjunction')) return null;
  if (clause) return 'clause';
  const next = words[e + 1]!;
  if (!PHRASE_OPENERS.has(next.cls)) return null;
  // "with work | and wisdom": a conjunction before a bare noun joins two nouns of one phrase, not two clauses.
  const after = words[e + 2];
  if (next.cls === 'conjunction' && after && ['noun', 'name', 'adjective', 'number'].includes(after.cls)) return null;
  if (w.cls === 'adverb') return null;
  // "You Have Also Installed a Set | of sample sounds": a quantity noun is only half of its phrase.
  if (next.norm === 'of' && PARTITIVES.has(w.norm)) return null;
  if (w.cls === 'verb') {
    // "… Restaurants Fail | in their first year" closes; "… to Consider | how much", "… You Want | to work",
    // "Successfully Installed | and executed the PBX" and "Your Agent Number Followed | by" leave the verb
    // without the words it needs (the second verb of a clause is a participle that needs its phrase).
    if (next.cls !== 'preposition' && next.cls !== 'subordinator') return null;
    if (RELATIVES.has(next.norm) || next.norm === 'whether') return null;
    let opener = at;
    for (let k = at; k < e; k++) if (PHRASE_OPENERS.has(words[k]!.cls) && words[k]!.cls !== 'preposition') opener = k;
    if (words.slice(opener, e).some((x) => x.cls === 'verb')) return null;
  }
  // A cut-down phrase must still say something: a verb, not a bare noun phrase ("The Results").
  if (!words.slice(at, e + 1).some((x) => x.cls === 'verb' || x.cls === 'auxiliary')) return null;
  return 'phrase';
}

/** Penalty for a title opening on a word that leans on what came before: "Might Even Have Been…", "Now and Forever More". */
function weakStart(w: ClassedWord, question: boolean): number {
  // Another language's function word ("Esta …", "Dans …"): a line opening on the content is better.
  if (w.cls === 'stop') return 0.2;
  if (w.cls === 'auxiliary' && !question) return 0.5;
  if (w.cls === 'adverb' || w.cls === 'negation') return 0.3;
  return 0;
}

/**
 * "Did You Know That When You Create Something", "Two Years Ago, Before We Had the Readers": a clause
 * opened inside the span (after "that", or with no verb of the span's own before it) has not reached
 * its main clause by the span's end.
 */
function openSubordinate(words: readonly ClassedWord[], at: number, e: number): boolean {
  for (let k = at + 1; k < e; k++) {
    const nested = words[k - 1]!.norm === 'that' || words[k - 1]!.cls === 'wh';
    const noMainYet = !words.slice(at, k).some((x) => x.cls === 'verb' || x.cls === 'auxiliary');
    // "before we had …" opens a clause; "before the meeting" is a preposition.
    const opensClause = words[k]!.cls !== 'preposition' || ['pronoun', 'name'].includes(words[k + 1]?.cls ?? '') || ['you', 'it', 'there'].includes(words[k + 1]?.norm ?? '');
    if (SUBORDINATORS.has(words[k]!.norm) && opensClause && (nested || noMainYet)) {
      const main = mainClause(words, k);
      if (main === null || main > e - 1) return true;
    }
  }
  return false;
}

/** The first word after connectives that tie the sentence to the one before ("However", "And", "Or"). */
function firstWordAt(words: readonly ClassedWord[], classes: WordClassCache): number {
  return skipConnectives(words, 0, classes);
}

function skipConnectives(words: readonly ClassedWord[], at: number, classes: WordClassCache): number {
  if (!classes.english) {
    let k = at;
    // "Y entonces …", "Et donc …", "Und dann …": every connective in a row goes.
    while (k < words.length - 1 && (classes.connectives.has(words[k]!.norm) || words[k]!.cls === 'interjection')) k++;
    return k;
  }
  let k = at;
  while (k < words.length - 1) {
    const w = words[k]!;
    // "like will you allow …": a spoken "like" before a question or a clause is filler.
    const fillerLike = w.norm === 'like' && ['auxiliary', 'pronoun', 'object-pronoun'].includes(words[k + 1]!.cls);
    if (!LEADING_CONNECTIVES.has(w.norm) && !fillerLike) break;
    k++;
  }
  return k;
}

/** Where titles may start: the sentence's first word, each clause after a comma, and main clauses. */
function titleStarts(words: readonly ClassedWord[], classes: WordClassCache): TitleStart[] {
  const { english } = classes;
  const raw = [0];
  for (let k = 1; k < words.length; k++) if (CLAUSE_END.test(words[k - 1]!.trail)) raw.push(k);
  const starts: TitleStart[] = [];
  const seen = new Set<number>();
  const add = (s: TitleStart): void => {
    if (s.at < words.length && !seen.has(s.at)) {
      seen.add(s.at);
      starts.push(s);
    }
  };
  for (const r of raw) {
    const at = skipConnectives(words, r, classes);
    const w = words[at];
    if (!w) continue;
    if (!english) {
      add({ at, main: null, dependent: false });
      continue;
    }
    // Mid-sentence, a clause that opens on a relative word, a preposition, an auxiliary or a modifier
    // ("…a richer, | better, more vibrant culture") hangs on what came before.
    // A verb there mostly continues a list ("to use it, | learn from it, and be inspired by it"); the main clause
    // after an opening "To …," / "If …," is added below from the clause that needs it.
    if (r > 0 && (RELATIVES.has(w.norm) || ['preposition', 'auxiliary', 'conjunction', 'adjective', 'adverb', 'particle', 'negation', 'verb'].includes(w.cls))) continue;
    // A sentence that opens on a relative word is the tail of another ("Who most recently joined the conference."),
    // unless it asks a question.
    const relativeTail = RELATIVES.has(w.norm) && w.norm !== 'that' && !/\?["')\]]?$/.test(words[words.length - 1]!.text);
    const dependent = SUBORDINATORS.has(w.norm) || w.cls === 'infinitive-to' || relativeTail;
    const main = dependent && !relativeTail ? mainClause(words, at) : null;
    // "Unless to be rather cold-hearted … is to be ill-disposed", "Who most recently joined the
    // conference": with no main clause of their own these only continue the previous sentence.
    if ((relativeTail || NEEDS_PREVIOUS.has(w.norm)) && main === null) continue;
    add({ at, main, dependent });
    if (main !== null) add({ at: skipConnectives(words, main, classes), main: null, dependent: false });
  }
  return starts;
}

/**
 * Where the main clause of a sentence that opens on a subordinate clause begins: after the clause's
 * comma, or (speech is often transcribed without one) at a new subject followed by its verb once the
 * subordinate clause has had a verb of its own: "If you dial 1234 | you can try to ring the console".
 */
function mainClause(words: readonly ClassedWord[], at: number): number | null {
  let sawVerb = false;
  for (let k = at + 1; k < words.length; k++) {
    if (CLAUSE_END.test(words[k - 1]!.trail) && k > at + 1) return k;
    const w = words[k]!;
    const next = words[k + 1];
    const subject = w.cls === 'pronoun' || w.cls === 'name' || ['you', 'it', 'there'].includes(w.norm);
    if (sawVerb && subject && next && (next.cls === 'auxiliary' || next.cls === 'verb')) return k;
    if (w.cls === 'verb' || w.cls === 'auxiliary') sawVerb = true;
  }
  return null;
}

/**
 * Whether a title fits: 60 columns (a Chinese or Japanese character takes two, as on screen) and at
 * most ten words.
 */
function fitsTitle(s: string, maxWords: number): boolean {
  return displayWidth(s) <= TITLE_MAX_CHARS && s.split(' ').filter(Boolean).length <= maxWords;
}

/** Last resort for a sentence with no phrase boundary that fits: the longest prefix that does not end on a function word. */
function prefixCut(words: readonly ClassedWord[], at: number, classes: WordClassCache): string {
  const acc: ClassedWord[] = [];
  for (const w of words.slice(at)) {
    if (!fitsTitle(classes.join([...acc, w]), TITLE_MAX_WORDS)) break;
    acc.push(w);
  }
  // A first word wider than a title (a long unspaced run): its first characters.
  if (acc.length === 0 && words[at]) return cleanEnd(cutToWidth(words[at]!.text, TITLE_MAX_CHARS));
  while (acc.length > 1 && !(classes.english ? canEndTitle(acc, acc.length - 1, false) : !['stop', 'interjection'].includes(acc[acc.length - 1]!.cls))) acc.pop();
  return cleanEnd(classes.join(acc));
}

function cutToWidth(s: string, width: number): string {
  let out = '';
  for (const c of s) {
    if (displayWidth(out + c) > width) break;
    out += c;
  }
  return out;
}

function cleanEnd(s: string): string {
  return s.replace(/[\s,;:\-–—.、，。：；،؛]+$/u, '').trim();
}

// ---------------------------------------------------------------- description

const STOPWORDS = new Set(`a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
few for from further get gets getting got gonna had hadn't has hasn't have haven't having he he'd he'll he's her here
here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's
like lot lots make made me more most mustn't my myself no nor not now of off on once one only or other ought our ours
ourselves out over own really right same say said says see shan't she she'd she'll she's should shouldn't so some such
than that that's the their theirs them themselves then there there's these they they'd they'll they're they've thing
things think this those through to too under until up upon us very want wanna was wasn't way we we'd we'll we're we've
well were weren't what what's when when's where where's which while who who's whom why why's will with won't would
wouldn't yeah yes you you'd you'll you're you've your yours yourself yourselves okay ok um uh actually basically
literally going know mean kind sort stuff something anything everything nothing someone anyone everyone people time
times day days year years back even still ever never always much many every good great new first last next little big
go goes went come came take took put tell told look looking give gave keep kept start started thing's let maybe
probably pretty quite whole another around away thats dont cant im ive youre theyre whats gotta tbh finally without
within exactly making doing trying tried using used second third part today tonight week weeks month later early usual
normal enough able sure already almost often sometimes else instead across along behind inside outside bit bits`.split(/\s+/).filter(Boolean));
/** Titles before a name: "Mr. John Dashwood" is tagged #JohnDashwood. */
const HONORIFICS = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'sir', 'madam', 'prof']);

/** Word counts over the whole transcript, the background each clip's words are compared against. */
interface TranscriptTotals {
  counts: Map<string, number>;
  words: number;
  text: string;
  /** The sentences each word occurs in, to read how the whole transcript uses it. */
  sentencesOf: Map<string, string[]>;
  nounShare: Map<string, number>;
  /** Languages without a tagger: how each content word is used across the transcript. */
  usage: Map<string, WordUsage>;
}

/**
 * Where a word stands in its sentences, for languages without a tagger. A noun mostly follows an
 * article, a possessive or a preposition ("la conferencia", "votre numéro", "d'agence"); a verb opens
 * an instruction ("presione", "composez") or follows its subject. German writes every noun with a
 * capital: a word written lower case in mid-sentence is not one.
 */
interface WordUsage { uses: number; afterFunctionWord: number; midSentence: number; midSentenceCapital: number; clauseStart: number }

/**
 * Languages that put an article or a preposition before a noun: a word that opens most of its clauses
 * there is an instruction's verb ("Presione …", "Composez …", "Drücken Sie …"), not a topic.
 */
const ARTICLE_FIRST = new Set(['es', 'fr', 'it', 'pt', 'ca', 'gl', 'de', 'nl']);

function transcriptTotals(transcript: Transcript, classes: WordClassCache): TranscriptTotals {
  const counts = new Map<string, number>();
  const sentencesOf = new Map<string, string[]>();
  const usage = new Map<string, WordUsage>();
  let words = 0;
  for (const s of transcript.sentences) {
    if (!classes.english) {
      const ws = classes.of(s.sentence);
      ws.forEach((w, k) => {
        if (!isOtherContent(w, classes)) return;
        const u = usage.get(w.norm) ?? { uses: 0, afterFunctionWord: 0, midSentence: 0, midSentenceCapital: 0, clauseStart: 0 };
        u.uses++;
        if (k === 0 || CLAUSE_END.test(ws[k - 1]!.trail) || /[.!?]$/.test(ws[k - 1]!.text)) u.clauseStart++;
        if (ws[k - 1]?.cls === 'stop' || withoutElision(w.text, classes.language) !== w.text) u.afterFunctionWord++;
        if (k > 0 && !/[.!?]$/.test(ws[k - 1]!.text)) {
          u.midSentence++;
          if (/^\p{Lu}/u.test(coreOf(w.text))) u.midSentenceCapital++;
        }
        usage.set(w.norm, u);
      });
    }
    for (const w of contentWordsOf(s.sentence, classes)) {
      const key = classes.english ? stem(w) : w;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      const list = sentencesOf.get(key) ?? [];
      if (list[list.length - 1] !== s.sentence) list.push(s.sentence);
      sentencesOf.set(key, list);
      words++;
    }
  }
  const text = classes.english ? transcript.sentences.map((s) => tokens(s.sentence).join(' ')).join(' ') : '';
  return { counts, words, text: ` ${text} `, sentencesOf, nounShare: new Map(), usage };
}

/** Sentences read per word to judge its usual class: enough for a majority, bounded for long talks. */
const USAGE_SAMPLE = 12;

/**
 * The share of the word's uses across the transcript that the tagger reads as a noun or a name. One
 * clip can hold the tagger's odd misreading ("company directory press four"); across a talk the
 * instruction "press" is a verb four times out of five.
 */
function nounShare(key: string, totals: TranscriptTotals, classes: WordClassCache): number {
  // Without a tagger every content word reads as a possible topic: nothing to weigh.
  if (!classes.english) return 1;
  const cached = totals.nounShare.get(key);
  if (cached !== undefined) return cached;
  const all = totals.sentencesOf.get(key) ?? [];
  const step = Math.max(1, all.length / USAGE_SAMPLE);
  let topic = 0;
  let uses = 0;
  for (let i = 0; i < all.length && uses < USAGE_SAMPLE * 4; i += step) {
    for (const w of classes.of(all[Math.floor(i)]!)) {
      if (stem(w.norm.replace(/'s$/, '')) !== key) continue;
      uses++;
      if (isTopicWord(w)) topic++;
    }
  }
  const share = uses === 0 ? 1 : topic / uses;
  totals.nounShare.set(key, share);
  return share;
}

/** One summary sentence from the clip, then 3-5 hashtags from its most distinctive nouns and names. */
function pickDescription(clip: readonly Sentence[], totals: TranscriptTotals, classes: WordClassCache, title: string, taken: Taken): string {
  const weights = distinctiveWords(clip, totals, classes, title);
  // A fair share of the word's uses across the talk must be nouns too: "press" in "company directory
  // press four" is the tagger's slip; the talk says "press two" as an instruction fifty times.
  const tags = hashtags(weights, (key) => key.startsWith('name:') || nounShare(key, totals, classes) >= 0.4, classes).join(' ');
  const summaries = summaryCandidates(clip, weights, title, classes);
  let description = '';
  for (const summary of summaries) {
    description = [summary, tags].filter(Boolean).join(' ');
    if (!taken.descriptions.has(description)) break;
  }
  // Every sentence of this clip already summarises an earlier clip: the title, unique in the request, leads.
  if (taken.descriptions.has(description)) description = [`${title}:`, summaries[0] ?? '', tags].filter(Boolean).join(' ');
  taken.descriptions.add(description);
  return description;
}

/** Crude plural folding so "startup" and "startups" count as one word. */
function stem(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 4 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) return w.slice(0, -1);
  return w;
}

function isContentToken(t: string): boolean {
  return t.length >= 3 && !STOPWORDS.has(t) && !NUMBER_WORDS.has(t) && /\p{L}/u.test(t) && !/\d/.test(t) && !t.includes('\'');
}

function contentWords(text: string): string[] {
  return tokens(text).filter(isContentToken);
}

/**
 * The content words of a text in the request's language: English through its own list; any other
 * language through its stop-word list (word-classes.ts marks those 'stop'), keeping words of at least
 * three letters (two characters in Chinese or Japanese, where most words are two), or five where the
 * language has no list of its own and only the transcript's commonest words were set aside.
 */
function contentWordsOf(text: string, classes: WordClassCache): string[] {
  if (classes.english) return contentWords(text);
  return classes.of(text).filter((w) => isOtherContent(w, classes)).map((w) => w.norm);
}

function isOtherContent(w: ClassedWord, classes: WordClassCache): boolean {
  if (w.cls !== 'unknown' || !/\p{L}/u.test(w.norm) || /\p{N}/u.test(w.norm)) return false;
  const letters = [...w.norm.replace(/[^\p{L}]/gu, '')].length;
  // Japanese words in hiragana alone are particles, auxiliaries and inflections; topics carry kanji or katakana.
  if (classes.language === 'ja' && /^[\p{Script=Hiragana}\u30fc]+$/u.test(w.norm)) return false;
  if (!classes.joiner) return letters >= 2;
  return letters >= (hasOwnStopWordList(classes.language) ? 3 : 5);
}

/** 'topic': a noun or a name (a hashtag); 'quality': an adjective, a hashtag only for a clip short on nouns. */
type TagKind = 'topic' | 'quality' | 'none';

interface WordWeight { key: string; surface: string; weight: number; clipCount: number; kind: TagKind }

interface ClipWord { key: string; surface: string; kind: TagKind; total: number }

/**
 * The clip's candidate hashtag words in order: single words, and names of two or three words
 * ("Super Awesome Company") as one tag. `topic` is whether the tagger read this use as a noun or a name.
 */
function clipWords(clip: readonly Sentence[], totals: TranscriptTotals, classes: WordClassCache): ClipWord[] {
  const out: ClipWord[] = [];
  for (const s of clip) {
    const words = classes.of(s.sentence);
    if (!classes.english) {
      // The word as transcribed (a German noun keeps its capital), without its elided article ("l'agent").
      for (const w of words) {
        if (isOtherContent(w, classes)) out.push({ key: w.norm, surface: coreOf(withoutElision(w.text, classes.language)), kind: 'topic', total: totals.counts.get(w.norm) ?? 0 });
      }
      continue;
    }
    for (let k = 0; k < words.length; k++) {
      const w = words[k]!;
      if (classes.english && w.cls === 'name' && !HONORIFICS.has(w.norm)) {
        let end = k;
        while (end + 1 < words.length && words[end + 1]!.cls === 'name' && end - k < 2 && !CLAUSE_END.test(words[end]!.trail)) end++;
        if (end > k) {
          const parts = words.slice(k, end + 1).map((x) => x.norm.replace(/'s$/, ''));
          const phrase = parts.join(' ');
          out.push({ key: `name:${phrase}`, surface: parts.map(capitalise).join(''), kind: 'topic', total: countPhrase(totals.text, phrase) });
          k = end;
          continue;
        }
      }
      const t = w.norm.replace(/'s$/, '');
      if (!isContentToken(t)) continue;
      const kind: TagKind = isTopicWord(w) ? 'topic' : w.cls === 'adjective' ? 'quality' : 'none';
      out.push({ key: stem(t), surface: t, kind, total: totals.counts.get(stem(t)) ?? 0 });
    }
  }
  return out;
}

function countPhrase(text: string, phrase: string): number {
  return text.split(` ${phrase} `).length - 1;
}

function capitalise(p: string): string {
  return p.charAt(0).toUpperCase() + p.slice(1);
}

/** Frequency in the clip, boosted when the word is rarer in the rest of the transcript; nouns and names only. */
function distinctiveWords(clip: readonly Sentence[], totals: TranscriptTotals, classes: WordClassCache, title: string): Map<string, WordWeight> {
  const titleKeys = new Set(classes.english ? contentWords(title).map(stem) : contentWordsOf(title, classes).map((w) => lookupForm(w, classes.language)));
  const entries = new Map<string, { count: number; topic: number; quality: number; surfaces: Map<string, number>; firstSeen: number; total: number }>();
  const words = clipWords(clip, totals, classes);
  words.forEach((w, pos) => {
    const entry = entries.get(w.key) ?? { count: 0, topic: 0, quality: 0, surfaces: new Map(), firstSeen: pos, total: w.total };
    entry.count++;
    if (w.kind === 'topic') entry.topic++;
    if (w.kind === 'quality') entry.quality++;
    entry.surfaces.set(w.surface, (entry.surfaces.get(w.surface) ?? 0) + 1);
    entries.set(w.key, entry);
  });
  const clipWordCount = Math.max(1, words.length);
  const out = new Map<string, WordWeight>();
  for (const [key, e] of entries) {
    // Most uses in this clip must be nouns or names (hashtags() checks the rest of the talk too).
    const kind: TagKind = e.topic * 2 > e.count ? 'topic' : e.quality * 2 > e.count ? 'quality' : 'none';
    if (kind === 'none') continue;
    const total = Math.max(e.count, e.total);
    // Share of the word's uses that fall inside the clip, against the clip's share of the transcript.
    const concentration = (e.count / total) / Math.max(1e-9, clipWordCount / Math.max(clipWordCount, totals.words));
    // Longer words tend to be the topic ("restaurants") rather than the talk around it ("lose").
    const lengthBonus = [...key].length >= (classes.joiner ? 6 : 3) ? 1.15 : 1;
    const titleBonus = titleKeys.has(key) || (key.startsWith('name:') && key.slice(5).split(' ').some((p) => titleKeys.has(stem(p)))) ? 1.5 : 1;
    let weight = e.count * (0.5 + Math.min(3, concentration) / 2) * lengthBonus * titleBonus - e.firstSeen * 1e-6;
    const u = totals.usage.get(key);
    if (u) {
      if (classes.language === 'de' && u.midSentence > 0 && u.midSentenceCapital * 2 < u.midSentence) continue;
      if (ARTICLE_FIRST.has(classes.language) && u.clauseStart * 2 > u.uses) continue;
      weight *= 0.5 + 0.5 * (u.afterFunctionWord / u.uses);
    }
    const surface = [...e.surfaces.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    out.set(key, { key, surface, weight, clipCount: e.count, kind });
  }
  return out;
}

function hashtags(weights: Map<string, WordWeight>, usuallyNoun: (key: string) => boolean, classes: WordClassCache): string[] {
  const ranked = [...weights.values()].sort((a, b) => b.weight - a.weight || a.key.localeCompare(b.key));
  // A name of several words carries its parts: #JohnDashwood, then not #Dashwood as well.
  const inNames = new Set(ranked.filter((w) => w.key.startsWith('name:')).flatMap((w) => w.key.slice(5).split(' ').map(stem)));
  const usable = ranked.filter((w) => w.kind === 'topic' && (w.key.startsWith('name:') || !inNames.has(w.key)));
  // Prefer words said more than once; single mentions fill in only when the clip is short on them.
  const picked: WordWeight[] = [];
  // Checked in order of preference and only until four are found: reading a word's uses costs tagging.
  for (const w of [...usable.filter((x) => x.clipCount > 1), ...usable.filter((x) => x.clipCount <= 1)]) {
    if (picked.length === 4) break;
    if (usuallyNoun(w.key)) picked.push(w);
  }
  // A clip with hardly a noun in it ("he might even have been made amiable himself") may carry an
  // adjective it repeats (#Amiable) rather than only the generic fillers.
  if (picked.length < 2) picked.push(...ranked.filter((w) => w.kind === 'quality' && w.clipCount > 1).slice(0, 2 - picked.length));
  // "walk-in" -> #WalkIn: hashtags stop at the first character that is not a letter, a letter's mark
  // (Devanagari vowel signs, Arabic harakat) or a digit. Each part's first letter goes up where the script
  // has case, in the language's locale; "canción" stays "#Canción", never folded to ASCII.
  const tags = picked.map((w) => `#${w.surface.split(/[^\p{L}\p{M}\p{N}]+/u).filter(Boolean).map((p) => capitaliseWord(p, classes.language)).join('')}`);
  // #shorts is the platform's own tag in every language; the English fillers only pad English copy.
  tags.push('#shorts');
  if (classes.english) for (const filler of ['#clips', '#video']) if (tags.length < 3) tags.push(filler);
  return tags;
}

/** Summary lines, best first: clip sentences that carry most of its distinctive words (other than the title line), cleaned. */
function summaryCandidates(clip: readonly Sentence[], weights: Map<string, WordWeight>, title: string, classes: WordClassCache): string[] {
  const wordsOf = (text: string): string[] => (classes.english ? tokens(text) : classes.of(text).filter((w) => w.cls !== 'interjection').map((w) => w.norm));
  const titleWords = new Set(wordsOf(title));
  const scored: { text: string; score: number; from: string }[] = [];
  for (const s of clip) {
    const text = dropConnectives(stripFiller(s.sentence, classes.english), classes, s.sentence);
    const toks = wordsOf(text);
    if (toks.length < (classes.joiner ? 5 : 3) || (classes.english && startCleanliness(text) === 0)) continue;
    // "Unless to be rather cold-hearted …", "Who most recently joined …": the tail of a previous line.
    if (classes.english && (NEEDS_PREVIOUS.has(toks[0]!) || (RELATIVES.has(toks[0]!) && !text.trim().endsWith('?')))) continue;
    const words = contentWordsOf(text, classes);
    // Share of the title's words this sentence repeats: the title line itself makes a poor summary.
    const overlap = titleWords.size > 0 ? [...titleWords].filter((t) => toks.includes(t)).length / titleWords.size : 0;
    const score = words.reduce((acc, w) => acc + (weights.get(classes.english ? stem(w) : w)?.weight ?? 0), 0) / Math.sqrt(toks.length)
      * (overlap > 0.7 ? 0.3 : 1) * (QUESTION_END.test(text.trim()) ? 0.5 : 1);
    scored.push({ text, score, from: s.sentence });
  }
  const ranked = scored.sort((a, b) => b.score - a.score);
  // Clips of only short or dangling lines still get one: the first, then the rest in order.
  for (const s of clip) {
    const text = dropConnectives(stripFiller(s.sentence, classes.english), classes, s.sentence);
    if (text && !ranked.some((r) => r.text === text)) ranked.push({ text, score: 0, from: s.sentence });
  }
  return ranked.map((r) => formatSummary(r.text, classes, r.from));
}

/** "However, you will still hear …" -> "you will still hear …": the summary stands alone like the title. */
function dropConnectives(text: string, classes: WordClassCache, from: string): string {
  const words = classes.of(text, from);
  const at = skipConnectives(words, 0, classes);
  return at === 0 ? text : classes.join(words.slice(at)).replace(/^[,;:\s，、،]+/u, '');
}

function formatSummary(chosen: string, classes: WordClassCache, from: string): string {
  let text = classes.english ? chosen.charAt(0).toUpperCase() + chosen.slice(1) : caseTitle(chosen, classes.language);
  if (displayWidth(text) > SUMMARY_MAX_CHARS) {
    // Cut at a word that can end a phrase, so the ellipsis never follows "to" or "your" (or "de", "的").
    const words = classes.of(text, from);
    const acc: ClassedWord[] = [];
    for (const w of words) {
      if (displayWidth(classes.join([...acc, w])) > SUMMARY_MAX_CHARS - 1) break;
      acc.push(w);
    }
    const canEnd = (k: number): boolean => (classes.english ? canEndTitle(acc, k, false) : !['stop', 'interjection'].includes(acc[k]!.cls));
    while (acc.length > 1 && !canEnd(acc.length - 1)) acc.pop();
    text = `${classes.join(acc).replace(/[\s,;:.，、。،]+$/u, '')}…`;
  } else if (!/[.!?…。！？؟।]$/u.test(text)) {
    // A trailing comma or pause mark gives way to the full stop ("…して、" ends "…して。", not "…して、。").
    text = `${text.replace(/[\s,;:，、；：،؛]+$/u, '')}${classes.joiner ? '.' : '。'}`;
  }
  return text;
}
