// Hook title and CTA banner: checked in the rendered frames, not just in the ASS text.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clearOfBands, overlayBands, overlayWindows, withOverlays, type TextOverlays } from '../src/pipeline/render/overlays.js';
import { buildAss } from '../src/pipeline/captions/captions.js';
import { DEFAULT_TEMPLATE, fontsDir } from '../src/catalog/templates.js';
import { renderClip } from '../src/media/render.js';
import { RENDER_PLAN_VERSION } from '../src/media/render-plan.js';
import { video } from './helpers/media.js';
import { frameAt } from './helpers/frames.js';

const W = 270, H = 480;

/** Pixels within `tol` of an RGB colour inside rows [y0, y1). */
function count(buf: Buffer, rgb: [number, number, number], y0: number, y1: number, tol = 40): number {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = 0; x < W; x++) {
    const i = (y * W + x) * 3;
    if (Math.abs(buf[i]! - rgb[0]) < tol && Math.abs(buf[i + 1]! - rgb[1]) < tol && Math.abs(buf[i + 2]! - rgb[2]) < tol) n++;
  }
  return n;
}

/** Renders the overlays alone over a plain 480x270 source, fitted into W x H; returns the MP4. */
async function renderOverlays(name: string, o: TextOverlays): Promise<string> {
  const src = video({ duration: o.clipDuration, width: 480, height: 270, fps: 10, picture: 'color=c=0x203040:size=480x270:rate=10' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'overlays-'));
  const assPath = path.join(dir, `${name}.ass`);
  writeFileSync(assPath, withOverlays(null, o, { width: W, height: H }));
  const out = path.join(dir, `${name}.mp4`);
  await renderClip({
    version: RENDER_PLAN_VERSION,
    input: { path: src, start: 0, end: o.clipDuration, width: 480, height: 270, hasAudio: false },
    output: { path: out, width: W, height: H, preset: 'ultrafast', crf: 23 },
    reframe: { layout: 'fit', cropWidth: 480, cropHeight: 270, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
    background: { blur: false, color: '#000000' },
    captions: { assPath, fontsDir: fontsDir() },
  }, {});
  return out;
}

describe('text overlays', () => {
  it('times the hook over the first 3 s and the CTA over the last 4 s (a third of short clips)', () => {
    expect(overlayWindows({ hookTitle: 'x', cta: 'y', clipDuration: 30 })).toEqual({ hook: [0, 3], cta: [26, 30] });
    expect(overlayWindows({ hookTitle: 'x', cta: 'y', clipDuration: 6 })).toEqual({ hook: [0, 3], cta: [4, 6] });
    expect(overlayWindows({ hookTitle: null, cta: null, clipDuration: 6 })).toEqual({ hook: null, cta: null });
  });

  it('switches to a fallback font for the characters Montserrat lacks (CJK, Devanagari)', () => {
    const ass = withOverlays(null, { hookTitle: '为什么 AI 改变一切', cta: 'और देखें', clipDuration: 20 }, { width: W, height: H });
    expect(ass).toContain('{\\fnDroid Sans Fallback}为什么 {\\fnMontserrat Black}AI {\\fnDroid Sans Fallback}改变一切{\\fnMontserrat Black}');
    expect(ass).toContain('{\\fnNoto Sans Devanagari}और देखें{\\fnMontserrat Black}');
  });

  it('merges into a captions document, keeping its styles and events', () => {
    const base = buildAss([], DEFAULT_TEMPLATE, { width: W, height: H });
    const merged = withOverlays(base, { hookTitle: 'Why {this} works', cta: 'Follow for more', clipDuration: 20 }, { width: W, height: H });
    expect(merged).toContain('Style: SwHook,');
    expect(merged).toContain('Style: SwCta,');
    expect(merged.match(/^Style: /gm)!.length).toBe(base.match(/^Style: /gm)!.length + 2);
    expect(merged).toMatch(/Dialogue: 2,0:00:00\.00,0:00:03\.00,SwHook,.*Why \\{this\\} works/);
    expect(merged).toMatch(/Dialogue: 2,0:00:16\.00,0:00:20\.00,SwCta,.*Follow for more/);
  });

  it('burns the hook title in at the start and the CTA banner near the end only', async () => {
    const out = await renderOverlays('o', { hookTitle: 'THE HOOK', cta: 'FOLLOW NOW', clipDuration: 8 });
    const top: [number, number] = [0, Math.round(H * 0.3)];
    const yellow: [number, number, number] = [255, 212, 0], red: [number, number, number] = [232, 40, 60];
    const start = frameAt(out, 1.5), middle = frameAt(out, 4.5), end = frameAt(out, 7.5);
    expect(count(start, yellow, ...top)).toBeGreaterThan(200);
    expect(count(start, red, ...top)).toBe(0);
    expect(count(middle, yellow, ...top) + count(middle, red, ...top)).toBe(0);
    expect(count(end, red, ...top)).toBeGreaterThan(200);
    // The banners stay out of the caption band at the bottom.
    expect(count(start, yellow, Math.round(H * 0.5), H) + count(end, red, Math.round(H * 0.5), H)).toBe(0);
  });
  it('says which rows the banners take and when, a long title taking more lines', () => {
    const short = overlayBands({ hookTitle: 'Short hook', cta: 'Follow', clipDuration: 20 }, { width: 1080, height: 1920 });
    expect(short.map((b) => [b.start, b.end])).toEqual([[0, 3], [16, 20]]);
    const long = overlayBands({ hookTitle: 'The one habit that quietly changed everything about how I learn new skills', cta: null, clipDuration: 20 }, { width: 1080, height: 1920 });
    expect(long).toHaveLength(1);
    expect(long[0]!.top).toBe(short[0]!.top);
    expect(long[0]!.bottom - long[0]!.top).toBeGreaterThan(short[0]!.bottom - short[0]!.top);
    expect(overlayBands({ hookTitle: null, cta: null, clipDuration: 20 }, { width: 1080, height: 1920 })).toEqual([]);
  });

  it('moves emoji that would cover a banner out of its time, and leaves the others alone', () => {
    const bands = [{ start: 0, end: 3, top: 100, bottom: 300 }, { start: 16, end: 20, top: 100, bottom: 250 }];
    const e = (start: number, end: number, y: number) => ({ start, end, y, size: 100, path: 'x.png' });
    expect(clearOfBands([
      e(1, 5, 250), // overlaps the hook rows: shown after it
      e(0.5, 2.5, 250), // entirely inside the hook's time: dropped
      e(1, 5, 300), // below the hook: untouched
      e(15, 19, 200), // overlaps the CTA: shown before it
      e(2.8, 3.1, 150), // what is left is too short: dropped
    ], bands)).toEqual([e(3, 5, 250), e(1, 5, 300), e(15, 16, 200)]);
  });

  it('keeps the drawn hook title inside the band it reports', async () => {
    const o = { hookTitle: 'The one habit that quietly changed everything about how I learn', cta: null, clipDuration: 2 };
    const out = await renderOverlays('band', o);
    const [band] = overlayBands(o, { width: W, height: H });
    const f = frameAt(out, 1.5);
    const yellow: [number, number, number] = [255, 212, 0];
    expect(count(f, yellow, 0, H)).toBeGreaterThan(200);
    expect(count(f, yellow, 0, band!.top) + count(f, yellow, band!.bottom, H)).toBe(0);
  });
});
