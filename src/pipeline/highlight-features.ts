// The signals that predict whether a stretch of talk works as a short, each scored 0..1. Word-level
// signals are computed once per sentence; segment features then come from prefix sums so that scoring
// any sentence span i..j costs O(1) (plus a binary search for the heatmap). The lexicons are small
// and curated on purpose: they only have to separate "hooky" openings from flat ones, not to be NLP.
import type { HeatmapPoint, HighlightFeatures, LoudnessTrack, Sentence, TimeRange } from './types.js';
import { median } from './stats.js';

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

export function hookSignals(text: string): HookSignals {
  const toks = tokens(text);
  const lower = text.toLowerCase();
  const opening = `${toks.slice(0, 3).join(' ')} `;
  return {
    question: /\?\s*$/.test(text.trim()),
    number: toks.some((t) => /\d/.test(t) || NUMBER_WORDS.has(t)),
    contrast: toks.some((t) => CONTRAST.has(t)) || hasPhrase(lower, CONTRAST_PHRASES),
    address: toks.some((t) => ADDRESS.has(t)),
    surprise: toks.some((t) => SURPRISE.has(t)),
    opener: OPENERS.some((o) => opening.startsWith(`${o} `)),
  };
}

/** How strongly a sentence works as an opening line, 0..1. */
export function hookScore(text: string): number {
  const s = hookSignals(text);
  let score = (s.question ? 0.45 : 0) + (s.number ? 0.25 : 0) + (s.contrast ? 0.2 : 0) + (s.address ? 0.15 : 0)
    + (s.surprise ? 0.3 : 0) + (s.opener ? 0.15 : 0);
  // A rambling first sentence buries its hook.
  if (tokens(text).length > 28) score *= 0.75;
  return Math.min(1, score);
}

/** 1 when the sentence can open a clip, 0 when it starts on a dangling reference, 0.6 on filler. */
export function startCleanliness(text: string): number {
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

export function endingPayoff(text: string, previousText = ''): number {
  const t = text.trim();
  const words = tokens(t).length;
  if (/[?]$/.test(t)) return 0.2; // an open question leaves the viewer hanging
  if (isSetupLine(t)) return 0.1;
  if (!/[.!]["')\]]?$/.test(t)) return 0.1; // cut mid-thought
  let score = 0.4;
  if (hasPhrase(t.toLowerCase(), CONCLUSION_PHRASES) || hasPhrase(previousText.toLowerCase(), CONCLUSION_PHRASES)) score += 0.4;
  if (t.endsWith('!')) score += 0.2;
  if (words > 0 && words <= 10) score += 0.2; // short, punchy last line
  return Math.min(1, score);
}

export function isEmotionWord(token: string): boolean {
  return EMOTION_WORDS.has(token);
}

/** Per-sentence facts computed once. */
export interface SentenceStats {
  index: number;
  start: number;
  end: number;
  wordCount: number;
  emotionCount: number;
  hook: number;
  startClean: number;
  payoff: number;
}

export function analyseSentences(sentences: readonly Sentence[]): SentenceStats[] {
  return sentences.map((s, k) => {
    const toks = tokens(s.sentence);
    return {
      index: s.index,
      start: s.start,
      end: s.end,
      wordCount: s.words.length > 0 ? s.words.length : toks.length,
      emotionCount: toks.filter(isEmotionWord).length,
      hook: hookScore(s.sentence),
      startClean: startCleanliness(s.sentence),
      payoff: endingPayoff(s.sentence, sentences[k - 1]?.sentence ?? ''),
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

/** Words per second near a lively talking pace (2.5-3.5) scores 1. */
export function paceScore(wordsPerSec: number): number {
  const dist = wordsPerSec < 2.5 ? 2.5 - wordsPerSec : wordsPerSec > 3.5 ? wordsPerSec - 3.5 : 0;
  return clamp01(1 - dist / 2);
}

export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** Energy floor: steps quieter than this are silence, and silence is not "less energetic" without end. */
const ENERGY_FLOOR_DB = -70;

/** Scores sentence spans of one transcript in O(1) each. */
export class SegmentScorer {
  readonly stats: SentenceStats[];
  readonly hasEnergy: boolean;
  readonly hasHeatmap: boolean;
  private readonly wordPrefix: number[];
  private readonly emotionPrefix: number[];
  private readonly loudPrefix: number[];
  private readonly loudMedian: number;
  private readonly heat: { times: number[]; integral: number[]; mean: number; spread: number } | null;

  constructor(sentences: readonly Sentence[], private readonly loudness: LoudnessTrack | null, heatmap: readonly HeatmapPoint[], range: TimeRange) {
    this.stats = analyseSentences(sentences);
    this.wordPrefix = prefix(this.stats.map((s) => s.wordCount));
    this.emotionPrefix = prefix(this.stats.map((s) => s.emotionCount));
    const db = (loudness?.db ?? []).map((d) => Math.max(ENERGY_FLOOR_DB, d));
    this.hasEnergy = loudness !== null && db.length > 0 && loudness.stepSec > 0;
    this.loudPrefix = prefix(db);
    // Median of the speaking steps: long silences in the range should not make every sentence "loud".
    const speaking = db.filter((d) => d > ENERGY_FLOOR_DB + 1);
    this.loudMedian = median(speaking.length > 0 ? speaking : db);
    this.heat = buildHeat(heatmap, range);
    this.hasHeatmap = this.heat !== null;
  }

  /** Features of the span of sentences first..last (positions in `stats`, inclusive). */
  features(first: number, last: number, band: LengthBand): HighlightFeatures {
    const a = this.stats[first]!, b = this.stats[last]!;
    const second = first < last ? this.stats[first + 1]! : null;
    const duration = Math.max(0.01, b.end - a.start);
    const words = this.wordPrefix[last + 1]! - this.wordPrefix[first]!;
    const emotions = this.emotionPrefix[last + 1]! - this.emotionPrefix[first]!;
    // A throwaway first line ("Okay.") followed by a strong second line still hooks.
    const hook = Math.max(a.hook, second ? 0.6 * second.hook * (a.wordCount <= 3 ? 1 : 0.5) : 0);
    return {
      hook,
      selfContained: 0.5 * a.startClean + 0.5 * b.payoff,
      energy: this.energy(a.start, b.end),
      pace: paceScore(words / duration),
      // Density, saturating: two or three charged words in a short clip is already a lot.
      emotion: words > 0 ? clamp01(1 - Math.exp(-20 * emotions / words)) : 0,
      heatmap: this.heatAt(a.start, b.end),
      lengthFit: lengthFit(duration, band),
    };
  }

  private energy(start: number, end: number): number {
    if (!this.hasEnergy || !this.loudness) return 0;
    const { stepSec } = this.loudness;
    const n = this.loudPrefix.length - 1;
    const i = Math.max(0, Math.min(n, Math.floor((start - this.loudness.start) / stepSec)));
    const j = Math.max(0, Math.min(n, Math.ceil((end - this.loudness.start) / stepSec)));
    if (j <= i) return 0.5;
    const mean = (this.loudPrefix[j]! - this.loudPrefix[i]!) / (j - i);
    // +-4 dB around the range's median spans the whole scale.
    return clamp01(0.5 + (mean - this.loudMedian) / 8);
  }

  private heatAt(start: number, end: number): number {
    const h = this.heat;
    if (!h || end <= start) return 0;
    const mean = (integrate(h, end) - integrate(h, start)) / (end - start);
    // 1.5 spreads above the range's mean heat is as hot as it gets.
    return clamp01(0.5 + (mean - h.mean) / (3 * h.spread));
  }
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
