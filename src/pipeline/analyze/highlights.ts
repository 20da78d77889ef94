// Stage 3: pick the segments worth turning into shorts. Candidates are sentence spans whose length fits
// the preferredLength band; each is scored from the features in highlight-features.ts (words, audio,
// topics), and the best ones that share no sentence and no near-identical text are chosen greedily.
// Pure: the same transcript and audio always give the same picks. Word lists score English only; every
// other language of the transcript is scored from language-neutral signals with weights of their own.
import { findAudioEvents } from './audio-features.js';
import { SegmentScorer, type LengthBand } from './highlight-features.js';
import { contentStems } from './topics.js';
import type { AudioTrack } from '../../domain/audio.js';
import type { HeatmapPoint } from '../../domain/source.js';
import type { Highlight, HighlightFeatures, PreferredLength } from '../../domain/highlight.js';
import type { Sentence, Transcript } from '../../domain/transcript.js';
import type { TimeRange } from '../../domain/time.js';

export interface HighlightRequest {
  transcript: Transcript;
  /** The range's audio (audio-features.ts); null scores from the words alone. */
  audio: AudioTrack | null;
  heatmap: HeatmapPoint[];
  preferredLength: PreferredLength;
  /** null = automatic: as many good, distinct picks as the range supports, up to 12. */
  maxShorts: number | null;
  noClipping: boolean;
  range: TimeRange;
  /**
   * false scores from language-neutral signals alone even for English (default true: the transcript
   * language's word lists where it has them). What `npm run eval -- --neutral` measures.
   */
  lexical?: boolean;
}

/** Seconds. The band is a guideline: ends may overshoot `max` by OVERSHOOT to finish a sentence. */
export const LENGTH_BANDS: Record<PreferredLength, LengthBand> = {
  under30sec: { min: 12, max: 30, idealMin: 15, idealMax: 30 },
  under60sec: { min: 20, max: 60, idealMin: 30, idealMax: 60 },
  under90sec: { min: 45, max: 90, idealMin: 55, idealMax: 90 },
  under3min: { min: 60, max: 180, idealMin: 90, idealMax: 180 },
  under5min: { min: 120, max: 300, idealMin: 180, idealMax: 300 },
  under10min: { min: 240, max: 600, idealMin: 360, idealMax: 600 },
};
export const OVERSHOOT = 1.15;

/**
 * How much each kind of evidence says "people will watch this", summed and saturated (interestOf):
 * one strong signal makes a clip average, two or three make it good or excellent. The opening line and
 * an audience reacting count most; a told story, a question answered and the platform's own replay
 * data next; contrast, charged words and a lively voice nudge.
 */
export const INTEREST_WEIGHTS = {
  hook: 1.0, reaction: 1.2, story: 1.0, questionAnswer: 0.8, heatmap: 1.0, contrast: 0.6, emotion: 0.6, prosody: 0.6,
} as const satisfies Partial<Record<keyof HighlightFeatures, number>>;
type InterestWeights = Partial<Record<keyof HighlightFeatures, number>>;
/**
 * The same for a language without word lists, where story and contrast cannot be read and the hook is
 * only a question mark or a number: the audience (reaction), a question answered and the opening line
 * carry the weight the words carried, so the neutral part alone still ranks and one strong signal still
 * makes a clip average. "emotion" here is the share of exclamations. Measured on the eval's English
 * sources read without their word lists (eval --neutral, docs/benchmarks.md): prosody at 1.2 let the
 * music under a narration outrank its best passage; at 0.6-0.8 the tune split's hit@1 went 0.75 -> 0.88.
 */
export const NEUTRAL_INTEREST_WEIGHTS = {
  hook: 1.2, reaction: 1.4, questionAnswer: 1.2, heatmap: 1.0, emotion: 0.4, prosody: 0.8,
} as const satisfies InterestWeights;
/** Features that need the word lists: never a strength of a clip scored without them. */
const LEXICAL_ONLY: readonly (keyof HighlightFeatures)[] = ['story', 'contrast'];
/** Whether the clip stands alone: a clean start and a payoff, one topic, a fitting length. */
export const STRUCTURE_WEIGHTS = { selfContained: 0.45, topic: 0.35, lengthFit: 0.2 } as const satisfies Partial<Record<keyof HighlightFeatures, number>>;
/** Share of the score from structure; the rest is interest. */
const STRUCTURE_SHARE = 0.3;
/** A clip made only of instructions keeps this much of its score at most (1 - PROCEDURAL_PENALTY). */
const PROCEDURAL_PENALTY = 0.55;

export const MAX_AUTOMATIC_SHORTS = 12;
/** In automatic mode, once we have a pick, weaker candidates than this are not worth a short. */
export const AUTOMATIC_FLOOR = 25;
/** Enumeration caps: at most this many end sentences tried per start, and kept per start. */
const MAX_ENDS_PER_START = 40;
const KEEP_PER_START = 4;

interface Candidate { first: number; last: number; raw: number; features: HighlightFeatures }

