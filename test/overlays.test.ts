// Hook title and CTA banner: checked in the rendered frames, not just in the ASS text.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { overlayWindows, withOverlays } from '../src/pipeline/overlays.js';
import { buildAss } from '../src/pipeline/captions.js';
import { DEFAULT_TEMPLATE, fontsDir } from '../src/catalog/templates.js';
import { renderClip } from '../src/media/render.js';
import { RENDER_PLAN_VERSION } from '../src/media/render-plan.js';
import { video } from './helpers/media.js';

const W = 270, H = 480;

function frame(file: string, t: number): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-ss', String(t), '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-']);
}

/** Pixels within `tol` of an RGB colour inside rows [y0, y1). */
function count(buf: Buffer, rgb: [number, number, number], y0: number, y1: number, tol = 40): number {
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = 0; x < W; x++) {
    const i = (y * W + x) * 3;
    if (Math.abs(buf[i]! - rgb[0]) < tol && Math.abs(buf[i + 1]! - rgb[1]) < tol && Math.abs(buf[i + 2]! - rgb[2]) < tol) n++;
  }
  return n;
}

describe('text overlays', () => {
  it('times the hook over the first 3 s and the CTA over the last 4 s (a third of short clips)', () => {
    expect(overlayWindows({ hookTitle: 'x', cta: 'y', clipDuration: 30 })).toEqual({ hook: [0, 3], cta: [26, 30] });
    expect(overlayWindows({ hookTitle: 'x', cta: 'y', clipDuration: 6 })).toEqual({ hook: [0, 3], cta: [4, 6] });
    expect(overlayWindows({ hookTitle: null, cta: null, clipDuration: 6 })).toEqual({ hook: null, cta: null });
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
    const src = video({ duration: 8, width: 480, height: 270, fps: 10, picture: 'color=c=0x203040:size=480x270:rate=10' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'overlays-'));
    const assPath = path.join(dir, 'o.ass');
    writeFileSync(assPath, withOverlays(null, { hookTitle: 'THE HOOK', cta: 'FOLLOW NOW', clipDuration: 8 }, { width: W, height: H }));
    const out = path.join(dir, 'o.mp4');
    await renderClip({
      version: RENDER_PLAN_VERSION,
      input: { path: src, start: 0, end: 8, width: 480, height: 270, hasAudio: false },
      output: { path: out, width: W, height: H, preset: 'ultrafast', crf: 23 },
      reframe: { layout: 'fit', cropWidth: 480, cropHeight: 270, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 0 },
      background: { blur: false, color: '#000000' },
      captions: { assPath, fontsDir: fontsDir() },
    }, {});
    const top: [number, number] = [0, Math.round(H * 0.3)];
    const yellow: [number, number, number] = [255, 212, 0], red: [number, number, number] = [232, 40, 60];
    const start = frame(out, 1.5), middle = frame(out, 4.5), end = frame(out, 7.5);
    expect(count(start, yellow, ...top)).toBeGreaterThan(200);
    expect(count(start, red, ...top)).toBe(0);
    expect(count(middle, yellow, ...top) + count(middle, red, ...top)).toBe(0);
    expect(count(end, red, ...top)).toBeGreaterThan(200);
    // The banners stay out of the caption band at the bottom.
    expect(count(start, yellow, Math.round(H * 0.5), H) + count(end, red, Math.round(H * 0.5), H)).toBe(0);
  });
});
