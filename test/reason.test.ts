import { describe, expect, it } from 'vitest';
import { findHighlights } from '../src/pipeline/highlights.js';
import { clock, writeReason } from '../src/pipeline/reason.js';
import type { Highlight, HighlightFeatures } from '../src/pipeline/types.js';
import { dryTalkTranscript } from './helpers/dry-talk-transcript.js';

const flat: HighlightFeatures = {
  hook: 0, selfContained: 0.8, topic: 0.5, story: 0, questionAnswer: 0, contrast: 0, emotion: 0, reaction: 0, prosody: 0.5,
  heatmap: 0, lengthFit: 1, procedural: 0,
};

describe('writeReason', () => {
  it('names what the scorer found in the clip: the story, the laughter with its clip times, the punchline it laughed at', () => {
    // A real Whisper transcript; the evidence is what the scorer reports for a clip of it.
    const t = dryTalkTranscript();
    const clip = t.sentences.slice(17, 22);
    const h: Highlight = {
      sentenceIndexes: clip.map((s) => s.index), start: clip[0]!.start, end: clip[4]!.end, viralScore: 84,
      features: { ...flat, story: 0.8, reaction: 0.9 }, strengths: ['reaction', 'story'],
      evidence: [
        { kind: 'story', at: clip[0]!.start, text: clip[0]!.sentence, detail: 'last winter' },
        { kind: 'laughter', at: clip[0]!.start + 15.4 },
        { kind: 'punchline', at: clip[4]!.start, text: clip[4]!.sentence },
        { kind: 'laughter', at: clip[4]!.end + 0.4 },
      ],
    };
    const reason = writeReason(h, clip);
    expect(reason).toContain('story');
    expect(reason).toContain('"Last winter my neighbor');
    expect(reason).toContain('laughter at 0:15 and 0:28');
    expect(reason).toMatch(/ends on the punchline "My neighbor just shrugged.*remote"/);
  });

  it('says plainly when a clip is mostly instructions, quoting one, instead of praising it', () => {
    const t = dryTalkTranscript();
    // Whisper's sentences 24-29: "Press one to record your unavailable message." and five more like it.
    const hs = findHighlights({ transcript: t, audio: null, heatmap: [], preferredLength: 'under30sec', maxShorts: 8, noClipping: false, range: t.range });
    const menu = hs.find((h) => h.features.procedural >= 0.8)!;
    expect(menu).toBeDefined();
    const clip = t.sentences.filter((s) => menu.sentenceIndexes.includes(s.index));
    const reason = writeReason(menu, clip);
    expect(reason).toMatch(/^Instructions read out \(\d+ of \d+ lines\), such as "/);
    const quoted = /"([^"]+?)…?"/.exec(reason)![1]!;
    expect(clip.some((s) => s.sentence.startsWith(quoted))).toBe(true);
  });

  it('writes clip-relative times as m:ss', () => {
    expect(clock(0)).toBe('0:00');
    expect(clock(14.4)).toBe('0:14');
    expect(clock(75.6)).toBe('1:16');
  });
});
