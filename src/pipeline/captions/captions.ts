// Stage 6a: caption cues and the ASS subtitle file that libass burns in. Both functions are pure: the
// orchestrator writes the returned ASS text to the path the render plan names.
import { FALLBACK_FONTS, type CaptionTemplate } from '../../catalog/templates.js';
import { assFontText, breakToWidth, breaksAnywhere, captionUpperCase, pageFont, textWidth } from './caption-text.js';
import { emojiForPhrase, emojiPath } from './emoji.js';
import { RLM, isRightToLeft, readsRightToLeft, spaceBetween } from '../shared/script-text.js';
import type { CaptionCue } from '../../domain/captions.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';
import type { CaptionBlock } from './caption-placement.js';
import type { RenderCaptionEmoji } from '../../media/render-plan.js';

/** A silence longer than this ends a phrase: captions follow the speaker's own phrasing. */
const PAUSE_BREAK_SEC = 0.6;
/** How long a phrase stays up after its last word when the next one is not right behind it. */
const LINGER_SEC = 0.5;
const DEFAULT_MAX_CUE_SEC = 3;
/**
 * A word ending in one of these (optionally followed by closing quotes/brackets) ends a phrase: Latin
 * marks, CJK full-width ones, the Arabic comma and question mark, the Urdu full stop, the Devanagari danda.
 */
const PHRASE_END = /[.,!?;:…—–\-。，、！？；：؟،؛۔।॥።]["'”’»)\]）」』】]*$/u;

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
 * scale by width. Everything a template looks like comes from its data; the animation kind only picks
 * how each (cue, spoken word) span is written:
 * - karaoke-highlight / pop / typewriter: one Dialogue event per spoken word, running until the next
 *   word starts (so some word is always lit while a phrase is up), with override tags on the words;
 * - box: the same, plus an event on a lower layer that draws only the spoken word with a thick outline
 *   in the box colour (a rounded pill: libass draws wide outlines with round joins). Both layers lay
 *   out the same text with the same font, so the pill sits exactly behind the word;
 * - none: one event per page.
 * Each page is laid out here, not by libass (layoutPage): lines that always fit the safe area, and
 * characters the template font lacks drawn in a fallback font that has them.
 */
export function buildAss(cues: CaptionCue[], template: CaptionTemplate, video: { width: number; height: number }, placement: CaptionPlacement = {}): string {
  const { width, height } = video;
  const g = captionGeometry(template, video);
  const emojiRoom = emojiRoomOf(template, g);
  // BorderStyle 3 draws an opaque band in OutlineColour (padding = Outline) instead of an outline.
  const band = template.lineBox ? assColor(template.colors.box ?? template.colors.outline, LINE_BOX_ALPHA) : null;
  const style = (name: string, encoding: number) => [
    name,
    template.font.family,
    g.fontSize,
    assColor(template.colors.text, 0),
    assColor(template.colors.active, 0),
    band ?? assColor(template.colors.outline, 0),
    // Shadow drawn partly transparent: a hard black drop shadow looks like a second outline.
    band ?? assColor(template.colors.shadow, 0x60),
    template.font.bold ? -1 : 0, 0, 0, 0, // bold, italic, underline, strikeout
    100, 100, 0, 0, // scaleX, scaleY, spacing, angle
    template.lineBox ? 3 : 1, // border style: opaque band, or outline + drop shadow
    g.outline,
    g.shadow,
    ALIGNMENT[template.position.alignment],
    ...g.margins,
    encoding,
  ].join(',');

  const events: string[] = [];
  layoutCues(cues, template, g).forEach((laid, index) => {
    const { page, lines, scale } = laid;
    // A page of Arabic, Hebrew, Persian or Urdu is a right-to-left paragraph (bidiText).
    const rtl = readsRightToLeft(page.words.map((w) => w.text).join(' '));
    // A page moved off a face (caption-placement.ts): top-anchored at its own MarginV, every layer of
    // every word event alike, so the pill, the karaoke words and the emoji stay together.
    const placedTop = placement.tops?.[index];
    const moved = placedTop === undefined ? null : Math.max(1, Math.round(placedTop + emojiRoom.above));
    const push = (layer: number, from: number, to: number, text: string) =>
      pushEvent(events, layer, from, to, (moved === null ? '' : '{\\an8}') + (rtl ? bidiText(text) : text), rtl ? RTL_STYLE : STYLE, moved ?? 0);
    // Tags the style cannot hold, opened at the start of each event and after each \r: the glow's blur,
    // the page's own font size when it had to shrink to fit, and the font of a page in another script
    // (pageFont: its words and spaces in one font, the template's font as a fallback for a Latin word).
    const font = pageFont(lines.flat().map((p) => p.text).join(' '), template.font);
    const fn = font.family === template.font.family ? '' : `\\fn${font.family}`;
    const fs = (scale < 1 ? `\\fs${pageFontSize(g, scale)}` : '') + fn;
    const base = (template.glow > 0 ? `\\blur${round1(template.glow * g.k)}` : '') + fs;
    const open = base ? `{${base}}` : '';
    const fallbacks = fn ? [template.font, ...FALLBACK_FONTS.filter((f) => f.family !== font.family)] : FALLBACK_FONTS;
    const text = (piece: Piece) => assFontText(piece.text, font, escapeAssText, fallbacks);
    if (template.animation === 'none') {
      push(0, page.start, page.end, open + joinLines(lines, text));
      return;
    }
    page.words.forEach((w, i) => {
      const from = i === 0 ? page.start : w.start;
      const to = page.words[i + 1]?.start ?? page.end;
      const shown = joinLines(lines, (p) => (p.word === i ? activeWord(text(p), template, base)
        : template.animation === 'typewriter' && p.word > i ? `{\\alpha&HFF&}${text(p)}{\\r${base}}` : text(p)));
      if (template.animation === 'box') {
        push(0, from, to, boxLayer(lines, i, template, pageFontSize(g, scale), fs, text));
        push(1, from, to, open + shown);
      } else {
        push(0, from, to, open + shown);
      }
    });
  });

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
    `Style: ${style(STYLE, 1)}`,
    // Encoding -1: libass finds each paragraph's direction from its text (any other value makes it left to right).
    `Style: ${style(RTL_STYLE, -1)}`,
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
    ...events,
    '',
  ].join('\n');
}

