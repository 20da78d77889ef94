// The one runner for render plans: builds the argv (pure), runs ffmpeg through the media runner, reports
// progress from `-progress pipe:2`, and publishes the output atomically. ffmpeg writes to a
// `.partial` file that is renamed on success and removed on failure or cancellation, so a file at
// output.path is always a finished clip (a retried job can trust it and skip the render).
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { PipelineError } from '../errors.js';
import { buildRenderArgs, partialOutputPath } from './ffmpeg-args.js';
import { defaultMediaRunner } from './local-runner.js';
import { AbortedError, ProcessError } from './process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import { renderedSeconds, type RenderPlan } from './render-plan.js';
import { measureSegmentGains } from './speech-loudness.js';

const STAGE = 'rendering';

export interface RenderOptions {
  signal?: AbortSignal;
  /** Runs ffmpeg; default defaultMediaRunner(). */
  media?: MediaRunner;
  /** 0..1 of the clip encoded so far; called about twice a second, and with 1 at the end. */
  onProgress?: (fraction: number) => void;
}

/**
 * Renders one clip and returns the plan as rendered (with the measured loudness gains filled in), so a
 * caller can keep it: building the arguments again from it gives the same ffmpeg command.
 */
export async function renderClip(plan: RenderPlan, opts: RenderOptions = {}): Promise<RenderPlan> {
  const media = opts.media ?? defaultMediaRunner();
  // Platform loudness: measure each segment's sound first (audio-only passes), so the one render can
  // apply fixed gains; the measuring pass's cost is in docs/benchmarks.md.
  if (plan.loudness && !plan.loudness.gainsDb) {
    plan = { ...plan, loudness: { ...plan.loudness, gainsDb: await measureSegmentGains(plan, opts.signal, media) } };
  }
  let args: string[];
  try {
    args = buildRenderArgs(plan);
  } catch (e) {
    throw new PipelineError(STAGE, `the clip could not be rendered: ${(e as Error).message}`, { cause: e });
  }
  const partial = partialOutputPath(plan);
  await mkdir(path.dirname(plan.output.path), { recursive: true });
  await rm(partial, { force: true });

  // ffmpeg reports output time, which runs over the meme intro and the end card as well as the content.
  const progress = progressReader(renderedSeconds(plan), opts.onProgress);
  try {
    await media.run('ffmpeg', args, { signal: opts.signal, onStderr: progress });
    await rename(partial, plan.output.path);
  } catch (e) {
    await rm(partial, { force: true });
    // Cancellation is not a failure: the caller decides what a cancelled job looks like.
    if (e instanceof AbortedError || opts.signal?.aborted) throw e;
    const reason = e instanceof ProcessError ? ffmpegReason(e.stderr) : (e as Error).message;
    throw new PipelineError(STAGE, `ffmpeg could not render the clip: ${reason}`, { cause: e });
  }
  opts.onProgress?.(1);
  return plan;
}

/**
 * Parses `-progress` key=value lines (out_time_us=...) from stderr chunks into a fraction of the clip.
 * Falls back to the classic `time=HH:MM:SS.cc` stats field for ffmpeg builds that print that instead.
 */
export function progressReader(durationSec: number, onProgress?: (fraction: number) => void): (chunk: string) => void {
  let pending = '';
  let last = -1;
  const report = (sec: number) => {
    if (!onProgress || !(durationSec > 0) || !Number.isFinite(sec)) return;
    // Below 1 until ffmpeg exits: the faststart pass still runs after the last frame.
    const fraction = Math.min(0.999, Math.max(0, sec / durationSec));
    if (fraction > last) {
      last = fraction;
      onProgress(fraction);
    }
  };
  return (chunk) => {
    const lines = (pending + chunk).split(/[\r\n]/);
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const us = /^out_time_us=(\d+)/.exec(line);
      if (us) { report(Number(us[1]) / 1e6); continue; }
      const clock = /time=\s*(\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(line);
      if (clock) report(Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3]));
    }
  };
}

/** The last real error lines of ffmpeg's stderr, without the progress key=value lines. */
export function ffmpegReason(stderr: string): string {
  const lines = stderr.split(/[\r\n]+/).map((l) => l.trim())
    .filter((l) => l && !/^[a-z0-9_]+=\S*$/.test(l));
  const text = lines.slice(-2).join(' | ');
  if (!text) return 'ffmpeg exited with an error';
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
