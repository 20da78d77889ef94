// What language detection adds to a request's transcription (issue 11), on real audio: the shipped sample
// (English) and recorded Spanish prompts. Each case transcribes the same range without any cache; detection
// cases also run whisper-cli -dl on the 30 s with the most speech. Run after `npm run build`:
//   SHORTS_WHISPER_MODEL=../shared/models/ggml-tiny.en-q8_0.bin SHORTS_WHISPER_MULTILINGUAL_MODEL=../shared/models/ggml-base-q5_1.bin \
//     node scripts/bench-language-detect.mjs [spanish.wav] [rounds]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTranscriber } from '../dist/pipeline/transcribe/transcribe.js';

const sample = path.resolve('assets/sample/talk.mp4');
const spanish = process.argv[2];
const rounds = Number(process.argv[3] ?? 2);
const threads = 2;

async function time(label, mediaPath, range, language, checkLanguage) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-lang-'));
  try {
    let detected = null;
    const t0 = performance.now();
    const t = await createTranscriber({ dataDir, threads }).transcribe({
      mediaPath, range, language, checkLanguage, onLanguageDetected: (d) => { detected = d; },
    });
    const s = (performance.now() - t0) / 1000;
    const det = detected ? `${detected.language} p=${detected.probability.toFixed(3)}` : '-';
    console.log(`${label}\t${s.toFixed(1)} s\tmodel ${t.model}\tlanguage ${t.language}\tdetection ${det}\twords ${t.words.length}`);
    return s;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const range = { start: 0, end: 60 };
for (let r = 0; r < rounds; r++) {
  // Alternated, so a noisy neighbour slows both cases alike.
  await time('english en, no detection (before issue 11)', sample, range, 'en', false);
  await time('english en + advisory detection (requests now)', sample, range, 'en', true);
  await time('english auto (detect, then the main model)', sample, range, 'auto', false);
}
if (spanish) {
  await time('spanish es (multilingual model)', spanish, { start: 0, end: 30 }, 'es', false);
  await time('spanish es + advisory detection', spanish, { start: 0, end: 30 }, 'es', true);
  await time('spanish auto', spanish, { start: 0, end: 30 }, 'auto', false);
  await time('spanish named en (warning case)', spanish, { start: 0, end: 30 }, 'en', true);
}