/** An emoji accent of a phrase: the PNG drawn at (x, y) (its top-left, px of the captioned picture), size x size, from start to end (clip seconds). */
export interface CaptionEmoji extends RenderCaptionEmoji {
  emoji: string;
}

/**
 * Where each page goes when it is moved off faces: `tops[i]` is the top (px) of page i's block as
 * captionBlocks measures it (emoji room included); a page without an entry stays at the template's place.
 */
export interface CaptionPlacement { tops?: readonly (number | undefined)[] }

/**
 * Each page's block for placement (caption-placement.ts): its time, its height (text, outline and the
 * emoji room the template keeps beside it), where the template puts it and the text area's sides.
 * Pages are in the order buildAss writes them, so `CaptionPlacement.tops` lines up with this list.
 */
export function captionBlocks(cues: CaptionCue[], template: CaptionTemplate, video: { width: number; height: number }): CaptionBlock[] {
  const g = captionGeometry(template, video);
  const room = emojiRoomOf(template, g);
  return layoutCues(cues, template, g).map(({ page, lines, scale }) => {
    const ink = blockExtent(g, lines.length, scale);
    return {
      start: page.start, end: page.end, height: ink.bottom - ink.top + room.above + room.below,
      preferredTop: ink.top - room.above, left: g.margins[0], right: video.width - g.margins[1],
    };
  });
}

/** Room an emoji accent takes above the text (below it for top-aligned captions), px. */
function emojiRoomOf(template: CaptionTemplate, g: Geometry): { above: number; below: number } {
  if (!template.emoji) return { above: 0, below: 0 };
  const room = Math.max(8, Math.round(template.emoji.size * g.k)) + Math.round(template.emoji.gap * g.k);
  return template.position.alignment === 'top' ? { above: 0, below: room } : { above: room, below: 0 };
}

export interface CaptionEmojiOptions extends CaptionPlacement {
  /**
   * Language of the speech (ISO 639-1, e.g. the request's `language`; 'pt-BR' reads as pt). Keywords are
   * looked up in what was spoken, translated captions included, so in this language; English when absent.
   */
  language?: string;
}

