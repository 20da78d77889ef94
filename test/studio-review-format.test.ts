// The request view's words for what the API gives (issue 25): score bands as the spec names them, the hashtags
// a creator copies, and the queue and ETA phrases. Pure functions of the studio, run here without a browser.
import { describe, expect, it } from 'vitest';
import { BAND_WORDS, clock, etaWords, queueWords, scoreBand, splitHashtags } from '../src/studio/components/review-format.js';

describe('studio review words', () => {
  it('names the spec\'s viral_score bands at their edges', () => {
    expect([100, 80, 79, 60, 59, 40, 39, 0].map((s) => BAND_WORDS[scoreBand(s)]))
      .toEqual(['Excellent', 'Excellent', 'Good', 'Good', 'Average', 'Average', 'Below average', 'Below average']);
  });

  it('takes the copywriter\'s trailing hashtags off the description, once each, title tags included', () => {
    expect(splitHashtags('Real progress comes from the parts that feel uncomfortable. #Experts #Progress #shorts', 'Why #Experts win #Focus'))
      .toEqual({ text: 'Real progress comes from the parts that feel uncomfortable.', tags: ['#Experts', '#Progress', '#shorts', '#Focus'] });
    expect(splitHashtags('¿Por qué? #Canción #shorts', '')).toEqual({ text: '¿Por qué?', tags: ['#Canción', '#shorts'] });
    expect(splitHashtags('No tags here.', '')).toEqual({ text: 'No tags here.', tags: [] });
  });

  it('says times, queue positions and estimates in words', () => {
    expect([clock(75.4), clock(3725)]).toEqual(['1:15', '1:02:05']);
    expect([queueWords(null), queueWords(1), queueWords(3)]).toEqual([null, 'Next in the queue', 'Position 3 in the queue (2 requests ahead)']);
    const now = Date.parse('2026-01-01T10:00:00Z');
    expect([etaWords('2026-01-01T09:59:00Z', now), etaWords('2026-01-01T10:04:10Z', now), etaWords('2026-01-01T11:10:00Z', now), etaWords(undefined, now)])
      .toEqual(['any moment now', 'in about 4 minutes', 'in about 1 hour 10 minutes', null]);
  });
});
