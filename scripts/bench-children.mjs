// Child processes per create (issue 22): runs `shorts create --file <source>` in a fresh data dir with
// ffmpeg, ffprobe, whisper-cli and pocketsphinx_batch behind wrappers that log each start, and prints how
// many of each ran and the create's wall and CPU time (children included). The wrappers see every child,
// whether or not it went through the media runner, so two builds can be compared.
// Usage: node scripts/bench-children.mjs [repoRoot (default: this one)] [source (default: assets/sample/talk.mp4)]
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(process.argv[2] ?? here);
const source = path.resolve(process.argv[3] ?? path.join(here, 'assets', 'sample', 'talk.mp4'));
const models = path.resolve(here, '..', 'shared', 'models');

const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-children-'));
const log = path.join(dir, 'children.log');
const which = (name) => execFileSync('sh', ['-c', `command -v ${name}`]).toString().trim();
const whisper = path.join(here, 'node_modules', 'nodejs-whisper', 'cpp', 'whisper.cpp', 'build', 'bin', 'whisper-cli');
const wrap = (name, real) => {
  const file = path.join(dir, 'bin', name);
  execFileSync('mkdir', ['-p', path.dirname(file)]);
  writeFileSync(file, `#!/bin/sh\necho ${name} >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(file, 0o755);
  return file;
};
const env = {
  ...process.env,
  SHORTS_DATA_DIR: path.join(dir, 'data'),
  SHORTS_FFMPEG: wrap('ffmpeg', which('ffmpeg')),
  SHORTS_FFPROBE: wrap('ffprobe', which('ffprobe')),
  SHORTS_WHISPER_CLI: wrap('whisper-cli', whisper),
  SHORTS_WHISPER_MODEL: process.env.SHORTS_WHISPER_MODEL ?? path.join(models, 'ggml-tiny.en-q8_0.bin'),
  SHORTS_WHISPER_MULTILINGUAL_MODEL: process.env.SHORTS_WHISPER_MULTILINGUAL_MODEL ?? path.join(models, 'ggml-base-q5_1.bin'),
};
// pocketsphinx_batch is looked up on PATH (forced-align.ts): a wrapper first on PATH counts it.
const sphinx = spawnSync('sh', ['-c', 'command -v pocketsphinx_batch']).stdout.toString().trim();
if (sphinx) {
  wrap('pocketsphinx_batch', sphinx);
  env.PATH = `${path.join(dir, 'bin')}:${env.PATH}`;
}

const out = path.join(dir, 'out');
const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', process.execPath, path.join(root, 'bin', 'shorts'), 'create', '--file', source, '--out', out, '--json'],
  { env, encoding: 'utf8', maxBuffer: 64 << 20 });
const timing = r.stderr.trim().split('\n').pop().split(' ').map(Number);
if (r.status !== 0) {
  console.error(r.stderr);
  process.exit(1);
}
const counts = {};
for (const name of existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) counts[name] = (counts[name] ?? 0) + 1;
const shorts = JSON.parse(r.stdout).shorts ?? [];
console.log(JSON.stringify({
  root, source, clips: shorts.length, counts, wallSec: timing[0], cpuSec: Math.round((timing[1] + timing[2]) * 100) / 100,
  load: os.loadavg().map((l) => Math.round(l * 100) / 100),
  ranges: shorts.map((s) => [s.startTimestamp, s.endTimestamp]),
  // The clips and covers byte for byte: two builds that made the same crops and captions write the same files.
  files: Object.fromEntries(readdirSync(out, { recursive: true }).filter((f) => /\.(mp4|jpg)$/.test(f)).sort()
    .map((f) => [path.basename(f), createHash('sha1').update(readFileSync(path.join(out, f))).digest('hex').slice(0, 12)])),
}));
rmSync(dir, { recursive: true, force: true });
