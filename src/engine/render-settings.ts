// Output settings of the renderer. The spec's default is 1080x1920; SHORTS_RENDER_SIZE (WxH) and
// SHORTS_X264_PRESET exist for previews and fast test renders, never to change what the API promises.
import { cpus } from 'node:os';
import { rawSetting, setting } from '../settings.js';

export interface RenderSettings { width: number; height: number; preset: string; crf: number; x264Params: string; concurrency: number }

/**
 * veryfast with the cheapest motion search and no trellis: on a 60 s 1080x1920 talking-head clip it
 * encoded in 22.1 s instead of 28.9 s with the same SSIM against a lossless render (0.9931) and 2 %
 * more bytes (docs/benchmarks.md). Motion in these clips is small, so the wider search buys nothing.
 */
export const DEFAULT_X264_PARAMS = 'me=dia:subme=1:trellis=0';

const PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow'];

export function renderSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RenderSettings {
  let width = 1080, height = 1920;
  const size = setting('SHORTS_RENDER_SIZE', env);
  if (size) {
    const m = /^(\d+)x(\d+)$/.exec(size);
    if (!m || Number(m[1]) % 2 || Number(m[2]) % 2) throw new Error(`SHORTS_RENDER_SIZE must be WIDTHxHEIGHT with even numbers, got "${size}"`);
    width = Number(m[1]);
    height = Number(m[2]);
  }
  const preset = setting('SHORTS_X264_PRESET', env) ?? 'veryfast';
  if (!PRESETS.includes(preset)) throw new Error(`SHORTS_X264_PRESET must be one of ${PRESETS.join(', ')}`);
  // x264 already uses every core for one clip; two clips at once still helps because the
  // single-threaded parts (decode, filters, libass) overlap. More than the core count only adds memory.
  const concurrency = Number(setting('SHORTS_RENDER_CONCURRENCY', env) ?? cpus().length);
  // An empty SHORTS_X264_PARAMS is meaningful (no tuning), so it is read as set.
  const x264Params = rawSetting('SHORTS_X264_PARAMS', env) ?? (setting('SHORTS_X264_PRESET', env) ? '' : DEFAULT_X264_PARAMS);
  return { width, height, preset, crf: 23, x264Params, concurrency: Math.max(1, concurrency) };
}
