// Speech energy for the highlight scorer: RMS level of the requested range in fixed 0.5 s steps.
// One ffmpeg pass decodes only the range (-ss before -i seeks the input instead of decoding from 0),
// downmixes to mono 8 kHz (plenty for a level; it keeps a 20-minute range cheap), cuts the audio into
// 0.5 s frames and lets astats measure each frame on its own (reset=1), printing one value per frame.
import { mediaBinaries } from '../media/binaries.js';
import { AbortedError, runProcess } from '../media/process.js';
import { PipelineError } from '../service/errors.js';
import type { LoudnessTrack, TimeRange } from './types.js';

export const LOUDNESS_STEP_SEC = 0.5;
const SAMPLE_RATE = 8000;
/** Digital silence reads as -inf; clamp so averages stay finite. Quieter than any real room tone. */
export const SILENCE_DB = -90;
const RMS_KEY = 'lavfi.astats.Overall.RMS_level';

/** The ffmpeg argument list (pure, so it can be checked without running anything). */
export function loudnessArgs(mediaPath: string, range: TimeRange): string[] {
  const duration = Math.max(0, range.end - range.start);
  const samplesPerStep = Math.round(LOUDNESS_STEP_SEC * SAMPLE_RATE);
  const filter = [
    // aformat makes the auto-inserted resampler do the downmix and rate change before framing.
    `aformat=sample_fmts=flt:sample_rates=${SAMPLE_RATE}:channel_layouts=mono`,
    `asetnsamples=n=${samplesPerStep}:p=0`,
    'astats=metadata=1:reset=1',
    `ametadata=mode=print:key=${RMS_KEY}:file=-`,
  ].join(',');
  return [
    '-hide_banner', '-nostdin', '-v', 'error',
    '-ss', seconds(range.start), '-t', seconds(duration),
    '-i', mediaPath,
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    '-af', filter,
    '-f', 'null', '-',
  ];
}

/** Reads ametadata's print output: one `lavfi.astats.Overall.RMS_level=<dB>` line per 0.5 s frame, in order. */
export function parseRmsLevels(output: string): number[] {
  const levels: number[] = [];
  for (const line of output.split('\n')) {
    const eq = line.indexOf('=');
    if (eq < 0 || line.slice(0, eq).trim() !== RMS_KEY) continue;
    const raw = line.slice(eq + 1).trim();
    const value = raw === '-inf' || raw === 'inf' ? Number.NEGATIVE_INFINITY : Number(raw);
    levels.push(Number.isNaN(value) ? SILENCE_DB : Math.max(SILENCE_DB, value));
  }
  return levels;
}

/** RMS level (dBFS) of `range` in 0.5 s steps; step i covers range.start + i*0.5 onwards. */
export async function measureLoudness(mediaPath: string, range: TimeRange, signal?: AbortSignal): Promise<LoudnessTrack> {
  const { ffmpeg } = mediaBinaries();
  try {
    const { stdout } = await runProcess(ffmpeg, loudnessArgs(mediaPath, range), { signal });
    return { start: range.start, stepSec: LOUDNESS_STEP_SEC, db: parseRmsLevels(stdout) };
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    throw new PipelineError('highlights', 'Could not measure the audio loudness of the video', { cause: err });
  }
}

function seconds(t: number): string {
  return (Math.round(t * 1000) / 1000).toFixed(3);
}
