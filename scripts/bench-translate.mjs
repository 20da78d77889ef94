#!/usr/bin/env node
// English captions for Spanish speech with no translation service (issue 11, part 5): what the
// transcriber's translate task costs next to transcription itself, on real recorded Spanish prompts
// (Debian asterisk-core-sounds-es-wav: demo-congrats + demo-instruct, 126 s), and the phrases it gives
// with their times snapped onto the Spanish words. Needs `npm run build`; models from SHORTS_WHISPER_MODEL
// and SHORTS_WHISPER_MULTILINGUAL_MODEL, defaulting to ../shared/models beside this checkout.
// Usage: node scripts/bench-translate.mjs [seconds ...]   (default 60 120)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const models = path.resolve(root, '..', 'shared', 'models');
process.env.SHORTS_WHISPER_MODEL ??= path.join(models, 'ggml-tiny.en-q8_0.bin');
process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL ??= path.join(models, 'ggml-base-q5_1.bin');
const { createTranscriber } = await import(path.join(root, 'dist', 'pipeline', 'transcribe', 'transcribe.js'));
const { snapPhrases } = await import(path.join(root, 'dist', 'pipeline', 'transcribe', 'whisper-translate.js'));

const PROMPTS = '/usr/share/asterisk/sounds/es';
if (!existsSync(path.join(PROMPTS, 'demo-congrats.wav'))) {
  console.error('needs the Debian package asterisk-core-sounds-es-wav');
  process.exit(1);
}
const work = mkdtempSync(path.join(os.tmpdir(), 'bench-translate-'));
const wav = path.join(work, 'es.wav');
execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', path.join(PROMPTS, 'demo-congrats.wav'), '-i', path.join(PROMPTS, 'demo-instruct.wav'),
  '-filter_complex', '[0]aresample=16000,apad=pad_dur=1[a];[1]aresample=16000[b];[a][b]concat=n=2:v=0:a=1', '-ac', '1', wav]);

const lengths = process.argv.slice(2).map(Number).filter((n) => n > 0);
const rows = [];
try {
  for (const seconds of lengths.length ? lengths : [60, 120]) {
    // A fresh data dir per length: nothing comes from the transcript cache.
    const transcriber = createTranscriber({ dataDir: mkdtempSync(path.join(work, 'data-')) });
    const range = { start: 0, end: seconds };
    let t0 = performance.now();
    const transcript = await transcriber.transcribe({ mediaPath: wav, range, language: 'es' });
    const transcribe = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const phrases = await transcriber.translateToEnglish({ mediaPath: wav, range, language: 'es' });
    const translate = (performance.now() - t0) / 1000;
    const snapped = snapPhrases(phrases, transcript.words, range);
    rows.push({ seconds, transcribe, translate, phrases: snapped.length, model: transcript.model, sample: snapped.slice(0, 3) });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log(`Spanish speech, language es, captionLanguage en, no translation service; ${os.availableParallelism()} threads\n`);
console.log('| Audio | Model | Transcription (x real time) | Translate task (x real time) | English phrases |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.seconds} s | ${r.model} | ${r.transcribe.toFixed(1)} s (${(r.seconds / r.transcribe).toFixed(1)}x) | ` +
    `${r.translate.toFixed(1)} s (${(r.seconds / r.translate).toFixed(1)}x) | ${r.phrases} |`);
}
console.log('\nFirst phrases (times snapped onto the Spanish words):');
for (const p of rows[0].sample) console.log(`- ${p.start.toFixed(2)}-${p.end.toFixed(2)} s: "${p.text}"`);
