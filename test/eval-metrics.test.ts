// The metrics `npm run eval` reports (scripts/eval-metrics.mjs), on hand-made picks and labels: a wrong
// metric would make the evaluation say a ranking got better when it did not.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without type declarations
import * as m from '../scripts/eval-metrics.mjs';

const story = { start: 60, end: 100, grade: 2 };
const tip = { start: 120, end: 130, grade: 1 };

describe('eval metrics', () => {
  it('counts a pick as a hit when the overlap covers half of the shorter span', () => {
    expect(m.hits({ start: 55, end: 110 }, story)).toBe(true); // holds the whole story
    expect(m.hits({ start: 70, end: 90 }, story)).toBe(true); // inside it
    expect(m.hits({ start: 95, end: 125 }, story)).toBe(false); // grazes its end
  });

  it('gives hit@1, hit@3 and NDCG@3 that reward the best passage first and credit it once', () => {
    const best = [{ start: 62, end: 98 }, { start: 120, end: 131 }, { start: 0, end: 30 }];
    const late = [{ start: 0, end: 30 }, { start: 140, end: 170 }, { start: 62, end: 98 }];
    const twice = [{ start: 62, end: 98 }, { start: 65, end: 95 }, { start: 0, end: 30 }];
    expect(m.hitAt(best, [story, tip], 1)).toBe(true);
    expect(m.hitAt(late, [story, tip], 1)).toBe(false);
    expect(m.hitAt(late, [story, tip], 3)).toBe(true);
    expect(m.ndcgAt(best, [story, tip], 3)).toBeCloseTo(1, 6);
    expect(m.ndcgAt(late, [story, tip], 3)).toBeCloseTo((3 / 2) / (3 + 1 / Math.log2(3)), 6);
    expect(m.pickGains(twice, [story, tip])).toEqual([2, 0, 0]);
    expect(m.ndcgAt(best, [], 3)).toBeNull();
    // 40 s windows over a 100 s source hit the 60-100 s story when they start at 40 s or later: 41 of 121 starts.
    expect(m.chanceHit(40, 100, [story, tip])).toBeCloseTo(41 / 121, 6);
  });

  it('flags titles that stop mid-phrase or open on a connective, and function-word hashtags', () => {
    expect(m.titleProblem('Please Enter the First Three Letters of Your')).toBe('ends on "your"');
    expect(m.titleProblem('Unless to Be Rather Cold-hearted')).toBe('starts on "unless"');
    expect(m.titleProblem('The Lazy Ants Are a Reserve Workforce')).toBeNull();
    expect(m.titleProblem('Never Give Up')).toBeNull();
    expect(m.titleProblem('Who Actually Calls You?')).toBeNull();
    expect(m.titleProblem('Last Year, They Towed 11 Cars on the First')).toBe('ends on "the first"');
    expect(m.titleProblem('Printing a Report with More Than 12')).toBe('ends on "than 12"');
    expect(m.titleProblem('Everyone Stands Up the Moment Group 1 Is Called')).toBeNull();
    expect(m.titleProblem('The Garden Is What We')).toBe('ends on "we"');
    expect(m.titleProblem('We Have Badges Because It\u2019s')).toBe('ends on "it\'s"');
    expect(m.hashtagsIn('A story. #Rather #Might #CreativeCommons #Quickly #Family')
      .map((t: string) => m.hashtagProblem(t))).toEqual(['function word', 'function word', null, 'adverb (-ly)', null]);
  });

  it('tells noun and name hashtags from verbs and adjectives with WordNet-style word lists', () => {
    const files: Record<string, string> = {
      'index.noun': 'page n 1\nneed n 2\ncommons n 1\n', 'index.verb': 'understand v 1\nneed v 2\n',
      'index.adj': 'lazy a 1\n', 'index.adv': '', 'noun.exc': 'mice mouse\n',
    };
    const lex = m.wordNetLexicon((name: string) => files[name] ?? '');
    expect(['Pages', 'Need', 'CreativeCommons', 'Okafor', 'Understand', 'Lazy', 'Might']
      .map((t) => m.hashtagNounProblem(t, lex))).toEqual([null, null, null, null, 'not a noun', 'not a noun', 'function word']);
  });

  it('finds duplicate picks and measures how well scores separate best passages from dry talks', () => {
    const dups = m.duplicatePairs([
      { sentenceIndexes: [1, 2], title: 'A' }, { sentenceIndexes: [2, 3], title: 'B' },
      { sentenceIndexes: [7], title: 'Weasels Ate the Phone' }, { sentenceIndexes: [9], title: 'weasels ate the phone!' },
    ]);
    expect(dups.map((d: { why: string }) => d.why)).toEqual(['shared sentence', 'same title']);
    expect(m.separation([80, 70], [40, 50])).toBe(1);
    expect(m.separation([50], [50])).toBe(0.5);
  });
});
