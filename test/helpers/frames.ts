// Decoded frames of rendered clips, for tests that check what is on screen.
import { execFileSync } from 'node:child_process';

/** The frame shown at `t` seconds: packed RGB24 (width x height x 3 bytes), or one byte a pixel for gray. */
export function frameAt(file: string, t: number, pixFmt: 'rgb24' | 'gray' = 'rgb24'): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-'], { maxBuffer: 64 << 20 });
}
