// The request view's words for numbers: score bands, clip times, queue and ETA phrases, layouts, options, and
// the export links. Pure functions (no DOM), so the clip editor can reuse them with the clip card.
import type { ShortObject } from '../../api/types';
import type { CLIP_LAYOUTS, PREFERRED_LENGTHS } from '../../api/create-options';

/** The spec's viral_score bands (0-100); the word is shown with the colour, never the colour alone. */
export type ScoreBand = 'excellent' | 'good' | 'average' | 'below';

export function scoreBand(score: number): ScoreBand {
  if (score >= 80) return 'excellent';
  if (score >= 60) return 'good';
  if (score >= 40) return 'average';
  return 'below';
}

export const BAND_WORDS: Record<ScoreBand, string> = { excellent: 'Excellent', good: 'Good', average: 'Average', below: 'Below average' };

/** 75.4 -> "1:15"; an hour or more -> "1:02:05". */
export function clock(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A clip's length in words a screen reader reads well: "32 seconds", "1 min 05 s". */
export function lengthWords(seconds: number): string {
  const total = Math.round(seconds);
  if (total < 60) return `${total} second${total === 1 ? '' : 's'}`;
  return `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, '0')} s`;
}

const LAYOUT_WORDS: Record<(typeof CLIP_LAYOUTS)[number], string> = {
  fill: 'Fill (cropped on the speaker)',
  fit: 'Fit (whole picture)',
  square: 'Square',
  split: 'Split (two people)',
  screen: 'Screen above, speaker below',
};

export function layoutWords(layout: ShortObject['layout']): string {
  return layout ? LAYOUT_WORDS[layout] ?? layout : 'Not recorded';
}

const LENGTH_WORDS: Record<(typeof PREFERRED_LENGTHS)[number], string> = {
  under30sec: 'under 30 s', under60sec: 'under 60 s', under90sec: 'under 90 s',
  under3min: 'under 3 min', under5min: 'under 5 min', under10min: 'under 10 min',
};

export function preferredLengthWords(v: string): string {
  return (LENGTH_WORDS as Record<string, string>)[v] ?? v;
}

/** "en" -> "English" in the browser's language; the code itself where the browser has no name for it. */
export function languageWords(code: string): string {
  if (!code) return 'detected when transcribed';
  try {
    return new Intl.DisplayNames(undefined, { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** "in about 4 minutes" / "any moment now" / "about 1 hour 10 minutes": an estimate, never false precision. */
export function etaWords(iso: string | undefined, now: number): string | null {
  if (!iso) return null;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return null;
  const minutes = Math.round((at - now) / 60_000);
  if (minutes <= 0) return 'any moment now';
  if (minutes === 1) return 'in about a minute';
  if (minutes < 60) return `in about ${minutes} minutes`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `in about ${h} hour${h === 1 ? '' : 's'}${m ? ` ${m} minute${m === 1 ? '' : 's'}` : ''}`;
}

/** Queue position 1 = next: "Next in the queue", "3rd in the queue (2 requests ahead)". */
export function queueWords(position: number | null | undefined): string | null {
  if (!position) return null;
  if (position === 1) return 'Next in the queue';
  const ahead = position - 1;
  return `Position ${position} in the queue (${ahead} request${ahead === 1 ? '' : 's'} ahead)`;
}

/** "28 Nov 2026, 07:12 (5 minutes ago)". */
export function createdWords(iso: string | undefined, now: number): string | null {
  if (!iso) return null;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return null;
  const abs = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(at);
  const rel = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const mins = Math.round((at - now) / 60_000);
  const ago = Math.abs(mins) < 60 ? rel.format(mins, 'minute') : Math.abs(mins) < 48 * 60 ? rel.format(Math.round(mins / 60), 'hour')
    : rel.format(Math.round(mins / 1440), 'day');
  return `${abs} (${ago})`;
}

/**
 * The hashtags of a clip: the copywriter ends the description with them ("Summary. #Tag #Other #shorts");
 * a title may carry some too. Returns the description without its trailing tags, and the tags (once each).
 */
export function splitHashtags(description: string, title: string): { text: string; tags: string[] } {
  const TAG = /#[\p{L}\p{M}\p{N}_]+/gu;
  const trailing = /(?:\s*#[\p{L}\p{M}\p{N}_]+)+\s*$/u.exec(description);
  const text = trailing ? description.slice(0, trailing.index).trim() : description.trim();
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const t of [...description.matchAll(TAG), ...title.matchAll(TAG)].map((m) => m[0])) {
    const key = t.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      tags.push(t);
    }
  }
  return { text, tags };
}

/**
 * The export formats (src/api/export-formats.ts, the server's table; the studio may not import its values).
 * `whole`: also exported for the whole request on one timeline.
 */
export const CLIP_EXPORTS = [
  { format: 'srt', label: 'Captions (SRT)', group: 'captions', whole: true },
  { format: 'vtt', label: 'Captions (WebVTT)', group: 'captions', whole: true },
  { format: 'ass', label: 'Captions as burned in (ASS)', group: 'captions', whole: false },
  { format: 'fcpxml', label: 'Final Cut Pro / DaVinci Resolve (FCPXML)', group: 'projects', whole: true },
  { format: 'edl', label: 'Edit decision list (EDL)', group: 'projects', whole: true },
  { format: 'mlt', label: 'Shotcut / Kdenlive (MLT)', group: 'projects', whole: true },
  { format: 'json', label: 'Render plan (JSON)', group: 'projects', whole: true },
] as const;

export type ExportEntry = (typeof CLIP_EXPORTS)[number];

const enc = encodeURIComponent;

export function clipExportUrl(requestId: string, shortId: string, format: string): string {
  return `/api/v1/shorts/${enc(requestId)}/shorts/${enc(shortId)}/export?format=${enc(format)}`;
}

export function requestExportUrl(requestId: string, format: string): string {
  return `/api/v1/shorts/${enc(requestId)}/export?format=${enc(format)}`;
}
