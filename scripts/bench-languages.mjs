#!/usr/bin/env node
// `npm run bench:languages` (issue 11): transcription speed and accuracy per spoken language with the
// shipped models on the project's own transcriber (dist/pipeline/transcribe/transcribe.js: whisper.cpp beam 5 with
// temperature fallback, then the word-time alignment). Speech with known text from
// scripts/language-speech.mjs: real recorded prompts (Spanish, French, Italian, Russian), Festival voices
// (Italian, Catalan, Czech, Finnish, Russian, Hindi, Marathi, Telugu, English), espeak-ng (German, Chinese,
// Japanese, Arabic, Hebrew); English also as JFK's real recording.
//
// Per language, with the models as shipped (createTranscriber: the English-only main model SHORTS_WHISPER_MODEL,
// default the shared tiny.en-q8_0, for English; the multilingual SHORTS_WHISPER_MULTILINGUAL_MODEL, default
// the shared base-q5_1, for every other language and for detection) on --threads (default 2) threads:
//   named   the language given: WER (CER for Chinese and Japanese), x real time by wall clock and by CPU time
//   auto    language "auto": the language detected (whisper-cli -dl on the 30 s with the most speech, its
//           probability p), and the error rate of the transcript made in it
// English also with base-q5_1 named, against tiny.en, as the reference. Needs `npm run build` and the Debian
// packages of .ci/run. Prints a Markdown table (also bench-out/languages.md, .json with every transcript).
// Options: --only=en,es,it-festival (sample ids)  --threads=N
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LANGUAGE_SAMPLES, errorRate, languageSpeech, sampleText, wavSeconds } from './language-speech.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'bench-out');
mkdirSync(out, { recursive: true });
const { createTranscriber } = await import(path.join(root, 'dist', 'pipeline', 'transcribe', 'transcribe.js'));

const args = process.argv.slice(2);
const opt = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ONLY = opt('only')?.split(',');
const THREADS = Number(opt('threads') ?? 2);
const models = path.resolve(root, '..', 'shared', 'models');
const MULTI = process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL ?? path.join(models, 'ggml-base-q5_1.bin');
const ENGLISH = process.env.SHORTS_WHISPER_MODEL ?? path.join(models, 'ggml-tiny.en-q8_0.bin');
const modelName = (p) => path.basename(p).replace(/^ggml-/, '').replace(/\.bin$/, '');
const JFK = path.resolve(root, '..', 'shared', 'media', 'jfk.wav');
const JFK_TEXT = 'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';
const ENGLISH_SAMPLE = {
  id: 'en', lang: 'en', name: 'English', engine: 'festival', voice: 'voice_cmu_us_slt_arctic_hts', encoding: 'UTF-8', packages: ['festvox-us-slt-hts'],
  text: 'Today the weather is beautiful and the sun is shining over the city. We are going to the market to buy fruit and vegetables. In the evening we have dinner with our friends.',
};

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-languages-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
// As shipped: the English-only main model for English, the multilingual one for every other language and
// for detection (src/pipeline/transcribe/model-choice.ts).
const shipped = createTranscriber({ dataDir, model: ENGLISH, multilingualModel: MULTI, threads: THREADS });
const multiOnly = createTranscriber({ dataDir, model: MULTI, multilingualModel: MULTI, threads: THREADS });

/**
 * CPU seconds used so far by this process and its finished children (whisper-cli, ffmpeg): on a shared
 * machine wall time measures the neighbours too, CPU time / threads is what the run would take alone.
 */
function cpuSeconds() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = process.cpuUsage();
  // Fields 16 and 17 of /proc/PID/stat (cutime, cstime), in clock ticks of 1/100 s.
  return (own.user + own.system) / 1e6 + (Number(f[13]) + Number(f[14])) / 100;
}

/** One transcription without the cache: its text, the language it reports, the detection, its speed. */
async function run(transcriber, wav, language) {
  const seconds = wavSeconds(wav);
  let detection = null;
  const t0 = performance.now(), c0 = cpuSeconds();
  const t = await transcriber.transcribe({ mediaPath: wav, range: { start: 0, end: seconds }, language, onLanguageDetected: (d) => { detection = d; } });
  const wall = (performance.now() - t0) / 1000, cpu = cpuSeconds() - c0;
  return { text: t.words.map((w) => w.text).join(' '), language: t.language, model: t.model, detection, rtf: seconds / wall, cpuRtf: seconds / (cpu / THREADS) };
}

