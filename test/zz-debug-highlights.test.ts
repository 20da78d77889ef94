import { test } from 'vitest';
import { findHighlights } from '../src/pipeline/highlights.js';
import { writeCopy } from '../src/pipeline/copywriter.js';
import { makeTranscript } from '../test/helpers/transcript.js';
import { TALK } from '../test/helpers/talk.js';
test('debug', () => {
  const tr = makeTranscript(TALK);
  console.log('span', tr.range);
  for (const pl of ['under30sec', 'under60sec'] as const) {
    const hs = findHighlights({ transcript: tr, loudness: null, heatmap: [], preferredLength: pl, maxShorts: null, noClipping: false, range: tr.range });
    for (const h of hs) {
      const c = writeCopy(h, tr);
      console.log(pl, h.viralScore, h.sentenceIndexes.join(','), (h.end - h.start).toFixed(1), JSON.stringify(h.features, (k, v) => typeof v === 'number' ? Math.round(v * 100) / 100 : v), h.strengths.join(','));
      console.log('   ', c.title, '|', c.reason, '|', c.description);
    }
  }
});
