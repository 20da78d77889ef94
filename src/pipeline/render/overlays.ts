// Text overlays burned in with the captions (same libass pass, no extra ffmpeg work): the animated
// hook title over the first seconds (`hookTitle`) and the call-to-action banner over the last seconds
// of the clip content (`ctaEnabled` + `ctaText`). Both sit in the top band, below the platforms' own
// top UI and away from the captions, which live in the lower part of the frame.
import type { FontRef } from '../../catalog/templates.js';
import { assFontText, textWidth } from '../captions/caption-text.js';
import { assColor, assTime, bidiText, escapeAssText } from '../captions/captions.js';
import { readsRightToLeft } from '../shared/script-text.js';

export interface TextOverlays {
  /** The clip's generated hook title, or null. */
  hookTitle: string | null;
  /** Call-to-action text, or null. */
  cta: string | null;
  /** Seconds of clip content (times are clip-relative). */
  clipDuration: number;
}

/** Seconds the hook title stays up (spec: "for the first ~3 s"). */
export const HOOK_SECONDS = 3;
/** The CTA covers the last seconds of the content: 4 s, or a third of a short clip. */
export const CTA_SECONDS = 4;

const FONT: FontRef = { family: 'Montserrat Black', file: 'Montserrat-Black.ttf' };
/** Escaped ASS text with fallback-font switches for characters Montserrat lacks (CJK, Devanagari...). */
const overlayText = (text: string) => {
  const ass = assFontText(text, FONT, escapeAssText);
  // A right-to-left title (an Arabic or Hebrew clip's) keeps its order across the font switches: the
  // styles' Encoding -1 takes each stretch's direction from its text, bidiText marks the others (captions.ts).
  return readsRightToLeft(text) ? bidiText(ass) : ass;
};
const STYLE_FORMAT = 'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding';

export function overlayWindows(o: TextOverlays): { hook: [number, number] | null; cta: [number, number] | null } {
  const d = Math.max(0, o.clipDuration);
  const ctaLength = Math.min(CTA_SECONDS, d / 3);
  return {
    hook: o.hookTitle ? [0, Math.min(HOOK_SECONDS, d)] : null,
    cta: o.cta ? [Math.max(0, d - ctaLength), d] : null,
  };
}

/**
 * Adds the overlays to a captions ASS document (or makes a new one when captions are off). Styles are
 * scaled from 1080x1920; BorderStyle 3 draws an opaque box behind the text, the banner look.
 */
export function withOverlays(baseAss: string | null, o: TextOverlays, video: { width: number; height: number }): string {
  const { hook, cta } = overlayWindows(o);
  const g = overlayGeometry(video);
  const styles = [
    `Style: SwHook,${FONT.family},${g.hook.size},${assColor('#111111', 0)},${assColor('#111111', 0)},${assColor('#FFD400', 0)},${assColor('#FFD400', 0)},-1,0,0,0,100,100,0,0,3,${g.hook.box},0,8,${g.margin},${g.margin},${g.top},-1`,
    `Style: SwCta,${FONT.family},${g.cta.size},${assColor('#FFFFFF', 0)},${assColor('#FFFFFF', 0)},${assColor('#E8283C', 0)},${assColor('#E8283C', 0)},-1,0,0,0,100,100,0,0,3,${g.cta.box},0,8,${g.margin},${g.margin},${g.top},-1`,
  ];
  const events: string[] = [];
  if (hook && o.hookTitle) {
    // Pops in (scale 70% -> 100% over 0.25 s) and fades out at the end of its window.
    events.push(`Dialogue: 2,${assTime(hook[0])},${assTime(hook[1])},SwHook,,0,0,0,,{\\fad(120,300)\\fscx70\\fscy70\\t(0,250,\\fscx100\\fscy100)}${overlayText(o.hookTitle)}`);
  }
  if (cta && o.cta) {
    events.push(`Dialogue: 2,${assTime(cta[0])},${assTime(cta[1])},SwCta,,0,0,0,,{\\fad(250,0)}${overlayText(o.cta)}`);
  }
  const base = baseAss ?? emptyAss(video);
  const lines = base.split('\n');
  const formatAt = lines.findIndex((l, i) => l.startsWith('Format: Name') && lines.slice(0, i).some((p) => p.trim() === '[V4+ Styles]'));
  if (formatAt < 0) throw new Error('captions ASS has no [V4+ Styles] format line');
  lines.splice(formatAt + 1, 0, ...styles);
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return [...lines, ...events, ''].join('\n');
}

/** Sizes of the banners at an output size (scaled from 1080x1920): font size and box padding, margins, top. */
function overlayGeometry(video: { width: number; height: number }) {
  const k = video.width / 1080;
  const size = (px: number) => Math.max(8, Math.round(px * k));
  return {
    margin: Math.round(video.width * 0.08),
    top: Math.round(video.height * 0.11),
    hook: { size: size(70), box: size(18) },
    cta: { size: size(58), box: size(20) },
  };
}

/** Where and when a banner is drawn: rows [top, bottom) of the picture from start to end (clip seconds). */
export interface OverlayBand { start: number; end: number; top: number; bottom: number }

/**
 * The screen space the hook title and the CTA banner take, for other layers to keep clear of (the
 * emoji accents). The height counts the lines the text wraps to, measured with the font's real
 * advance widths, one more line as slack for libass's word wrap, and the box padding.
 */
export function overlayBands(o: TextOverlays, video: { width: number; height: number }): OverlayBand[] {
  const { hook, cta } = overlayWindows(o);
  const g = overlayGeometry(video);
  const band = (window: [number, number], text: string, style: { size: number; box: number }): OverlayBand => {
    const lines = Math.ceil(textWidth(text, FONT, style.size) / Math.max(1, video.width - 2 * g.margin)) + 1;
    return { start: window[0], end: window[1], top: g.top - style.box, bottom: g.top + lines * style.size + style.box };
  };
  const bands: OverlayBand[] = [];
  if (hook && o.hookTitle) bands.push(band(hook, o.hookTitle, g.hook));
  if (cta && o.cta) bands.push(band(cta, o.cta, g.cta));
  return bands;
}

/** Shortest stretch an emoji is still worth showing for. */
const MIN_EMOJI_SECONDS = 0.4;

/**
 * Emoji accents that would cover a banner are shown only outside the banner's time: the longer part of
 * their phrase before or after it, or not at all when that is too short. Emoji clear of the banners'
 * rows (the usual full-frame case) are untouched; in a split screen's top half they often are not.
 */
export function clearOfBands<T extends { start: number; end: number; y: number; size: number }>(emoji: T[], bands: OverlayBand[]): T[] {
  return emoji.flatMap((e) => {
    let { start, end } = e;
    for (const b of bands) {
      if (e.y >= b.bottom || e.y + e.size <= b.top || end <= b.start || start >= b.end) continue;
      const before = Math.min(end, b.start) - start, after = end - Math.max(start, b.end);
      if (before >= after) end = start + Math.max(0, before);
      else start = end - Math.max(0, after);
    }
    return end - start >= MIN_EMOJI_SECONDS ? [{ ...e, start, end }] : [];
  });
}

function emptyAss(video: { width: number; height: number }): string {
  return ['[Script Info]', '; Generated by shortwright (overlays)', 'ScriptType: v4.00+', `PlayResX: ${video.width}`, `PlayResY: ${video.height}`,
    'WrapStyle: 0', 'ScaledBorderAndShadow: yes', 'YCbCr Matrix: None', '', '[V4+ Styles]', STYLE_FORMAT, '', '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text', ''].join('\n');
}
