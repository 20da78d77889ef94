#!/usr/bin/env node
// `npm run bench:transcribe` (issue 10): which whisper.cpp decoding and which word-time alignment keep the
// words and their times. Every configuration decodes the same real recordings whose truth is known:
//   WER       LibriVox utterances (pocketsphinx-testdata), JFK, Allison's prompts (asterisk-core-sounds-en),
//             and a "burst" source: speech, ~6 s of a real pig squeal (gcompris-qt-data), more speech.
//   onsets    "assembled": LibriVox and Allison recordings placed at known offsets with silence between
//             (truth = offset + the file's own leading silence, measured from its samples), the burst
//             source's utterances after the burst, and Festival speech (SLT voice) whose own Segment
//             times give every word's onset.
//   speed     real-time factor of recognition alone on the 180 s narration over music (openboard-common
//             wannaworktogether.mp4), or assets/sample/talk.mp4 looped when that package is missing.
// Needs `npm run build`. Prints a Markdown table (also bench-out/transcribe.md).
// Options: --reuse (take whisper JSON from an earlier run, for alignment work; speed then is "-"),
//          --only=name,name (decoding configurations), --no-rtf, --max-shift=S (forced-align.ts guard),
//          --detail=decoding|word times (every word to stderr; keeps the aligner work folders).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { festivalWithWordTimes } from './festival-words.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'bench-out');
const work = path.join(out, 'transcribe');
mkdirSync(work, { recursive: true });
const dist = (p) => import(path.join(root, 'dist', p));
const { whisperCliPath, runWhisperCli, wordsFromWhisperJson, dtwPresetFor } = await dist('pipeline/transcribe/whisper-cli.js');
const { wavSamples } = await dist('pipeline/transcribe/transcribe.js');
const { energyEnvelope, refineOnsets, spreadOverSpeech, DEFAULT_ONSET_OPTIONS } = await dist('pipeline/transcribe/onset-align.js');
const { buildCues } = await dist('pipeline/captions/captions.js');
const { findForcedAligner, forceAlign } = await dist('pipeline/transcribe/forced-align.js');
const ALIGNER = findForcedAligner();
const { DEFAULT_TEMPLATE } = await dist('catalog/templates.js');
const WORDS_PER_PAGE = DEFAULT_TEMPLATE.wordsPerLine * DEFAULT_TEMPLATE.maxLines;
const ffmpeg = process.env.SHORTS_FFMPEG ?? 'ffmpeg';
const args = process.argv.slice(2);
const REUSE = args.includes('--reuse');
const NO_RTF = args.includes('--no-rtf');
const DETAIL = args.find((a) => a.startsWith('--detail='))?.slice(9);
const MAX_SHIFT = args.find((a) => a.startsWith('--max-shift='))?.slice(12) ? Number(args.find((a) => a.startsWith('--max-shift=')).slice(12)) : undefined;
const ONLY = args.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const MODEL = process.env.SHORTS_WHISPER_MODEL ?? path.resolve(root, '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');
const MODEL_NAME = path.basename(MODEL).replace(/^ggml-/, '').replace(/\.bin$/, '');
const THREADS = os.availableParallelism();
const SR = 16_000;

// ---------------------------------------------------------------- sources with known truth
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const ALLISON = '/usr/share/asterisk/sounds/en_US_f_Allison';
const ALLISON_TEXT = '/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz';
const JFK = path.resolve(root, '..', 'shared', 'media', 'jfk.wav');
const JFK_TEXT = 'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';
const FARM_RCC = '/usr/share/gcompris-qt/rcc/explore_farm_animals.rcc';
const NARRATION = '/usr/share/openboard/library/videos/wannaworktogether.mp4';