export function findHighlights(req: HighlightRequest): Highlight[] {
  const sentences = sentencesInRange(req.transcript.sentences, req.range);
  if (sentences.length === 0) return [];
  const events = req.audio ? findAudioEvents(req.audio, req.transcript.words) : [];
  const scorer = new SegmentScorer({
    sentences, audio: req.audio, events, heatmap: req.heatmap, range: req.range, language: req.transcript.language, lexical: req.lexical,
  });
  const available = availableFeatures(scorer);
  const weights = scorer.lexical ? INTEREST_WEIGHTS : NEUTRAL_INTEREST_WEIGHTS;

  if (req.noClipping) {
    const last = sentences.length - 1;
    const features = { ...scorer.features(0, last, LENGTH_BANDS[req.preferredLength]), lengthFit: 1 };
    return [{
      sentenceIndexes: sentences.map((s) => s.index),
      start: req.range.start,
      end: req.range.end,
      viralScore: toViralScore(scoreOf(features, weights)),
      features,
      strengths: strengthsOf(features, available, weights),
      evidence: scorer.evidence(0, last, features),
    }];
  }

  const band = effectiveBand(LENGTH_BANDS[req.preferredLength], sentences);
  let candidates = enumerate(scorer, band, weights);
  // Sentences longer than the whole band (unpunctuated monologue): fall back to single sentences.
  if (candidates.length === 0) candidates = scorer.stats.map((_, i) => score(scorer, i, i, band, weights));

  candidates.sort((x, y) => y.raw - x.raw || x.first - y.first || x.last - y.last);
  const limit = req.maxShorts === null ? MAX_AUTOMATIC_SHORTS : Math.max(0, Math.floor(req.maxShorts));
  const picks: Candidate[] = [];
  for (const c of candidates) {
    if (picks.length >= limit) break;
    if (req.maxShorts === null && picks.length > 0 && toViralScore(c.raw) < AUTOMATIC_FLOOR) break;
    if (picks.some((p) => overlaps(scorer, p, c))) continue;
    const words = spanStems(scorer, c);
    if (picks.some((p) => nearDuplicate(spanStems(scorer, p), words))) continue;
    picks.push(c);
  }
  return picks.map((c) => ({
    sentenceIndexes: sentences.slice(c.first, c.last + 1).map((s) => s.index),
    start: startAfterNeighbour(c, picks, sentences),
    end: sentences[c.last]!.end,
    viralScore: toViralScore(c.raw),
    features: c.features,
    strengths: strengthsOf(c.features, available, weights),
    evidence: scorer.evidence(c.first, c.last, c.features),
  }));
}

/** 0..1: saturating sum of the interest evidence. */
export function interestOf(f: HighlightFeatures, weights: InterestWeights = INTEREST_WEIGHTS): number {
  let sum = 0;
  for (const [k, w] of Object.entries(weights) as [keyof HighlightFeatures, number][]) {
    // Prosody and heatmap are relative (0.5 = the range's usual): only what is above usual counts.
    const v = k === 'prosody' || k === 'heatmap' ? Math.max(0, f[k] - 0.5) * 2 : f[k];
    sum += w * v;
  }
  return 1 - Math.exp(-sum);
}

/**
 * 0..1 before the bands: structure and interest, cut down by the share of instructions. A clean
 * candidate with nothing going for it lands near 0.35, one strong signal near 0.6, a clip strong on
 * several near 0.9; a passage of instructions cannot pass 0.45 whatever its numbers and "you"s.
 */
export function scoreOf(f: HighlightFeatures, weights: InterestWeights = INTEREST_WEIGHTS): number {
  let structure = 0;
  for (const [k, w] of Object.entries(STRUCTURE_WEIGHTS) as [keyof typeof STRUCTURE_WEIGHTS, number][]) structure += w * f[k];
  return (STRUCTURE_SHARE * structure + (1 - STRUCTURE_SHARE) * interestOf(f, weights)) * (1 - PROCEDURAL_PENALTY * f.procedural);
}

/** The score on the spec's bands: 80-100 excellent, 60-79 good, 40-59 average, 0-39 below average. */
export function toViralScore(raw: number): number {
  return Math.max(0, Math.min(100, Math.round(100 * raw)));
}

/** Features that won, strongest weighted contribution first: those scoring well, at least two. */
export function strengthsOf(f: HighlightFeatures, available: (keyof HighlightFeatures)[], weights: InterestWeights = INTEREST_WEIGHTS): (keyof HighlightFeatures)[] {
  const strengthWeights: InterestWeights = { ...weights, ...STRUCTURE_WEIGHTS };
  const contribution = (k: keyof HighlightFeatures) => (strengthWeights[k] ?? 0) * (k === 'prosody' || k === 'heatmap' ? Math.max(0, f[k] - 0.5) * 2 : f[k]);
  const usable = available.filter((k) => k !== 'procedural');
  const ranked = [...usable].sort((a, b) => contribution(b) - contribution(a) || usable.indexOf(a) - usable.indexOf(b));
  const strong = ranked.filter((k) => contribution(k) >= 0.3).slice(0, 3);
  for (const k of ranked) {
    if (strong.length >= 2) break;
    if (!strong.includes(k) && contribution(k) > 0) strong.push(k);
  }
  return strong.sort((a, b) => contribution(b) - contribution(a));
}

