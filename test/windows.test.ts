// Whole recordings (issue 15): how a long range is cut into detection windows and how the picks of the
// windows are ranked together. Pure: no media, no processes.
import { describe, expect, it } from 'vitest';
import { AUTOMATIC_FLOOR, LENGTH_BANDS, MAX_AUTOMATIC_SHORTS, OVERSHOOT } from '../src/pipeline/analyze/highlights.js';
import { automaticCap, mergeWindowPicks, picksPerWindow, planWindows, WINDOW_SECONDS, windowOverlap } from '../src/pipeline/analyze/windows.js';
import type { Highlight, HighlightFeatures, PreferredLength } from '../src/domain/highlight.js';
import type { Sentence } from '../src/domain/transcript.js';
import type { TimeRange } from '../src/domain/time.js';

const LENGTHS = Object.keys(LENGTH_BANDS) as PreferredLength[];

describe('planWindows', () => {
  it('a range up to 1200 s is one window: the range itself, as every request was scored before', () => {
    for (const range of [{ start: 0, end: 60 }, { start: 100, end: 1300 }, { start: 5.5, end: 905.25 }]) {
      for (const length of LENGTHS) expect(planWindows(range, length)).toEqual([range]);
    }
  });

  it('a longer range: the fewest equal windows of at most 1200 s, overlapping by the longest clip, covering it exactly', () => {
    const cases: [TimeRange, PreferredLength, number][] = [
      [{ start: 0, end: 1500 }, 'under60sec', 2],
      [{ start: 0, end: 3600 }, 'under60sec', 4],
      [{ start: 30, end: 3630 }, 'under10min', 6],
      [{ start: 0, end: 18_000 }, 'under30sec', 16],
      [{ start: 0, end: 1201 }, 'under3min', 2],
    ];
    for (const [range, length, count] of cases) {
      const windows = planWindows(range, length);
      expect(windows).toHaveLength(count);
      expect(windows[0]!.start).toBe(range.start);
      expect(windows.at(-1)!.end).toBe(range.end);
      const sizes = windows.map((w) => w.end - w.start);
      for (const size of sizes) {
        expect(size).toBeLessThanOrEqual(WINDOW_SECONDS + 0.002);
        expect(Math.abs(size - sizes[0]!)).toBeLessThan(0.01);
      }
      for (let k = 1; k < windows.length; k++) {
        const overlap = windows[k - 1]!.end - windows[k]!.start;
        expect(overlap).toBeGreaterThanOrEqual(LENGTH_BANDS[length].max * OVERSHOOT);
        // No more overlap than needed (within a window's rounding): fewer seconds read twice.
        expect(windows[k]!.start).toBeGreaterThan(windows[k - 1]!.start);
      }
      // One window fewer could not have covered the range with that overlap.
      expect((count - 1) * WINDOW_SECONDS - (count - 2) * windowOverlap(length)).toBeLessThan(range.end - range.start);
    }
  });

  it('every clip the band allows lies whole inside at least one window, wherever it is', () => {
    for (const length of LENGTHS) {
      const range = { start: 0, end: 4000 };
      const windows = planWindows(range, length);
      const longest = LENGTH_BANDS[length].max * OVERSHOOT;
      for (let at = 0; at + longest <= range.end; at += 7.3) {
        expect(windows.some((w) => w.start <= at && at + longest <= w.end), `${length} clip at ${at}`).toBe(true);
      }
    }
  });

  it('how many picks a window offers, and the automatic cap: 12 per 20 minutes', () => {
    expect(picksPerWindow(null)).toBeNull();
    expect(picksPerWindow(5)).toBe(10);
    expect(automaticCap({ start: 0, end: 1200 })).toBe(MAX_AUTOMATIC_SHORTS);
    expect(automaticCap({ start: 0, end: 1500 })).toBe(15);
    expect(automaticCap({ start: 0, end: 1201 })).toBe(MAX_AUTOMATIC_SHORTS + 1);
    expect(automaticCap({ start: 0, end: 3600 })).toBe(3 * MAX_AUTOMATIC_SHORTS);
  });
});

// ------------------------------------------------------------------ merging

const FEATURES: HighlightFeatures = {
  hook: 0, selfContained: 1, topic: 1, story: 0, questionAnswer: 0, contrast: 0, emotion: 0, reaction: 0, prosody: 0.5, heatmap: 0,
  lengthFit: 1, procedural: 0,
};

