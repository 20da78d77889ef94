// Stage 3: pick the segments worth turning into shorts. Candidates are sentence spans whose length fits
// the preferredLength band; each is scored from the features in highlight-features.ts, and the best
// non-overlapping ones are chosen greedily. Pure: the same transcript always gives the same picks.
import { SegmentScorer, type LengthBand } from './highlight-features.js';
import type {
  HeatmapPoint, Highlight, HighlightFeatures, LoudnessTrack, PreferredLength, Sentence, TimeRange, Transcript,
} from './types.js';

export interface HighlightRequest {
  transcript: Transcript;
  loudness: LoudnessTrack | null;
  heatmap: HeatmapPoint[];
  preferredLength: PreferredLength;
  /** null = automatic: as many good, distinct picks as the range supports, up to 12. */
  maxShorts: number | null;
  noClipping: boolean;
  range: TimeRange;
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
 * Relative weight of each feature. The opening line matters most (viewers swipe within seconds), then
 * whether the clip makes sense alone, then delivery and charged language; length fit only nudges.
 */
export const FEATURE_WEIGHTS: Record<keyof HighlightFeatures, number> = {
  hook: 0.28,
  selfContained: 0.16,
  energy: 0.14,
  pace: 0.08,
  emotion: 0.14,
  heatmap: 0.14,
  lengthFit: 0.06,
};

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
  const scorer = new SegmentScorer(sentences, req.loudness, req.heatmap, req.range);
  const available = availableFeatures(scorer);

  if (req.noClipping) {
    const features = { ...scorer.features(0, sentences.length - 1, LENGTH_BANDS[req.preferredLength]), lengthFit: 1 };
    const raw = weightedScore(features, available);
    return [{
      sentenceIndexes: sentences.map((s) => s.index),
      start: req.range.start,
      end: req.range.end,
      viralScore: toViralScore(raw),
      features,
      strengths: strengthsOf(features, available),
    }];
  }

  const band = effectiveBand(LENGTH_BANDS[req.preferredLength], sentences);
  let candidates = enumerate(scorer, band, available);
  // Sentences longer than the whole band (unpunctuated monologue): fall back to single sentences.
  if (candidates.length === 0) candidates = scorer.stats.map((_, i) => score(scorer, i, i, band, available));

  candidates.sort((x, y) => y.raw - x.raw || x.first - y.first || x.last - y.last);
  const limit = req.maxShorts === null ? MAX_AUTOMATIC_SHORTS : Math.max(0, Math.floor(req.maxShorts));
  const picks: Candidate[] = [];
  for (const c of candidates) {
    if (picks.length >= limit) break;
    if (req.maxShorts === null && picks.length > 0 && toViralScore(c.raw) < AUTOMATIC_FLOOR) break;
    if (picks.some((p) => overlaps(scorer, p, c))) continue;
    picks.push(c);
  }
  return picks.map((c) => ({
    sentenceIndexes: sentences.slice(c.first, c.last + 1).map((s) => s.index),
    start: startAfterNeighbour(c, picks, sentences),
    end: sentences[c.last]!.end,
    viralScore: toViralScore(c.raw),
    features: c.features,
    strengths: strengthsOf(c.features, available),
  }));
}

/** Weighted mean of the features that could be measured, 0..1. */
export function weightedScore(f: HighlightFeatures, available: (keyof HighlightFeatures)[]): number {
  let sum = 0, weights = 0;
  for (const k of available) {
    sum += FEATURE_WEIGHTS[k] * f[k];
    weights += FEATURE_WEIGHTS[k];
  }
  return weights > 0 ? sum / weights : 0;
}

/**
 * Maps the weighted score onto the spec's bands. Calibrated so that a flat candidate (clean sentences,
 * normal pace, no hook, no emotion, median energy) scores ~35, a strong hook alone stays under 80, and
 * only candidates strong on several features reach 80+.
 */
export function toViralScore(raw: number): number {
  return Math.max(0, Math.min(100, Math.round(-5 + 105 * raw)));
}

/** Features that won, strongest weighted contribution first: those scoring well, at least two. */
export function strengthsOf(f: HighlightFeatures, available: (keyof HighlightFeatures)[]): (keyof HighlightFeatures)[] {
  const ranked = [...available].sort((a, b) => FEATURE_WEIGHTS[b] * f[b] - FEATURE_WEIGHTS[a] * f[a] || available.indexOf(a) - available.indexOf(b));
  const strong = ranked.filter((k) => f[k] >= 0.6).slice(0, 3);
  for (const k of ranked) {
    if (strong.length >= 2) break;
    if (!strong.includes(k) && f[k] > 0) strong.push(k);
  }
  return strong.sort((a, b) => FEATURE_WEIGHTS[b] * f[b] - FEATURE_WEIGHTS[a] * f[a]);
}

function availableFeatures(scorer: SegmentScorer): (keyof HighlightFeatures)[] {
  return (Object.keys(FEATURE_WEIGHTS) as (keyof HighlightFeatures)[]).filter(
    (k) => (k !== 'energy' || scorer.hasEnergy) && (k !== 'heatmap' || scorer.hasHeatmap),
  );
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
function enumerate(scorer: SegmentScorer, band: LengthBand, available: (keyof HighlightFeatures)[]): Candidate[] {
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
      insertTop(best, score(scorer, i, j, band, available), KEEP_PER_START);
    }
    out.push(...best);
  }
  return out;
}

function score(scorer: SegmentScorer, first: number, last: number, band: LengthBand, available: (keyof HighlightFeatures)[]): Candidate {
  const features = scorer.features(first, last, band);
  return { first, last, raw: weightedScore(features, available), features };
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
