#!/usr/bin/env node
// `npm run bench`: speed and memory on a 10-minute 1080p talking source (issue 3's targets).
// Prints a Markdown report (also written to bench-out/results.md) for docs/benchmarks.md.
//   1. the whole `shorts create` (local mode, 5 clips, 1080x1920, captions): per-stage wall time, peak memory
//   2. transcription alone (whisper.cpp, the configured model): real-time factor
//   3. one 60 s 1080x1920 captioned clip through our renderer vs a bare ffmpeg crop+scale+encode
//   4. the naive baseline a user would script: one ffmpeg per clip decoding from the start, drawtext per word
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchSource } from './bench-source.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'bench-out');
mkdirSync(out, { recursive: true });
const env = { ...process.env };
const sharedModel = path.resolve(root, '..', 'shared', 'models', 'ggml-tiny.en-q8_0.bin');
if (!env.SHORTS_WHISPER_MODEL && existsSync(sharedModel)) env.SHORTS_WHISPER_MODEL = sharedModel;
process.env.SHORTS_WHISPER_MODEL = env.SHORTS_WHISPER_MODEL;
// A local file without --language has its language detected (issue 11), with the multilingual model.
const sharedMultilingual = path.resolve(root, '..', 'shared', 'models', 'ggml-base-q5_1.bin');
if (!env.SHORTS_WHISPER_MULTILINGUAL_MODEL && existsSync(sharedMultilingual)) env.SHORTS_WHISPER_MULTILINGUAL_MODEL = sharedMultilingual;
const ffmpeg = env.SHORTS_FFMPEG ?? 'ffmpeg';
const PRESET = env.SHORTS_X264_PRESET ?? 'veryfast';
const { DEFAULT_X264_PARAMS } = await import(path.join(root, 'dist', 'engine', 'render-settings.js'));
const X264_PARAMS = env.SHORTS_X264_PARAMS ?? (env.SHORTS_X264_PRESET ? '' : DEFAULT_X264_PARAMS);
const now = () => performance.now() / 1000;
const fmt = (s) => `${s.toFixed(1)} s`;

const source = benchSource(root, out, ffmpeg);
const SOURCE_SEC = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', source]).toString());
const RANGE_END = Math.min(600, Math.floor(SOURCE_SEC));

function timed(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const lines = [];
    const child = spawn('/usr/bin/time', ['-f', '%M', cmd, ...args], { env: opts.env ?? env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (b) => { stdout += b; });
    child.stderr.on('data', (b) => {
      stderr += b;
      for (const l of b.toString().split('\n')) if (l.trim()) lines.push([now() - t0, l.trim()]);
    });
    child.on('close', (code) => {
      const maxRssKb = Number(stderr.trim().split('\n').pop());
      if (code !== 0) return reject(new Error(`${cmd} failed (${code}): ${stderr.slice(-800)}`));
      resolve({ wall: now() - t0, stdout, lines, maxRssMb: maxRssKb / 1024 });
    });
  });
}

const report = [];
const line = (s = '') => { report.push(s); console.log(s); };
line(`# npm run bench — ${new Date().toISOString().slice(0, 10)}`);
line();
line(`Machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${execFileSync(ffmpeg, ['-version']).toString().split('\n')[0]}`);
line(`Model: ${path.basename(env.SHORTS_WHISPER_MODEL ?? 'tiny.en')}; x264 preset ${PRESET}${X264_PARAMS ? ` + ${X264_PARAMS}` : ''}; source ${path.relative(root, source)} (${fmt(SOURCE_SEC)}, 1920x1080 30 fps)`);
line();

// 1. Whole pipeline through the CLI, fresh data dir (no transcript cache).
const dataDir = path.join(out, 'data');
rmSync(dataDir, { recursive: true, force: true });
const clipsDir = path.join(out, 'clips');
rmSync(clipsDir, { recursive: true, force: true });
const full = await timed(process.execPath, [path.join(root, 'bin', 'shorts'), 'create', '--file', source, '--start', '0', '--end', String(RANGE_END),
  '--max-shorts', '5', '--preferred-length', 'under60sec', '--out', clipsDir, '--json'], { env: { ...env, SHORTS_DATA_DIR: dataDir } });
