// Pure helpers of the Create view: typed times, byte counts, which source field a pasted URL belongs to,
// and the spec's range rules (4.2) as hints before the server enforces them.

/** Spec 4.2: a file above 10 GB (decimal, like the server's download limit) is refused. */
export const MAX_UPLOAD_BYTES = 10 * 1000 ** 3;
/** Spec 4.2's request window, seconds (the API's rule; the local studio allows any length). */
export const WINDOW_MIN = 60;
export const WINDOW_MAX = 1200;
/** Spec 4.2: longer sources are refused with video_too_long. */
export const MAX_SOURCE_SECONDS = 18000;

import { formatTime } from '../time';

export { formatTime, parseTime } from '../time';

/** A byte count the way the server's messages write it (decimal units). */
export function formatBytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export type UrlKind = 'url' | 'fileUrl';

const VIDEO_FILE_EXT = /\.(mp4|m4v|mov|webm|mkv|avi|wmv|flv|mpe?g|ts|m2ts|mts|3gp|ogv)$/i;

/** Why a picked or dropped file cannot be uploaded (not a video, empty, over 10 GB), or null. */
export function fileProblem(f: { name: string; size: number; type: string }): string | null {
  if (!f.type.startsWith('video/') && !VIDEO_FILE_EXT.test(f.name)) return `“${f.name}” is not a video file.`;
  if (f.size > MAX_UPLOAD_BYTES) return `“${f.name}” is ${formatBytes(f.size)}; files up to 10 GB can be uploaded. Trim or compress it first.`;
  if (f.size === 0) return `“${f.name}” is empty.`;
  return null;
}

/**
 * Which create field a pasted link is: a path ending in a video file extension is a direct file
 * (`fileUrl`), anything else a video-platform page (`url`). A guess: the user can switch, the server checks.
 */
export function guessUrlKind(raw: string): UrlKind {
  try {
    return VIDEO_FILE_EXT.test(new URL(raw.trim()).pathname) ? 'fileUrl' : 'url';
  } catch {
    return 'url';
  }
}

/** Why a pasted link cannot be sent at all (the server checks the rest), or null. */
export function urlProblem(raw: string): string | null {
  const t = raw.trim();
  if (!t) return 'Paste a link to a video.';
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return 'This is not a link: it should start with https://';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Only http and https links work.';
  if (/^\/shorts\//i.test(u.pathname)) return 'Short-form (/shorts/) pages are not supported: use the full video’s link.';
  return null;
}

export interface RangeRules {
  /** The local studio: no window limits, both ends optional (start 0, end = the video's end). */
  local: boolean;
  /** The source's length when known (a playable preview). */
  duration?: number;
}

/**
 * What is wrong with a range under spec 4.2, or null. `start`/`end` are null when not given (typed empty).
 * The server has the last word (it knows the real duration and adjusts a range that runs past it).
 */
export function rangeProblem(start: number | null, end: number | null, rules: RangeRules): string | null {
  if (rules.local) {
    if (start !== null && end !== null && end <= start) return 'The end must come after the start.';
    return null;
  }
  if (start === null) return 'Set a start time.';
  if (end === null) return 'Set an end time.';
  if (end <= start) return 'The end must come after the start.';
  const window = end - start;
  if (window < WINDOW_MIN) return `The range is ${formatTime(window)} long; it must be at least 1 minute (60 seconds).`;
  if (window > WINDOW_MAX) return `The range is ${formatTime(window)} long; it must be at most 20 minutes (1200 seconds).`;
  if (rules.duration !== undefined && rules.duration > MAX_SOURCE_SECONDS) return 'The video is longer than 5 hours, which is not supported.';
  return null;
}