/** One sentence every 5 s, each about its own subject unless a text is given. */
function sentences(count: number, text: (i: number) => string = (i) => `Subject${i} matters${i} because${i} reasons${i}.`): Sentence[] {
  return Array.from({ length: count }, (_, i) => ({ index: i, sentence: text(i), start: i * 5, end: i * 5 + 4.8, words: [] }));
}

function pick(first: number, last: number, viralScore: number, all: Sentence[]): Highlight {
  return {
    sentenceIndexes: Array.from({ length: last - first + 1 }, (_, k) => first + k),
    start: all[first]!.start, end: all[last]!.end, viralScore, features: FEATURES, strengths: ['selfContained', 'topic'], evidence: [],
  };
}

const opts = (all: Sentence[], maxShorts: number | null) => ({
  range: { start: 0, end: all.at(-1)!.end }, maxShorts, preferredLength: 'under60sec' as const, sentences: all, language: 'en',
});

describe('mergeWindowPicks', () => {
  const all = sentences(400); // 2000 s

  it('ranks the picks of all windows together by viral score, and maxShorts counts over the whole range', () => {
    const first = [pick(0, 5, 70, all), pick(20, 25, 50, all), pick(40, 45, 45, all)];
    const second = [pick(300, 305, 90, all), pick(320, 325, 60, all), pick(340, 345, 30, all)];
    const merged = mergeWindowPicks([first, second], opts(all, 4));
    expect(merged.map((h) => h.viralScore)).toEqual([90, 70, 60, 50]);
    expect(merged.map((h) => h.sentenceIndexes[0])).toEqual([300, 0, 320, 20]);
  });

  it('a span found by two windows in their overlap is kept once, with the better score', () => {
    const a = [pick(200, 206, 64, all), pick(0, 5, 40, all)];
    const b = [pick(200, 206, 71, all), pick(300, 305, 55, all)];
    const merged = mergeWindowPicks([a, b], opts(all, 10));
    expect(merged.map((h) => [h.sentenceIndexes[0], h.viralScore])).toEqual([[200, 71], [300, 55], [0, 40]]);
  });

  it('overlapping spans (a sentence in common, or time) keep only the better one; edges touching within 0.3 s are separated', () => {
    const a = [pick(200, 206, 80, all)];
    const b = [pick(204, 210, 75, all), pick(207, 212, 60, all)];
    const merged = mergeWindowPicks([a, b], opts(all, 10));
    expect(merged.map((h) => h.sentenceIndexes[0])).toEqual([200, 207]);
    // Recognised edges that overlap by a hair: the later clip starts where the earlier one ends.
    const hair = { ...pick(207, 212, 60, all), start: all[206]!.end - 0.2 };
    const touching = mergeWindowPicks([a, [hair]], opts(all, 10));
    expect(touching).toHaveLength(2);
    expect(touching[1]!.start).toBe(all[206]!.end);
  });

  it('the same words found twice far apart (a talk that repeats itself) are one clip', () => {
    const said = (k: number) => `Subject${k} matters${k} because${k} reasons${k}.`;
    const repeated = sentences(400, (i) => (i <= 5 ? said(i) : i >= 300 && i <= 305 ? said(i - 300) : `Topic${i} differs${i}.`));
    const merged = mergeWindowPicks([[pick(0, 5, 66, repeated)], [pick(300, 305, 68, repeated)]], opts(repeated, 5));
    expect(merged.map((h) => h.sentenceIndexes[0])).toEqual([300]);
  });

  it('automatic mode: the whole range\'s cap, and nothing under the floor once there is a pick', () => {
    const win = (from: number, scores: number[]) => scores.map((s, k) => pick(from + k * 10, from + k * 10 + 5, s, all));
    const merged = mergeWindowPicks([win(0, [70, 40, 20]), win(200, [22, 60])], opts(all, null));
    expect(merged.map((h) => h.viralScore)).toEqual([70, 60, 40]);
    expect(Math.min(...merged.map((h) => h.viralScore))).toBeGreaterThanOrEqual(AUTOMATIC_FLOOR);
    // Many good picks: at most 12 per 20 minutes of range (1999.8 s: 20).
    const many = Array.from({ length: 3 }, (_, w) => win(w * 130, Array.from({ length: 12 }, () => 80)));
    expect(mergeWindowPicks(many, opts(all, null))).toHaveLength(20);
  });

  it('a window whose whole talk is shorter than the band does not put a stub beside full-length clips', () => {
    const stub = pick(390, 391, 95, all); // 9.8 s: what a window with little talk returns
    const merged = mergeWindowPicks([[pick(0, 5, 50, all)], [stub]], opts(all, 3));
    expect(merged.map((h) => h.sentenceIndexes[0])).toEqual([0]);
  });
});
