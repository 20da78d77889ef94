#!/usr/bin/env node
// Issue 13 benchmark: CPU and wall time of a 60 s 1080x1920 render in the fill, split and screen layouts
// against a bare encode of the same source, all through ffmpeg with the product's encoder settings. The
// source is Debian forensics-samples-files' movie-hello.mp4 (a real screencast with a webcam inset)
// looped to 62 s. Run: `npm run build && node scripts/bench-layouts.mjs` (needs /usr/bin/time).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildRenderArgs } from '../dist/media/ffmpeg-args.js';
const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-layouts-'));
const src = path.join(dir, 'hello60.mp4');
execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '8', '-i', '/usr/share/forensics-samples/original-files/movie2/movie-hello.mp4', '-t', '62', '-c', 'copy', src]);
const base = (layout, extra) => ({
  version: 1,
  input: { path: src, start: 0, end: 60, width: 1280, height: 720, hasAudio: true },
  output: { path: path.join(dir, `out-${layout}.mp4`), width: 1080, height: 1920, preset: 'veryfast', crf: 23, x264Params: 'me=dia:subme=1:trellis=0' },
  reframe: { layout, faceCoverage: 1, ...extra },
  background: { blur: true, color: '#000000' }, captions: null,
});
const plans = {
  fill: base('fill', { cropWidth: 404, cropHeight: 720, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }),
  split: base('split', { cropWidth: 810, cropHeight: 720, keyframes: [{ t: 0, cx: 0.3, cy: 0.5 }], second: { keyframes: [{ t: 0, cx: 0.7, cy: 0.5 }] }, speakers: [{ start: 0, end: 30, half: 'top' }, { start: 30, end: 60, half: 'bottom' }] }),
  screen: base('screen', { cropWidth: 164, cropHeight: 160, keyframes: [{ t: 0, cx: 0.19, cy: 0.25 }], screen: { x: 380, y: 8, width: 760, height: 610 } }),
};
function cpu(cmd, args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e', cmd, ...args], { encoding: 'utf8' });
  const line = r.stderr.trim().split('\n').pop();
  const [u, s, e] = line.split(' ').map(Number);
  return { cpu: u + s, wall: e };
}
const rows = [];
for (let round = 0; round < 2; round++) {
  rows.push(['bare veryfast', cpu('ffmpeg', ['-v', 'error', '-y', '-i', src, '-t', '60', '-vf', 'scale=1080:1920', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', path.join(dir, 'bare.mp4')])]);
  rows.push(['bare veryfast + params', cpu('ffmpeg', ['-v', 'error', '-y', '-i', src, '-t', '60', '-vf', 'scale=1080:1920', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-x264-params', 'me=dia:subme=1:trellis=0', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '128k', path.join(dir, 'bare2.mp4')])]);
  for (const [name, plan] of Object.entries(plans)) rows.push([name, cpu('ffmpeg', buildRenderArgs(plan))]);
}
for (const [n, r] of rows) console.log(n.padEnd(24), 'cpu', r.cpu.toFixed(1), 'wall', r.wall.toFixed(1));
rmSync(dir, { recursive: true, force: true });