/**
 * The emoji accents of a clip for a template with `emoji` (none otherwise): for each page whose words
 * hold a keyword (emoji.ts), its emoji centred above the page's text block (below it for top-aligned
 * captions) for as long as the page is up. At most one per page, and a page does not repeat the emoji
 * of the page just before it.
 */
export function captionEmoji(cues: CaptionCue[], template: CaptionTemplate, video: { width: number; height: number }, opts: CaptionEmojiOptions = {}): CaptionEmoji[] {
  const spec = template.emoji;
  if (!spec) return [];
  const g = captionGeometry(template, video);
  const size = Math.max(8, Math.round(spec.size * g.k));
  const gap = Math.round(spec.gap * g.k);
  const out: CaptionEmoji[] = [];
  let previous: string | null = null;
  const room = emojiRoomOf(template, g);
  layoutCues(cues, template, g).forEach(({ page, lines, scale }, index) => {
    const match = emojiForPhrase(page.spoken ?? page.words.map((w) => w.text), opts.language);
    const emoji = match?.emoji ?? null;
    if (emoji && emoji !== previous) {
      let block = blockExtent(g, lines.length, scale);
      const placedTop = opts.tops?.[index];
      // A page moved off a face takes its emoji along (same side of the text as at the template's place).
      if (placedTop !== undefined) block = { top: placedTop + room.above, bottom: placedTop + room.above + block.bottom - block.top };
      const y = template.position.alignment === 'top' ? block.bottom + gap : block.top - gap - size;
      out.push({ emoji, path: emojiPath(emoji), start: page.start, end: page.end, x: Math.round((video.width - size) / 2), y: Math.max(0, Math.round(y)), size });
    }
    previous = emoji;
  });
  return out;
}

/** Everything about a template's text at one output size that layout needs, in output px. */
interface Geometry {
  /** Output width / 1080: template sizes are given at 1080 wide. */
  k: number;
  video: { width: number; height: number };
  fontSize: number;
  outline: number;
  shadow: number;
  margins: [number, number, number];
  /** Widest line of text (advance widths) that keeps its ink - outline, glow, shadow, pill - inside the margins. */
  lineWidth: number;
  /** Tallest text block that stays inside the safe area (and leaves room for an emoji above it). */
  blockHeight: number;
  /** How much bigger the spoken word is drawn ('pop'), as a factor. */
  grow: number;
  alignment: CaptionTemplate['position']['alignment'];
}

/** Top margin of the safe area: the platforms' own title and status bar. */
const SAFE_TOP = 0.1;
/**
 * A long word shrinks its page at most this much: one still too long is broken between its characters.
 * (A page too tall for the room above the bottom margin may shrink further, to half of this.)
 */
const MIN_FIT_SCALE = 0.5;

function captionGeometry(template: CaptionTemplate, video: { width: number; height: number }): Geometry {
  const k = video.width / 1080;
  const fontSize = Math.round(template.font.size * k);
  const outline = round1(template.outline * k), shadow = round1(template.shadow * k);
  const margins = safeMargins(template, video);
  const [left, right, marginV] = margins;
  const pill = template.animation === 'box' ? Math.max(1, Math.round(fontSize * PILL_PADDING)) : 0;
  const blur = template.glow > 0 ? template.glow * k : 0;
  const ink = template.lineBox ? 2 * outline : 2 * Math.max(outline + blur, pill) + shadow;
  // Measured advances match libass's ink within 1-2% (shaping only narrows); 3% spare covers overhangs.
  const lineWidth = Math.max(1, (video.width - left - right - Math.ceil(ink)) * 0.97);
  const emoji = template.emoji ? Math.round((template.emoji.size + template.emoji.gap) * k) : 0;
  const top = Math.ceil(video.height * SAFE_TOP), bottom = Math.ceil(video.height * 0.15);
  const alignment = template.position.alignment;
  const room = alignment === 'middle' ? video.height - 2 * Math.max(top, bottom) - emoji
    : alignment === 'top' ? video.height - marginV - bottom - emoji
      : video.height - marginV - top - emoji;
  const grow = template.animation === 'pop' ? Math.max(1, template.activeScale / 100) : 1;
  return { k, video, fontSize, outline, shadow, margins, lineWidth, blockHeight: Math.max(1, room - 2 * outline - shadow), grow, alignment };
}

function pageFontSize(g: Geometry, scale: number): number {
  return Math.max(1, Math.round(g.fontSize * scale));
}

