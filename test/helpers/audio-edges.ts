// Sources with known pauses from real recordings, and the energy measurements the edge and loudness
// tests make on sources and rendered clips. Recordings: Allison's phone prompts (Debian
// asterisk-core-sounds-en-wav, 8 kHz, CC-BY-SA-3.0), LibriVox read speech (Debian pocketsphinx-testdata,
// public domain) and the JFK clip, joined with silences of chosen lengths.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES, JFK_WAV } from './media.js';

export const ALLISON = '/usr/share/asterisk/sounds/en_US_f_Allison';
export const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
export { JFK_WAV };

/** One piece of an assembled source: a recording (its first `to` seconds, when given), then `gapAfter` seconds of digital silence. */
export interface Piece { file: string; gapAfter: number; to?: number }

function fixture(name: string, key: string, make: (out: string) => void): string {
  mkdirSync(FIXTURES, { recursive: true });
  const out = path.join(FIXTURES, `${createHash('sha1').update(key).digest('hex').slice(0, 12)}-${name}`);
  if (!existsSync(out)) {
    const tmp = `${out}.tmp-${process.pid}${path.extname(out)}`;
    make(tmp);
    execFileSync('mv', [tmp, out]);
  }
  return out;
}

/** The pieces joined into one 16 kHz mono WAV (each recording resampled), with the chosen silences between. */
export function assemble(pieces: Piece[]): string {
  return fixture('assembled.wav', JSON.stringify(pieces), (out) => {
    const inputs = pieces.flatMap((p) => ['-i', p.file]);
    const chains = pieces.map((p, i) => `[${i}:a]aformat=sample_fmts=s16:sample_rates=16000:channel_layouts=mono,${p.to ? `atrim=end=${p.to},` : ''}apad=pad_dur=${p.gapAfter}[a${i}]`).join(';');
    const concat = pieces.map((_, i) => `[a${i}]`).join('') + `concat=n=${pieces.length}:v=0:a=1[out]`;
    execFileSync('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', `${chains};${concat}`, '-map', '[out]', '-ar', '16000', '-ac', '1', out]);
  });
}

/** `speech` with `music` looped under it at `musicDb` (gain on the track), 16 kHz mono: speech over a music bed. */
export function overMusic(speech: string, music: string, musicDb: number): string {
  return fixture('over-music.wav', JSON.stringify({ speech, music, musicDb }), (out) => {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', speech, '-stream_loop', '-1', '-i', music, '-filter_complex',
      `[1:a]aformat=channel_layouts=mono,aresample=16000,volume=${musicDb}dB[m];[0:a][m]amix=inputs=2:duration=first:normalize=0[out]`,
      '-map', '[out]', '-ar', '16000', '-ac', '1', out]);
  });
}

/** `wav` at `gainDb`: a quiet (or loud) version of a recording, as a source that was not mastered. */
export function withGain(wav: string, gainDb: number): string {
  return fixture('gain.wav', JSON.stringify({ wav, gainDb }), (out) => {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', wav, '-af', `volume=${gainDb}dB`, '-ar', '16000', '-ac', '1', out]);
  });
}

/** Mono float samples of [start, start + dur) of a file's first audio stream at `rate`. */
export function samplesOf(file: string, start: number, dur: number, rate = 16000): Float32Array {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-ss', String(Math.max(0, start)), '-t', String(dur), '-i', file,
    '-map', '0:a:0', '-ac', '1', '-ar', String(rate), '-f', 'f32le', '-'], { maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`ffmpeg could not decode ${file}: ${r.stderr.toString()}`);
  const b = r.stdout;
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.length & ~3)));
}

/** RMS level (dBFS) of samples; -120 for digital silence. */
export function rmsDb(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return 10 * Math.log10(s / Math.max(1, x.length) + 1e-12);
}

/** Levels (dBFS) of consecutive 10 ms frames. */
export function frameLevels(x: Float32Array, rate = 16000, frameSec = 0.01): number[] {
  const n = Math.round(rate * frameSec);
  const out: number[] = [];
  for (let i = 0; i + n <= x.length; i += n) out.push(rmsDb(x.subarray(i, i + n)));
  return out;
}

/** The level that speech reaches in a stretch: the 90th percentile of its 10 ms frame levels. */
export function speechLevel(file: string, start: number, dur: number): number {
  const levels = frameLevels(samplesOf(file, start, dur)).sort((a, b) => a - b);
  return levels[Math.floor(levels.length * 0.9)] ?? -120;
}

/** The loudest 10 ms frame (dBFS) in [from, to) of a file: speech there shows up as a loud frame. */
export function loudestFrame(file: string, from: number, to: number): number {
  const levels = frameLevels(samplesOf(file, from, Math.max(0.01, to - from)));
  return levels.length ? Math.max(...levels) : -120;
}

export interface EbuR128 { integrated: number; truePeak: number }

/** Integrated loudness (LUFS) and true peak (dBTP) of a file's audio (or of a part of it), as ffmpeg's ebur128 measures them. */
export function ebur128(file: string, part?: { start: number; end: number }): EbuR128 {
  const seek = part ? ['-ss', String(part.start), '-t', String(part.end - part.start)] : [];
  const r = spawnSync('ffmpeg', ['-hide_banner', '-nostdin', '-nostats', ...seek, '-i', file, '-map', '0:a:0', '-af', 'ebur128=peak=true', '-f', 'null', '-'], { encoding: 'utf8' });
  const summary = r.stderr.slice(r.stderr.lastIndexOf('Summary:'));
  const i = /I:\s+(-?[\d.]+|-inf) LUFS/.exec(summary);
  const tp = /True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS/.exec(summary);
  if (!i || !tp) throw new Error(`no ebur128 summary for ${file}: ${r.stderr.slice(-500)}`);
  const num = (s: string) => (s === '-inf' ? -Infinity : Number(s));
  return { integrated: num(i[1]!), truePeak: num(tp[1]!) };
}

/**
 * A file's audio decoded once (16 kHz mono) and cut into 10 ms frame levels, for tests that ask many
 * questions of one file: one ffmpeg run instead of one per question.
 */
export class FrameLevels {
  readonly levels: number[];
  constructor(file: string, readonly frameSec = 0.01) {
    this.levels = frameLevels(samplesOf(file, 0, 1e6), 16000, frameSec);
  }

  private frames(from: number, to: number): number[] {
    const a = Math.max(0, Math.floor(from / this.frameSec + 1e-6)), b = Math.min(this.levels.length, Math.ceil(to / this.frameSec - 1e-6));
    return this.levels.slice(a, Math.max(a, b));
  }

  /** The loudest 10 ms frame (dBFS) overlapping [from, to). */
  loudest(from: number, to: number): number {
    const f = this.frames(from, to);
    return f.length ? Math.max(...f) : -120;
  }

  /** Speech (90th percentile of frame levels) and floor (10th) of [from, to). */
  stats(from: number, to: number): { speech: number; floor: number } {
    const f = this.frames(from, to).sort((x, y) => x - y);
    return { speech: f[Math.floor(f.length * 0.9)] ?? -120, floor: f[Math.floor(f.length * 0.1)] ?? -120 };
  }
}
