// Caption templates: pure data. The captions stage (buildAss) turns any template into ASS styles and
// events, so adding a template means adding an entry here, not code. IDs are fixed literals because
// clients store them (spec 2.5: `templateId` is passed back on creation).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How the spoken word is shown. Every kind is drawn by buildAss from the template's data:
 * - karaoke-highlight: the phrase is up, the spoken word in `colors.active`;
 * - pop: as karaoke, and the spoken word is also scaled by `activeScale`;
 * - box: a pill in `colors.box` sits behind the spoken word, whose text turns `colors.active`;
 * - typewriter: words appear as they are spoken (the line's layout is fixed from the start, so nothing
 *   shifts); the newest word is in `colors.active`;
 * - none: the phrase as plain text.
 */
export type CaptionAnimation = 'karaoke-highlight' | 'pop' | 'box' | 'typewriter' | 'none';

/** A shipped font: the family name libass matches, and its file under assets/fonts. */
export interface FontRef {
  /** The font's real family name, as libass matches it. */
  family: string;
  /** File name under assets/fonts (named after the font's PostScript name). */
  file: string;
}

export interface CaptionTemplate {
  /** Stable 24-hex id (spec 2.5). */
  templateId: string;
  /** Machine-readable name; also the file stem of the rendered previews (assets/templates/<name>.*). */
  name: string;
  displayName: string;
  /** Display order, lower first. */
  order: number;
  font: FontRef & {
    /** Pixel size at 1080 px output width; scaled for other widths. */
    size: number;
    bold: boolean;
    uppercase: boolean;
  };
  /** '#RRGGBB' colours. */
  colors: {
    text: string;
    /** The word being spoken (karaoke-highlight / pop / box / typewriter). */
    active: string;
    /** Outline; with `glow` > 0 the colour of the glow. */
    outline: string;
    shadow: string;
    /** Solid background for `fit`/`square` when the background is not blurred. */
    background: string;
    /** The pill behind the spoken word ('box') or the band behind each line (`lineBox`). */
    box?: string;
  };
  /** Outline and shadow widths in px at 1080 px output width. */
  outline: number;
  shadow: number;
  /** Blur of the outline in px at 1080 wide (ASS \blur): > 0 turns the outline into a soft glow. */
  glow: number;
  /** Draw an opaque band in `colors.box` behind each line (ASS BorderStyle 3) instead of an outline. */
  lineBox: boolean;
  /** Percent size of the spoken word for 'pop' (100 = no change). */
  activeScale: number;
  position: {
    /** Distance from the bottom (top for 'top') in px at 1920 tall; unused for 'middle'. */
    marginV: number;
    alignment: 'bottom' | 'middle' | 'top';
  };
  wordsPerLine: number;
  maxLines: number;
  animation: CaptionAnimation;
  /**
   * Emoji accents: a phrase with a keyword of src/pipeline/captions/emoji.ts shows that emoji (an image: libass
   * draws no colour emoji) centred above the phrase while it is up, at most one per phrase; null = none.
   */
  emoji: {
    /** Width and height in px at 1080 px output width. */
    size: number;
    /** Space between the emoji and the top of the phrase, px at 1080 wide. */
    gap: number;
  } | null;
}

/** Plain defaults of the optional looks, so each template below names only what makes it different. */
const PLAIN = { glow: 0, lineBox: false, activeScale: 100, emoji: null } as const;

const KARAOKE: CaptionTemplate = {
  ...PLAIN,
  templateId: 'e406d10fb28cea57e8105110',
  name: 'karaoke',
  displayName: 'Karaoke',
  order: 1,
  font: { family: 'Montserrat Black', file: 'Montserrat-Black.ttf', size: 80, bold: true, uppercase: true },
  colors: { text: '#FFFFFF', active: '#FFD400', outline: '#000000', shadow: '#000000', background: '#111111' },
  outline: 6,
  shadow: 2,
  position: { marginV: 480, alignment: 'bottom' },
  wordsPerLine: 3,
  maxLines: 2,
  animation: 'karaoke-highlight',
};

