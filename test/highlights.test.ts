import { describe, expect, it } from 'vitest';
import { AUTOMATIC_FLOOR, findHighlights, LENGTH_BANDS, OVERSHOOT, type HighlightRequest } from '../src/pipeline/highlights.js';
import type { Highlight, LoudnessTrack, PreferredLength, Transcript } from '../src/pipeline/types.js';
import { TALK } from './helpers/talk.js';
import { makeTranscript } from './helpers/transcript.js';

const talk = makeTranscript(TALK);

function request(transcript: Transcript, over: Partial<HighlightRequest> = {}): HighlightRequest {
  return { transcript, loudness: null, heatmap: [], preferredLength: 'under30sec', maxShorts: null, noClipping: false, range: transcript.range, ...over };
}

function pickStartingAt(hs: Highlight[], sentence: number): Highlight | undefined {
  return hs.find((h) => h.sentenceIndexes[0] === sentence);
}

function expectWellFormed(hs: Highlight[], transcript: Transcript): void {
  const byIndex = new Map(transcript.sentences.map((s) => [s.index, s]));
  for (const h of hs) {
    const idx = h.sentenceIndexes;
    expect(idx.length).toBeGreaterThan(0);
    idx.forEach((v, k) => k > 0 && expect(v).toBe(idx[k - 1]! + 1)); // contiguous
    expect(h.start).toBe(byIndex.get(idx[0]!)!.start);
    expect(h.end).toBe(byIndex.get(idx[idx.length - 1]!)!.end);
    expect(h.viralScore).toBeGreaterThanOrEqual(0);
    expect(h.viralScore).toBeLessThanOrEqual(100);
    expect(h.strengths.length).toBeGreaterThanOrEqual(1);
    expect(h.strengths.length).toBeLessThanOrEqual(3);
  }
  for (let k = 1; k < hs.length; k++) expect(hs[k]!.viralScore).toBeLessThanOrEqual(hs[k - 1]!.viralScore);
  const byTime = [...hs].sort((a, b) => a.start - b.start);
  for (let k = 1; k < byTime.length; k++) expect(byTime[k]!.start).toBeGreaterThanOrEqual(byTime[k - 1]!.end);
}

