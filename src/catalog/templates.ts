// Caption templates: pure data. The captions stage (buildAss) turns any template into ASS styles and
// events, so adding a template means adding an entry here, not code. IDs are fixed literals because
// clients store them (spec 2.5: `templateId` is passed back on creation).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CaptionTemplate {
  /** Stable 24-hex id (spec 2.5). */
  templateId: string;
  /** Machine-readable name. */
  name: string;
  displayName: string;
  /** Display order, lower first. */
  order: number;
  font: {
    /** The font's real family name, as libass matches it. */
    family: string;
    /** File name under assets/fonts. */
    file: string;
    /** Pixel size at 1080 px output width; scaled for other widths. */
    size: number;
    bold: boolean;
    uppercase: boolean;
  };
  /** '#RRGGBB' colours. */
  colors: {
    text: string;
    /** The word being spoken (karaoke-highlight / pop). */
    active: string;
    outline: string;
    shadow: string;
    /** Solid background for `fit`/`square` when the background is not blurred. */
    background: string;
  };
  /** Outline and shadow widths in px at 1080 px output width. */
  outline: number;
  shadow: number;
  position: {
    /** Distance from the bottom (top for 'top') in px at 1920 tall; unused for 'middle'. */
    marginV: number;
    alignment: 'bottom' | 'middle' | 'top';
  };
  wordsPerLine: number;
  maxLines: number;
  animation: 'karaoke-highlight' | 'pop' | 'none';
}

const KARAOKE: CaptionTemplate = {
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
    templateId: '5599b3c40d926deb77e807b4',
    name: 'bold-pop',
    displayName: 'Bold Pop',
    order: 2,
    font: { family: 'Montserrat Black', file: 'Montserrat-Black.ttf', size: 104, bold: true, uppercase: true },
    colors: { text: '#FFFFFF', active: '#2BE34B', outline: '#000000', shadow: '#000000', background: '#0B0B0B' },
    outline: 8,
    shadow: 0,
    // One or two big words a third of the way up, below where faces usually are; the spoken one grows.
    position: { marginV: 600, alignment: 'bottom' },
    wordsPerLine: 2,
    maxLines: 1,
    animation: 'pop',
  },
  {
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
]);

/** Karaoke: the word-by-word highlight the spec names as the default. */
export const DEFAULT_TEMPLATE: CaptionTemplate = KARAOKE;

export function findTemplate(id: string): CaptionTemplate | undefined {
  return TEMPLATES.find((t) => t.templateId === id);
}

/** Absolute path of assets/fonts (same depth from src/catalog and dist/catalog). */
export function fontsDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'fonts');
}