const sh = (cmd, a, opts = {}) => execFileSync(cmd, a, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26, ...opts });
const cached = (name, make) => {
  const file = path.join(work, name);
  if (!existsSync(file)) {
    const tmp = `${file}.tmp${path.extname(file)}`;
    make(tmp);
    renameSync(tmp, file);
  }
  return file;
};
/** Any audio file as 16 kHz mono 16-bit samples. */
const pcm = (file) => wavSamples(readFileSync(cached(`${createHash('sha1').update(file).digest('hex').slice(0, 10)}-${path.basename(file)}.wav`,
  (tmp) => sh(ffmpeg, ['-v', 'error', '-y', '-i', file, '-ac', '1', '-ar', String(SR), '-c:a', 'pcm_s16le', tmp]))));
function writeWav(file, samples) {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1'); h.writeUInt32LE(36 + samples.length * 2, 4); h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16); h.writeUInt16LE(1, 20); h.writeUInt16LE(1, 22); h.writeUInt32LE(SR, 24); h.writeUInt32LE(SR * 2, 28);
  h.writeUInt16LE(2, 32); h.writeUInt16LE(16, 34); h.write('data', 36, 'latin1'); h.writeUInt32LE(samples.length * 2, 40);
  writeFileSync(file, Buffer.concat([h, Buffer.from(samples.buffer, samples.byteOffset, samples.length * 2)]));
}
const rms = (s) => Math.sqrt(s.reduce((a, v) => a + (v / 32768) ** 2, 0) / Math.max(1, s.length));

/** Seconds of leading silence of a recording: first 10 ms frame within 30 dB of its loudest frames. */
function leadingSilence(samples) {
  const frame = SR / 100;
  const db = [];
  for (let i = 0; i + frame <= samples.length; i += frame) db.push(10 * Math.log10(rms(samples.subarray(i, i + frame)) ** 2 + 1e-12));
  const loud = [...db].sort((a, b) => a - b)[Math.floor(db.length * 0.95)];
  const floor = [...db].sort((a, b) => a - b)[Math.floor(db.length * 0.05)];
  const threshold = Math.max(floor + 12, loud - 30);
  const f = db.findIndex((v) => v > threshold);
  return Math.max(0, f) * 0.01;
}

const librivox = readFileSync(path.join(LIBRIVOX, 'transcription'), 'utf8').trim().split('\n').map((line) => {
  const m = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim());
  return { file: path.join(LIBRIVOX, `${m[2]}.wav`), text: m[1] };
});
const allisonText = new Map(zlib.gunzipSync(readFileSync(ALLISON_TEXT)).toString('utf8').split('\n')
  .map((l) => /^([\w-]+): (.*)$/.exec(l)).filter(Boolean).map((m) => [m[1], m[2].replace(/\([^)]*\)|\[[^\]]*\]/g, '').trim()]));
// Prompts of whole sentences without digits or bracketed sound descriptions (Whisper writes digits as numerals).
const ALLISON_PROMPTS = ['agent-newlocation', 'all-circuits-busy-now', 'cannot-complete-as-dialed', 'check-number-dial-again',
  'conf-getpin', 'conf-onlyperson', 'conf-placeintoconf', 'dir-instr', 'pbx-invalid', 'privacy-unident', 'vm-goodbye',
  'vm-incorrect', 'vm-nobodyavail', 'vm-reenterpassword', 'vm-sorry'].filter((n) => existsSync(path.join(ALLISON, `${n}.wav`)) && allisonText.has(n))
  .map((n) => ({ file: path.join(ALLISON, `${n}.wav`), text: allisonText.get(n) }));

/** Utterances laid end to end at known offsets with low noise over all of it (a real room is never digital zero). */
function assemble(name, parts) {
  const pieces = [];
  let t = 0;
  const truth = [];
  const marks = {};
  for (const p of parts) {
    if (p.gap) { t += p.gap; continue; }
    if (p.mark) { marks[p.mark] = t; continue; }
    const s = p.samples ?? pcm(p.file);
    const gain = p.gain ?? 1;
    pieces.push({ at: Math.round(t * SR), s, gain });
    if (p.text) truth.push({ text: p.text, onset: t + leadingSilence(s), start: t, end: t + s.length / SR });
    t += s.length / SR;
  }
  const total = new Int16Array(Math.round(t * SR));
  let seed = 12345;
  // About -50 dBFS, the hiss level of the LibriVox recordings: the joins must not be audible steps.
  for (let i = 0; i < total.length; i++) { seed = (seed * 1103515245 + 12345) & 0x7fffffff; total[i] = Math.round(((seed / 0x7fffffff) - 0.5) * 200); }
  for (const { at, s, gain } of pieces) for (let i = 0; i < s.length && at + i < total.length; i++) total[at + i] = Math.max(-32768, Math.min(32767, total[at + i] + s[i] * gain));
  // Named by content, so caches keyed by path (and whisper output kept for --reuse) stay valid.
  const file = path.join(work, `${name}-${createHash('sha1').update(new Uint8Array(total.buffer)).digest('hex').slice(0, 10)}.wav`);
  if (!existsSync(file)) writeWav(file, total);
  return { name, file, duration: t, truth, marks };
}

