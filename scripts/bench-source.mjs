// The benchmarks' source: 10:40 of talking head at 1920x1080 30 fps — the shipped sample (a webcam face
// and a narration) looped 8 times, upscaled and padded. Made once into bench-out/ and reused.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export function benchSource(root, out, ffmpeg) {
  const source = path.join(out, 'talk-10min-1080p.mp4');
  if (!existsSync(source)) {
    mkdirSync(out, { recursive: true });
    console.error('making the 10-minute 1080p source...');
    execFileSync(ffmpeg, ['-v', 'error', '-y', '-stream_loop', '7', '-i', path.join(root, 'assets', 'sample', 'talk.mp4'),
      '-vf', 'scale=1440:1080:flags=lanczos,pad=1920:1080:240:0:color=0x202830,format=yuv420p', '-r', '30',
      '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart', source]);
  }
  return source;
}
