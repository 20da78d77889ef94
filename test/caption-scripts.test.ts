// Captions in scripts the template fonts lack (Chinese, Japanese, Korean, Hindi, Arabic...): each run of
// characters is drawn in a shipped font that has them. Checked with libass itself: it reports no
// missing glyph, and the rendered caption matches the same text drawn directly in the fallback font,
// while the template font alone draws something else (tofu boxes or nothing).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_FONTS, TEMPLATES, fontsDir, type CaptionTemplate, type FontRef } from '../src/catalog/templates.js';
import { assFontText, breakToWidth, captionUpperCase, fontRuns, textWidth } from '../src/pipeline/captions/caption-text.js';
import { buildAss, escapeAssText } from '../src/pipeline/captions/captions.js';
import { loadFontFile } from '../src/pipeline/captions/font-file.js';
import { SUBSCRIBE_LINES, buildOutroAss } from '../src/pipeline/render/outro.js';
import type { CaptionCue } from '../src/domain/captions.js';

const W = 270, H = 480;
const template = (name: string): CaptionTemplate => TEMPLATES.find((t) => t.name === name)!;
const font = (family: string): FontRef => FALLBACK_FONTS.find((f) => f.family === family)!;
const LUCKIEST = template('accent').font;

let dir: string;
beforeAll(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'caption-scripts-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One cue showing the whole text for 1 s. */
function cue(text: string): CaptionCue[] {
  return [{ start: 0, end: 1, words: text.split(' ').map((w) => ({ text: w, start: 0, end: 1, probability: 1 })) }];
}

/** libass draws an ASS document on grey; returns the frame (gray8) and what libass logged. */
function draw(name: string, ass: string, at = 0.2): { frame: Buffer; log: string } {
  const file = path.join(dir, `${name}.ass`);
  writeFileSync(file, ass);
  const out = path.join(dir, `${name}.gray`);
  const r = spawnSync('ffmpeg', ['-hide_banner', '-v', 'info', '-y', '-f', 'lavfi', '-i', `color=c=0x404040:s=${W}x${H}:d=1`,
    '-vf', `ass=filename=${file}:fontsdir=${fontsDir()}`, '-ss', String(at), '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'gray', out], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return { frame: execFileSync('cat', [out]), log: r.stderr };
}

/** Pixels that differ by more than 48 grey levels between two frames. */
function difference(a: Buffer, b: Buffer): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i]! - b[i]!) > 48) n++;
  return n;
}
/** Pixels of a frame that are not the grey background (fill, outline, shadow). */
function drawn(frame: Buffer): number {
  let n = 0;
  for (const v of frame) if (Math.abs(v - 0x40) > 48) n++;
  return n;
}
/** Pixels brighter than the grey background (the white caption fill). */
function ink(frame: Buffer): number {
  let n = 0;
  for (const v of frame) if (v > 200) n++;
  return n;
}

/** The same ASS with every `\fn` switch removed: the template font alone. */
const withoutFallbacks = (ass: string) => ass.replace(/\{\\fn[^}]*\}/g, '');
/** The same ASS with the style's font replaced by the fallback: the text drawn directly in it. */
const inFont = (ass: string, family: string) => withoutFallbacks(ass).replace(/^Style: Caption,[^,]+,/m, `Style: Caption,${family},`);

