// Right-to-left captions (Arabic, Hebrew, Persian, Urdu) in the burned frames: shaped (joined Arabic
// letters) and ordered right to left, also while the spoken word is highlighted and when digits or a
// Latin word sit in the line. libass runs the bidi algorithm on each stretch between override tags on its
// own (as VSFilter does), so the per-word highlight tags used to turn an Arabic line's word order around.
// Everything goes through the real render path (buildAss + renderClip + libass) and is read back from the
// decoded video.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATES, fontsDir, type CaptionTemplate } from '../src/catalog/templates.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import { bidiText, buildAss, buildCues, escapeAssText, wordsPerCueFor } from '../src/pipeline/captions/captions.js';
import type { Word } from '../src/domain/transcript.js';
import { withOverlays } from '../src/pipeline/render/overlays.js';
import { assFontText } from '../src/pipeline/captions/caption-text.js';
import { frameAt } from './helpers/frames.js';
import { video } from './helpers/media.js';

const W = 540, H = 960;
const template = (name: string): CaptionTemplate => TEMPLATES.find((t) => t.name === name)!;
/** Words spoken one after another, 0.5 s each. */
const spoken = (text: string): Word[] => text.split(' ').map((t, i) => ({ text: t, start: 0.2 + i * 0.5, end: 0.6 + i * 0.5, probability: 1 }));
const CLIP = { start: 0, end: 4 };

let dir: string, source: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'rtl-captions-'));
  source = video({ duration: 4, width: 360, height: 640, picture: 'color=c=0x404040:s=360x640:r=25' });
});
// KEEP_RTL=1 keeps the rendered clips and ASS files for a look.
afterAll(() => { if (!process.env.KEEP_RTL) rmSync(dir, { recursive: true, force: true }); });