const detail = JSON.parse(full.stdout);
const at = (re) => full.lines.find(([, l]) => re.test(l))?.[0];
const tFetch = at(/Fetching video/) ?? 0, tTrans = at(/Analyzing video/), tHigh = at(/Finding interesting/), tFinal = at(/Finalizing data/);
const clips = detail.shorts.filter((s) => !s.error);
const clipSeconds = clips.reduce((a, s) => a + s.duration, 0);
line('## 1. `shorts create`, 10-minute range to 5 clips (1080x1920, Karaoke captions)');
line();
line('| Stage | Wall | Real-time factor |');
line('|---|---|---|');
line(`| fetch + probe | ${fmt(tTrans - tFetch)} | |`);
line(`| transcribe (whisper.cpp) | ${fmt(tHigh - tTrans)} | ${(RANGE_END / (tHigh - tTrans)).toFixed(1)}x |`);
line(`| highlights + write | ${fmt(tFinal - tHigh)} | |`);
line(`| reframe + captions + render (${clips.length} clips, ${fmt(clipSeconds)} of video) | ${fmt(full.wall - tFinal)} | ${(clipSeconds / (full.wall - tFinal)).toFixed(1)}x |`);
line(`| **total** (process start to exit) | **${fmt(full.wall)}** | ${(RANGE_END / full.wall).toFixed(1)}x of the range |`);
line();
line(`Peak memory (largest single process, /usr/bin/time): ${full.maxRssMb.toFixed(0)} MB. Clips: ${detail.shorts.map((s) => `${s.duration.toFixed(0)} s (score ${s.viral_score})`).join(', ')}.`);
line();

// 2. Transcription alone.
const { createTranscriber } = await import(path.join(root, 'dist', 'pipeline', 'transcribe', 'transcribe.js'));
const transcriber = createTranscriber({ dataDir: path.join(out, 'data-transcribe') });
rmSync(path.join(out, 'data-transcribe'), { recursive: true, force: true });
let t0 = now();
const transcript = await transcriber.transcribe({ mediaPath: source, range: { start: 0, end: RANGE_END }, language: 'en' });
const tTranscribe = now() - t0;
line('## 2. Transcription alone');
line();
line(`${fmt(RANGE_END)} of speech in ${fmt(tTranscribe)}: **${(RANGE_END / tTranscribe).toFixed(1)}x real time** (${transcript.words.length} words, ${transcript.sentences.length} sentences; target >= 10x with beam search and forced alignment, issue 10).`);
line();

// 3. One 60 s captioned clip vs a bare crop+scale+encode of the same range.
const { planReframe } = await import(path.join(root, 'dist', 'pipeline', 'reframe', 'reframe.js'));
const { buildCues, buildAss } = await import(path.join(root, 'dist', 'pipeline', 'captions', 'captions.js'));
const { DEFAULT_TEMPLATE, fontsDir } = await import(path.join(root, 'dist', 'catalog', 'templates.js'));
const { renderClip } = await import(path.join(root, 'dist', 'media', 'render.js'));
const { PLATFORM_LOUDNESS } = await import(path.join(root, 'dist', 'media', 'render-plan.js'));
const { probeMedia } = await import(path.join(root, 'dist', 'media', 'probe.js'));
const { info } = await probeMedia(source);
const clip = { start: 100, end: 160 };
t0 = now();
const reframe = await planReframe({ mediaPath: source, info, range: clip, layout: 'fill', output: { width: 1080, height: 1920 } });
const tReframe = now() - t0;
const assPath = path.join(out, 'bench.ass');
writeFileSync(assPath, buildAss(buildCues(transcript.words, clip, { wordsPerCue: DEFAULT_TEMPLATE.wordsPerLine * DEFAULT_TEMPLATE.maxLines }), DEFAULT_TEMPLATE, { width: 1080, height: 1920 }));
t0 = now();
await renderClip({ version: 1, input: { path: source, start: clip.start, end: clip.end, width: info.width, height: info.height, hasAudio: true },
  output: { path: path.join(out, 'ours-60s.mp4'), width: 1080, height: 1920, preset: PRESET, crf: 23, x264Params: X264_PARAMS || undefined }, reframe,
  background: { blur: true, color: '#000000' }, captions: { assPath, fontsDir: fontsDir() },
  // As shorts create renders it: measured first, then -14 LUFS / -1 dBTP in the same encode (issue 10).
  loudness: PLATFORM_LOUDNESS }, {});