describe('fonts for scripts the template fonts lack', () => {
  it('ships every fallback font with its licence, and each is a font file libass can read', () => {
    for (const f of FALLBACK_FONTS) {
      expect(existsSync(path.join(fontsDir(), f.file)), f.file).toBe(true);
      expect(loadFontFile(path.join(fontsDir(), f.file)).unitsPerEm).toBeGreaterThan(0);
    }
    for (const licence of ['Noto-OFL.txt', 'DroidSansFallback-LICENSE.txt']) expect(existsSync(path.join(fontsDir(), licence))).toBe(true);
  });

  it('draws each run in a font that has it: Latin in the template font, other scripts in a fallback', () => {
    const runs = (text: string, primary: FontRef = LUCKIEST) => fontRuns(text, primary).map((r) => [r.text, r.font.family]);
    expect(runs('Hello world')).toEqual([['Hello world', 'Luckiest Guy']]);
    expect(runs('iPhone 手机很好')).toEqual([['iPhone ', 'Luckiest Guy'], ['手机很好', 'Droid Sans Fallback']]);
    expect(runs('चैनल को सब्सक्राइब करें।')).toEqual([['चैनल को सब्सक्राइब करें।', 'Noto Sans Devanagari']]);
    expect(runs('مرحبا بالعالم')).toEqual([['مرحبا بالعالم', 'Noto Sans Arabic']]);
    expect(runs('チャンネル登録してね')).toEqual([['チャンネル登録してね', 'Droid Sans Fallback']]);
    expect(runs('더 보려면 구독하세요')).toEqual([['더 보려면 구독하세요', 'Droid Sans Fallback']]);
    expect(runs('Κάνε εγγραφή')).toEqual([['Κάνε εγγραφή', 'Noto Sans']]);
    // Cyrillic: Montserrat has it, Luckiest Guy does not.
    expect(runs('Привет')).toEqual([['Привет', 'Montserrat Black']]);
    expect(runs('Привет', template('karaoke').font)).toEqual([['Привет', 'Montserrat Black']]);
    expect(runs('Привет', template('minimal').font)).toEqual([['Привет', 'Montserrat SemiBold']]);
  });

  it('has a font for every character of the outro line of every spec language, for every template', () => {
    for (const t of TEMPLATES) {
      for (const [lang, line] of Object.entries(SUBSCRIBE_LINES)) {
        for (const run of fontRuns(line, t.font)) {
          const m = loadFontFile(path.join(fontsDir(), run.font.file));
          for (const ch of run.text) {
            // Joiners and marks ride with their base character; shaping handles them.
            if (/[\p{M}\u200c\u200d]/u.test(ch)) continue;
            expect(m.has(ch.codePointAt(0)!), `${t.name} ${lang} U+${ch.codePointAt(0)!.toString(16)} in ${run.font.family}`).toBe(true);
          }
        }
      }
    }
  });

  it('switches font with \\fn around the fallback runs only, and returns to the template font', () => {
    expect(assFontText('GO 加油', LUCKIEST, escapeAssText)).toBe('GO {\\fnDroid Sans Fallback}加油{\\fnLuckiest Guy}');
    expect(assFontText('plain {text}', LUCKIEST, escapeAssText)).toBe('plain \\{text\\}');
  });

  it('upper-cases only scripts whose capitals the fonts have', () => {
    expect(captionUpperCase('straße привет γειά')).toBe('STRASSE ПРИВЕТ ΓΕΙΆ');
    expect(captionUpperCase('გამოიწერე 你好 नमस्ते')).toBe('გამოიწერე 你好 नमस्ते');
  });

  it('breaks text without spaces between characters, never before closing punctuation', () => {
    const cjk = font('Droid Sans Fallback');
    const pieces = breakToWidth('我们今天要讨论国际化和本地化的问题，好吗？', cjk, 40, 200);
    expect(pieces.join('')).toBe('我们今天要讨论国际化和本地化的问题，好吗？');
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) {
      expect(textWidth(p, cjk, 40)).toBeLessThanOrEqual(200 + 40);
      expect(p).not.toMatch(/^[，？]/);
    }
  });

  for (const [name, text, fallback] of [
    ['Chinese', '我们今天讨论学习', 'Droid Sans Fallback'],
    ['Hindi', 'और देखने के लिए', 'Noto Sans Devanagari'],
  ] as const) {
    it(`${name} captions: libass finds every glyph, and the text looks as drawn in ${fallback}, not as the template font alone draws it`, () => {
      const t = template('karaoke');
      const ass = buildAss(cue(text), { ...t, animation: 'none' }, { width: W, height: H });
      expect(ass).toContain(`{\\fn${fallback}}`);
      const ours = draw(`${name}-ours`, ass);
      // libass reports at info level each glyph it had to look for in another font.
      expect(ours.log).not.toMatch(/Glyph 0x[0-9A-F]+ not found|failed to find any fallback/i);
      expect(ours.log).toMatch(new RegExp(`fontselect: \\(${fallback}, \\d+, \\d+\\) -> ${path.basename(FALLBACK_FONTS.find((f) => f.family === fallback)!.file, '.ttf')}`));
      expect(ink(ours.frame)).toBeGreaterThan(300);

      const reference = draw(`${name}-reference`, inFont(ass, fallback));
      const alone = draw(`${name}-alone`, withoutFallbacks(ass));
      expect(alone.log).toMatch(/Glyph 0x[0-9A-F]+ not found|failed to find any fallback/i);
      // Same glyphs at the same place: nearly identical. The template font alone: visibly different.
      const glyphs = drawn(reference.frame);
      expect(glyphs).toBeGreaterThan(500);
      expect(difference(ours.frame, reference.frame)).toBeLessThan(glyphs * 0.05);
      expect(difference(alone.frame, reference.frame)).toBeGreaterThan(glyphs * 0.5);
    });
  }

  it('the outro card draws a Chinese and a Hindi line in the fallback fonts', () => {
    for (const [lang, family] of [['zh', 'Droid Sans Fallback'], ['hi', 'Noto Sans Devanagari']] as const) {
      const ass = buildOutroAss({ text: SUBSCRIBE_LINES[lang], handle: '@demo', seconds: 1, textColor: '#FFFFFF', accentColor: '#FFD400', outlineColor: '#000000' }, { width: W, height: H })!;
      expect(ass).toContain(`{\\fn${family}}`);
      const { frame, log } = draw(`outro-${lang}`, ass, 0.8);
      expect(log).not.toMatch(/Glyph 0x[0-9A-F]+ not found|failed to find any fallback/i);
      expect(ink(frame)).toBeGreaterThan(300);
    }
  });
});