describe('findHighlights', () => {
  it('returns no highlights when the range has no speech', () => {
    const silent: Transcript = { language: 'en', model: 'test', range: { start: 0, end: 60 }, words: [], sentences: [] };
    expect(findHighlights(request(silent))).toEqual([]);
    expect(findHighlights(request(silent, { noClipping: true }))).toEqual([]);
  });

  it.each(['under30sec', 'under60sec', 'under3min'] as PreferredLength[])(
    'cuts %s clips on sentence boundaries, inside the length band, sorted and non-overlapping',
    (preferredLength) => {
      const hs = findHighlights(request(talk, { preferredLength }));
      expect(hs.length).toBeGreaterThan(0);
      expectWellFormed(hs, talk);
      const band = LENGTH_BANDS[preferredLength];
      for (const h of hs) {
        expect(h.end - h.start).toBeGreaterThanOrEqual(band.min);
        expect(h.end - h.start).toBeLessThanOrEqual(band.max * OVERSHOOT);
      }
    },
  );

  it('ranks the segment that opens with a question, a number and emotional words above the dull ones', () => {
    const hs = findHighlights(request(talk));
    // Sentences 6-11: "Why do ninety percent of new restaurants fail...?" through "That is why...".
    expect(hs[0]!.sentenceIndexes[0]).toBe(6);
    expect(hs[0]!.viralScore).toBeGreaterThanOrEqual(80);
    expect(hs[0]!.strengths[0]).toBe('hook');
    expect(hs[0]!.strengths).toContain('emotion');
    // The housekeeping block opens on a dangling "This": if it is picked at all it ranks low.
    const housekeeping = hs.filter((h) => h.sentenceIndexes.some((i) => i <= 5));
    for (const h of housekeeping) expect(h.viralScore).toBeLessThan(hs[0]!.viralScore - 30);
  });

  it('prefers a clean opening to one that starts on a dangling reference', () => {
    const hooky = 'Why do ninety percent of new restaurants fail in their first year? The truth is, it is almost never the food. Most owners absolutely love cooking, but they are terrified of the numbers. That is why the best chefs hire an accountant first.';
    const dull = 'This is the part where we look at the schedule for the week. The meeting moves to the room on the second floor. After that we look at the budget sheet line by line. Lunch will be in the usual place near the desk.';
    const t = makeTranscript([...dull.split(/(?<=[.?])\s+/), ...hooky.split(/(?<=[.?])\s+/)]);
    const hs = findHighlights(request(t, { maxShorts: 2 }));
    expect(hs).toHaveLength(2);
    expect(hs[0]!.sentenceIndexes[0]).toBe(4);
    expect(hs[1]!.features.selfContained).toBeLessThan(hs[0]!.features.selfContained);
    expect(hs[1]!.features.hook).toBeLessThan(0.3);
  });

  it('scores flat, dull candidates in the below-average to average bands', () => {
    const flat = makeTranscript([
      'The kitchen has ovens along the back wall and a fridge.',
      'Deliveries arrive in the morning through the side door on the left.',
      'The menu changes with the season and the staff rotate shifts every week.',
      'There is a small office above the dining room with a desk and a cabinet.',
      'Parking is available on the street behind the building after six.',
      'The recording will be available on the website later this week.',
    ]);
    const hs = findHighlights(request(flat));
    expect(hs.length).toBeGreaterThan(0);
    for (const h of hs) {
      expect(h.viralScore).toBeGreaterThanOrEqual(20);
      expect(h.viralScore).toBeLessThanOrEqual(45);
    }
  });

  it('keeps the best N when maxShorts is set', () => {
    const all = findHighlights(request(talk));
    expect(all.length).toBeGreaterThan(2);
    const two = findHighlights(request(talk, { maxShorts: 2 }));
    expect(two).toHaveLength(2);
    expect(two[0]).toEqual(all[0]);
    expect(findHighlights(request(talk, { maxShorts: 1 }))[0]!.sentenceIndexes[0]).toBe(6);
  });

  it('finds at most 12 clips automatically on a 20-minute range and drops weak ones', () => {
    const lines = Array.from({ length: 10 }, () => TALK).flat(); // 300 sentences, ~27 minutes
    const long = makeTranscript(lines);
    expect(long.sentences).toHaveLength(300);
    const hs = findHighlights(request(long, { preferredLength: 'under60sec' }));
    expect(hs).toHaveLength(12);
    expectWellFormed(hs, long);
    for (const h of hs) expect(h.viralScore).toBeGreaterThanOrEqual(AUTOMATIC_FLOOR);
    // The two strong stretches of each repetition are what gets picked.
    expect(hs.filter((h) => h.viralScore >= 80).length).toBeGreaterThanOrEqual(10);
  });

  it('returns one clip covering the whole range when noClipping is set', () => {
    const range = { start: 10, end: 90 };
    const hs = findHighlights(request(talk, { noClipping: true, range }));
    expect(hs).toHaveLength(1);
    expect(hs[0]!.start).toBe(10);
    expect(hs[0]!.end).toBe(90);
    const inside = talk.sentences.filter((s) => (s.start + s.end) / 2 >= 10 && (s.start + s.end) / 2 <= 90).map((s) => s.index);
    expect(hs[0]!.sentenceIndexes).toEqual(inside);
  });

  it('only uses sentences inside the requested range', () => {
    const range = { start: talk.sentences[12]!.start, end: talk.sentences[23]!.end };
    const hs = findHighlights(request(talk, { range }));
    expect(hs.length).toBeGreaterThan(0);
    for (const h of hs) {
      expect(h.start).toBeGreaterThanOrEqual(range.start);
      expect(h.end).toBeLessThanOrEqual(range.end);
    }
  });

  it('makes one shorter clip when the whole range is shorter than the band', () => {
    const short = makeTranscript(TALK.slice(6, 9));
    const span = short.sentences[2]!.end - short.sentences[0]!.start;
    expect(span).toBeLessThan(LENGTH_BANDS.under60sec.min);
    const hs = findHighlights(request(short, { preferredLength: 'under60sec' }));
    expect(hs).toHaveLength(1);
    expect(hs[0]!.sentenceIndexes).toEqual([0, 1, 2]);
  });

  it('raises the score of the segment the heatmap marks as most replayed', () => {
    const kitchen = { start: talk.sentences[12]!.start, end: talk.sentences[17]!.end };
    const heatmap = Array.from({ length: 40 }, (_, k) => {
      const start = (k * talk.range.end) / 40, end = ((k + 1) * talk.range.end) / 40;
      const hot = start < kitchen.end && end > kitchen.start;
      return { start, end, value: hot ? 1 : 0.2 };
    });
    const before = pickStartingAt(findHighlights(request(talk)), 12);
    const after = pickStartingAt(findHighlights(request(talk, { heatmap })), 12);
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    expect(after!.features.heatmap).toBeGreaterThan(0.9);
    expect(after!.viralScore).toBeGreaterThan(before!.viralScore + 5);
    expect(after!.strengths).toContain('heatmap');
  });

  it('raises the score of a louder-than-usual segment', () => {
    const kitchen = { start: talk.sentences[12]!.start, end: talk.sentences[17]!.end };
    const steps = Math.ceil(talk.range.end / 0.5);
    const loudness: LoudnessTrack = {
      start: 0, stepSec: 0.5,
      db: Array.from({ length: steps }, (_, k) => (k * 0.5 >= kitchen.start && k * 0.5 < kitchen.end ? -18 : -26)),
    };
    const flat = { ...loudness, db: loudness.db.map(() => -26) };
    const base = pickStartingAt(findHighlights(request(talk, { loudness: flat })), 12);
    const loud = pickStartingAt(findHighlights(request(talk, { loudness })), 12);
    expect(base!.features.energy).toBeCloseTo(0.5, 1);
    expect(loud!.features.energy).toBeGreaterThan(0.9);
    expect(loud!.viralScore).toBeGreaterThan(base!.viralScore);
    expect(loud!.strengths).toContain('energy');
  });

  it('keeps picks apart when the recogniser\'s sentence times overlap by a few hundredths', () => {
    const tight = makeTranscript(TALK, { pause: -0.05 });
    expect(tight.sentences[1]!.start).toBeLessThan(tight.sentences[0]!.end);
    const hs = findHighlights(request(tight, { maxShorts: 6 }));
    expect(hs).toHaveLength(6);
    const byTime = [...hs].sort((a, b) => a.start - b.start);
    for (let k = 1; k < byTime.length; k++) {
      expect(byTime[k]!.start).toBeGreaterThanOrEqual(byTime[k - 1]!.end);
      expect(byTime[k]!.sentenceIndexes[0]).toBeGreaterThan(byTime[k - 1]!.sentenceIndexes.at(-1)!);
    }
  });

  it('is deterministic', () => {
    expect(findHighlights(request(talk))).toEqual(findHighlights(request(talk)));
  });
});

describe('clip endings', () => {
  it('does not end a clip on a line that sets up what follows', async () => {
    const { endingPayoff, isSetupLine } = await import('../src/pipeline/highlight-features.js');
    for (const line of ['There are three simple reasons.', "Here's why:", 'Here is the truth nobody tells you.', 'Let me explain.', 'First, they break every skill into pieces.'])
      expect(isSetupLine(line), line).toBe(true);
    for (const line of ['My speed doubled.', 'That is why the truth matters.', 'There are no shortcuts.'])
      expect(isSetupLine(line), line).toBe(false);
    expect(endingPayoff('There are three simple reasons.')).toBeLessThan(endingPayoff('My speed doubled, and I made half as many mistakes.'));
  });
});
