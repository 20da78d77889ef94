// Integrated loudness (EBU R128) of a clip's own audio, for the music mix: the music is set relative
// to the voice, so the voice's level is measured, not assumed. One audio-only ffmpeg pass over the
// clip range (-ss before -i seeks; no video is decoded), a fraction of a second for a short.
import { mediaBinaries } from './binaries.js';
import { AbortedError, runProcess } from './process.js';
import { PipelineError } from '../service/errors.js';
import type { TimeRange } from '../pipeline/types.js';

/** Below this the clip has no voice worth following (ebur128's absolute gate is -70 LUFS). */
const SILENT_LUFS = -60;

export function integratedLoudnessArgs(mediaPath: string, range: TimeRange): string[] {
  return [
    '-hide_banner', '-nostdin', '-nostats', '-v', 'info',
    '-ss', String(range.start), '-t', String(Math.max(0, range.end - range.start)),
    '-i', mediaPath, '-map', '0:a:0', '-vn', '-sn', '-dn', '-af', 'ebur128=framelog=verbose', '-f', 'null', '-',
  ];
}

/** The `I: ... LUFS` value of ebur128's final summary; null when silent or absent. */
export function parseIntegratedLoudness(stderr: string): number | null {
  const at = stderr.lastIndexOf('Summary:');
  if (at < 0) return null;
  const m = /I:\s+(-?[\d.]+|-inf)\s+LUFS/.exec(stderr.slice(at));
  if (!m || m[1] === '-inf') return null;
  const v = Number(m[1]);
  return Number.isFinite(v) && v > SILENT_LUFS ? v : null;
}

export async function measureIntegratedLoudness(mediaPath: string, range: TimeRange, signal?: AbortSignal): Promise<number | null> {
  const { ffmpeg } = mediaBinaries();
  try {
    const { stderr } = await runProcess(ffmpeg, integratedLoudnessArgs(mediaPath, range), { signal });
    return parseIntegratedLoudness(stderr);
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    throw new PipelineError('rendering', 'could not measure the loudness of the clip\'s audio for the music mix', { cause: err });
  }
}