/** The pig's squeal from GCompris's farm-animals activity: an Ogg file inside a Qt resource bundle. */
function pigSqueal() {
  return cached('pig.ogg', (tmp) => {
    const d = readFileSync(FARM_RCC);
    const tree = d.readUInt32BE(8), data = d.readUInt32BE(12), names = d.readUInt32BE(16);
    const entry = 22; // format version 2+: name, flags, country/lang or child count, data offset, mtime
    const nameAt = (off) => d.subarray(names + off + 6, names + off + 6 + 2 * d.readUInt16BE(names + off)).swap16().toString('utf16le');
    let found = null;
    const walk = (i) => {
      const e = tree + i * entry;
      const flags = d.readUInt16BE(e + 4);
      if (flags & 2) { const n = d.readUInt32BE(e + 6), first = d.readUInt32BE(e + 10); for (let c = first; c < first + n; c++) walk(c); return; }
      if (nameAt(d.readUInt32BE(e)) === 'pig.ogg') found = data + d.readUInt32BE(e + 10);
    };
    walk(0);
    if (found === null) throw new Error('pig.ogg not found in ' + FARM_RCC);
    writeFileSync(tmp, d.subarray(found + 4, found + 4 + d.readUInt32BE(found)));
  });
}

/** Festival's SLT voice with its own word start times (Segment relation), one utterance per text. */
function festival(name, text) {
  const wav = path.join(work, `${name}.wav`);
  return { name, file: wav, text, words: festivalWithWordTimes(text, wav, { sampleRate: SR, ffmpeg }) };
}

const FESTIVAL_TEXTS = [
  'The old lighthouse keeper walked slowly down the hill every evening. Nobody in the village knew his name, but everyone knew his lantern. ' +
  'One winter night the light did not come on, and the fishermen waited at the harbour until morning.',
  'Before you plant tomatoes, wait until the soil is warm. Dig a deep hole, add some compost, and water the young plants twice a week. ' +
  'If the leaves turn yellow, the roots are probably too wet.',
  'My sister bought a bicycle last summer and rode it to work for three months. Then she moved to a city with steep hills, ' +
  'sold the bicycle, and bought a small electric scooter instead. She says it was the best decision she ever made.',
];

