#!/usr/bin/env node
// Builds whisper.cpp's `whisper-cli` from the sources that nodejs-whisper bundles, once per install.
// We call the binary with an argument list ourselves (nodejs-whisper's own API runs a shell string and
// chdirs the process), so only the binary is needed. Skipped when SHORTS_WHISPER_CLI points at one.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';

if (process.env.SHORTS_WHISPER_CLI) process.exit(0);
const require = createRequire(import.meta.url);
const pkgDir = path.dirname(require.resolve('nodejs-whisper/package.json'));
const src = path.join(pkgDir, 'cpp', 'whisper.cpp');
const build = path.join(src, 'build');
const bin = path.join(build, 'bin', 'whisper-cli');
if (existsSync(bin)) process.exit(0);

const run = (args) => {
  const r = spawnSync('cmake', args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.error || r.status !== 0) {
    console.error(`shortwright: building whisper.cpp failed (cmake ${args.join(' ')}).` +
      ' Install cmake and a C++ compiler, or set SHORTS_WHISPER_CLI to a whisper-cli binary.');
    process.exit(1);
  }
};
console.error('shortwright: building whisper.cpp (once, about 2 minutes on 2 cores)...');
// ggml builds with -march=native. On CPUs with AMX (Sapphire Rapids and later) that turns on ggml's AMX
// kernels, and whisper-cli 1.9.1 then segfaults on quantized models (measured here: exit 139 on
// ggml-tiny.en-q8_0.bin). Keep every other native extension (AVX-512, VNNI) and leave AMX out.
const noAmx = process.arch === 'x64' ? ['-DCMAKE_C_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16',
  '-DCMAKE_CXX_FLAGS=-mno-amx-tile -mno-amx-int8 -mno-amx-bf16'] : [];
run(['-S', src, '-B', build, '-DCMAKE_BUILD_TYPE=Release', '-DWHISPER_BUILD_TESTS=OFF',
  '-DWHISPER_BUILD_SERVER=OFF', '-DBUILD_SHARED_LIBS=OFF', '-DWHISPER_SDL2=OFF', ...noAmx]);
run(['--build', build, '--target', 'whisper-cli', '-j', String(Math.max(1, cpus().length)), '--config', 'Release']);
console.error(`shortwright: whisper-cli built at ${bin}`);
