// Stage 6a: caption cues and the ASS subtitle file that libass burns in. Both functions are pure: the
// orchestrator writes the returned ASS text to the path the render plan names.
import type { CaptionTemplate } from '../catalog/templates.js';
import type { CaptionCue, TimeRange, Word } from './types.js';

/** A silence longer than this ends a phrase: captions follow the speaker's own phrasing. */
const PAUSE_BREAK_SEC = 0.6;
/** How long a phrase stays up after its last word when the next one is not right behind it. */
const LINGER_SEC = 0.5;
const DEFAULT_MAX_CUE_SEC = 3;
/** A word ending in one of these (optionally followed by closing quotes/brackets) ends a phrase. */
const PHRASE_END = /[.,!?;:…—–-]["'”’)\]]*$/;

export interface CueOptions {
  /** Most words shown together (usually template.wordsPerLine * template.maxLines). */
  wordsPerCue: number;
  /** A phrase is cut before it would span longer than this (default 3 s). */
  maxCueSec?: number;
}

/** Words per cue that fill a template's lines exactly. */
export function wordsPerCueFor(template: CaptionTemplate): number {
  return Math.max(1, template.wordsPerLine * template.maxLines);
}

/**
 * Groups the clip's words into short phrases with clip-relative times. A word belongs to the clip
 * when its midpoint lies inside the range (a word cut in half by the clip edge is kept only if most of
 * it is heard); its times are clamped to the clip.
 */
export function buildCues(words: Word[], clip: TimeRange, opts: CueOptions): CaptionCue[] {
  const duration = clip.end - clip.start;
  const perCue = Math.max(1, Math.floor(opts.wordsPerCue));
  const maxSec = opts.maxCueSec ?? DEFAULT_MAX_CUE_SEC;
  const inClip: Word[] = [];
  for (const w of [...words].sort((a, b) => a.start - b.start)) {
    const text = w.text.replace(/\s+/g, ' ').trim();
    const mid = (w.start + w.end) / 2;
    if (!text || mid < clip.start || mid >= clip.end) continue;
    // Millisecond precision: enough for captions, and free of float noise (10.2 - 10 = 0.19999...).
    const start = ms(clamp(w.start - clip.start, 0, duration));
    const end = ms(clamp(w.end - clip.start, start, duration));
    inClip.push({ ...w, text, start, end });
  }

  const groups: Word[][] = [];
  let current: Word[] = [];
  for (const w of inClip) {
    const prev = current[current.length - 1];
    const first = current[0];
    const breakHere = prev !== undefined && first !== undefined && (
      current.length >= perCue
      || PHRASE_END.test(prev.text)
      || w.start - prev.end > PAUSE_BREAK_SEC
      || w.end - first.start > maxSec);
    if (breakHere) {
      groups.push(current);
      current = [];
    }
    current.push(w);
  }
  if (current.length) groups.push(current);

  return groups.map((group, i) => {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    const nextStart = groups[i + 1]?.[0]?.start ?? Infinity;
    // Stay up until the next phrase when it follows closely (no flicker), else linger briefly.
    const end = ms(Math.max(last.end, Math.min(last.end + LINGER_SEC, nextStart, duration)));
    return { start: first.start, end, words: group };
  });
}

/**
 * The ASS document for a clip. PlayRes equals the output size so template sizes (given at 1080x1920)
 * scale by width. For the highlighting animations each (cue, spoken word) span is its own Dialogue
 * event with the active word recoloured (and for 'pop' scaled) by override tags; the active span of a
 * word runs until the next word starts, so some word is always lit while a phrase is up.
 */
export function buildAss(cues: CaptionCue[], template: CaptionTemplate, video: { width: number; height: number }): string {
  const { width, height } = video;
  const scale = width / 1080;
  const style = [
    'Caption',
    template.font.family,
    Math.round(template.font.size * scale),
    assColor(template.colors.text, 0),
    assColor(template.colors.active, 0),
    assColor(template.colors.outline, 0),
    // Shadow drawn partly transparent: a hard black drop shadow looks like a second outline.
    assColor(template.colors.shadow, 0x60),
    template.font.bold ? -1 : 0, 0, 0, 0, // bold, italic, underline, strikeout
    100, 100, 0, 0, // scaleX, scaleY, spacing, angle
    1, // border style: outline + drop shadow
    round1(template.outline * scale),
    round1(template.shadow * scale),
    ALIGNMENT[template.position.alignment],
    ...safeMargins(template, video),
    1, // encoding
  ].join(',');

  const events: string[] = [];
  const perPage = wordsPerCueFor(template);
  for (const cue of cues) {
    for (const page of pages(cue, perPage)) {
      const texts = page.words.map((w) => escapeAssText(template.font.uppercase ? w.text.toUpperCase() : w.text));
      if (template.animation === 'none') {
        pushEvent(events, page.start, page.end, layoutLines(texts, template.wordsPerLine));
        continue;
      }
      page.words.forEach((w, i) => {
        const from = i === 0 ? page.start : w.start;
        const to = page.words[i + 1]?.start ?? page.end;
        const lit = texts.map((t, j) => (j === i ? activeWord(t, template) : t));
        pushEvent(events, from, to, layoutLines(lit, template.wordsPerLine));
      });
    }
  }

  return [
    '[Script Info]',
    '; Generated by shortwright (captions stage)',
    'ScriptType: v4.00+',
    `PlayResX: ${width}`,
    `PlayResY: ${height}`,
    'WrapStyle: 0',
    'ScaledBorderAndShadow: yes',
    // Burned in by ffmpeg, which converts libass's RGB itself: no player-side colour matrix games.
    'YCbCr Matrix: None',
    '',
    '[V4+ Styles]',
    'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
    `Style: ${style}`,
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
    ...events,
    '',
  ].join('\n');
}

/** ASS numpad alignment: 2 bottom centre, 5 middle centre, 8 top centre. */
const ALIGNMENT = { bottom: 2, middle: 5, top: 8 } as const;

/**
 * MarginL, MarginR, MarginV in output px. Short-video apps draw their buttons along the right edge and
 * their caption/description band over the bottom ~15%: keep text clear of both. Left and right margins
 * are equal so centred text stays centred.
 */
export function safeMargins(template: CaptionTemplate, video: { width: number; height: number }): [number, number, number] {
  const side = Math.ceil(video.width * 0.1);
  const wanted = Math.round(template.position.marginV * (video.height / 1920));
  const alignment = template.position.alignment;
  const marginV = alignment === 'bottom' ? Math.max(wanted, Math.ceil(video.height * 0.15))
    : alignment === 'top' ? Math.max(wanted, Math.ceil(video.height * 0.1))
      : 0; // libass ignores MarginV for middle alignment
  return [side, side, marginV];
}

function activeWord(text: string, template: CaptionTemplate): string {
  const color = `\\1c${assColor(template.colors.active)}`;
  // \r restores the style after the word, so the override never leaks into the next one.
  return template.animation === 'pop' ? `{${color}\\fscx125\\fscy125}${text}{\\r}` : `{${color}}${text}{\\r}`;
}

interface Page { start: number; end: number; words: Word[] }

/** A cue with more words than the template's lines hold is shown as consecutive pages. */
function pages(cue: CaptionCue, perPage: number): Page[] {
  const out: Page[] = [];
  for (let i = 0; i < cue.words.length; i += perPage) {
    const words = cue.words.slice(i, i + perPage);
    const next = cue.words[i + perPage];
    out.push({ start: i === 0 ? cue.start : words[0]!.start, end: next ? next.start : cue.end, words });
  }
  return out;
}

function layoutLines(words: string[], perLine: number): string {
  const lines: string[] = [];
  for (let i = 0; i < words.length; i += perLine) lines.push(words.slice(i, i + perLine).join(' '));
  return lines.join('\\N');
}

function pushEvent(events: string[], start: number, end: number, text: string): void {
  const from = assTime(start), to = assTime(end);
  if (from === to) return; // shorter than a centisecond: libass would not show it anyway
  events.push(`Dialogue: 0,${from},${to},Caption,,0,0,0,,${text}`);
}

/**
 * Makes spoken text literal for libass: `{`/`}` would open/close override blocks (libass reads `\{`
 * and `\}` as literal braces), and a backslash could form `\N`, `\h` or swallow a following brace, so
 * it is followed by an invisible WORD JOINER. Control characters and line breaks become spaces.
 */
export function escapeAssText(text: string): string {
  return text
    .replace(/[\s\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\\/g, '\\\u2060')
    .replace(/[{}]/g, (c) => `\\${c}`);
}

/** H:MM:SS.cc, rounded to the centisecond ASS counts in. */
export function assTime(sec: number): string {
  const cs = Math.max(0, Math.round(sec * 100));
  const h = Math.floor(cs / 360000);
  const m = Math.floor(cs / 6000) % 60;
  const s = Math.floor(cs / 100) % 60;
  return `${h}:${pad2(m)}:${pad2(s)}.${pad2(cs % 100)}`;
}

/** '#RRGGBB' -> ASS '&HAABBGGRR' (style) or '&HBBGGRR&' (override tag, when alpha is omitted). */
export function assColor(hex: string, alpha?: number): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) throw new Error(`not a #RRGGBB colour: ${hex}`);
  const bgr = `${m[3]}${m[2]}${m[1]}`.toUpperCase();
  return alpha === undefined ? `&H${bgr}&` : `&H${alpha.toString(16).padStart(2, '0').toUpperCase()}${bgr}`;
}

function pad2(n: number): string { return String(n).padStart(2, '0'); }
function ms(n: number): number { return Math.round(n * 1000) / 1000; }
function round1(n: number): number { return Math.round(n * 10) / 10; }
function clamp(v: number, lo: number, hi: number): number { return Math.min(hi, Math.max(lo, v)); }
