// Highlight detection over a range longer than the spec's 1200 s window (issue 15, whole recordings in
// local mode): the range is transcribed once, then cut into consecutive windows that overlap by at least
// the longest clip the preferredLength band allows, so every clip lies whole inside at least one window.
// Each window is scored as a request of its own would be (its audio read on its own: bounded memory), and
// the picks of all windows are merged here: a span found twice in an overlap is kept once, near-duplicates
// are dropped, and the rest ranked together by viral score, so maxShorts counts over the whole range.
// Pure: plans and merges only; moments.ts reads the audio and runs the detection.
import { AUTOMATIC_FLOOR, LENGTH_BANDS, MAX_AUTOMATIC_SHORTS, OVERSHOOT } from './highlights.js';
import { contentStems } from './topics.js';
import type { Highlight, PreferredLength } from '../../domain/highlight.js';
import type { Sentence } from '../../domain/transcript.js';
import type { TimeRange } from '../../domain/time.js';

/** The spec's longest request window (4.2): the range one detection pass scores, as the API has always done. */
export const WINDOW_SECONDS = 1200;

/** The shortest overlap of two neighbouring windows: the longest clip of the band, its overshoot included. */
export function windowOverlap(preferredLength: PreferredLength): number {
  return Math.ceil(LENGTH_BANDS[preferredLength].max * OVERSHOOT);
}

/**
 * The windows of a range: the range itself up to WINDOW_SECONDS (exactly what a request has always
 * scored), else the fewest windows of one common length (at most WINDOW_SECONDS) that overlap by at least
 * windowOverlap. One length for all, and no longer than needed: every window's "usual" (prosody, heatmap)
 * is measured over as much talk as the others', and no stretch is read more often than the overlap needs.
 */
export function planWindows(range: TimeRange, preferredLength: PreferredLength, windowSec = WINDOW_SECONDS): TimeRange[] {
  const length = range.end - range.start;
  if (!(length > windowSec)) return [{ start: range.start, end: range.end }];
  const overlap = windowOverlap(preferredLength);
  if (overlap >= windowSec) throw new Error(`a window of ${windowSec} s cannot overlap its neighbour by ${overlap} s`);
  const count = Math.ceil((length - overlap) / (windowSec - overlap));
  // count windows of `size` overlapping by `overlap` cover (count * size - (count - 1) * overlap) seconds.
  const size = (length + (count - 1) * overlap) / count;
  const step = size - overlap;
  return Array.from({ length: count }, (_, k) => {
    const start = range.start + k * step;
    // Milliseconds, rounded outwards so no overlap comes out a hair short; the last one ends at the range's end.
    return {
      start: Math.max(range.start, Math.floor(start * 1000) / 1000),
      end: k === count - 1 ? range.end : Math.min(range.end, Math.ceil((start + size) * 1000) / 1000),
    };
  });
}

/**
 * How many picks to ask of each window. Explicit maxShorts N: 2N, so a window whose best are the same
 * clips its neighbour found in their overlap still has others to offer (the detection is greedy, so its
 * first N of 2N are exactly its N). Automatic (null): each window decides as a request would.
 */
export function picksPerWindow(maxShorts: number | null): number | null {
  return maxShorts === null ? null : Math.max(0, Math.floor(maxShorts)) * 2;
}

/**
 * Automatic mode over a long range: the density a request within the spec's window may get,
 * MAX_AUTOMATIC_SHORTS per WINDOW_SECONDS (12 per 20 minutes: 15 for 25 minutes, 36 for an hour), never
 * fewer than one window's. Proportional, not per started window: 1201 s is not worth twice 1200 s.
 */
export function automaticCap(range: TimeRange): number {
  return Math.max(MAX_AUTOMATIC_SHORTS, Math.ceil(MAX_AUTOMATIC_SHORTS * (range.end - range.start) / WINDOW_SECONDS - 1e-9));
}

export interface MergeOptions {
  /** The whole range: automatic mode's cap depends on it. */
  range: TimeRange;
  /** The request's maxShorts over the whole range; null = automatic. */
  maxShorts: number | null;
  preferredLength: PreferredLength;
  /** The transcript's sentences (by index), for the words near-duplicates share. */
  sentences: readonly Sentence[];
  language?: string;
  /** false: compare words language-neutrally, as the detection did (HighlightRequest.lexical). */
  lexical?: boolean;
}