function sources() {
  const set = {};
  set.librivox = librivox.map((u, i) => ({ name: `librivox-${i}`, file: u.file, text: u.text }));
  set.jfk = [{ name: 'jfk', file: JFK, text: JFK_TEXT }];
  const allison = assemble('allison', ALLISON_PROMPTS.flatMap((p) => [p, { gap: 1.0 }]));
  set.allison = [{ name: 'allison', file: allison.file, text: allison.truth.map((t) => t.text).join(' '), utterances: allison.truth }];
  const gaps = [1.3, 2.1, 1.6, 2.8, 1.2, 2.4, 1.9, 3.0, 1.5, 2.2];
  const parts = [{ gap: 0.8 }];
  [...librivox, ...ALLISON_PROMPTS.slice(0, 5)].forEach((u, i) => parts.push(u, { gap: gaps[i % gaps.length] }));
  const assembled = assemble('assembled', parts);
  set.assembled = [{ name: 'assembled', file: assembled.file, text: assembled.truth.map((t) => t.text).join(' '), utterances: assembled.truth }];
  // Speech, ~6 s of squealing 6 dB louder than the speech, then half a minute more speech.
  const pig = pcm(pigSqueal());
  const speechLevel = rms(pcm(librivox[0].file));
  const burst = assemble('burst', [
    { gap: 0.5 }, librivox[0], { gap: 0.6 }, librivox[1], { gap: 0.6 }, librivox[2], { gap: 0.4 },
    { samples: pig, gain: (2 * speechLevel) / rms(pig) }, { mark: 'burstEnd' }, { gap: 0.4 },
    librivox[3], { gap: 0.6 }, librivox[4], { gap: 0.8 }, { file: JFK, text: JFK_TEXT }, { gap: 0.6 },
    ...ALLISON_PROMPTS.slice(5, 10).flatMap((p) => [p, { gap: 0.7 }]),
  ]);
  set.burst = [{ name: 'burst', file: burst.file, text: burst.truth.map((t) => t.text).join(' '), utterances: burst.truth, burstEnd: burst.marks.burstEnd }];
  set.festival = FESTIVAL_TEXTS.map((t, i) => festival(`festival-${i}`, t));
  return set;
}