const pct = (x) => `${(100 * x).toFixed(0)} %`;
const rows = [];
const samples = [ENGLISH_SAMPLE, ...LANGUAGE_SAMPLES].filter((s) => !ONLY || ONLY.includes(s.id));
for (const s of samples) {
  const wav = languageSpeech(s);
  const text = sampleText(s);
  const unit = s.script === 'chars' ? 'chars' : 'words';
  const named = await run(shipped, wav, s.lang);
  const auto = await run(shipped, wav, 'auto');
  const source = s.engine === 'asterisk' ? `recorded prompts (${s.voice})` : `${s.engine} ${s.voice.replace(/^voice_/, '')}`;
  const row = { id: s.id, lang: s.lang, name: s.name, source, seconds: wavSeconds(wav), unit, named: errorRate(text, named.text, unit), rtf: named.rtf, cpuRtf: named.cpuRtf,
    model: named.model, autoLang: auto.language, auto: errorRate(text, auto.text, unit), p: auto.detection?.probability ?? null, hypothesis: named.text, autoHypothesis: auto.text };
  rows.push(row);
  console.error(`${s.id}: ${unit === 'chars' ? 'CER' : 'WER'} ${pct(row.named)} at ${row.rtf.toFixed(1)}x (CPU ${row.cpuRtf.toFixed(1)}x); auto -> ${row.autoLang} (p ${row.p?.toFixed(2) ?? '?'}) ${pct(row.auto)}\n  ${named.text}`);
}

// English with the English-only default model, on the same Festival sentences and on JFK's recording.
const reference = [];
if (!ONLY || ONLY.includes('en')) {
  for (const [label, wav, text] of [['Festival slt_arctic_hts', languageSpeech(ENGLISH_SAMPLE), ENGLISH_SAMPLE.text], ['JFK (recorded)', JFK, JFK_TEXT]]) {
    const r = await run(shipped, wav, 'en');
    const m = await run(multiOnly, wav, 'en');
    reference.push({ label, seconds: wavSeconds(wav), english: errorRate(text, r.text), englishRtf: r.cpuRtf, multi: errorRate(text, m.text), multiRtf: m.cpuRtf });
  }
}

const lines = [
  `Models as shipped: ${modelName(ENGLISH)} for English, ${modelName(MULTI)} for every other language and for detection; ${THREADS} threads. x real time = audio seconds / wall seconds of the whole transcription`,
  `(ffmpeg, whisper.cpp, word timing); "CPU" = audio seconds / (CPU seconds / ${THREADS}), what the run takes with ${THREADS} cores to itself.`,
  '',
  '| Language | Speech | Audio | Model | Error, language named | x real time (wall / CPU) | `auto` detected | Error, auto | Detection p |',
  '|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.name} (${r.lang}) | ${r.source} | ${r.seconds.toFixed(1)} s | ${r.model} | ${r.unit === 'chars' ? 'CER' : 'WER'} ${pct(r.named)} | ${r.rtf.toFixed(1)}x / ${r.cpuRtf.toFixed(1)}x | ${r.autoLang}${r.autoLang === r.lang ? '' : ' (wrong)'} | ${pct(r.auto)} | ${r.p?.toFixed(2) ?? '-'} |`),
];
if (reference.length) {
  lines.push('', `English reference: the English-only default ${modelName(ENGLISH)} against ${modelName(MULTI)}, language named.`, '',
    `| English speech | Audio | WER ${modelName(ENGLISH)} | x real time (CPU) | WER ${modelName(MULTI)} | x real time (CPU) |`, '|---|---|---|---|---|---|',
    ...reference.map((r) => `| ${r.label} | ${r.seconds.toFixed(1)} s | ${pct(r.english)} | ${r.englishRtf.toFixed(1)}x | ${pct(r.multi)} | ${r.multiRtf.toFixed(1)}x |`));
}
const md = lines.join('\n');
console.log(md);
writeFileSync(path.join(out, 'languages.md'), `${md}\n`);
writeFileSync(path.join(out, 'languages.json'), JSON.stringify({ rows, reference }, null, 2));