export const TEMPLATES: readonly CaptionTemplate[] = Object.freeze([
  KARAOKE,
  {
    ...PLAIN,
    templateId: '5599b3c40d926deb77e807b4',
    name: 'bold-pop',
    displayName: 'Bold Pop',
    order: 2,
    font: { family: 'Montserrat Black', file: 'Montserrat-Black.ttf', size: 104, bold: true, uppercase: true },
    colors: { text: '#FFFFFF', active: '#2BE34B', outline: '#000000', shadow: '#000000', background: '#0B0B0B' },
    outline: 8,
    shadow: 0,
    activeScale: 125,
    // One or two big words a third of the way up, below where faces usually are; the spoken one grows.
    position: { marginV: 600, alignment: 'bottom' },
    wordsPerLine: 2,
    maxLines: 1,
    animation: 'pop',
  },
  {
    ...PLAIN,
    templateId: '7c5a12121c05330cc35885b7',
    name: 'minimal',
    displayName: 'Minimal',
    order: 3,
    font: { family: 'Montserrat SemiBold', file: 'Montserrat-SemiBold.ttf', size: 54, bold: false, uppercase: false },
    colors: { text: '#FFFFFF', active: '#FFFFFF', outline: '#000000', shadow: '#000000', background: '#1C1C1E' },
    outline: 2,
    shadow: 3,
    // Lower third, just above the platform's bottom UI band.
    position: { marginV: 320, alignment: 'bottom' },
    wordsPerLine: 5,
    maxLines: 2,
    animation: 'none',
  },
  {
    ...PLAIN,
    templateId: '3f8a6c0e2d41b97a5c13e6d8',
    name: 'highlight-box',
    displayName: 'Highlight Box',
    order: 4,
    font: { family: 'Montserrat Black', file: 'Montserrat-Black.ttf', size: 78, bold: true, uppercase: true },
    colors: { text: '#FFFFFF', active: '#FFFFFF', outline: '#000000', shadow: '#000000', background: '#101018', box: '#7B2FF7' },
    outline: 5,
    shadow: 0,
    position: { marginV: 480, alignment: 'bottom' },
    wordsPerLine: 3,
    maxLines: 2,
    animation: 'box',
  },
  {
    ...PLAIN,
    templateId: '9b2e47d1c6a08f35e7d4a210',
    name: 'neon',
    displayName: 'Neon Glow',
    order: 5,
    font: { family: 'Bebas Neue', file: 'BebasNeue-Regular.ttf', size: 120, bold: false, uppercase: true },
    colors: { text: '#FFF4FE', active: '#3DF2FF', outline: '#FF2BD6', shadow: '#000000', background: '#0A0014' },
    outline: 7,
    shadow: 0,
    glow: 9,
    position: { marginV: 520, alignment: 'bottom' },
    wordsPerLine: 3,
    maxLines: 2,
    animation: 'karaoke-highlight',
  },
  {
    ...PLAIN,
    templateId: '1d7c93a5e0b84f26c9a3d5e7',
    name: 'typewriter',
    displayName: 'Typewriter',
    order: 6,
    font: { family: 'Montserrat SemiBold', file: 'Montserrat-SemiBold.ttf', size: 64, bold: false, uppercase: false },
    colors: { text: '#FFFFFF', active: '#FFE066', outline: '#000000', shadow: '#000000', background: '#161616' },
    outline: 4,
    shadow: 2,
    position: { marginV: 440, alignment: 'bottom' },
    wordsPerLine: 4,
    maxLines: 2,
    animation: 'typewriter',
  },
  {
    ...PLAIN,
    templateId: '6e0f8b3c5a27d94e1b6c8f02',
    name: 'subtitle',
    displayName: 'Two-Line Subtitle',
    order: 7,
    font: { family: 'Montserrat SemiBold', file: 'Montserrat-SemiBold.ttf', size: 50, bold: false, uppercase: false },
    colors: { text: '#FFFFFF', active: '#FFFFFF', outline: '#000000', shadow: '#000000', background: '#121212', box: '#000000' },
    // With lineBox the outline width is the band's padding around the text.
    outline: 12,
    shadow: 0,
    lineBox: true,
    position: { marginV: 330, alignment: 'bottom' },
    wordsPerLine: 6,
    maxLines: 2,
    animation: 'none',
  },
  {
    ...PLAIN,
    templateId: 'c4a1e8f6b3d2075e9a8c1f4b',
    name: 'accent',
    displayName: 'Emoji Accent',
    order: 8,
    // Playful rounded capitals; the spoken word jumps out, bigger and orange, and a phrase with a
    // keyword ("money", "idea", "laugh"...) gets its emoji popping in above it.
    font: { family: 'Luckiest Guy', file: 'LuckiestGuy-Regular.ttf', size: 92, bold: false, uppercase: true },
    colors: { text: '#FFFFFF', active: '#FF7A1A', outline: '#1A1A1A', shadow: '#000000', background: '#1B1030' },
    outline: 7,
    shadow: 4,
    activeScale: 115,
    position: { marginV: 520, alignment: 'bottom' },
    wordsPerLine: 3,
    maxLines: 2,
    animation: 'pop',
    emoji: { size: 180, gap: 16 },
  },
  {
    ...PLAIN,
    templateId: 'f05d2b9e7c4a163b8e2d0a95',
    name: 'high-contrast',
    displayName: 'High Contrast',
    order: 9,
    // Thick black outline and hard shadow: legible over any footage.
    font: { family: 'Anton', file: 'Anton-Regular.ttf', size: 100, bold: false, uppercase: true },
    colors: { text: '#FFFFFF', active: '#FFF200', outline: '#000000', shadow: '#000000', background: '#000000' },
    outline: 10,
    shadow: 5,
    position: { marginV: 500, alignment: 'bottom' },
    wordsPerLine: 3,
    maxLines: 2,
    animation: 'karaoke-highlight',
  },
  {
    ...PLAIN,
    templateId: '2a9d6f1c8e3b5047d6e9b3a1',
    name: 'comic',
    displayName: 'Comic',
    order: 10,
    font: { family: 'Bangers', file: 'Bangers-Regular.ttf', size: 104, bold: false, uppercase: true },
    colors: { text: '#FFE14D', active: '#FF3B3B', outline: '#000000', shadow: '#000000', background: '#14213D' },
    outline: 8,
    shadow: 6,
    activeScale: 120,
    position: { marginV: 540, alignment: 'bottom' },
    wordsPerLine: 2,
    maxLines: 2,
    animation: 'pop',
  },
]);

