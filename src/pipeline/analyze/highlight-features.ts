// The signals that predict whether a stretch of talk works as a short, each scored 0..1: from the words
// (hook, story, question and answer, contrast, emotion, instructions), from the audio (non-speech
// reactions, pitch and loudness movement), from the topic segmentation and the platform heatmap.
// Sentence-level signals are computed once; span features then come from prefix sums so that scoring
// any sentence span i..j costs O(1) (plus a binary search for the heatmap). The lexicons are small and
// general on purpose: they separate a told story, a question answered or a menu read aloud, not NLP.
// They are English and fire on English only (neutral-signals.ts hasLexicon): every other language is
// scored from what needs no word list (marks, digits, pauses, repetition, topics, the audio), with
// weights of its own (highlights.ts NEUTRAL_INTEREST_WEIGHTS).
import {
  baseLanguage, endsAsQuestion, endsSentence, exclaims, hasDigits, hasLexicon, isNumeral, startsLowerCase, wordsOf,
} from './neutral-signals.js';
import { median, quantile } from '../shared/stats.js';
import { segmentTopics, type TopicSegmentation } from './topics.js';
import type { AudioEvent, AudioEventKind, AudioTrack } from '../../domain/audio.js';
import type { Evidence, HighlightFeatures } from '../../domain/highlight.js';
import type { HeatmapPoint } from '../../domain/source.js';
import type { Sentence } from '../../domain/transcript.js';
import type { TimeRange } from '../../domain/time.js';

const CONTRAST = new Set(['but', 'however', 'actually', 'instead', 'yet', 'although', 'though', 'wrong', 'myth', 'unless']);
const CONTRAST_PHRASES = ['the truth is', 'turns out', 'in fact', 'the problem is', 'the reality is', 'the thing is', 'here\'s the thing'];
const ADDRESS = new Set(['you', 'your', 'you\'re', 'yourself', 'you\'ve', 'you\'ll', 'you\'d']);
const SURPRISE = new Set([
  'secret', 'secrets', 'never', 'nobody', 'mistake', 'mistakes', 'shocking', 'shocked', 'crazy', 'insane', 'unbelievable',
  'surprising', 'surprised', 'weird', 'hidden', 'lie', 'lied', 'lies', 'myth', 'wrong', 'worst', 'biggest', 'nothing',
  'everyone', 'everybody', 'stop', 'truth', 'forbidden', 'banned', 'impossible', 'ruined', 'failed', 'fail',
]);
const OPENERS = ['here\'s', 'here is', 'imagine', 'what if', 'why', 'how', 'the reason', 'the one thing', 'if you'];
export const NUMBER_WORDS = new Set([
  'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen',
  'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety',
  'dozen', 'dozens', 'hundred', 'hundreds', 'thousand', 'thousands', 'million', 'millions', 'billion', 'billions', 'percent', 'half', 'double', 'triple',
]);
/** Emotional and intensifying words; density of these drives the "emotion" feature. */
export const EMOTION_WORDS = new Set([
  'love', 'loved', 'loving', 'hate', 'hated', 'amazing', 'terrible', 'incredible', 'incredibly', 'fear', 'afraid', 'scared',
  'terrified', 'angry', 'furious', 'happy', 'sad', 'cry', 'cried', 'crying', 'beautiful', 'awful', 'horrible', 'brilliant',
  'fantastic', 'wonderful', 'pain', 'painful', 'hurt', 'proud', 'shame', 'ashamed', 'excited', 'exciting', 'thrilled',
  'disgusting', 'heartbreaking', 'devastating', 'devastated', 'joy', 'worried', 'anxious', 'lonely', 'passion', 'passionate',
  'dream', 'dreams', 'die', 'died', 'dead', 'death', 'killed', 'disaster', 'nightmare', 'miracle', 'perfect', 'worst', 'best',
  'insane', 'crazy', 'shocking', 'unbelievable', 'wow', 'damn', 'hell', 'absolutely', 'totally', 'completely', 'extremely',
  'massive', 'huge', 'enormous', 'desperate', 'obsessed', 'broke', 'broken', 'stunning', 'epic', 'ridiculous', 'hilarious',
  'embarrassing', 'embarrassed', 'frustrated', 'frustrating', 'grateful', 'lucky', 'struggle', 'struggled', 'panic',
]);
/** First words that point back at something the viewer of a clip never saw. */
const DANGLING = new Set([
  'this', 'that', 'it', 'it\'s', 'they', 'they\'re', 'them', 'these', 'those', 'he', 'she', 'he\'s', 'she\'s', 'his', 'her',
  'so', 'and', 'but', 'because', 'which', 'also', 'then', 'or', 'plus', 'anyway', 'as', 'otherwise', 'too',
]);
/** Filler at the start weakens the opening without making it incomprehensible. */
const WEAK_START = new Set(['um', 'uh', 'well', 'like', 'okay', 'ok', 'yeah', 'right', 'oh', 'mm', 'hmm']);
const CONCLUSION_PHRASES = [
  'that\'s why', 'that is why', 'this is why', 'the point is', 'the lesson', 'the key is', 'in the end', 'bottom line',
  'that\'s how', 'which means', 'turns out', 'remember', 'the answer is', 'the secret is', 'in short', 'ultimately',
  'and that\'s', 'that\'s the', 'so if you', 'so the', 'so next time', 'and so', 'at the end of the day', 'the truth is',
];

export interface HookSignals { question: boolean; number: boolean; contrast: boolean; address: boolean; surprise: boolean; opener: boolean }

export function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, '\'')
    .split(/\s+/)
    .map((t) => t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((t) => t.length > 0);
}

