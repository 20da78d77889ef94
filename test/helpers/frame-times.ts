// Several frames of one rendered clip from one decode. frameAt (frames.ts) seeks once per frame, and a
// short render has a single keyframe, so every seek decodes the clip from its start again: a test that
// looks at a handful of moments of the same clip pays for the clip a handful of times.
import { execFileSync } from 'node:child_process';

/**
 * The frames shown at `times` (seconds), packed RGB24, keyed by time: as frameAt picks them, the first
 * frame at or after each time (frame n is shown from n / fps; the clip starts at 0).
 */
export function framesAt(file: string, times: readonly number[]): Map<number, Buffer> {
  const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,r_frame_rate', '-of', 'json', file], { encoding: 'utf8' })) as
    { streams: { width: number; height: number; r_frame_rate: string }[] };
  const { width, height, r_frame_rate: rate } = probe.streams[0]!;
  const [num, den] = rate.split('/').map(Number);
  const fps = num! / den!;
  const index = (t: number) => Math.max(0, Math.ceil(t * fps - 1e-6));
  const wanted = [...new Set(times.map(index))].sort((a, b) => a - b);
  const select = wanted.map((n) => `eq(n\\,${n})`).join('+');
  const raw = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `select=${select}`, '-vsync', '0', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], { maxBuffer: 1 << 30 });
  const size = width * height * 3;
  const byIndex = new Map(wanted.map((n, i) => [n, raw.subarray(i * size, (i + 1) * size)]));
  const out = new Map<number, Buffer>();
  for (const t of times) {
    const frame = byIndex.get(index(t));
    if (!frame || frame.length < size) throw new Error(`framesAt: ${file} has no frame at ${t} s`);
    out.set(t, frame);
  }
  return out;
}