/** Height in px of a block of n lines at a scale: libass makes one line as tall as the font size; the popped word's line grows. */
function blockHeightOf(g: Geometry, lines: number, scale: number): number {
  return pageFontSize(g, scale) * (lines + g.grow - 1);
}

/** Where the page's ink starts and ends vertically (outline included), for placing an emoji above or below it. */
function blockExtent(g: Geometry, lines: number, scale: number): { top: number; bottom: number } {
  const h = blockHeightOf(g, lines, scale) + 2 * g.outline;
  const { height } = g.video, marginV = g.margins[2];
  if (g.alignment === 'top') return { top: marginV, bottom: marginV + h };
  if (g.alignment === 'middle') return { top: (height - h) / 2, bottom: (height + h) / 2 };
  return { top: height - marginV - h, bottom: height - marginV };
}

/** One piece of a laid-out line: a whole word, or part of one too wide for a line of its own. */
interface Piece { word: number; text: string }
interface LaidOutPage { page: Page; lines: Piece[][]; scale: number }

function layoutCues(cues: CaptionCue[], template: CaptionTemplate, g: Geometry): LaidOutPage[] {
  const perPage = wordsPerCueFor(template);
  return cues.flatMap((cue) => pages(cue, perPage)).map((page) => {
    const texts = page.words.map((w) => (template.font.uppercase ? captionUpperCase(w.text) : w.text));
    return { page, ...layoutPage(texts, template, g) };
  });
}

/**
 * Lines of a page that stay inside the safe area: at most wordsPerLine words a line (words of a script
 * written without spaces: as many as the width holds), a line broken
 * early where the next word would not fit (the spoken word counted at its popped size), a word too
 * long for any line shrinking the whole page (down to MIN_FIT_SCALE), a word of a script written
 * without spaces (or one still too long) broken between characters, and a block taller than the room
 * above the bottom margin shrunk to fit.
 */
function layoutPage(texts: string[], template: CaptionTemplate, g: Geometry): { lines: Piece[][]; scale: number } {
  const widths = texts.map((t) => textWidth(t, template.font, g.fontSize));
  let scale = 1;
  texts.forEach((t, i) => {
    if (!breaksAnywhere(t)) scale = Math.min(scale, g.lineWidth / (widths[i]! * g.grow));
  });
  scale = Math.max(MIN_FIT_SCALE, scale);
  let lines = fillLines(texts, template, g, scale);
  const tall = blockHeightOf(g, lines.length, scale);
  if (tall > g.blockHeight) {
    scale = Math.max(MIN_FIT_SCALE / 2, (scale * g.blockHeight) / tall);
    lines = fillLines(texts, template, g, scale);
  }
  return { lines, scale };
}

function fillLines(texts: string[], template: CaptionTemplate, g: Geometry, scale: number): Piece[][] {
  const size = g.fontSize * scale;
  const space = textWidth(' ', template.font, size);
  const room = g.lineWidth;
  const lines: Piece[][] = [];
  // The line being filled: its pieces, their width with spaces, its widest piece, how many words it holds.
  let line: Piece[] = [], used = 0, widest = 0, words = 0;
  // The gap before a piece: a space, or nothing between words of a script written without spaces.
  const gap = (piece: string) => (line.length && spaceBetween(line[line.length - 1]!.text, piece) ? space : 0);
  const width = (extra: number, piece: string) => (line.length ? used + gap(piece) + extra + (g.grow - 1) * Math.max(widest, extra) : extra * g.grow);
  const newLine = () => {
    if (line.length) lines.push(line);
    line = []; used = 0; widest = 0; words = 0;
  };
  texts.forEach((text, word) => {
    const w = textWidth(text, template.font, size);
    const pieces = w * g.grow <= room ? [text] : breakToWidth(text, template.font, size, room / g.grow);
    pieces.forEach((piece, n) => {
      const pw = n === 0 && pieces.length === 1 ? w : textWidth(piece, template.font, size);
      // Words of a script without spaces fill a line by width alone: their count says little about length.
      const counted = !line.length || spaceBetween(line[line.length - 1]!.text, piece);
      if (n > 0 || (counted && words >= template.wordsPerLine) || (line.length && width(pw, piece) > room)) newLine();
      used = line.length ? used + gap(piece) + pw : pw;
      widest = Math.max(widest, pw);
      if (n === 0) words++;
      line.push({ word, text: piece });
    });
  });
  newLine();
  return lines;
}

