// How caption text meets the shipped fonts: which font draws each character (the template's own, else
// the first fallback that has it), how wide a string comes out at a given ASS font size, and where a
// word with no spaces (Chinese, Japanese, a URL) may be broken. Used by the captions stage to keep
// every line inside the safe area, and by any ASS writer that must not draw tofu (the outro card).
import path from 'node:path';
import { FALLBACK_FONTS, fontsDir, type FontRef } from '../../catalog/templates.js';
import { loadFontFile, type FontFile } from './font-file.js';

/** A stretch of text drawn in one font. */
export interface TextRun { text: string; font: FontRef }

function metrics(font: FontRef): FontFile {
  return loadFontFile(path.join(fontsDir(), font.file));
}

/** Marks and joiners belong to the character before them: never split from it, never a font switch. */
const ATTACHED = /^[\p{M}\u200c\u200d\ufe00-\ufe0f]$/u;
/** Characters every script uses (space, digits, punctuation): they stay in the current run's font when it has them. */
const COMMON = /^[\p{Zs}\p{N}\p{P}\p{S}]$/u;

/**
 * Splits text into runs of the font that draws them: the primary font where it has the character,
 * else the first of FALLBACK_FONTS that does (else the primary, and libass's own fallback).
 */
export function fontRuns(text: string, primary: FontRef, fallbacks: readonly FontRef[] = FALLBACK_FONTS): TextRun[] {
  const runs: TextRun[] = [];
  let current: TextRun | undefined;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    let font: FontRef;
    if (current && (ATTACHED.test(ch) || (COMMON.test(ch) && metrics(current.font).has(cp)))) font = current.font;
    else font = [primary, ...fallbacks].find((f) => metrics(f).has(cp)) ?? primary;
    if (current && current.font.family === font.family) current.text += ch;
    else runs.push(current = { text: ch, font });
  }
  return runs;
}

/**
 * Width in px of text at an ASS font size, the way libass sizes fonts (font-file.ts): the sum of
 * nominal advances. A character no shipped font has counts one em wide.
 */
export function textWidth(text: string, primary: FontRef, fontSize: number): number {
  let width = 0;
  for (const run of fontRuns(text, primary)) {
    const m = metrics(run.font);
    for (const ch of run.text) width += (m.advance(ch.codePointAt(0)!) ?? m.unitsPerEm) * fontSize / m.sizeUnits;
  }
  return width;
}

/**
 * Text for an ASS event: escaped (escapeAssText's rules) with `\fn` switches around the runs a fallback
 * font draws, back to the primary family after each, so override tags around the text keep working.
 */
export function assFontText(text: string, primary: FontRef, escape: (s: string) => string, fallbacks: readonly FontRef[] = FALLBACK_FONTS): string {
  return fontRuns(text, primary, fallbacks).map((r) => (r.font.family === primary.family ? escape(r.text)
    : `{\\fn${r.font.family}}${escape(r.text)}{\\fn${primary.family}}`)).join('');
}

/**
 * The font that draws the first letter of a caption page (its main script): the template's own for
 * Latin, else the fallback for the page's script. A page of Arabic, Hebrew or Chinese is then written in
 * that font with the template's font as a fallback (for a Latin word), so its spaces and line height come
 * from the font of its words and no font switch splits the line into more bidi stretches than its words.
 */
export function pageFont(text: string, template: FontRef): FontRef {
  const run = fontRuns(text, template).find((r) => /\p{L}/u.test(r.text));
  return run?.font ?? template;
}

/** Scripts with a case whose capitals every shipped font for them has. (Georgian's Mtavruli is not.) */
const CASED = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Armenian}]$/u;

/** Upper case for the scripts whose capitals the fonts have; every other character unchanged. */
export function captionUpperCase(text: string): string {
  let out = '';
  for (const ch of text) out += CASED.test(ch) ? ch.toUpperCase() : ch;
  return out;
}

/** Scripts written without spaces between words, so a line may break between any two characters. */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\u3000-\u303f\uff00-\uffef]/u;

export function breaksAnywhere(text: string): boolean {
  return NO_SPACES.test(text);
}

/** Closing punctuation a line must not start with (kinsoku): it stays with the character before it. */
const NO_LINE_START = /^[、。，．・：；？！）」』】〕〉》”’,.:;?!)\]}ー々ゃゅょっぁぃぅぇぉャュョッァィゥェォ]$/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Characters after which a long word, path or URL breaks naturally (no hyphen needed). */
const SOFT_BREAK = /^[\/\-._?&=#–—]$/u;

/**
 * Cuts text into pieces no wider than maxWidth px (at fontSize), between grapheme clusters and never
 * before closing punctuation. A word of a spaced script is cut preferably after / - . _ (URLs,
 * compounds written with hyphens), else anywhere with a hyphen added; Chinese and Japanese anywhere.
 * A single cluster wider than maxWidth is a piece of its own.
 */
export function breakToWidth(text: string, primary: FontRef, fontSize: number, maxWidth: number): string[] {
  const clusters = [...graphemes.segment(text)].map((s) => s.segment);
  const hyphenate = !breaksAnywhere(text);
  const hyphenAfter = (end: number) => hyphenate && end < clusters.length && !SOFT_BREAK.test(clusters[end - 1]!);
  const pieces: string[] = [];
  let start = 0;
  while (start < clusters.length) {
    // The longest piece from `start` that fits, its hyphen included.
    let end = start + 1;
    while (end < clusters.length && textWidth(clusters.slice(start, end + 1).join('') + (hyphenAfter(end + 1) ? '-' : ''), primary, fontSize) <= maxWidth) end++;
    if (hyphenate) {
      // A natural break in the piece's last 40% reads better than a hyphen.
      for (let k = end; end < clusters.length && k > start + 1 && k >= start + (end - start) * 0.6; k--) {
        if (SOFT_BREAK.test(clusters[k - 1]!)) { end = k; break; }
      }
    }
    while (end < clusters.length && NO_LINE_START.test(clusters[end]!)) end++;
    pieces.push(clusters.slice(start, end).join('') + (hyphenAfter(end) ? '-' : ''));
    start = end;
  }
  return pieces;
}
