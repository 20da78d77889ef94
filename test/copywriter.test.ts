import { describe, expect, it } from 'vitest';
import { writeCopy } from '../src/pipeline/copywriter.js';
import { findHighlights } from '../src/pipeline/highlights.js';
import type { Highlight, Transcript } from '../src/pipeline/types.js';
import { TALK } from './helpers/talk.js';
import { makeTranscript } from './helpers/transcript.js';

const talk = makeTranscript(TALK);
const picks = findHighlights({ transcript: talk, loudness: null, heatmap: [], preferredLength: 'under30sec', maxShorts: null, noClipping: false, range: talk.range });

function clipText(h: Highlight, t: Transcript): string {
  return t.sentences.filter((s) => h.sentenceIndexes.includes(s.index)).map((s) => s.sentence).join(' ');
}

function words(text: string): string[] {
  return text.toLowerCase().split(/\s+/).map((w) => w.replace(/[^\p{L}\p{N}'-]/gu, '')).filter(Boolean);
}

function hashtagsOf(description: string): string[] {
  return description.match(/#\S+/g) ?? [];
}

function highlight(over: Partial<Highlight>): Highlight {
  return {
    sentenceIndexes: [0], start: 0, end: 20, viralScore: 50, strengths: [],
    features: { hook: 0, selfContained: 0.5, energy: 0.5, pace: 1, emotion: 0, heatmap: 0, lengthFit: 1 },
    ...over,
  };
}

describe('writeCopy', () => {
  it('titles the restaurant clip with its opening question', () => {
    const top = picks[0]!;
    expect(top.sentenceIndexes[0]).toBe(6);
    expect(writeCopy(top, talk).title).toBe('Why Do Ninety Percent of New Restaurants Fail?');
  });

  it('takes every title from the clip\'s own words, short and without trailing commas', () => {
    expect(picks.length).toBeGreaterThan(2);
    for (const h of picks) {
      const { title } = writeCopy(h, talk);
      const said = new Set(words(clipText(h, talk)));
      for (const w of words(title)) expect(said, `"${w}" of "${title}"`).toContain(w);
      expect(title.length).toBeLessThanOrEqual(60);
      expect(words(title).length).toBeGreaterThanOrEqual(3);
      expect(words(title).length).toBeLessThanOrEqual(10);
      expect(title).not.toMatch(/[,;:]$/);
      expect(title.charAt(0)).toBe(title.charAt(0).toUpperCase());
    }
  });

  it('trims filler from the start of the title and cuts a long sentence at a clause', () => {
    const t = makeTranscript([
      'So, um, you know, the biggest mistake you can make, and I made it for years, is waiting until you feel motivated to start.',
      'Motivation shows up after you begin, not before.',
    ]);
    const { title } = writeCopy(highlight({ sentenceIndexes: [0, 1] }), t);
    expect(title).toBe('The Biggest Mistake You Can Make');
  });

  it('writes one summary sentence and 3-5 hashtags from distinctive words', () => {
    for (const h of picks) {
      const { description } = writeCopy(h, talk);
      const tags = hashtagsOf(description);
      expect(tags.length).toBeGreaterThanOrEqual(3);
      expect(tags.length).toBeLessThanOrEqual(5);
      for (const tag of tags) {
        expect(tag).toMatch(/^#[\p{L}\p{N}]+$/u);
        expect(tag).not.toMatch(/^#\d+$/);
      }
      expect(new Set(tags.map((t) => t.toLowerCase())).size).toBe(tags.length);
      const summary = description.slice(0, description.indexOf('#')).trim();
      expect(summary).toMatch(/^[A-Z].*[.!?…]$/);
    }
    const tags = hashtagsOf(writeCopy(picks[0]!, talk).description).map((t) => t.toLowerCase());
    expect(tags).toContain('#restaurants');
    expect(tags).toContain('#chef');
    expect(tags).not.toContain('#ninety');
  });

  it('explains the reason from the features that won', () => {
    const top = writeCopy(picks[0]!, talk).reason;
    expect(top).toMatch(/^Opens with a question and a concrete number/);
    expect(top).toContain('emotionally charged language');
    expect(top).toMatch(/\.$/);

    const loud = writeCopy(highlight({ sentenceIndexes: [12, 13], strengths: ['energy', 'pace'] }), talk).reason;
    expect(loud).toBe('High vocal energy and a lively speaking pace.');

    const hot = writeCopy(highlight({ sentenceIndexes: [18, 19], strengths: ['heatmap', 'hook', 'selfContained'] }), talk).reason;
    expect(hot).toMatch(/^One of the most replayed moments of the video, /);
    expect(hot).toContain('surprising claim');
    expect(hot).toMatch(/, and a clear payoff at the end\.$/);
  });

  it('is deterministic', () => {
    expect(writeCopy(picks[1]!, talk)).toEqual(writeCopy(picks[1]!, talk));
  });
});