/** Recognisers' sentence times can overlap by a few hundredths; that much does not make picks overlap (highlights.ts). */
const EDGE_TOLERANCE_SEC = 0.3;
/** Same share as the detection's own (highlights.ts): this much of the smaller clip's content words in the other. */
const NEAR_DUPLICATE = 0.7;

interface Entry { h: Highlight; window: number; rank: number }

/**
 * All windows' picks ranked together, best first. `perWindow[k]` are window k's picks in its own rank
 * order. A span found in two windows (their overlap) is kept once, with the better score of the two; a
 * clip overlapping or repeating a better one is dropped; then maxShorts (or automatic mode's cap and
 * floor) applies to the whole range.
 */
export function mergeWindowPicks(perWindow: readonly (readonly Highlight[])[], opts: MergeOptions): Highlight[] {
  const entries: Entry[] = perWindow.flatMap((picks, window) => picks.map((h, rank) => ({ h, window, rank })));
  // Equal scores: the better rank inside its window, then the earlier window (deterministic).
  entries.sort((a, b) => b.h.viralScore - a.h.viralScore || a.rank - b.rank || a.window - b.window || a.h.start - b.h.start);
  const automatic = opts.maxShorts === null;
  const limit = automatic ? automaticCap(opts.range) : Math.max(0, Math.floor(opts.maxShorts!));
  const text = new Map(opts.sentences.map((s) => [s.index, s.sentence]));
  const stemsOf = (h: Highlight) => new Set(h.sentenceIndexes.flatMap((i) => contentStems(text.get(i) ?? '', opts.language, opts.lexical !== false)));
  // A window with little talk makes its whole talk one short clip (highlights.ts effectiveBand): fine alone,
  // not beside windows that had the band's length to choose from.
  const minimum = LENGTH_BANDS[opts.preferredLength].min;
  const speech = opts.sentences.filter((s) => s.end > opts.range.start && s.start < opts.range.end);
  const spoken = speech.length > 0 ? Math.max(...speech.map((s) => s.end)) - Math.min(...speech.map((s) => s.start)) : 0;
  const enforceMinimum = perWindow.length > 1 && spoken >= minimum;

  const kept: { h: Highlight; stems: Set<string> }[] = [];
  for (const e of entries) {
    if (kept.length >= limit) break;
    // As one window does: once there is a pick, automatic mode does not go below the floor.
    if (automatic && kept.length > 0 && e.h.viralScore < AUTOMATIC_FLOOR) break;
    // (Less a neighbour's nudge: a pick's start may move up to the edge tolerance past another's end.)
    if (enforceMinimum && e.h.end - e.h.start < minimum - EDGE_TOLERANCE_SEC - 1e-6) continue;
    if (kept.some((k) => overlap(k.h, e.h))) continue;
    const stems = stemsOf(e.h);
    if (kept.some((k) => nearDuplicate(k.stems, stems))) continue;
    kept.push({ h: e.h, stems });
  }
  return separate(kept.map((k) => k.h));
}

/** Same sentence, or time spans overlapping by more than the recognisers' edge noise. */
function overlap(a: Highlight, b: Highlight): boolean {
  if (a.sentenceIndexes.some((i) => b.sentenceIndexes.includes(i))) return true;
  return a.start < b.end - EDGE_TOLERANCE_SEC && b.start < a.end - EDGE_TOLERANCE_SEC;
}

function nearDuplicate(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / Math.min(a.size, b.size) >= NEAR_DUPLICATE;
}

/** Picks of different windows whose edges touch within the tolerance: the later one starts at the earlier one's end (as inside one window). */
function separate(ranked: Highlight[]): Highlight[] {
  const byTime = [...ranked].sort((a, b) => a.start - b.start);
  const start = new Map<Highlight, number>();
  for (const h of ranked) {
    let s = h.start;
    for (const other of byTime) if (other !== h && other.start < h.start && other.end > s) s = other.end;
    start.set(h, s);
  }
  return ranked.map((h) => (start.get(h) === h.start ? h : { ...h, start: start.get(h)! }));
}