const tOurs = now() - t0;
const cropW = Math.round((info.height * 9) / 16 / 2) * 2;
const bare = (params) => {
  const t = now();
  execFileSync(ffmpeg, ['-v', 'error', '-y', '-ss', String(clip.start), '-t', '60', '-i', source, '-vf', `crop=${cropW}:${info.height},scale=1080:1920`,
    '-c:v', 'libx264', '-preset', PRESET, '-crf', '23', ...(params ? ['-x264-params', params] : []), '-pix_fmt', 'yuv420p',
    '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', path.join(out, 'bare-60s.mp4')]);
  return now() - t;
};
const tBare = bare('');
const tBareTuned = X264_PARAMS ? bare(X264_PARAMS) : tBare;
line('## 3. One 60 s clip, 1080x1920');
line();
line('| Render | Wall |');
line('|---|---|');
line(`| face sampling + crop path (reframe) | ${fmt(tReframe)} |`);
line(`| ours: fill crop following the face + Karaoke captions (libass) + platform loudness, ${PRESET}${X264_PARAMS ? ` + ${X264_PARAMS}` : ''} | ${fmt(tOurs)} |`);
line(`| bare ffmpeg: static crop + scale + encode, plain ${PRESET} | ${fmt(tBare)} |`);
if (X264_PARAMS) line(`| bare ffmpeg: static crop + scale + encode, ${PRESET} + ${X264_PARAMS} | ${fmt(tBareTuned)} |`);
line();
line(`Ours / bare at the same settings: **${(tOurs / tBareTuned).toFixed(2)}x** (target <= 1.5x); ours / plain ${PRESET}: ${(tOurs / tBare).toFixed(2)}x; ours incl. reframe: ${fmt(tOurs + tReframe)} (target < 30 s).`);
line();

// 4. The naive baseline: one ffmpeg per clip with output seeking (decodes from 0) and drawtext per word.
const font = path.join(fontsDir(), DEFAULT_TEMPLATE.font.file);
t0 = now();
for (const [i, s] of clips.entries()) {
  const words = transcript.words.filter((w) => w.start >= s.startTimestamp && w.end <= s.endTimestamp);
  const draw = words.map((w) => `drawtext=fontfile=${font}:text='${w.text.replace(/[^A-Za-z0-9 ]/g, '')}':fontsize=80:fontcolor=white:borderw=5:x=(w-text_w)/2:y=h*0.7:enable='between(t,${(w.start - s.startTimestamp).toFixed(2)},${(w.end - s.startTimestamp).toFixed(2)})'`);
  const graph = [`crop=${cropW}:${info.height}`, 'scale=1080:1920', ...draw].join(',');
  const scriptFile = path.join(out, `naive-${i}.filter`);
  writeFileSync(scriptFile, graph);
  execFileSync(ffmpeg, ['-v', 'error', '-y', '-i', source, '-ss', String(s.startTimestamp), '-t', String(s.duration), '-filter_script:v', scriptFile,
    '-c:v', 'libx264', '-preset', PRESET, '-crf', '23', '-pix_fmt', 'yuv420p', '-c:a', 'aac', path.join(out, `naive-${i}.mp4`)]);
}
const tNaive = now() - t0;
const tOurRender = full.wall - tFinal;
line('## 4. Naive baseline (one ffmpeg per clip decoding from the start, drawtext per word)');
line();
line(`Rendering the same ${clips.length} clips: naive ${fmt(tNaive)} vs our render stage ${fmt(tOurRender)} — **ours ${(tNaive / tOurRender).toFixed(1)}x faster**. Our whole pipeline including transcription (${fmt(full.wall)}) vs the naive render alone: ${(tNaive / full.wall).toFixed(2)}x.`);
writeFileSync(path.join(out, 'results.md'), `${report.join('\n')}\n`);