function hasPhrase(lowerText: string, phrases: readonly string[]): boolean {
  const padded = ` ${lowerText.replace(/[\u2018\u2019]/g, '\'').replace(/[^\p{L}\p{N}'\s]+/gu, ' ').replace(/\s+/g, ' ')} `;
  return phrases.some((p) => padded.includes(` ${p} `));
}

/**
 * A question by its mark, or by its grammar when the recogniser left the mark off (Whisper often ends
 * a long "Did you know that ..." with a full stop): an auxiliary before its subject, "what if", "how do".
 */
const INTERROGATIVE = /^(?:(?:so|and|but|now|okay|well),?\s+)?(?:(?:did|do|does|have|has|are|is|was|were|can|could|would|will|should|shall)\s+(?:you|we|they|i|it|anyone|anybody|he|she|there)\b|(?:what|why|how|who|where|which)\s+(?:do|does|did|is|are|was|were|would|could|can|should|if|about|many|much)\b|(?:have you|ever) (?:ever )?wonder)/i;

/** A question by its mark in any script; in English also by its grammar. */
export function isQuestion(text: string, language?: string | null): boolean {
  const t = text.trim();
  if (!hasLexicon(language)) return endsAsQuestion(t, language);
  return /\?["')\]]*$/.test(t) || INTERROGATIVE.test(t);
}

/** Hook signals of an opening line; outside English only the question mark and digits count. */
export function hookSignals(text: string, language?: string | null): HookSignals {
  if (!hasLexicon(language)) return neutralHookSignals(text, language);
  const toks = tokens(text);
  const lower = text.toLowerCase();
  const opening = `${toks.slice(0, 3).join(' ')} `;
  return {
    question: isQuestion(text),
    number: toks.some((t) => /\d/.test(t) || NUMBER_WORDS.has(t)),
    contrast: toks.some((t) => CONTRAST.has(t)) || hasPhrase(lower, CONTRAST_PHRASES),
    address: toks.some((t) => ADDRESS.has(t)),
    surprise: toks.some((t) => SURPRISE.has(t)),
    opener: OPENERS.some((o) => opening.startsWith(`${o} `)),
  };
}

function neutralHookSignals(text: string, language?: string | null): HookSignals {
  return { question: endsAsQuestion(text, language), number: hasDigits(text), contrast: false, address: false, surprise: false, opener: false };
}

/** How strongly a sentence works as an opening line, 0..1. */
export function hookScore(text: string, language?: string | null): number {
  return hasLexicon(language) ? hookScoreOf(hookSignals(text, language), tokens(text).length) : neutralHookScore(text, language);
}

function neutralHookScore(text: string, language?: string | null): number {
  return hookScoreOf(neutralHookSignals(text, language), wordsOf(text, language).length);
}

function hookScoreOf(s: HookSignals, words: number): number {
  let score = (s.question ? 0.45 : 0) + (s.number ? 0.25 : 0) + (s.contrast ? 0.2 : 0) + (s.address ? 0.15 : 0)
    + (s.surprise ? 0.3 : 0) + (s.opener ? 0.15 : 0);
  // A rambling first sentence buries its hook.
  if (words > 28) score *= 0.75;
  return Math.min(1, score);
}

/**
 * 1 when the sentence can open a clip, 0 when it starts on a dangling reference, 0.6 on filler.
 * Outside English no word list says what dangles: a line Whisper began in lower case continues another.
 */
export function startCleanliness(text: string, language?: string | null): number {
  if (!hasLexicon(language)) return neutralStart(text);
  const first = tokens(text)[0];
  if (first === undefined) return 0;
  if (DANGLING.has(first)) return 0;
  if (WEAK_START.has(first)) return 0.6;
  return 1;
}

/** 0..1: how well a sentence closes a clip (a finished statement, a conclusion, a punchline). */
/**
 * A line that announces what comes next ("There are three simple reasons.", "Here's why:") is a
 * great opener and the worst possible last line: the clip would stop right before its payoff.
 */
const SETUP_LINE = new RegExp([
  String.raw`^(so |and |but )?here('s| is| are) (why|how|what|the (thing|truth|secret|deal|problem|catch))\b`,
  String.raw`^(so |and )?let me (explain|show|tell)\b`,
  String.raw`^there (are|were) (\w+ ){0,3}(reasons|ways|things|steps|tips|rules|mistakes|lessons|secrets)\b`,
  String.raw`^(and )?(the|my) (reason|answer|secret|trick|problem) (is|was)\b[^.!?]{0,12}[.!]?$`,
  String.raw`^(first|firstly|number one)\b`,
].join('|'), 'i');

export function isSetupLine(text: string): boolean {
  const t = text.trim();
  return t.endsWith(':') || SETUP_LINE.test(t);
}

const TRANSITION_LINE = /^((ok(ay)?|alright|all right|right|so|anyway|now|well)[\s,.!]*)*((moving on|let's move on|next( up)?|on to the next( one)?|anyway|that's it for (now|today)|where was i)[\s,.!]*)?$/i;

export function endingPayoff(text: string, previousText = '', language?: string | null): number {
  if (!hasLexicon(language)) return neutralPayoff(text, language);
  const t = text.trim();
  const words = tokens(t).length;
  if (/[?]$/.test(t)) return 0.2; // an open question leaves the viewer hanging
  if (isSetupLine(t)) return 0.1;
  if (!/[.!]["')\]]?$/.test(t)) return 0.1; // cut mid-thought
  // "Okay, moving on." / "Anyway." / "Next.": the talk turning to its next subject, not this one's end.
  if (TRANSITION_LINE.test(t)) return 0.1;
  let score = 0.4;
  if (hasPhrase(t.toLowerCase(), CONCLUSION_PHRASES) || hasPhrase(previousText.toLowerCase(), CONCLUSION_PHRASES)) score += 0.4;
  if (t.endsWith('!')) score += 0.2;
  if (words > 0 && words <= 10) score += 0.2; // short, punchy last line
  return Math.min(1, score);
}

function neutralStart(text: string): number {
  return text.trim() === '' ? 0 : startsLowerCase(text) ? 0.3 : 1;
}

/**
 * The ending without word lists: an open question or an unfinished line leaves the viewer hanging;
 * a finished line, an exclamation and a short last line land.
 */
function neutralPayoff(text: string, language?: string | null): number {
  const t = text.trim();
  if (endsAsQuestion(t, language)) return 0.2;
  if (t.endsWith(':') || t.endsWith('：') || !endsSentence(t)) return 0.1;
  let score = 0.5;
  if (exclaims(t)) score += 0.2;
  const words = wordsOf(t, language).length;
  if (words > 0 && words <= 10) score += 0.2;
  return Math.min(1, score);
}

/** An English emotion word; no other language's word is one (the German article "die" is not the English verb). */
export function isEmotionWord(token: string, language?: string | null): boolean {
  return hasLexicon(language) && EMOTION_WORDS.has(token);
}

// ---------------------------------------------------------------- how the talk is told

const FIRST_PERSON = new Set(['i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'ourselves', 'i\'m', 'i\'d', 'i\'ve', 'i\'ll', 'we\'re', 'we\'d', 'we\'ve']);
const THIRD_PERSON = new Set(['he', 'she', 'him', 'her', 'his', 'hers', 'they', 'them', 'their', 'he\'d', 'she\'d', 'they\'d']);
const IRREGULAR_PAST = new Set(`was were had did said went came got took made saw thought told knew found gave left felt became began
brought bought ran sat stood heard kept held lost met paid sent spent swore wrote ate drove fell forgot grew hid lay meant rode rang
rose sang shook shot slept spoke stole struck taught threw understood woke won wore broke caught chose drank fought flew froze built
dug fed led lit sold stuck swam tore wept didn't wasn't weren't couldn't wouldn't hadn't`.split(/\s+/));
/** Words before an -ed form that make it a participle ("is locked", "will be answered"), not a told past. */
const AUXILIARY = new Set(['be', 'been', 'being', 'is', 'are', 'am', 'was', 'were', 'has', 'have', 'had', 'get', 'gets', 'got', 'is\'s', 'you\'re', 'it\'s']);
const NOT_PAST_ED = new Set(['need', 'feed', 'seed', 'speed', 'bed', 'red', 'shed', 'led', 'hundred', 'sacred', 'naked', 'wicked', 'indeed', 'proceed', 'exceed', 'succeed', 'advanced', 'based', 'used', 'supposed', 'interested', 'tired', 'excited', 'married', 'related', 'limited', 'unlimited', 'detailed', 'required', 'selected', 'followed', 'recorded', 'muted', 'unmuted', 'locked', 'unlocked']);
const TIME_MARKER = /\b(last (week|month|year|summer|winter|spring|fall|autumn|night|time|weekend|christmas|sunday|monday|tuesday|wednesday|thursday|friday|saturday)|one (day|night|morning|evening|afternoon|time)|yesterday|(\w+ )?(seconds|minutes|hours|days|weeks|months|years) (later|ago)|ago\b|that (day|night|morning|evening|summer|winter|year|week)|the next (day|morning|week)|when i was|back (then|in)|suddenly|at first|years ago|in (19|20)\d\d|once upon)/i;
const CONTRAST_MARKER = /\b(but|however|instead|actually|although|though|turns out|turned out|in fact|the truth is|the problem is|except|unlike|on the other hand|surprisingly|it turned out|yet)\b/i;
/** Verbs that open an instruction ("Press 1", "Enter your PIN", "Stir in the flour"). */
const INSTRUCTION_VERBS = new Set(`press enter dial select choose click tap type say leave hang use stay hold go open close turn add put
take make check insert remove wait call record return follow push save delete erase set install run mix stir pour cut place keep note
visit log sign scroll drag drop connect plug unplug restart reboot download upload fill bake heat preheat combine whisk chop slice
serve repeat continue hit switch move start stop speak listen send pick grab bring fold attach tighten loosen measure adjust apply
copy paste subscribe accept reach quit change exit mute unmute eject extend decrease increase forward prepend`.split(/\s+/));
const LIST_MARKER = /^(first(ly)?|second(ly)?|third(ly)?|fourth|fifth|sixth|seventh|next|finally|lastly|last thing|step (\d+|one|two|three|four|five|six)|number (\d+|one|two|three|four|five|six|seven|eight|nine|ten)|#\d+)\b[,.:]?/i;
/** Openings that greet or announce rather than hook ("Hi everyone, this is the update for ..."). */
const GREETING = /^(hi|hello|hey|welcome|good (morning|afternoon|evening)|okay,? welcome)\b/i;
const INSTRUCTION_LEAD = new Set(['please', 'now', 'then', 'so', 'and', 'just', 'first', 'next', 'finally', 'otherwise', 'also', 'simply', 'again']);

export function isPastTense(toks: readonly string[], k: number): boolean {
  const t = toks[k]!;
  if (IRREGULAR_PAST.has(t)) return true;
  if (t.length < 5 || !t.endsWith('ed') || NOT_PAST_ED.has(t)) return false;
  const before = toks.slice(Math.max(0, k - 2), k);
  if (before.some((b) => AUXILIARY.has(b))) return false;
  return toks[k + 1] !== 'by';
}

/**
 * 0..1: how much a sentence reads as an instruction or a menu item rather than something said about the
 * world. English verbs only: elsewhere a menu shows as repeated openings (SentenceStats.templated).
 */
export function instructionScore(text: string, language?: string | null): number {
  if (!hasLexicon(language)) return 0;
  const t = text.trim();
  if (/\?$/.test(t)) return 0;
  let best = 0;
  // Any clause may carry the instruction: "After the tone, say your name", "To hear it again, press 5".
  t.split(/[,;:]/).forEach((clause, k) => {
    const toks = tokens(clause);
    let i = 0;
    while (i < toks.length - 1 && INSTRUCTION_LEAD.has(toks[i]!)) i++;
    const first = toks[i];
    if (first === undefined) return;
    if (INSTRUCTION_VERBS.has(first) && !FIRST_PERSON.has(toks[i + 1] ?? '')) best = Math.max(best, k === 0 ? 1 : 0.85);
    // "To hear the next message press six", "If that is right, dial 9": a verb of the list right before a key or number.
    else if (toks.some((t, j) => INSTRUCTION_VERBS.has(t) && isKey(toks[j + 1] ?? ''))) best = Math.max(best, 0.85);
    // Menu items: "4 or 6 to decrease the volume", "Press two for sales".
    else if ((/^\d+$/.test(first) || NUMBER_WORDS.has(first) || ['one', 'zero'].includes(first)) && /\bto \w+|\bfor \w+/.test(clause)) best = Math.max(best, 0.8);
  });
  const toks = tokens(t);
  // A list read out item by item: "Second, date filters.", "Number three.", "Step four: ...".
  if (LIST_MARKER.test(t)) best = Math.max(best, 0.7);
  if (toks.includes('please')) best = Math.max(best, 0.6);
  if (/\byou (may|can|will|must|should|need to|have to)\b/i.test(t)) best = Math.max(best, 0.5);
  return best;
}

function isKey(t: string): boolean {
  return /^\d+$/.test(t) || NUMBER_WORDS.has(t) || ['one', 'zero', 'star', 'pound', 'hash'].includes(t);
}

/**
 * Coarse markers of how a sentence is told, used beside content words by the topic segmenter: person
 * (first, second, third), past tense, instructions and numbers.
 */
export function voiceMarkers(text: string, language?: string | null): string[] {
  // Outside English only numbers are told apart without a word list.
  if (!hasLexicon(language)) return wordsOf(text, language).filter(isNumeral).map(() => '§number');
  const toks = tokens(text);
  const out: string[] = [];
  toks.forEach((t, k) => {
    if (FIRST_PERSON.has(t)) out.push('§first');
    else if (ADDRESS.has(t)) out.push('§second');
    else if (THIRD_PERSON.has(t)) out.push('§third');
    if (isPastTense(toks, k)) out.push('§past');
    if (/^\d+$/.test(t) || NUMBER_WORDS.has(t)) out.push('§number');
  });
  if (instructionScore(text) >= 0.8) out.push('§instruction', '§instruction');
  return out;
}

/** Per-sentence facts computed once. */
export interface SentenceStats {
  index: number;
  start: number;
  end: number;
  text: string;
  wordCount: number;
  emotionCount: number;
  hook: number;
  startClean: number;
  payoff: number;
  question: boolean;
  /** First person (or a third-person character) and a past-tense verb: a line of a told story. */
  storyLine: boolean;
  timeMarker: string | null;
  contrastMarker: string | null;
  surprise: boolean;
  instruction: number;
  /** The sentence repeats the opening of a nearby one ("Press one to…", "Press two to…"): list-like. */
  templated: boolean;
}

function templateKey(text: string): string {
  return tokens(text).slice(0, 3).map((t) => (/^\d+$/.test(t) || NUMBER_WORDS.has(t) || t === 'one' || t === 'zero' ? '#' : t)).join(' ');
}

/** The same in any language: the first three words as the language segments them, numerals as '#'. */
function neutralTemplateKey(text: string, language: string): string {
  return wordsOf(text, language).slice(0, 3).map((t) => (isNumeral(t) ? '#' : t)).join(' ');
}

/**
 * Per-sentence facts. `lexical` (the default) reads the sentences with the word lists of their
 * language where it has them (English); false, or a language without lists, reads them neutrally.
 */
export function analyseSentences(sentences: readonly Sentence[], language = 'en', lexical = true): SentenceStats[] {
  if (!lexical || !hasLexicon(language)) return analyseNeutral(sentences, language);
  const keys = sentences.map((s) => templateKey(s.sentence));
  return sentences.map((s, k) => {
    const toks = tokens(s.sentence);
    const past = toks.some((_, i) => isPastTense(toks, i));
    const person = toks.some((t) => FIRST_PERSON.has(t) || THIRD_PERSON.has(t));
    const question = isQuestion(s.sentence);
    const instruction = instructionScore(s.sentence);
    const near = keys.slice(Math.max(0, k - 6), k + 7);
    const sig = hookSignals(s.sentence);
    return {
      index: s.index,
      start: s.start,
      end: s.end,
      text: s.sentence,
      wordCount: s.words.length > 0 ? s.words.length : toks.length,
      emotionCount: toks.filter((t) => isEmotionWord(t)).length,
      // An instruction is not a hook, however many numbers and "you"s it holds.
      hook: hookScore(s.sentence) * (1 - instruction) * (GREETING.test(s.sentence.trim()) ? 0.3 : 1),
      startClean: startCleanliness(s.sentence),
      payoff: endingPayoff(s.sentence, sentences[k - 1]?.sentence ?? ''),
      question,
      storyLine: past && person && !question && instruction < 0.5,
      timeMarker: TIME_MARKER.exec(s.sentence)?.[0] ?? null,
      contrastMarker: CONTRAST_MARKER.exec(s.sentence)?.[0]?.toLowerCase() ?? null,
      surprise: sig.surprise,
      instruction,
      templated: keys[k]!.split(' ').length >= 2 && near.filter((x) => x === keys[k]).length >= 2,
    };
  });
}

/** A pause this long (seconds) before a line starts a new thought, after it ends one, whatever the language. */
const THOUGHT_PAUSE_SEC = 0.6;

/**
 * Per-sentence facts without any word list, for every language but those with lexicons (and for
 * measuring what they get: eval --neutral). What is left is what the marks, the digits and the timing
 * say: questions and exclamations by their marks, numbers by their digits, a thought's start and end by
 * the pauses around it and a finished line, a menu by openings repeated from line to line.
 */
function analyseNeutral(sentences: readonly Sentence[], language: string): SentenceStats[] {
  const lang = baseLanguage(language);
  const keys = sentences.map((s) => neutralTemplateKey(s.sentence, lang));
  return sentences.map((s, k) => {
    const words = wordsOf(s.sentence, lang);
    const question = endsAsQuestion(s.sentence, lang);
    const near = keys.slice(Math.max(0, k - 6), k + 7);
    const prev = sentences[k - 1], next = sentences[k + 1];
    const pauseBefore = prev ? s.start - prev.end : THOUGHT_PAUSE_SEC;
    const pauseAfter = next ? next.start - s.end : THOUGHT_PAUSE_SEC;
    // A line that follows the previous one without a breath most likely continues its thought.
    const startClean = neutralStart(s.sentence) * (0.6 + 0.4 * clamp01(pauseBefore / THOUGHT_PAUSE_SEC));
    const payoff = neutralPayoff(s.sentence, lang);
    return {
      index: s.index,
      start: s.start,
      end: s.end,
      text: s.sentence,
      wordCount: s.words.length > 0 ? s.words.length : words.length,
      emotionCount: exclaims(s.sentence) ? 1 : 0,
      hook: neutralHookScore(s.sentence, lang),
      startClean,
      // A finished line followed by a pause ends a thought; one run straight into the next does not quite.
      payoff: payoff >= 0.5 ? payoff * (0.8 + 0.2 * clamp01(pauseAfter / THOUGHT_PAUSE_SEC)) : payoff,
      question,
      storyLine: false,
      timeMarker: null,
      contrastMarker: null,
      surprise: false,
      instruction: 0,
      templated: words.length >= 2 && keys[k]!.split(' ').length >= 2 && near.filter((x) => x === keys[k]).length >= 2,
    };
  });
}

/** A preferredLength band in seconds: hard limits and the ideal window inside them. */
export interface LengthBand { min: number; max: number; idealMin: number; idealMax: number }

/** 1 inside the ideal window, easing to ~0.6 at the band edges, falling off outside the band. */
export function lengthFit(duration: number, band: LengthBand): number {
  if (duration >= band.idealMin && duration <= band.idealMax) return 1;
  if (duration < band.idealMin) {
    if (duration >= band.min) return 1 - 0.4 * (band.idealMin - duration) / Math.max(1e-9, band.idealMin - band.min);
    return Math.max(0, 0.6 * duration / Math.max(1e-9, band.min));
  }
  if (duration <= band.max) return 1 - 0.4 * (duration - band.idealMax) / Math.max(1e-9, band.max - band.idealMax);
  return Math.max(0, 0.6 - 2 * (duration - band.max) / band.max); // +15% overshoot => 0.3
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

// ---------------------------------------------------------------- the scorer

/** Sound up to this long after a clip's last word still belongs to it: the audience reacting to the punchline. */
export const REACTION_TAIL_SEC = 2;
/** How much each kind of non-speech event says "something happened here". */
const EVENT_WEIGHT: Record<AudioEventKind, number> = { laughter: 1, applause: 0.9, scream: 0.8, burst: 0.35 };

/** Per-sentence voice measurements (NaN where the audio had none). */
interface SentenceVoice { pitchRange: number; pitchMedian: number; levelRange: number; level: number }

export interface ScorerInput {
  sentences: readonly Sentence[];
  /** The transcript's language (ISO 639-1, 'pt-BR' reads as pt); absent = English. */
  language?: string;
  /** false scores from language-neutral signals even where the language has word lists (for measuring them). */
  lexical?: boolean;
  audio: AudioTrack | null;
  events: readonly AudioEvent[];
  heatmap: readonly HeatmapPoint[];
  range: TimeRange;
}

/** Scores sentence spans of one transcript in O(1) each. */
export class SegmentScorer {
  readonly stats: SentenceStats[];
  readonly topics: TopicSegmentation;
  readonly hasAudio: boolean;
  readonly hasHeatmap: boolean;
  /** Whether the language's word lists were used; false = language-neutral signals only. */
  readonly lexical: boolean;
  /** The speech language's base code. */
  readonly language: string;
  private readonly events: AudioEvent[];
  /** Position of the sentence each event follows (-1: before the first). */
  private readonly eventSentence: number[];
  private readonly p: Record<'words' | 'emotion' | 'story' | 'time' | 'contrast' | 'surprise' | 'instruction' | 'templated' | 'answered' | 'reactInner' | 'pitch' | 'pitchSq' | 'pitchRange' | 'levelRange' | 'level' | 'voiced' | 'rate' | 'rateSq' | 'person', number[]>;
  private readonly reactTail: number[];
  private readonly base: { pitchRange: number; pitchSpread: number; levelRange: number; level: number; rateCv: number };
  private readonly voice: SentenceVoice[];
  private readonly heat: { times: number[]; integral: number[]; mean: number; spread: number } | null;

  constructor(input: ScorerInput) {
    const { sentences, audio } = input;
    this.language = baseLanguage(input.language);
    this.lexical = input.lexical !== false && hasLexicon(this.language);
    this.stats = analyseSentences(sentences, this.language, this.lexical);
    const st = this.stats;
    this.topics = segmentTopics(sentences.map((s) => s.sentence), this.language, this.lexical);
    this.hasAudio = audio !== null && audio.levelDb.length > 0;
    this.events = [...input.events].sort((a, b) => a.start - b.start);
    this.voice = sentences.map((s) => (this.hasAudio ? measureVoice(audio!, s) : { pitchRange: NaN, pitchMedian: NaN, levelRange: NaN, level: NaN }));

    // Non-speech events belong to the sentence they follow: inside a span when a later sentence of the
    // span follows them, in its tail when they come right after its last sentence.
    const inner = new Array<number>(st.length).fill(0);
    this.reactTail = new Array<number>(st.length).fill(0);
    this.eventSentence = [];
    for (const ev of this.events) {
      let k = -1;
      for (let i = 0; i < st.length && st[i]!.start <= ev.start; i++) k = i;
      this.eventSentence.push(k);
      if (k < 0) continue;
      inner[k] = inner[k]! + EVENT_WEIGHT[ev.kind];
      if (ev.start <= st[k]!.end + REACTION_TAIL_SEC) this.reactTail[k] = this.reactTail[k]! + EVENT_WEIGHT[ev.kind];
    }
    const rates = st.map((s) => s.wordCount / Math.max(0.3, s.end - s.start));
    const v = this.voice;
    const ok = (x: number) => (Number.isFinite(x) ? x : 0);
    this.p = {
      words: prefix(st.map((s) => s.wordCount)),
      emotion: prefix(st.map((s) => s.emotionCount)),
      story: prefix(st.map((s) => (s.storyLine ? 1 : 0))),
      person: prefix(st.map((s) => (s.storyLine || FIRST_PERSON_RE.test(s.text) ? 1 : 0))),
      time: prefix(st.map((s) => (s.timeMarker ? 1 : 0))),
      contrast: prefix(st.map((s) => (s.contrastMarker ? 1 : 0))),
      surprise: prefix(st.map((s) => (s.surprise ? 1 : 0))),
      instruction: prefix(st.map((s) => s.instruction)),
      templated: prefix(st.map((s) => (s.templated ? 1 : 0))),
      answered: prefix(st.map((s, k) => (s.question && s.instruction === 0 && st[k + 1] && !st[k + 1]!.question ? 1 : 0))),
      reactInner: prefix(inner),
      pitch: prefix(v.map((x) => ok(x.pitchMedian))),
      pitchSq: prefix(v.map((x) => ok(x.pitchMedian) ** 2)),
      pitchRange: prefix(v.map((x) => ok(x.pitchRange))),
      levelRange: prefix(v.map((x) => ok(x.levelRange))),
      level: prefix(v.map((x) => ok(x.level))),
      voiced: prefix(v.map((x) => (Number.isFinite(x.pitchMedian) ? 1 : 0))),
      rate: prefix(rates),
      rateSq: prefix(rates.map((r) => r * r)),
    };
    const voiced = v.filter((x) => Number.isFinite(x.pitchMedian));
    const medians = voiced.map((x) => x.pitchMedian);
    const meanRate = rates.reduce((a, b) => a + b, 0) / Math.max(1, rates.length);
    this.base = {
      pitchRange: median(voiced.map((x) => x.pitchRange)),
      pitchSpread: std(medians),
      levelRange: median(v.filter((x) => Number.isFinite(x.levelRange)).map((x) => x.levelRange)),
      level: median(v.filter((x) => Number.isFinite(x.level)).map((x) => x.level)),
      rateCv: meanRate > 0 ? std(rates) / meanRate : 0,
    };
    this.heat = buildHeat(input.heatmap, input.range);
    this.hasHeatmap = this.heat !== null;
  }

  private sum(key: keyof SegmentScorer['p'], first: number, last: number): number {
    const arr = this.p[key];
    return arr[last + 1]! - arr[first]!;
  }

  /** Features of the span of sentences first..last (positions in `stats`, inclusive). */
  features(first: number, last: number, band: LengthBand): HighlightFeatures {
    const st = this.stats;
    const a = st[first]!, b = st[last]!;
    const second = first < last ? st[first + 1]! : null;
    const n = last - first + 1;
    const duration = Math.max(0.01, b.end - a.start);
    const words = this.sum('words', first, last);
    const emotions = this.sum('emotion', first, last);
    // A throwaway first line ("Okay.") followed by a strong second line still hooks.
    const hook = Math.max(a.hook, second ? 0.6 * second.hook * (a.wordCount <= 3 ? 1 : 0.5) : 0);
    const reaction = this.reactionSum(first, last);
    // The audience laughing or clapping right after the last line is the payoff, whatever its words.
    const payoff = Math.max(b.payoff, this.reactTail[last]! > 0.5 ? 1 : 0);

    const storyShare = this.sum('story', first, last) / n;
    const personShare = this.sum('person', first, last) / n;
    // Time markers make a story of story lines; alone ("instead of last week") they are just dates.
    const story = n >= 2 ? clamp01(0.75 * storyShare * (0.5 + 0.5 * personShare) / 0.8
      + 0.25 * Math.min(1, this.sum('time', first, last)) * Math.min(1, storyShare / 0.3)) : 0;
    const answered = last > first ? this.sum('answered', first, last - 1) : 0;
    const opensWithQuestion = (a.question && a.instruction === 0) || (second !== null && second.question && a.wordCount <= 4);
    const questionAnswer = answered > 0 ? (opensWithQuestion ? 1 : 0.7) : 0;
    // Per sentence: one "but" in a long clip is ordinary talk, a turn in a short one is a twist.
    const contrast = 1 - Math.exp(-(0.6 * this.sum('contrast', first, last) + 0.4 * this.sum('surprise', first, last)) * 3 / Math.max(3, n));
    const procedural = clamp01((this.sum('instruction', first, last) + 0.5 * this.sum('templated', first, last)) / n);

    return {
      hook,
      selfContained: 0.5 * a.startClean + 0.5 * payoff,
      topic: this.topicFit(first, last),
      story,
      questionAnswer,
      contrast,
      // Density, saturating: two or three charged words in a short clip is already a lot.
      // Outside the word lists "emotion" is the share of lines said as exclamations (Whisper's "!" follows the voice).
      emotion: !this.lexical ? clamp01(1 - Math.exp(-2 * emotions / n)) : words > 0 ? clamp01(1 - Math.exp(-20 * emotions / words)) : 0,
      reaction: 1 - Math.exp(-1.6 * reaction),
      prosody: this.prosody(first, last),
      heatmap: this.heatAt(a.start, b.end),
      lengthFit: lengthFit(duration, band),
      procedural,
    };
  }

  private reactionSum(first: number, last: number): number {
    return (last > first ? this.sum('reactInner', first, last - 1) : 0) + this.reactTail[last]!;
  }

  /**
   * 1 when the span is one whole topic (its setup and its payoff), high when it stays inside one topic
   * and starts or ends on its edges, falling with every topic boundary it crosses.
   */
  topicFit(first: number, last: number): number {
    const { topicOf, topics } = this.topics;
    const t0 = topicOf[first]!, t1 = topicOf[last]!;
    const crossings = t1 - t0;
    const startsAtEdge = topics[t0]!.first === first ? 1 : 0;
    const endsAtEdge = topics[t1]!.last === last ? 1 : 0;
    const within = 0.5 + 0.25 * startsAtEdge + 0.25 * endsAtEdge;
    return clamp01(within * Math.max(0, 1 - 0.4 * crossings));
  }

  /** Pitch movement, loudness range and level, and speaking-rate changes against the speaker's usual, 0..1 (0.5 = usual). */
  private prosody(first: number, last: number): number {
    const n = last - first + 1;
    const parts: number[] = [];
    const voiced = this.sum('voiced', first, last);
    if (this.hasAudio && voiced > 0) {
      const meanRange = this.sum('pitchRange', first, last) / voiced;
      const m = this.sum('pitch', first, last) / voiced;
      const spread = Math.sqrt(Math.max(0, this.sum('pitchSq', first, last) / voiced - m * m));
      // Semitones: 3 more than usual inside sentences, or sentences pitched 3 apart, is lively.
      parts.push(clamp01(0.5 + (meanRange - this.base.pitchRange) / 6 + (spread - this.base.pitchSpread) / 6));
      parts.push(clamp01(0.5 + (this.sum('levelRange', first, last) / voiced - this.base.levelRange) / 10));
      parts.push(clamp01(0.5 + (this.sum('level', first, last) / voiced - this.base.level) / 8));
    }
    if (n >= 2) {
      const meanRate = this.sum('rate', first, last) / n;
      const sd = Math.sqrt(Math.max(0, this.sum('rateSq', first, last) / n - meanRate * meanRate));
      parts.push(clamp01(0.5 + ((meanRate > 0 ? sd / meanRate : 0) - this.base.rateCv) * 2));
    }
    return parts.length > 0 ? parts.reduce((x, y) => x + y, 0) / parts.length : 0.5;
  }

  /** What was found in the span, for the clip's reason: quotes, times and measured details, in time order. */
  evidence(first: number, last: number, f: HighlightFeatures): Evidence[] {
    const st = this.stats.slice(first, last + 1);
    const out: Evidence[] = [];
    const a = st[0]!, b = st[st.length - 1]!;
    const q = st.findIndex((s, k) => s.question && s.instruction === 0 && k < st.length - 1 && !st[k + 1]!.question);
    if (q >= 0) {
      out.push({ kind: 'question', at: st[q]!.start, text: st[q]!.text });
      out.push({ kind: 'answer', at: st[q + 1]!.start, text: st[q + 1]!.text });
    }
    if (f.story >= 0.4) {
      const line = st.find((s) => s.storyLine) ?? a;
      const marker = st.find((s) => s.timeMarker)?.timeMarker;
      out.push({ kind: 'story', at: line.start, text: line.text, ...(marker ? { detail: marker } : {}) });
    }
    const turn = st.find((s, k) => k > 0 && s.contrastMarker) ?? st.find((s) => s.contrastMarker);
    if (turn && f.contrast >= 0.3) out.push({ kind: 'contrast', at: turn.start, text: turn.text, detail: turn.contrastMarker! });
    if (f.hook >= 0.3 && (this.lexical ? hookSignals(a.text, this.language).number : hasDigits(a.text)) && a.instruction < 0.5) out.push({ kind: 'number', at: a.start, text: a.text });
    if (f.emotion >= 0.5) {
      const words = this.lexical ? [...new Set(st.flatMap((s) => tokens(s.text).filter((t) => isEmotionWord(t))))].slice(0, 3) : [];
      if (words.length > 0) out.push({ kind: 'emotion', at: a.start, detail: words.join(', ') });
    }
    // The same events the reaction feature counted: those after a sentence of the span, the last one's within its tail.
    this.events.forEach((ev, e) => {
      const k = this.eventSentence[e]!;
      if (k >= first && (k < last || (k === last && ev.start <= b.end + REACTION_TAIL_SEC))) {
        out.push({ kind: ev.kind, at: ev.start, detail: `${(ev.end - ev.start).toFixed(1)} s` });
      }
    });
    if (this.hasAudio && f.prosody >= 0.65) {
      let best = -1;
      for (let k = first; k <= last; k++) if (Number.isFinite(this.voice[k]!.pitchRange) && (best < 0 || this.voice[k]!.pitchRange > this.voice[best]!.pitchRange)) best = k;
      if (best >= 0) out.push({ kind: 'pitch', at: this.stats[best]!.start, text: this.stats[best]!.text, detail: `${Math.round(this.voice[best]!.pitchRange)} semitones` });
    }
    if (f.heatmap >= 0.7) out.push({ kind: 'heatmap', at: a.start });
    if (f.procedural >= 0.5) {
      const line = st.find((s) => s.instruction >= 0.8) ?? a;
      const count = st.filter((s) => s.instruction >= 0.5 || s.templated).length;
      out.push({ kind: 'procedure', at: line.start, text: line.text, detail: `${count} of ${st.length}` });
    }
    // The punchline: the last line when the audience reacts to it or it lands as a conclusion.
    if (st.length >= 2 && (this.reactTail[last]! > 0.5 || b.payoff >= 0.8) && b.instruction < 0.5) {
      out.push({ kind: 'punchline', at: b.start, text: b.text });
    }
    return out.sort((x, y) => x.at - y.at);
  }

  private heatAt(start: number, end: number): number {
    const h = this.heat;
    if (!h || end <= start) return 0;
    const mean = (integrate(h, end) - integrate(h, start)) / (end - start);
    // 1.5 spreads above the range's mean heat is as hot as it gets.
    return clamp01(0.5 + (mean - h.mean) / (3 * h.spread));
  }
}

const FIRST_PERSON_RE = /\b(i|me|my|we|us|our)\b/i;

/** Pitch range (semitones, 10th to 90th percentile of voiced frames), median pitch (semitones re 100 Hz) and level spread of one sentence. */
function measureVoice(audio: AudioTrack, s: Sentence): SentenceVoice {
  const a = Math.max(0, Math.floor((s.start - audio.start) / audio.frameSec));
  const b = Math.min(audio.levelDb.length - 1, Math.ceil((s.end - audio.start) / audio.frameSec));
  const pitch: number[] = [], level: number[] = [];
  for (let f = a; f <= b; f++) {
    if (audio.levelDb[f]! > -60) level.push(audio.levelDb[f]!);
    if (audio.pitchHz[f]! > 0) pitch.push(12 * Math.log2(audio.pitchHz[f]! / 100));
  }
  const none = { pitchRange: NaN, pitchMedian: NaN, levelRange: NaN, level: NaN };
  if (pitch.length < 8 || level.length < 8) return none;
  return {
    pitchRange: quantile(pitch, 0.9) - quantile(pitch, 0.1),
    pitchMedian: quantile(pitch, 0.5),
    levelRange: quantile(level, 0.9) - quantile(level, 0.2),
    level: quantile(level, 0.5),
  };
}

function std(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
}

function prefix(values: number[]): number[] {
  const out = new Array<number>(values.length + 1);
  out[0] = 0;
  for (let i = 0; i < values.length; i++) out[i + 1] = out[i]! + values[i]!;
  return out;
}

/** Piecewise-constant heat over time as a cumulative integral, for O(log n) span means. */
function buildHeat(points: readonly HeatmapPoint[], range: TimeRange): { times: number[]; integral: number[]; mean: number; spread: number } | null {
  const pts = points
    .filter((p) => Number.isFinite(p.start) && Number.isFinite(p.end) && Number.isFinite(p.value) && p.end > p.start)
    .sort((x, y) => x.start - y.start);
  const inRange = pts.filter((p) => p.end > range.start && p.start < range.end);
  if (inRange.length === 0) return null;
  const times: number[] = [];
  const integral: number[] = [];
  let acc = 0, lastEnd = Number.NEGATIVE_INFINITY;
  for (const p of pts) {
    const start = Math.max(p.start, lastEnd); // overlapping points: the earlier one wins the overlap
    if (start >= p.end) continue;
    times.push(start, p.end);
    integral.push(acc, acc + p.value * (p.end - start));
    acc += p.value * (p.end - start);
    lastEnd = p.end;
  }
  let total = 0, dur = 0;
  for (const p of inRange) {
    const d = Math.min(p.end, range.end) - Math.max(p.start, range.start);
    total += p.value * d;
    dur += d;
  }
  const mean = dur > 0 ? total / dur : 0;
  let variance = 0;
  for (const p of inRange) {
    const d = Math.min(p.end, range.end) - Math.max(p.start, range.start);
    variance += d * (p.value - mean) ** 2;
  }
  const spread = Math.max(0.05, Math.sqrt(dur > 0 ? variance / dur : 0));
  return { times, integral, mean, spread };
}

/** Cumulative heat up to time t (linear inside a point, flat in gaps). */
function integrate(h: { times: number[]; integral: number[] }, t: number): number {
  const { times, integral } = h;
  if (times.length === 0 || t <= times[0]!) return 0;
  if (t >= times[times.length - 1]!) return integral[integral.length - 1]!;
  let lo = 0, hi = times.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= t) lo = mid; else hi = mid;
  }
  const t0 = times[lo]!, t1 = times[hi]!;
  const v0 = integral[lo]!, v1 = integral[hi]!;
  return t1 > t0 ? v0 + (v1 - v0) * (t - t0) / (t1 - t0) : v0;
}