/** Karaoke: the word-by-word highlight the spec names as the default. */
export const DEFAULT_TEMPLATE: CaptionTemplate = KARAOKE;

export function findTemplate(id: string): CaptionTemplate | undefined {
  return TEMPLATES.find((t) => t.templateId === id);
}

/**
 * Fonts for the characters a template's own font lacks (other scripts), tried in this order per
 * character: the caption text switches font for just those runs, so a Hindi or Chinese caption is drawn
 * in a font that has its glyphs instead of tofu boxes, and Latin words inside it keep the template's
 * look. All open-licence files from Debian packages (assets/fonts/README.md).
 */
export const FALLBACK_FONTS: readonly FontRef[] = Object.freeze([
  // Cyrillic and Vietnamese in a heavy caption face, for the display fonts that have only Latin.
  { family: 'Montserrat Black', file: 'Montserrat-Black.ttf' },
  // Greek (and any Latin/Cyrillic letter Montserrat lacks).
  { family: 'Noto Sans', file: 'NotoSans-Bold.ttf' },
  { family: 'Noto Sans Devanagari', file: 'NotoSansDevanagari-Bold.ttf' },
  { family: 'Noto Sans Arabic', file: 'NotoSansArabic-Bold.ttf' },
  { family: 'Noto Sans Hebrew', file: 'NotoSansHebrew-Bold.ttf' },
  { family: 'Noto Sans Armenian', file: 'NotoSansArmenian-Bold.ttf' },
  { family: 'Noto Sans Georgian', file: 'NotoSansGeorgian-Bold.ttf' },
  // Chinese, Japanese kana and Korean Hangul in one 3.4 MB file (the smallest that covers all three).
  { family: 'Droid Sans Fallback', file: 'DroidSansFallback.ttf' },
]);

/** Absolute path of assets/fonts (same depth from src/catalog and dist/catalog). */
export function fontsDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'fonts');
}
