// Words, sentences and caption phrasing of scripts without spaces and right-to-left scripts on real
// speech (issue 11): espeak-ng speech in Chinese, Japanese, Arabic and Hebrew, transcribed by the
// project's own transcriber (dist/, so `npm run build` first) with the multilingual base model, and
// what the text stages make of it: words (count, longest, mojibake), sentences, caption pages.
// Usage: node scripts/bench-scripts.mjs [path/to/ggml-multilingual.bin] [path/to/dist]
// (defaults ../shared/models/ggml-base-q5_1.bin and this checkout's dist/; another dist compares builds)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.argv[3] ?? path.join(root, 'dist'));
/** A module of the build: where this layout has it, else straight in the folder above (a build from before the pipeline's stage folders). */
const distModule = (...parts) => {
  const full = path.join(dist, ...parts);
  return existsSync(full) ? full : path.join(dist, ...parts.slice(0, -2), parts.at(-1));
};
const { createTranscriber } = await import(distModule('pipeline', 'transcribe', 'transcribe.js'));
const { buildCues, buildAss } = await import(distModule('pipeline', 'captions', 'captions.js'));
const { DEFAULT_TEMPLATE } = await import(path.join(dist, 'catalog', 'templates.js'));
const model = process.argv[2] ?? path.resolve(root, '..', 'shared', 'models', 'ggml-base-q5_1.bin');

// Debian's espeak-ng `cmn` voice has no dictionary for Han characters (it reads them as English-spelled
// pinyin with tone digits), so Chinese is voiced from pinyin with the cmn-latn-pinyin voice.
const SAMPLES = [
  { lang: 'zh', voice: 'cmn-latn-pinyin', text: '今天天气很好。我们一起去公园散步吧！你想喝咖啡还是喝茶？',
    spoken: 'jin1 tian1 tian1 qi4 hen3 hao3. wo3 men5 yi4 qi3 qu4 gong1 yuan2 san4 bu4 ba5! ni3 xiang3 he1 ka1 fei1 hai2 shi4 he1 cha2?' },
  { lang: 'ja', voice: 'ja', text: '今日はとてもいい天気です。私たちは市場へ果物と野菜を買いに行きます。',
    spoken: 'きょうはとてもいいてんきです。わたしたちはいちばへくだものとやさいをかいにいきます。' },
  { lang: 'ar', voice: 'ar', text: 'مرحبا بكم في هذا البرنامج. اليوم سنتحدث عن التعليم والثقافة في العالم العربي.' },
  { lang: 'he', voice: 'he', text: 'שלום לכולם. היום אנחנו מדברים על החינוך והתרבות בישראל.' },
];

const work = mkdtempSync(path.join(os.tmpdir(), 'bench-scripts-'));
try {
  const transcriber = createTranscriber({ dataDir: work, model, threads: os.availableParallelism() });
  console.log('| Language | Audio s | Transcribe s | Words | Median word s | Longest word s | U+FFFD | Sentences | Caption pages | Transcript |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of SAMPLES) {
    const raw = path.join(work, `${s.lang}.raw.wav`), wav = path.join(work, `${s.lang}.wav`);
    execFileSync('espeak-ng', ['-v', s.voice, '-s', '140', '-w', raw, s.spoken ?? s.text]);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', raw, '-ar', '16000', '-ac', '1', wav]);
    const seconds = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', wav]).toString());
    const t0 = performance.now();
    const t = await transcriber.transcribe({ mediaPath: wav, range: { start: 0, end: seconds }, language: s.lang });
    const took = (performance.now() - t0) / 1000;
    const d = t.words.map((w) => w.end - w.start).sort((a, b) => a - b);
    const cues = buildCues(t.words, { start: 0, end: seconds }, { wordsPerCue: DEFAULT_TEMPLATE.wordsPerLine * DEFAULT_TEMPLATE.maxLines });
    const pages = new Set(buildAss(cues, DEFAULT_TEMPLATE, { width: 1080, height: 1920 }).split('\n').filter((l) => l.startsWith('Dialogue:'))
      .map((l) => l.split(',').slice(9).join(',').replace(/\{[^}]*\}/g, '').replace(/\u200f/g, ''))).size;
    console.log(`| ${s.lang} | ${seconds.toFixed(1)} | ${took.toFixed(1)} | ${t.words.length} | ${(d[Math.floor(d.length / 2)] ?? 0).toFixed(2)} | ${(d[d.length - 1] ?? 0).toFixed(2)} | ` +
      `${t.words.filter((w) => w.text.includes('\uFFFD')).length} | ${t.sentences.length} | ${pages} | ${t.sentences.map((x) => x.sentence).join(' / ')} |`);
    console.log(`|  |  |  | ${t.words.map((w) => `${w.text}@${w.start.toFixed(2)}`).join(' ')} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