function availableFeatures(scorer: SegmentScorer): (keyof HighlightFeatures)[] {
  return (['hook', 'selfContained', 'topic', 'story', 'questionAnswer', 'contrast', 'emotion', 'reaction', 'prosody', 'heatmap', 'lengthFit', 'procedural'] as const)
    .filter((k) => (k !== 'reaction' || scorer.hasAudio) && (k !== 'heatmap' || scorer.hasHeatmap) && (scorer.lexical || !LEXICAL_ONLY.includes(k)));
}

/**
 * Two clips are the same clip twice when this share of the smaller one's stemmed content words is in the
 * other (overlap coefficient): a talk that repeats itself, or a shorter cut of a passage already picked.
 */
const NEAR_DUPLICATE = 0.7;

const stemCache = new WeakMap<SegmentScorer, string[][]>();

function spanStems(scorer: SegmentScorer, c: Candidate): Set<string> {
  let stems = stemCache.get(scorer);
  if (!stems) stemCache.set(scorer, stems = scorer.stats.map((s) => contentStems(s.text, scorer.language, scorer.lexical)));
  return new Set(stems.slice(c.first, c.last + 1).flat());
}

function nearDuplicate(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.min(a.size, b.size) >= NEAR_DUPLICATE;
}

function sentencesInRange(all: readonly Sentence[], range: TimeRange): Sentence[] {
  // A sentence belongs to the range when its middle does: whisper's edges can straddle the cut.
  return all
    .filter((s) => s.end > s.start - 1e-9 && (s.start + s.end) / 2 >= range.start && (s.start + s.end) / 2 <= range.end)
    .sort((a, b) => a.start - b.start || a.index - b.index);
}

/** When the range holds less speech than the band's minimum, the whole range is the clip. */
function effectiveBand(band: LengthBand, sentences: Sentence[]): LengthBand {
  const span = sentences[sentences.length - 1]!.end - sentences[0]!.start;
  if (span >= band.min) return band;
  return { ...band, min: span, idealMin: Math.min(band.idealMin, span) };
}

/** O(n * MAX_ENDS_PER_START): two pointers give each start's valid end window, sampled evenly. */
function enumerate(scorer: SegmentScorer, band: LengthBand, weights: InterestWeights): Candidate[] {
  const stats = scorer.stats;
  const n = stats.length;
  const maxLen = band.max * OVERSHOOT;
  const out: Candidate[] = [];
  let lo = 0, hi = 0;
  for (let i = 0; i < n; i++) {
    const start = stats[i]!.start;
    lo = Math.max(lo, i);
    while (lo < n && stats[lo]!.end - start < band.min - 1e-6) lo++;
    hi = Math.max(hi, lo);
    while (hi + 1 < n && stats[hi + 1]!.end - start <= maxLen + 1e-6) hi++;
    if (lo >= n || stats[lo]!.end - start > maxLen + 1e-6) continue;
    const count = hi - lo + 1;
    const stride = Math.max(1, count / MAX_ENDS_PER_START);
    const best: Candidate[] = [];
    for (let s = 0; s < Math.min(count, MAX_ENDS_PER_START); s++) {
      const j = Math.min(hi, lo + Math.round(s * stride));
      insertTop(best, score(scorer, i, j, band, weights), KEEP_PER_START);
    }
    out.push(...best);
  }
  return out;
}

function score(scorer: SegmentScorer, first: number, last: number, band: LengthBand, weights: InterestWeights): Candidate {
  const features = scorer.features(first, last, band);
  return { first, last, raw: scoreOf(features, weights), features };
}

function insertTop(list: Candidate[], c: Candidate, keep: number): void {
  if (list.some((x) => x.last === c.last)) return;
  let k = list.length;
  while (k > 0 && list[k - 1]!.raw < c.raw) k--;
  if (k >= keep) return;
  list.splice(k, 0, c);
  if (list.length > keep) list.pop();
}

/** Recognisers' sentence times can overlap by a few hundredths; that much does not make picks overlap. */
const EDGE_TOLERANCE_SEC = 0.3;

function overlaps(scorer: SegmentScorer, a: Candidate, b: Candidate): boolean {
  if (a.first <= b.last && b.first <= a.last) return true;
  const s = scorer.stats;
  return s[a.first]!.start < s[b.last]!.end - EDGE_TOLERANCE_SEC && s[b.first]!.start < s[a.last]!.end - EDGE_TOLERANCE_SEC;
}

/** The clip's first sentence start, nudged past a picked neighbour's end when their edges overlap slightly. */
function startAfterNeighbour(c: Candidate, picks: Candidate[], sentences: Sentence[]): number {
  let start = sentences[c.first]!.start;
  for (const p of picks) {
    const end = sentences[p.last]!.end;
    if (p.last < c.first && end > start) start = end;
  }
  return start;
}
