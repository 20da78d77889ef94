#!/usr/bin/env node
// Issue 13 benchmark: what the active speaker costs. On a 1080p two-person podcast (the holdout fixture
// of test/active-speaker.render.test.ts: cap12 and franck side by side, 13 turns of real speech), per
// minute of clip:
// - planning the crop (planReframe) without the transcript's speech (today's 3 fps face path) and with it
//   (10 fps faces and mouth activity in shots with two or more faces, the speaker decided per sentence):
//   the difference is the cost of mouth analysis;
// - rendering the planned fill and split clips at 1080x1920 against a bare encode of the same minute with
//   the same encoder settings (the issue: within 1.5x of a bare encode): the whole frame scaled, and a fixed
//   crop+scale on one person (what the speaker cuts add to fill).
// CPU is user + system time of a child process and everything it waits for (ffmpeg included), from
// /usr/bin/time. Run: `npm run build && node scripts/bench-speaker.mjs [rounds]` (default 1 round;
// about 5 minutes a round on 2 idle cores). The transcription (whisper.cpp, tiny.en) is done once first
// and is not part of the figures (set SHORTS_WHISPER_MODEL to a local ggml file where nothing can be downloaded).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const CLIP = { start: 0, end: 60 };
const OUTPUT = { width: 1080, height: 1920 };

// Child mode: one planReframe run, timed from outside. argv: --plan <layout> <source> <speech.json|-> <out.json>
if (process.argv[2] === '--plan') {
  const [, , , layout, source, speechFile, out] = process.argv;
  const { planReframe } = await import(path.join(ROOT, 'dist/pipeline/reframe/reframe.js'));
  const { probeMedia } = await import(path.join(ROOT, 'dist/media/probe.js'));
  const { info } = await probeMedia(source);
  const speech = speechFile === '-' ? undefined : JSON.parse(readFileSync(speechFile, 'utf8'));
  const t0 = performance.now();
  const plan = await planReframe({ mediaPath: source, info, range: CLIP, layout, output: OUTPUT, ...(speech ? { speech } : {}) });
  writeFileSync(out, JSON.stringify({ plan, wallMs: performance.now() - t0, width: info.width, height: info.height }));
  process.exit(0);
}

const rounds = Number(process.argv[2] ?? 1);
const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-speaker-'));
const time = (cmd, args, env = process.env) => {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e', cmd, ...args], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 3).join(' ')} failed: ${r.stderr.slice(-2000)}`);
  const [u, s, e] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
  return { cpu: u + s, wall: e };
};

// The source: the fixture builder is TypeScript (test/helpers), loaded through Vite's module runner.
const { runnerImport } = await import('vite');
const { module: fixtures } = await runnerImport(path.join(ROOT, 'test/helpers/podcast-fixture.ts'), { root: ROOT, configFile: false, logLevel: 'silent' });
const source = fixtures.sideBySide({ left: 'cap12', right: 'franck', turns: fixtures.LONG_TURNS }).path;

// The speech the orchestrator hands the planner: the transcript's words and sentences (source seconds).
const { createTranscriber } = await import(path.join(ROOT, 'dist/pipeline/transcribe/transcribe.js'));
const transcript = await createTranscriber({ dataDir: path.join(dir, 'data') }).transcribe({ mediaPath: source, range: CLIP, language: 'en' });
const speechFile = path.join(dir, 'speech.json');
writeFileSync(speechFile, JSON.stringify({ words: transcript.words, sentences: transcript.sentences.map((s) => ({ start: s.start, end: s.end })) }));
console.log(`source ${path.basename(source)}: 1920x1080, clip ${CLIP.end - CLIP.start} s, ${transcript.sentences.length} sentences, ${transcript.words.length} words`);