/** Burns an ASS document into the test source the way a short is rendered; returns the video. */
async function burn(name: string, ass: string): Promise<string> {
  const assPath = path.join(dir, `${name}.ass`);
  writeFileSync(assPath, ass);
  const plan: RenderPlan = {
    version: 1,
    input: { path: source, start: CLIP.start, end: CLIP.end, width: 360, height: 640, hasAudio: false },
    output: { path: path.join(dir, `${name}.mp4`), width: W, height: H, preset: 'ultrafast', crf: 18 },
    reframe: { layout: 'fill', cropWidth: 360, cropHeight: 640, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
    background: { blur: false, color: '#404040' },
    captions: { assPath, fontsDir: fontsDir() },
  };
  await renderClip(plan);
  return plan.output.path;
}

async function captionsOf(name: string, words: Word[], t: CaptionTemplate): Promise<{ file: string; ass: string }> {
  const ass = buildAss(buildCues(words, CLIP, { wordsPerCue: wordsPerCueFor(t) }), t, { width: W, height: H });
  return { file: await burn(name, ass), ass };
}

/**
 * The expected picture: the same lines as one plain Dialogue (no override tags, so libass lays each line
 * out as a single bidi paragraph and shapes each word whole), in the Caption style with the fallback font
 * the template would switch to.
 */
function referenceAss(ass: string, lines: string[], family: string): string {
  const head = ass.slice(0, ass.indexOf('[Events]'));
  return `${head.replace(/^Style: Caption,[^,]+,/m, `Style: Caption,${family},`)}[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:00.00,0:00:04.00,Caption,,0,0,0,,${lines.join('\\N')}
`;
}

/** Pixels that are caption (fill or outline), not the grey background: colour-blind, so a highlight does not count. */
function inkMask(gray: Buffer): Uint8Array {
  const counts = new Uint32Array(256);
  for (const v of gray) counts[v]!++;
  const background = counts.indexOf(Math.max(...counts));
  return Uint8Array.from(gray, (v) => (Math.abs(v - background) > 40 ? 1 : 0));
}
const inkCount = (m: Uint8Array) => m.reduce((n, v) => n + v, 0);
/** Pixels caption in one picture and background in the other. */
const mismatch = (a: Uint8Array, b: Uint8Array) => a.reduce((n, v, i) => n + (v !== b[i] ? 1 : 0), 0);

/** Mean x of the pixels of a colour (the highlighted word, or its pill) in an RGB frame; NaN when none. */
function centreOf(rgb: Buffer, match: (r: number, g: number, b: number) => boolean): number {
  let sum = 0, n = 0;
  for (let i = 0; i < rgb.length; i += 3) {
    if (match(rgb[i]!, rgb[i + 1]!, rgb[i + 2]!)) { sum += (i / 3) % W; n++; }
  }
  return n > 50 ? sum / n : NaN;
}
const yellow = (r: number, g: number, b: number) => r > 180 && g > 150 && b < 110;
const purple = (r: number, g: number, b: number) => b > 170 && g < 110 && r > 60 && r < 190;

/** Decreasing: each spoken word lit to the left of the one before. */
function expectRightToLeft(xs: number[]): void {
  for (const x of xs) expect(Number.isNaN(x)).toBe(false);
  for (let i = 1; i < xs.length; i++) expect(xs[i]!, `word ${i} at x=${xs[i]} right of word ${i - 1} at x=${xs[i - 1]}`).toBeLessThan(xs[i - 1]! - 5);
}

describe('right-to-left captions in the burned frames', () => {
  for (const [name, text, lines, family] of [
    ['Arabic', 'مرحبا بكم في البرنامج', ['مرحبا بكم في', 'البرنامج'], 'Noto Sans Arabic'],
    ['Hebrew', 'שלום לכולם היום מדברים', ['שלום לכולם היום', 'מדברים'], 'Noto Sans Hebrew'],
  ] as const) {
    it(`${name}: the karaoke line looks as the plain line drawn by libass, not reversed, not unjoined; the highlight moves right to left`, async () => {
      const t = template('karaoke');
      const words = spoken(text);
      const ours = await captionsOf(`${name}-karaoke`, words, t);
      const reference = await burn(`${name}-reference`, referenceAss(ours.ass, lines, family));
      // Word order reversed: what the highlight tags used to cause.
      const reversed = await burn(`${name}-reversed`, referenceAss(ours.ass, lines.map((l) => l.split(' ').reverse().join(' ')), family));

      const at = words[1]!.start + 0.2; // the second word is lit
      const mine = inkMask(frameAt(ours.file, at, 'gray'));
      const expected = inkMask(frameAt(reference, at, 'gray'));
      const ink = inkCount(expected);
      expect(ink).toBeGreaterThan(2000);
      expect(mismatch(mine, expected)).toBeLessThan(ink * 0.08);
      expect(mismatch(mine, inkMask(frameAt(reversed, at, 'gray')))).toBeGreaterThan(ink * 0.3);
      if (name === 'Arabic') {
        // ZERO WIDTH NON-JOINER between all letters: each drawn in its isolated form.
        const unjoined = await burn(`${name}-unjoined`, referenceAss(ours.ass, lines.map((l) => [...l].join('\u200c')), family));
        expect(mismatch(mine, inkMask(frameAt(unjoined, at, 'gray')))).toBeGreaterThan(ink * 0.3);
      }

      // Within the first line, each spoken word is lit left of the one before.
      const xs = words.slice(0, 3).map((w) => centreOf(frameAt(ours.file, w.start + 0.2), yellow));
      expectRightToLeft(xs);
      expect(ours.ass).toContain(',CaptionRTL,');
    });
  }

  it('Arabic with a number and a Latin word: every word in right-to-left order while it is lit', async () => {
    const words = spoken('مرحبا بكم في 2025 مع iPhone');
    const t: CaptionTemplate = { ...template('karaoke'), wordsPerLine: 6 };
    const ours = await captionsOf('mixed-karaoke', words, t);
    expectRightToLeft(words.map((w) => centreOf(frameAt(ours.file, w.start + 0.2), yellow)));
    // The lit "2025" and "IPHONE" stretches are marked right to left (bidiText).
    expect(ours.ass).toContain('\u200f2025');
    expect(ours.ass).toContain('\u200fIPHONE');
  });

  it('Hebrew in the box template: the pill behind the spoken word moves right to left', async () => {
    const words = spoken('שלום לכולם היום');
    const ours = await captionsOf('hebrew-box', words, template('highlight-box'));
    expectRightToLeft(words.map((w) => centreOf(frameAt(ours.file, w.start + 0.2), purple)));
  });

  it('an Arabic hook title with a Latin word reads right to left across its font switches', async () => {
    // Logical order: "offer", "iPhone", "new". Montserrat lacks Arabic, so the title switches font three times.
    const title = 'عرض iPhone الجديد';
    const ass = withOverlays(null, { hookTitle: title, cta: null, clipDuration: 4 }, { width: W, height: H });
    const event = (text: string, encoding: string) => ass
      .replace(/^(Style: SwHook,.*,)-1$/m, `$1${encoding}`)
      .replace(/^(Dialogue: 2,[^,]*,[^,]*,SwHook,,0,0,0,,\{[^}]*\}).*$/m, (_, head: string) => `${head}${assFontText(text, { family: 'Montserrat Black', file: 'Montserrat-Black.ttf' }, escapeAssText)}`);
    const ours = await burn('hook-arabic', ass);
    // What a reader must see, left to right: "new", "iPhone", "offer" (each Arabic word shaped on its own).
    const expected = await burn('hook-expected', event('الجديد iPhone عرض', '1'));
    // What the font switches did before: each stretch its own left-to-right paragraph.
    const broken = await burn('hook-broken', event(title, '1'));
    // The title's words, left to right: runs of columns with letters (dark on the yellow box) after its
    // pop-in, split where at least 6 columns have none (a space; letters inside a word are closer).
    const words = (file: string): number[] => {
      const gray = frameAt(file, 1.5, 'gray');
      const inked = Array.from({ length: W }, (_, x) => { for (let y = 0; y < H / 3; y++) if (gray[y * W + x]! < 40) return true; return false; });
      const widths: number[] = [];
      let start = -1, gap = 0;
      inked.forEach((on, x) => {
        if (on) { if (start < 0 || gap >= 6) { if (start >= 0) widths.push(x - gap - start); start = x; } gap = 0; } else gap++;
      });
      if (start >= 0) widths.push(W - gap - start);
      return widths;
    };
    const [mine, want, old] = [words(ours), words(expected), words(broken)];
    // Three words whose widths, left to right, are those of the plain line ("new" 6 letters, "iPhone", "offer").
    expect(mine).toHaveLength(3);
    expect(want).toHaveLength(3);
    const same = (a: number[], b: number[]) => a.length === b.length && a.every((w, i) => Math.abs(w - b[i]!) <= 2);
    expect(same(mine, want), `${mine} vs ${want}`).toBe(true);
    // The old drawing had the Arabic words the other way round.
    expect(same(old, want), `${old} vs ${want}`).toBe(false);
    expect(same(old, [...want].reverse())).toBe(true);
  });

  it('marks only the stretches whose first strong character is not right to left', () => {
    expect(bidiText('{\\1c&H00D4FF&}مرحبا{\\r} بكم')).toBe('{\\1c&H00D4FF&}مرحبا{\\r} بكم');
    expect(bidiText('مرحبا {\\1c&H00D4FF&}2025{\\r} iPhone')).toBe('مرحبا {\\1c&H00D4FF&}\u200f2025{\\r}\u200f iPhone');
    expect(bidiText('שלום\\Nabc')).toBe('שלום\\N\u200fabc');
    // An escaped brace is text, not a tag.
    expect(bidiText('שלום \\{x\\}')).toBe('שלום \\{x\\}');
  });

  it('a page is right to left when most of its letters are: an Arabic line opening with a Latin word, Persian, Urdu', () => {
    const page = (text: string) => buildAss(buildCues(spoken(text), CLIP, { wordsPerCue: 6 }), { ...template('minimal'), wordsPerLine: 6 }, { width: W, height: H });
    const opening = page('iPhone جديد رائع جدا');
    expect(opening).toContain(',CaptionRTL,,');
    expect(opening).toContain('\u200fiPhone');
    expect(page('سلام به همه دوستان')).toContain(',CaptionRTL,,');
    expect(page('یہ کتاب میری ہے')).toContain(',CaptionRTL,,');
    // An English line with one Arabic name stays left to right.
    expect(page('Welcome to دبي everyone')).toContain(',Caption,,');
  });

  it('left-to-right pages keep the Caption style and no marks', () => {
    const ass = buildAss(buildCues(spoken('ask not what'), CLIP, { wordsPerCue: 6 }), template('karaoke'), { width: W, height: H });
    expect(ass).not.toContain(',CaptionRTL,,');
    expect(ass).not.toContain('\u200f');
    expect(ass).toMatch(/^Style: Caption,.*,1$/m);
    expect(ass).toMatch(/^Style: CaptionRTL,.*,-1$/m);
  });
});
