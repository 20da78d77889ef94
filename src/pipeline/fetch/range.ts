// Fits the requested time range to the source's real duration (spec 4.2): a range that runs past the
// end is shortened and reported as a TimeAdjustment; a range that starts past the end cannot be saved.
// A local request that left the end out (a whole recording, issue 15) runs to the source's end: nothing
// the user asked for changed, so nothing is reported.
import { ShortsError } from '../../errors.js';
import type { TimeAdjustment, TimeRange } from '../../domain/time.js';

/** Seconds rounded to milliseconds, so reported values do not carry ffprobe's float noise. */
function round3(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** What a request asked for: `toSourceEnd` when it gave no end (its `end` is then only an upper bound). */
export interface RequestedRange extends TimeRange { toSourceEnd?: boolean }

export function clampRange(requested: RequestedRange, durationSec: number): { range: TimeRange; adjustment: TimeAdjustment | null } {
  if (requested.start >= durationSec) {
    throw new ShortsError('invalid_request',
      `start (${round3(requested.start)}s) is beyond the end of the video (${round3(durationSec)}s)`,
      { start: requested.start, durationSec: round3(durationSec) });
  }
  if (requested.toSourceEnd) return { range: { start: requested.start, end: round3(durationSec) }, adjustment: null };
  if (requested.end <= durationSec) return { range: { start: requested.start, end: requested.end }, adjustment: null };
  const adjusted: TimeRange = { start: round3(requested.start), end: round3(durationSec) };
  return {
    range: adjusted,
    adjustment: { original: { start: requested.start, end: requested.end }, adjusted: { ...adjusted } },
  };
}