const { buildRenderArgs } = await import(path.join(ROOT, 'dist/media/ffmpeg-args.js'));
const encoder = { preset: 'veryfast', crf: 23, x264Params: 'me=dia:subme=1:trellis=0' };
const renderPlan = (name, reframe) => ({
  version: 1,
  input: { path: source, start: CLIP.start, end: CLIP.end, width: 1920, height: 1080, hasAudio: true },
  output: { path: path.join(dir, `${name}.mp4`), ...OUTPUT, ...encoder },
  reframe, background: { blur: true, color: '#000000' }, captions: null,
});

const rows = [];
const plans = {};
for (let round = 0; round < rounds; round++) {
  for (const [name, layout, speech] of [['plan fill, no speech', 'fill', '-'], ['plan fill, speech', 'fill', speechFile], ['plan split, speech', 'split', speechFile]]) {
    const out = path.join(dir, `plan-${layout}-${speech === '-' ? 'mute' : 'speech'}.json`);
    const r = time(process.execPath, [fileURLToPath(import.meta.url), '--plan', layout, source, speech, out]);
    const got = JSON.parse(readFileSync(out, 'utf8'));
    plans[name] = got.plan;
    rows.push([name, { ...r, note: `layout ${got.plan.layout}, ${got.plan.keyframes.length} keyframes${got.plan.speakers ? `, ${got.plan.speakers.length} speaker spans` : ''}` }]);
  }
  rows.push(['render bare encode', time('ffmpeg', ['-v', 'error', '-y', '-ss', String(CLIP.start), '-i', source, '-t', String(CLIP.end - CLIP.start), '-vf', `scale=${OUTPUT.width}:${OUTPUT.height}`,
    '-c:v', 'libx264', '-preset', encoder.preset, '-crf', String(encoder.crf), '-x264-params', encoder.x264Params, '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', path.join(dir, 'bare.mp4')])]);
  // The same crop+scale with a fixed window on one person: what the speaker cuts add to a fill render.
  rows.push(['render bare crop+scale', time('ffmpeg', ['-v', 'error', '-y', '-ss', String(CLIP.start), '-i', source, '-t', String(CLIP.end - CLIP.start), '-vf', `crop=608:1080:1232:0,scale=${OUTPUT.width}:${OUTPUT.height}`,
    '-c:v', 'libx264', '-preset', encoder.preset, '-crf', String(encoder.crf), '-x264-params', encoder.x264Params, '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', path.join(dir, 'bare-crop.mp4')])]);
  for (const [name, plan] of [['render fill (speaker cuts)', plans['plan fill, speech']], ['render split (highlight)', plans['plan split, speech']]]) {
    rows.push([name, time('ffmpeg', buildRenderArgs(renderPlan(name.split(' ')[1], plan)))]);
  }
}
console.log(`rounds: ${rounds}; node ${process.version}; ${os.cpus()[0]?.model} x${os.cpus().length}; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const [n, r] of rows) console.log(n.padEnd(28), 'cpu', r.cpu.toFixed(1).padStart(6), 's  wall', r.wall.toFixed(1).padStart(6), 's', r.note ?? '');
const avg = (name) => { const xs = rows.filter(([n]) => n === name).map(([, r]) => r); return { cpu: xs.reduce((s, r) => s + r.cpu, 0) / xs.length, wall: xs.reduce((s, r) => s + r.wall, 0) / xs.length }; };
const mute = avg('plan fill, no speech'), speech = avg('plan fill, speech'), bare = avg('render bare encode'), bareCrop = avg('render bare crop+scale');
console.log(`mouth analysis (plan with speech - without), per minute of clip: cpu ${(speech.cpu - mute.cpu).toFixed(1)} s, wall ${(speech.wall - mute.wall).toFixed(1)} s`);
for (const n of ['render fill (speaker cuts)', 'render split (highlight)']) {
  const r = avg(n);
  console.log(`${n}: ${(r.cpu / bare.cpu).toFixed(2)}x the bare encode's cpu, ${(r.wall / bare.wall).toFixed(2)}x its wall; ${(r.cpu / bareCrop.cpu).toFixed(2)}x / ${(r.wall / bareCrop.wall).toFixed(2)}x the bare crop+scale's`);
}
rmSync(dir, { recursive: true, force: true });
