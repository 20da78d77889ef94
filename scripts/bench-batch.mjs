#!/usr/bin/env node
// Issue 15 benchmark: how many items an hour `shorts batch` gets through at -j 1, 2 (and 3), the figure
// behind batch's default -j. Ten 5-minute sources with real speech (the shipped sample's talk, looped from a
// different offset each, so no two share a transcript), each -j on a fresh data dir (no transcript cache),
// the default options but the render size and --max-shorts (arguments). The machine's load is sampled while each batch runs (a shared
// machine's other work slows every -j alike; report it with the figures).
// Run: `npm run build && node scripts/bench-batch.mjs [--items 10] [--seconds 300] [--jobs 1,2,3] [--max-shorts 3|auto]`.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BIN = path.join(ROOT, 'bin', 'shorts');
const SAMPLE = path.join(ROOT, 'assets', 'sample', 'talk.mp4');
const MODELS = path.resolve(ROOT, '..', 'shared', 'models');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const ITEMS = Number(arg('items', '10'));
const SECONDS = Number(arg('seconds', '300'));
const JOBS = arg('jobs', '1,2').split(',').map(Number);
// At most this many clips per item ('auto': the engine decides, up to 12): rendering grows with it.
const MAX_SHORTS = arg('max-shorts', '3');
// What every run renders at: the spec's 1080x1920 unless SHORTS_RENDER_SIZE says otherwise.
const RENDER_SIZE = process.env.SHORTS_RENDER_SIZE ?? '1080x1920';

const work = path.join(os.tmpdir(), `bench-batch-${ITEMS}x${SECONDS}`);
const sources = path.join(work, 'sources');
mkdirSync(sources, { recursive: true });
for (let i = 0; i < ITEMS; i++) {
  const file = path.join(sources, `talk${String(i + 1).padStart(2, '0')}.mp4`);
  if (existsSync(file)) continue;
  // The 80 s sample looped from its own offset: real speech throughout, a different file each.
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '-1', '-ss', String(i * 7), '-i', SAMPLE, '-t', String(SECONDS),
    '-c:v', 'libx264', '-preset', 'veryfast', '-c:a', 'aac', '-b:a', '96k', `${file}.tmp.mp4`]);
  execFileSync('mv', [`${file}.tmp.mp4`, file]);
}

/** CPU busy fraction and load average, sampled every 2 s while `promise` runs. */
async function sampled(promise) {
  const stat = () => readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const first = stat();
  const loads = [];
  const timer = setInterval(() => loads.push(os.loadavg()[0]), 2000);
  const result = await promise;
  clearInterval(timer);
  const last = stat();
  const d = last.map((v, i) => v - first[i]);
  const idle = d[3] + (d[4] ?? 0);
  const total = d.reduce((a, b) => a + b, 0);
  return { result, busy: total > 0 ? 1 - idle / total : null, load: loads.length ? loads.reduce((a, b) => a + b, 0) / loads.length : os.loadavg()[0] };
}

function run(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b) => { stderr += b; });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model}, node ${process.version}; load before ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log(`${ITEMS} sources of ${SECONDS} s, render ${RENDER_SIZE}, --max-shorts ${MAX_SHORTS}, other options default (--language en), fresh data dir per run\n`);
console.log('| -j | wall | items/hour | mean item time | CPU busy | mean load (1 min) |');
console.log('|---|---|---|---|---|---|');
for (const jobs of JOBS) {
  const dataDir = path.join(work, `data-j${jobs}`);
  const out = path.join(work, `out-j${jobs}`);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
  const env = {
    ...process.env,
    SHORTS_DATA_DIR: dataDir,
    SHORTS_RENDER_SIZE: RENDER_SIZE,
    SHORTS_WHISPER_MODEL: process.env.SHORTS_WHISPER_MODEL ?? path.join(MODELS, 'ggml-tiny.en-q8_0.bin'),
    SHORTS_WHISPER_MULTILINGUAL_MODEL: process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL ?? path.join(MODELS, 'ggml-base-q5_1.bin'),
  };
  const started = performance.now();
  const { result, busy, load } = await sampled(run(['batch', sources, '--start', '0', '--end', String(SECONDS), '--language', 'en', ...(MAX_SHORTS === 'auto' ? [] : ['--max-shorts', MAX_SHORTS]), '-j', String(jobs), '--out', out], env));
  const wall = (performance.now() - started) / 1000;
  if (result.code !== 0) {
    console.error(`-j ${jobs} exited ${result.code}:\n${result.stderr.slice(-2000)}`);
    process.exit(1);
  }
  const state = JSON.parse(readFileSync(path.join(out, 'batch.json'), 'utf8'));
  const times = state.items.map((i) => i.timings.seconds);
  const clips = readdirSync(out).length - 1;
  console.log(`| ${jobs} | ${wall.toFixed(0)} s | ${(ITEMS / (wall / 3600)).toFixed(1)} | ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(0)} s | `
    + `${busy === null ? '?' : `${(busy * 100).toFixed(0)} %`} | ${load.toFixed(1)} |`);
  if (clips < ITEMS) console.error(`(only ${clips} item folders)`);
}
