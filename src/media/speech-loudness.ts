// Integrated loudness (EBU R128) measured before a render: of a clip's own audio, for the music mix
// (the music is set relative to the voice, so the voice's level is measured, not assumed), and of
// each segment of a short (content, meme intro, end-card sting), for the platform loudness gain. Each
// is one audio-only ffmpeg pass (-ss before -i seeks; no video is decoded), a fraction of a second
// for a short; the render then applies the gains in its single run.
import { stat } from 'node:fs/promises';
import { MAX_LOUDNESS_GAIN_DB, TRUE_PEAK_MARGIN_DB, segmentLoudnessArgs, segmentTargetLufs, type Segment } from './ffmpeg-args.js';
import { defaultMediaRunner } from './local-runner.js';
import { AbortedError } from './process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import type { RenderPlan, SegmentGains } from './render-plan.js';
import { PipelineError } from '../errors.js';
import type { TimeRange } from '../domain/time.js';

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

export async function measureIntegratedLoudness(mediaPath: string, range: TimeRange, signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<number | null> {
  try {
    const { stderr } = await media.run('ffmpeg', integratedLoudnessArgs(mediaPath, range), { signal });
    return parseIntegratedLoudness(stderr);
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    throw new PipelineError('rendering', 'could not measure the loudness of the clip\'s audio for the music mix', { cause: err });
  }
}

/** The `Peak: ... dBFS` of ebur128's true-peak summary (peak=true); null when absent. */
export function parseTruePeak(stderr: string): number | null {
  const at = stderr.lastIndexOf('Summary:');
  if (at < 0) return null;
  const m = /True peak:\s+Peak:\s+(-?[\d.]+|-inf)\s+dBFS/.exec(stderr.slice(at));
  if (!m) return null;
  return m[1] === '-inf' ? -Infinity : Number(m[1]);
}

/** A segment's gain is settled once a measuring pass lands this close to its target. */
const SETTLED_LU = 0.3;
/** The most a segment's peaks are pushed into the limiter (dB): more is audible as distortion. */
const MAX_LIMITING_DB = 6;
/** Limiting up to this (dB over the ceiling) is not checked by a second pass. */
const UNCHECKED_LIMITING_DB = 3;
/** Passes after the first, at most, while the limiter keeps eating the gain. */
const MAX_CORRECTIONS = 2;

/**
 * Catalog files (meme intros, the sting) are the same for every clip of a request and of the process:
 * each one's gain is found once per file version, length and target.
 */
const catalogGains = new Map<string, Promise<Gain>>();

/**
 * The gain (dB) of each segment of the short (content with its music, meme intro, sting) that brings
 * it to its loudness target (segmentTargetLufs). A first audio-only pass measures the segment's
 * integrated loudness and true peak; the gain is target - loudness. When that gain pushes the peaks
 * more than UNCHECKED_LIMITING_DB past the limiter's ceiling, the limiter takes some loudness back (a
 * meme's full-scale sound effect lost 2.3 LU to 2.7 dB of limiting), so the segment is measured again
 * through gain and limiter and the gain corrected by the miss, up to MAX_CORRECTIONS times and
 * MAX_LIMITING_DB of limiting. A meme intro that still stays under the target is carried by the content
 * (wholeShortTrim), so the whole short measures it. Silence (ebur128's -70 LUFS gate, or under -60 LUFS)
 * gets 0 dB.
 */
export async function measureSegmentGains(plan: RenderPlan, signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<SegmentGains> {
  const loudness = plan.loudness;
  if (!loudness) return { content: 0, meme: 0, sting: 0 };
  const ceiling = loudness.truePeakDb - TRUE_PEAK_MARGIN_DB;
  const measure = async (segment: Segment, opts: { gainDb: number; limited: boolean }, signal?: AbortSignal) => {
    const args = segmentLoudnessArgs(plan, segment, opts);
    if (!args) return null;
    try {
      const { stderr } = await media.run('ffmpeg', args, { signal });
      const integrated = parseIntegratedLoudness(stderr);
      return integrated === null ? null : { integrated, truePeak: parseTruePeak(stderr) ?? 0 };
    } catch (err) {
      if (err instanceof AbortedError || signal?.aborted) throw err;
      const what = segment === 'content' ? 'sound' : segment === 'meme' ? 'meme intro' : 'outro sting';
      throw new PipelineError('rendering', `could not measure the loudness of the clip's ${what}`, { cause: err });
    }
  };
  const gainFor = async (segment: Segment, signal?: AbortSignal): Promise<Gain> => {
    const target = segmentTargetLufs(loudness, segment);
    const first = await measure(segment, { gainDb: 0, limited: false }, signal);
    if (!first) return { gain: 0, achieved: null, most: 0 };
    // Peaks are pushed at most MAX_LIMITING_DB into the limiter: a sound whose loud part is already
    // dense (a sound effect at full scale) cannot reach the target without being crushed, and a
    // crushed sound is worse than a quieter one; the rest of the short carries the target.
    const most = Math.min(MAX_LOUDNESS_GAIN_DB, ceiling - first.truePeak + MAX_LIMITING_DB);
    const clamp = (g: number) => Math.round(Math.min(most, g) * 100) / 100;
    let gain = clamp(target - first.integrated);
    let achieved = first.integrated + gain;
    // A few dB of limiting takes little loudness from speech, not worth a pass (measured: the sample
    // talk lost 0.0 LU at 3.2 dB, Allison's prompts 0.1 LU at 1.9 dB but 1.1 LU at 4.9 dB).
    if (first.truePeak + gain <= ceiling + UNCHECKED_LIMITING_DB) return { gain, achieved, most };
    for (let k = 0; k < MAX_CORRECTIONS; k++) {
      const limited = await measure(segment, { gainDb: gain, limited: true }, signal);
      if (!limited) break;
      achieved = limited.integrated;
      if (Math.abs(target - achieved) < SETTLED_LU) break;
      const next = clamp(gain + target - achieved);
      if (next === gain) break;
      // Not measured at the new gain: assume the limiter takes half of the extra (as it did above).
      achieved += (next - gain) / 2;
      gain = next;
    }
    return { gain, achieved, most };
  };
  const cached = (segment: 'meme' | 'sting', file: string | null | undefined, seconds: number | undefined): Promise<Gain> => {
    if (!file) return Promise.resolve(SILENT);
    const key = JSON.stringify([segment, file, seconds, segmentTargetLufs(loudness, segment), loudness.truePeakDb]);
    let value = catalogGains.get(key);
    if (!value) {
      // Without the request's signal: another request may be waiting on the same (short) passes.
      value = stat(file).then(() => gainFor(segment));
      catalogGains.set(key, value);
      // A failed measurement is not remembered.
      value.catch(() => catalogGains.delete(key));
    }
    return value;
  };
  const [content, meme, sting] = await Promise.all([
    gainFor('content', signal),
    plan.memeHook?.hasAudio ? cached('meme', plan.memeHook.path, plan.memeHook.seconds) : Promise.resolve(SILENT),
    cached('sting', plan.outro?.stingPath, plan.outro?.seconds),
  ]);
  return { content: content.gain + wholeShortTrim(plan, loudness.targetLufs, content, meme), meme: meme.gain, sting: sting.gain };
}

/** A segment's gain, the loudness it reaches with it (null: silent), and the most gain it may take. */
interface Gain { gain: number; achieved: number | null; most: number }
const SILENT: Gain = { gain: 0, achieved: null, most: 0 };
/** The most the content is raised over its own target to carry a meme intro that could not reach it. */
const MAX_TRIM_DB = 3;

/**
 * Extra content gain (dB) when a meme intro stays under the target (a sound effect already at full
 * scale): the content is raised just enough that the whole short, the two weighted by their lengths,
 * measures the target; at most MAX_TRIM_DB and never past the content's own limit. The sting, a short
 * bell 3 LU under the speech, is left out of the sum.
 */
function wholeShortTrim(plan: RenderPlan, targetLufs: number, content: Gain, meme: Gain): number {
  if (content.achieved === null || meme.achieved === null || !plan.memeHook) return 0;
  const dc = plan.input.end - plan.input.start, dm = plan.memeHook.seconds;
  const power = (lufs: number) => 10 ** (lufs / 10);
  const whole = 10 * Math.log10((dc * power(content.achieved) + dm * power(meme.achieved)) / (dc + dm));
  if (whole >= targetLufs - SETTLED_LU) return 0;
  const need = (power(targetLufs) * (dc + dm) - dm * power(meme.achieved)) / dc;
  const extra = Math.min(MAX_TRIM_DB, 10 * Math.log10(need) - content.achieved, content.most - content.gain);
  return extra > 0 ? Math.round(extra * 100) / 100 : 0;
}

