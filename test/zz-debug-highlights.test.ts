import { test } from 'vitest';
import { findHighlights } from '../src/pipeline/highlights.js';
import { makeTranscript } from './helpers/transcript.js';
import { TALK } from './helpers/talk.js';
test('perf', () => {
  const long = makeTranscript(Array.from({ length: 10 }, () => TALK).flat());
  const heatmap = Array.from({ length: 100 }, (_, k) => ({ start: k * 16, end: (k + 1) * 16, value: (k % 7) / 7 }));
  const loudness = { start: 0, stepSec: 0.5, db: Array.from({ length: 3300 }, (_, k) => -30 + (k % 13)) };
  for (const pl of ['under30sec', 'under60sec', 'under3min', 'under10min'] as const) {
    for (let rep = 0; rep < 3; rep++) {
      const t0 = performance.now();
      const hs = findHighlights({ transcript: long, loudness, heatmap, preferredLength: pl, maxShorts: null, noClipping: false, range: long.range });
      const ms = performance.now() - t0;
      if (rep === 2) console.log(pl, ms.toFixed(1), 'ms', hs.length, hs.map((h) => h.viralScore).join(','));
    }
  }
});
