// Several frames, each picked exactly as frameAt (frames.ts) picks one (an input seek to `t`, then the first
// frame), from ONE ffmpeg process: a test that looks at a handful of moments paid ffmpeg's start-up (a third
// of a second of CPU) once per frame, which was most of what its frame checks cost.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Shot { file: string; t: number }

/**
 * The frame shown at each shot's `t` in its file, as raw `pixFmt` pixels after the optional filter `vf`
 * (the same bytes `ffmpeg -ss t -i file -frames:v 1 [-vf vf] -f rawvideo -pix_fmt pixFmt -` writes).
 */
export function framesAtSeeks(shots: readonly Shot[], opts: { vf?: string; pixFmt?: 'rgb24' | 'gray' } = {}): Buffer[] {
  if (shots.length === 0) return [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'seek-frames-'));
  try {
    const args = ['-v', 'error', '-nostdin'];
    for (const s of shots) args.push('-ss', String(s.t), '-i', s.file);
    shots.forEach((_, i) => {
      args.push('-map', `${i}:v:0`, '-frames:v', '1', ...(opts.vf ? ['-vf', opts.vf] : []), '-f', 'rawvideo', '-pix_fmt', opts.pixFmt ?? 'rgb24', path.join(dir, `${i}.raw`));
    });
    execFileSync('ffmpeg', args, { maxBuffer: 64 << 20 });
    return shots.map((_, i) => readFileSync(path.join(dir, `${i}.raw`)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
