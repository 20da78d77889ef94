// Captions never leave the 9:16 safe area, whatever is said: very long words, German compounds, URLs and
// Chinese phrases with no spaces are laid out (shrunk, or broken between characters) so that every pixel
// of ink stays between the side margins and above the bottom 15%. Checked in rendered frames.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATES, fontsDir, type CaptionTemplate } from '../src/catalog/templates.js';
import { textWidth } from '../src/pipeline/captions/caption-text.js';
import { parseFont } from '../src/pipeline/captions/font-file.js';
import { buildAss, buildCues, wordsPerCueFor } from '../src/pipeline/captions/captions.js';
import type { CaptionCue } from '../src/domain/captions.js';
import type { Word } from '../src/domain/transcript.js';
import { renderCaptions } from './helpers/caption-render.js';
import { video } from './helpers/media.js';
import { frameAt } from './helpers/frames.js';

const W = 270, H = 480;
const GREY = 0x40;
const template = (name: string): CaptionTemplate => TEMPLATES.find((t) => t.name === name)!;

let dir: string, source: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'caption-layout-'));
  source = video({ duration: 6, width: 360, height: 640, picture: 'color=c=0x404040:s=360x640:r=25' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Phrases far wider than any caption line, each alone for 0.5 s, with pauses between. */
const HARD: Word[] = [
  'Internationalization', 'Donaudampfschifffahrtsgesellschaftskapitän.',
  'https://example.com/a/very/long/path/to/something.',
  '我们今天要讨论国际化和本地化的问题以及为什么它们如此重要。',
  'WWWWWWWWWWWWWWWWWWWW',
].map((text, i) => ({ text, start: 0.2 + i * 1.2, end: 0.7 + i * 1.2, probability: 1 }));
const CLIP = { start: 0, end: 6 };

function inkBox(frame: Buffer) {
  const r = { count: 0, minX: W, maxX: -1, minY: H, maxY: -1 };
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    if (Math.abs(frame[y * W + x]! - GREY) <= 12) continue;
    r.count++; r.minX = Math.min(r.minX, x); r.maxX = Math.max(r.maxX, x); r.minY = Math.min(r.minY, y); r.maxY = Math.max(r.maxY, y);
  }
  return r;
}

async function render(t: CaptionTemplate, cues: CaptionCue[]): Promise<string> {
  return (await renderCaptions({ template: t, cues, source, clip: CLIP, dir, size: { width: W, height: H }, background: '#404040' })).file;
}

describe('caption layout', () => {
  it('measures text as libass sizes it (font size = the font\'s win ascent + descent)', () => {
    // Montserrat Black: unitsPerEm 1000, usWinAscent + usWinDescent 1222 (read from the file).
    const m = parseFont(execFileSync('cat', [path.join(fontsDir(), 'Montserrat-Black.ttf')]));
    expect(m.unitsPerEm).toBe(1000);
    expect(m.sizeUnits).toBeGreaterThan(1000);
    const f = template('karaoke').font;
    expect(textWidth('MM', f, 100)).toBeCloseTo(2 * textWidth('M', f, 100), 6);
    expect(textWidth('M', f, 100)).toBeCloseTo((m.advance('M'.codePointAt(0)!)! * 100) / m.sizeUnits, 6);
  });

  it('keeps words that fit on their lines as before, and shrinks a page only when a word cannot fit', () => {
    const normal: CaptionCue = { start: 0, end: 1, words: ['ask', 'not', 'what'].map((text, i) => ({ text, start: i * 0.3, end: i * 0.3 + 0.2, probability: 1 })) };
    expect(buildAss([normal], template('karaoke'), { width: 1080, height: 1920 })).not.toContain('\\fs');
    const long: CaptionCue = { start: 0, end: 1, words: [{ text: 'Internationalization', start: 0, end: 1, probability: 1 }] };
    const ass = buildAss([long], template('bold-pop'), { width: 1080, height: 1920 });
    const size = Number(/\\fs(\d+)/.exec(ass)?.[1]);
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThan(template('bold-pop').font.size);
    // Chinese is broken between characters instead of shrunk.
    const zh: CaptionCue = { start: 0, end: 1, words: [{ text: HARD[3]!.text, start: 0, end: 1, probability: 1 }] };
    const cjk = buildAss([zh], template('karaoke'), { width: 1080, height: 1920 });
    expect(cjk).toContain('\\N');
    expect(cjk).not.toContain('\\fs');
  });

  // Every template, every hard phrase: all ink inside the safe box (side margins 10%, bottom 15%, top 10%).
  for (const t of TEMPLATES) {
    it(`${t.name}: a very long word, a compound, a URL and Chinese stay inside the safe area`, async () => {
      const cues = buildCues(HARD, CLIP, { wordsPerCue: wordsPerCueFor(t) });
      expect(cues).toHaveLength(HARD.length);
      const file = await render(t, cues);
      for (const w of HARD) {
        const box = inkBox(frameAt(file, (w.start + w.end) / 2, 'gray'));
        expect(box.count, w.text).toBeGreaterThan(100);
        expect(box.minX, w.text).toBeGreaterThanOrEqual(Math.floor(W * 0.1) - 1);
        expect(box.maxX, w.text).toBeLessThanOrEqual(Math.ceil(W * 0.9) + 1);
        expect(box.maxY, w.text).toBeLessThan(H * 0.85);
        expect(box.minY, w.text).toBeGreaterThan(H * 0.1);
      }
    });
  }
});
