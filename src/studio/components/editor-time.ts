// The clip editor's time arithmetic, kept pure so it can be tested without a browser: source seconds typed
// as "12.5", "1:02.3" or "1:02:03", shown as m:ss.s, and the rules the render endpoint enforces on a cut
// (checkClipEdit: start < end, 1-600 s, inside the source), so the page refuses what the server would.

import { formatTime as formatClock, round3 } from '../time';

/** What the server accepts for one clip (CLIP_MIN_SECONDS / CLIP_MAX_SECONDS of the service). */
export const CLIP_MIN_SECONDS = 1;
export const CLIP_MAX_SECONDS = 600;

export { parseTime, round3 } from '../time';

/** m:ss.s (h:mm:ss.s from an hour); tenths, as precise as a person nudges. */
export const formatTime = (seconds: number): string => formatClock(seconds, 'always');

/** A duration as people say it: "27.4 s", "2 min 5.0 s". */
export function formatDuration(seconds: number): string {
  const tenths = Math.round(seconds * 10);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  return `${Math.floor(tenths / 600)} min ${((tenths % 600) / 10).toFixed(1)} s`;
}


export interface Range { start: number; end: number }

/** Why the server would refuse this cut, or null when it would take it. `sourceSeconds` when known. */
export function rangeProblem(r: Range, sourceSeconds?: number): string | null {
  if (!Number.isFinite(r.start) || !Number.isFinite(r.end)) return 'Enter both times.';
  if (r.start < 0) return 'The start cannot be before the beginning of the video.';
  if (r.start >= r.end) return 'The end must come after the start.';
  if (sourceSeconds !== undefined && r.end > sourceSeconds + 0.05) return `The end is past the end of the video (${formatTime(sourceSeconds)}).`;
  const length = r.end - r.start;
  if (length < CLIP_MIN_SECONDS) return `A clip lasts at least ${CLIP_MIN_SECONDS} s.`;
  if (length > CLIP_MAX_SECONDS) return `A clip lasts at most ${CLIP_MAX_SECONDS / 60} minutes.`;
  return null;
}

/** `t` moved by `delta`, kept inside the source (its length when known). */
export function nudge(t: number, delta: number, sourceSeconds?: number): number {
  const moved = round3(t + delta);
  return Math.min(Math.max(0, moved), sourceSeconds ?? Number.POSITIVE_INFINITY);
}

export const sameRange = (a: Range, b: Range): boolean => Math.abs(a.start - b.start) < 1e-3 && Math.abs(a.end - b.end) < 1e-3;

/** Whether a word (source times) is inside the cut: its middle is, as the captions decide what a cue shows. */
export const inRange = (w: Range, r: Range): boolean => {
  const mid = (w.start + w.end) / 2;
  return mid >= r.start && mid <= r.end;
};
