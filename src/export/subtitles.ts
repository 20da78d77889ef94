// SubRip and WebVTT from a clip's caption cues (cues-<shortId>.json: clip time, the words as captioned,
// translated when captionLanguage asked). One subtitle per cue, shown from the cue's first word to its
// last, as the burned-in captions show it; the text is the cue's words joined the way their script
// writes them (no spaces between Chinese or Japanese words).
import type { CaptionCue } from '../domain/captions.js';
import { joinWords } from '../pipeline/shared/script-text.js';

/** A subtitle on the exported file's own timeline (seconds). */
export interface Subtitle { start: number; end: number; text: string }

/**
 * The cues of one clip placed at `offset` seconds of the file's timeline and cut to `length` seconds of
 * content: a cue that runs past the content's end (a rounding of the clip edge) ends with it, one that
 * starts after it is dropped.
 */
export function subtitlesOf(cues: readonly CaptionCue[], offset: number, length: number): Subtitle[] {
  const out: Subtitle[] = [];
  for (const cue of cues) {
    const start = Math.max(0, cue.start), end = Math.min(length, cue.end);
    const text = joinWords(cue.words.map((w) => w.text));
    if (end - start < 0.001 || !text) continue;
    out.push({ start: offset + start, end: offset + end, text });
  }
  return out;
}

export function toSrt(subs: readonly Subtitle[]): string {
  return subs.map((s, i) => `${i + 1}\n${clock(s.start, ',')} --> ${clock(s.end, ',')}\n${oneBlock(s.text)}\n`).join('\n');
}

export function toVtt(subs: readonly Subtitle[]): string {
  // WebVTT text is HTML-like: &, < and > must be written as entities or a parser reads them as markup.
  const body = subs.map((s) => `${clock(s.start, '.')} --> ${clock(s.end, '.')}\n${oneBlock(s.text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}\n`);
  return ['WEBVTT\n', ...body].join('\n');
}

/** HH:MM:SS,mmm (SRT) or HH:MM:SS.mmm (WebVTT), rounded to the millisecond. */
export function clock(sec: number, sep: ',' | '.'): string {
  const total = Math.max(0, Math.round(sec * 1000));
  const ms = total % 1000, s = Math.floor(total / 1000) % 60, m = Math.floor(total / 60_000) % 60, h = Math.floor(total / 3_600_000);
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${String(ms).padStart(3, '0')}`;
}

/** A blank line ends a subtitle in both formats, and "-->" starts a timing line in WebVTT: neither may appear in the text. */
function oneBlock(text: string): string {
  return text.replace(/\r?\n\s*\r?\n/g, '\n').replace(/-->/g, '->').trim();
}

function pad(n: number): string { return String(n).padStart(2, '0'); }