// ---------------------------------------------------------------- scoring
const norm = (text) => text.toLowerCase().replace(/[’‘]/g, "'").replace(/[^\p{L}\p{N}'\s-]+/gu, ' ')
  .replace(/(^|\s)['-]+|['-]+(?=\s|$)/g, ' ').replace(/-/g, ' ').split(/\s+/).filter(Boolean);

/** Levenshtein alignment of reference to hypothesis tokens: edit count and, per reference index, the matched hypothesis index. */
function align(ref, hyp) {
  const n = ref.length, m = hyp.length;
  const d = Array.from({ length: n + 1 }, (_, i) => Int32Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) for (let j = 1; j <= m; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
  const match = new Array(n).fill(-1);
  let i = n, j = m;
  while (i > 0 && j > 0) {
    if (d[i][j] === d[i - 1][j - 1] + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) { if (ref[i - 1] === hyp[j - 1]) match[i - 1] = j - 1; i--; j--; }
    else if (d[i][j] === d[i - 1][j] + 1) i--;
    else j--;
  }
  return { edits: d[n][m], match };
}

/** Hypothesis words as normalised tokens, each with the start of the word it came from. */
function tokens(words) {
  const out = [];
  words.forEach((w, word) => { for (const t of norm(w.text)) out.push({ t, start: w.start, word }); });
  return out;
}

/**
 * How late each caption page of the default template appears against the true onset of its first
 * word (pages whose first word was recognised and has a known onset): a page shows at its first word's start.
 */
function pageLateness(words, hyp, match, onsetOfRef, duration) {
  const refOfWord = new Map();
  match.forEach((h, r) => { if (h >= 0 && !refOfWord.has(hyp[h].word)) refOfWord.set(hyp[h].word, r); });
  const out = [];
  let w = 0;
  for (const cue of buildCues(words, { start: 0, end: duration }, { wordsPerCue: WORDS_PER_PAGE })) {
    // buildCues keeps the words' order: find this page's first word among ours.
    while (w < words.length && Math.abs(words[w].start - cue.words[0].start) > 0.0015) w++;
    const r = refOfWord.get(w);
    const onset = r === undefined ? undefined : onsetOfRef(r);
    if (onset !== undefined) out.push(cue.start - onset);
  }
  return out;
}

const quantile = (a, q) => { if (!a.length) return NaN; const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const median = (a) => quantile(a, 0.5);

// ---------------------------------------------------------------- configurations
const DECODINGS = [
  { name: 'greedy (old)', decoding: { beamSize: 1, bestOf: 1, temperatureFallback: true, dtwPreset: null } },
  { name: 'greedy, no fallback', decoding: { beamSize: 1, bestOf: 1, temperatureFallback: false, dtwPreset: null } },
  { name: 'beam 2', decoding: { beamSize: 2, bestOf: 2, temperatureFallback: true, dtwPreset: null } },
  { name: 'beam 3', decoding: { beamSize: 3, bestOf: 3, temperatureFallback: true, dtwPreset: null } },
  { name: 'beam 5 (whisper.cpp default)', decoding: { beamSize: 5, bestOf: 5, temperatureFallback: true, dtwPreset: null } },
  { name: 'greedy + DTW', decoding: { beamSize: 1, bestOf: 1, temperatureFallback: true, dtwPreset: dtwPresetFor(MODEL_NAME) } },
  { name: 'beam 3 + DTW', decoding: { beamSize: 3, bestOf: 3, temperatureFallback: true, dtwPreset: dtwPresetFor(MODEL_NAME) } },
  { name: 'beam 5 + DTW', decoding: { beamSize: 5, bestOf: 5, temperatureFallback: true, dtwPreset: dtwPresetFor(MODEL_NAME) } },
].filter((c) => !ONLY || ONLY.some((o) => c.name.startsWith(o)));

/** Word-time alignments: how words get their start from one decoding's JSON. */
const ALIGNMENTS = [
  { name: 'token offsets', timing: 'offsets', refine: false },
  { name: 'offsets + nearest rise', timing: 'offsets', refine: { maxForward: 0 } },
  { name: 'offsets + rise, forward from silence', timing: 'offsets', refine: {} },
  { name: 'spread over segment speech', timing: 'offsets', refine: false, spread: true },
  { name: 'spread over segment speech + nearest rise', timing: 'offsets', refine: { maxForward: 0 }, spread: true },
  { name: 'spread + rise, forward from silence', timing: 'offsets', refine: {}, spread: true },
  { name: 'forced alignment (pocketsphinx), after spread + rise', timing: 'offsets', refine: {}, spread: true, forced: true },
  { name: 'forced alignment (pocketsphinx) + nearest rise', timing: 'offsets', refine: {}, spread: true, forced: { maxForward: 0 } },
  { name: 'DTW (own token)', timing: 'dtw-own', refine: false, dtw: true },
  { name: 'DTW (token before)', timing: 'dtw-prev', refine: false, dtw: true },
  { name: 'DTW (token before) + nearest rise', timing: 'dtw-prev', refine: { maxForward: 0 }, dtw: true },
  { name: 'DTW (token before) + rise, forward from silence', timing: 'dtw-prev', refine: {}, dtw: true },
];

const bin = whisperCliPath();
async function decode(config, src) {
  const { size, mtimeMs } = statSync(src.file);
  const key = createHash('sha1').update(JSON.stringify([config.decoding, src.file, size, mtimeMs, MODEL])).digest('hex').slice(0, 12);
  const base = path.join(work, `json-${key}`);
  if (REUSE && existsSync(`${base}.json`)) return { json: JSON.parse(readFileSync(`${base}.json`, 'latin1')), seconds: NaN };
  const t0 = performance.now();
  const json = await runWhisperCli(bin, { modelPath: MODEL, wavPath: cached(`${path.basename(src.file, path.extname(src.file))}-${createHash('sha1').update(src.file).digest('hex').slice(0, 8)}.16k.wav`,
    (tmp) => sh(ffmpeg, ['-v', 'error', '-y', '-i', src.file, '-ac', '1', '-ar', String(SR), '-c:a', 'pcm_s16le', tmp])), language: 'en', threads: THREADS, outputBase: base, decoding: config.decoding });
  return { json, seconds: (performance.now() - t0) / 1000 };
}

const alignCpu = { seconds: 0, audio: 0, segments: 0, aligned: 0, outOfDictionary: 0, failed: 0 };
async function wordsOf(json, src, alignment) {
  const samples = pcm(src.file);
  const range = { start: 0, end: samples.length / SR };
  const env = energyEnvelope(samples, SR);
  const spans = [];
  let count = 0;
  let words = wordsFromWhisperJson(json, range, { timing: alignment.timing, segmentAligner: alignment.spread ? (ws, seg) => {
    spans.push({ first: count, count: ws.length, segment: seg });
    count += ws.length;
    return spreadOverSpeech(ws, seg, env, 0);
  } : undefined });
  if (alignment.refine) words = refineOnsets(words, env, 0, { ...DEFAULT_ONSET_OPTIONS, ...alignment.refine });
  if (alignment.forced && ALIGNER) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-align-'));
    const cpu0 = process.cpuUsage();
    const child0 = childCpu();
    try {
      const r = await forceAlign(words, spans, samples, SR, { aligner: ALIGNER, workDir: dir, maxShift: MAX_SHIFT });
      words = r.words;
      if (DETAIL && alignment.name.includes('after spread')) console.error('align', src.name, JSON.stringify(r.stats), dir);
      if (alignment.name.includes('after spread')) {
        const c = process.cpuUsage(cpu0);
        alignCpu.seconds += (c.user + c.system) / 1e6 + childCpu() - child0;
        alignCpu.audio += samples.length / SR;
        for (const k of ['segments', 'aligned', 'outOfDictionary', 'failed']) alignCpu[k] += r.stats[k];
      }
    } finally {
      if (!DETAIL) rmSync(dir, { recursive: true, force: true });
    }
    if (alignment.forced !== true) words = refineOnsets(words, env, 0, { ...DEFAULT_ONSET_OPTIONS, ...alignment.forced });
  }
  return words;
}
/** CPU seconds used by finished children of this process (pocketsphinx_batch), from /proc. */
function childCpu() {
  const f = readFileSync('/proc/self/stat', 'utf8').slice(readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

const set = sources();
const rows = [];
for (const config of DECODINGS) {
  const jsons = new Map();
  const errs = {};
  for (const [setName, list] of Object.entries(set)) for (const src of list) jsons.set(src.name, (await decode(config, src)).json);
  let rtf = NaN;
  if (!NO_RTF && !REUSE) {
    const long = existsSync(NARRATION) ? { name: 'narration', file: NARRATION } : { name: 'talk', file: path.join(root, 'assets', 'sample', 'talk.mp4') };
    const seconds = pcm(long.file).length / SR;
    const { seconds: took } = await decode(config, long);
    rtf = seconds / took;
  }
  for (const alignment of ALIGNMENTS) {
    if (alignment.dtw && !config.decoding.dtwPreset) continue;
    const wer = {};
    const onsetErr = { festival: [], assembled: [], burst: [] };
    const pages = [];
    const realPages = [];
    let droppedAfterBurst = 0, afterBurstWords = 0, burstDrift = 0;
    for (const [setName, list] of Object.entries(set)) {
      let edits = 0, refWords = 0;
      for (const src of list) {
        const words = await wordsOf(jsons.get(src.name), src, alignment);
        const hyp = tokens(words);
        const ref = norm(src.text);
        const { edits: e, match } = align(ref, hyp.map((h) => h.t));
        edits += e; refWords += ref.length;
        if (setName === 'festival') {
          // Festival's words are the reference tokens one to one (texts without numbers or hyphens).
          src.words.forEach((w, i) => { if (match[i] >= 0) onsetErr.festival.push(hyp[match[i]].start - w.onset); });
          pages.push(...pageLateness(words, hyp, match, (r) => src.words[r]?.onset, pcm(src.file).length / SR));
          if (DETAIL && `${config.name}|${alignment.name}`.startsWith(DETAIL)) console.error(src.name, src.words.map((w, i) => `${w.text}@${w.onset.toFixed(2)}:${match[i] >= 0 ? Math.round(1000 * (hyp[match[i]].start - w.onset)) : 'x'}`).join(' '));
        }
        if (src.utterances) {
          const firstRef = new Map();
          src.utterances.reduce((at, u) => { firstRef.set(at, u.onset); return at + norm(u.text).length; }, 0);
          if (setName === 'assembled') realPages.push(...pageLateness(words, hyp, match, (r) => firstRef.get(r), pcm(src.file).length / SR));
          let at = 0;
          for (const u of src.utterances) {
            const n = norm(u.text).length;
            const first = match[at];
            const after = setName === 'burst' && u.start >= src.burstEnd;
            if (after) {
              afterBurstWords += n;
              for (let k = at; k < at + n; k++) if (match[k] < 0) droppedAfterBurst++;
            }
            if (first >= 0 && (setName === 'assembled' || after)) {
              const err = hyp[first].start - u.onset;
              if (DETAIL && `${config.name}|${alignment.name}`.startsWith(DETAIL)) console.error(src.name, u.text.slice(0, 30), u.onset.toFixed(2), Math.round(1000 * err));
              onsetErr[setName].push(err);
              if (after) burstDrift = Math.max(burstDrift, Math.abs(err));
            }
            at += n;
          }
        }
      }
      wer[setName] = edits / refWords;
    }
    const all = [...onsetErr.festival, ...onsetErr.assembled, ...onsetErr.burst];
    const abs = (a) => a.map(Math.abs);
    rows.push({
      decoding: config.name, alignment: alignment.name, wer, rtf,
      festMed: median(abs(onsetErr.festival)), festP90: quantile(abs(onsetErr.festival), 0.9), festBias: median(onsetErr.festival),
      asmMed: median(abs(onsetErr.assembled)), asmP90: quantile(abs(onsetErr.assembled), 0.9),
      allMed: median(abs(all)), allP90: quantile(abs(all), 0.9),
      pageMed: median(pages), pageWithin150: pages.filter((p) => Math.abs(p) <= 0.15).length / Math.max(1, pages.length), pages: pages.length,
      realPageMed: median(realPages), realPageWithin150: realPages.filter((p) => Math.abs(p) <= 0.15).length / Math.max(1, realPages.length), realPages: realPages.length,
      droppedAfterBurst, afterBurstWords, burstDrift,
    });
  }
}

const pct = (v) => (Number.isFinite(v) ? (100 * v).toFixed(1) : '-');
const ms = (v) => (Number.isFinite(v) ? String(Math.round(1000 * v)) : '-');
const header = '| decoding | word times | WER LibriVox | WER JFK | WER Allison | WER assembled | WER burst | dropped after burst | worst onset after burst (ms) | Festival onset median / p90 / bias (ms) | assembled onset median / p90 (ms) | all onsets median / p90 (ms) | Festival caption pages: median lateness (ms), share within 150 ms | LibriVox + Allison pages that open an utterance: the same | speed (x real time) |';
const lines = [header, `|${'---|'.repeat(15)}`];
for (const r of rows) {
  lines.push(`| ${r.decoding} | ${r.alignment} | ${pct(r.wer.librivox)} | ${pct(r.wer.jfk)} | ${pct(r.wer.allison)} | ${pct(r.wer.assembled)} | ${pct(r.wer.burst)} | ` +
    `${r.droppedAfterBurst} of ${r.afterBurstWords} | ${ms(r.burstDrift)} | ${ms(r.festMed)} / ${ms(r.festP90)} / ${ms(r.festBias)} | ${ms(r.asmMed)} / ${ms(r.asmP90)} | ${ms(r.allMed)} / ${ms(r.allP90)} | ${ms(r.pageMed)}, ${Math.round(100 * r.pageWithin150)} % of ${r.pages} | ${ms(r.realPageMed)}, ${Math.round(100 * r.realPageWithin150)} % of ${r.realPages} | ${Number.isFinite(r.rtf) ? r.rtf.toFixed(1) : '-'} |`);
}
if (alignCpu.audio) lines.push('', `Forced alignment: ${alignCpu.aligned} of ${alignCpu.segments} segments aligned (${alignCpu.outOfDictionary} with a word not in the dictionary, ${alignCpu.failed} failed); ` +
  `${alignCpu.seconds.toFixed(1)} CPU s for ${alignCpu.audio.toFixed(0)} s of audio = ${(60 * alignCpu.seconds / alignCpu.audio).toFixed(2)} CPU s per minute.`);
const table = lines.join('\n');
console.log(table);
writeFileSync(path.join(out, 'transcribe.md'), `${table}\n`);
writeFileSync(path.join(out, 'transcribe.json'), JSON.stringify(rows, null, 1));