/** A page's lines as ASS text: pieces of one line separated by spaces where the script uses them, lines by \N. */
function joinLines(lines: Piece[][], render: (p: Piece) => string): string {
  return lines.map((line) => line.map((p, i) => (i > 0 && spaceBetween(line[i - 1]!.text, p.text) ? ' ' : '') + render(p)).join('')).join('\\N');
}

/** Alpha of a lineBox band: mostly opaque, so the picture shows faintly through it. */
const LINE_BOX_ALPHA = 0x30;
/** Padding of the 'box' pill around the word, as a fraction of the font size. */
const PILL_PADDING = 0.3;

/**
 * The pill layer of 'box': the whole page laid out (so the word lands where the text layer puts it),
 * every word invisible except the spoken one, whose fill and wide outline are the box colour.
 */
function boxLayer(lines: Piece[][], active: number, template: CaptionTemplate, fontSize: number, fs: string, text: (p: Piece) => string): string {
  const box = assColor(template.colors.box ?? template.colors.active);
  const pad = Math.max(1, Math.round(fontSize * PILL_PADDING));
  const hidden = '\\alpha&HFF&';
  const words = joinLines(lines, (p) => (p.word === active ? `{\\alpha&H00&}${text(p)}{${hidden}}` : text(p)));
  return `{${fs}\\1c${box}\\3c${box}\\bord${pad}\\shad0\\blur0${hidden}}${words}`;
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

function activeWord(text: string, template: CaptionTemplate, base: string): string {
  let tags = `\\1c${assColor(template.colors.active)}`;
  // On a pill the word needs no outline of its own: the pill is the contrast.
  if (template.animation === 'box') tags += '\\bord0\\shad0';
  if (template.animation === 'pop' && template.activeScale !== 100) tags += `\\fscx${template.activeScale}\\fscy${template.activeScale}`;
  // \r restores the style after the word (plus the template's own base tags), so the override never
  // leaks into the next one.
  return `{${tags}}${text}{\\r${base}}`;
}

type Page = CaptionCue;

/** A cue with more words than the template's lines hold is shown as consecutive pages. */
function pages(cue: CaptionCue, perPage: number): Page[] {
  const out: Page[] = [];
  for (let i = 0; i < cue.words.length; i += perPage) {
    const words = cue.words.slice(i, i + perPage);
    const next = cue.words[i + perPage];
    // A translated phrase keeps what was spoken on each of its pages (emoji accents look there).
    out.push({ start: i === 0 ? cue.start : words[0]!.start, end: next ? next.start : cue.end, words, ...(cue.spoken ? { spoken: cue.spoken } : {}) });
  }
  return out;
}

const STYLE = 'Caption';
const RTL_STYLE = 'CaptionRTL';

function pushEvent(events: string[], layer: number, start: number, end: number, text: string, style: string, marginV = 0): void {
  const from = assTime(start), to = assTime(end);
  if (from === to) return; // shorter than a centisecond: libass would not show it anyway
  // MarginV 0 keeps the style's margin; a moved page names its own.
  events.push(`Dialogue: ${layer},${from},${to},${style},,0,0,${marginV},,${text}`);
}

/**
 * Event text of a right-to-left page, for the CaptionRTL style. libass (like VSFilter) runs the bidi
 * algorithm on each stretch of text between override blocks as a paragraph of its own, then reorders
 * each line as a whole; the style's Encoding -1 makes a stretch's direction that of its first strong
 * character. A stretch whose first strong character is not right to left (the highlighted "iPhone" or
 * "2025" of an Arabic line, a fallback-font switch before a digit) would be a left-to-right paragraph and
 * break the line's order, so it starts with an invisible RIGHT-TO-LEFT MARK.
 */
export function bidiText(text: string): string {
  // Override blocks ({...}, not an escaped \{) and line breaks (\N) end a stretch.
  return text.split(/((?<!\\)\{[^}]*\}|\\N)/).map((part, i) => {
    // A stretch of only spaces counts too: left to right, it would split the line's order in two.
    if (i % 2 === 1 || !part || isRightToLeft(part)) return part;
    return RLM + part;
  }).join('');
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
