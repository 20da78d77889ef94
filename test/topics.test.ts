import { describe, expect, it } from 'vitest';
import { contentStems, segmentTopics } from '../src/pipeline/analyze/topics.js';
import { dryTalkTranscript } from './helpers/dry-talk-transcript.js';

describe('segmentTopics', () => {
  it('keeps a told story in one topic of its own inside recorded phone-menu instructions (real Whisper transcript)', () => {
    const t = dryTalkTranscript();
    const texts = t.sentences.map((s) => s.sentence);
    const { topicOf, topics } = segmentTopics(texts);
    const first = texts.findIndex((s) => s.startsWith('Last winter'));
    const last = texts.findIndex((s) => s.includes('remote'));
    expect(first).toBeGreaterThan(0);
    expect(last).toBeGreaterThan(first);
    const topic = topics[topicOf[first]!]!;
    expect(topic).toEqual({ first, last });
    expect(topics.length).toBeGreaterThan(3);
    // Every sentence belongs to exactly one topic, in order.
    expect(topicOf).toHaveLength(texts.length);
    topics.forEach((tp, k) => k > 0 && expect(tp.first).toBe(topics[k - 1]!.last + 1));
  });

  it('keeps a talk on one subject in one piece', () => {
    const texts = [
      'Bees find their way home by remembering where the sun was when they left the hive.',
      'A bee that flies out in the morning keeps track of the angle between the sun and its path.',
      'When it comes back to the hive it dances, and the angle of the dance tells the other bees where the flowers are.',
      'The longer the dance lasts, the farther away the flowers are from the hive.',
      'Researchers moved a hive at night and the bees still danced the old direction the next morning.',
    ];
    expect(segmentTopics(texts).topics).toEqual([{ first: 0, last: 4 }]);
  });

  it('stems words so that forms of one word count as the same word', () => {
    expect(contentStems('The dancers danced; a dance.')).toEqual(['dancer', 'danc', 'danc']);
    expect(segmentTopics([])).toEqual({ topicOf: [], topics: [], depth: [] });
  });
});
