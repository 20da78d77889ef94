// Captions clear of faces, as geometry: faces of a reframe plan mapped to the output picture for every
// layout, and caption pages placed so that no page covers the eyes-mouth band of a face on screen during
// its time. The rendered check (real face, real libass, decoded frames) is caption-placement.render.test.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATE, TEMPLATES } from '../src/catalog/templates.js';
import { cropExpression } from '../src/media/ffmpeg-args.js';
import {
  captionTops, cropOffsetAt, eyesMouthBand, faceAreas, faceBandsOnPicture, faceRectsOnPicture, placeCaptions,
  type BusyArea, type CaptionBlock, type Rect,
} from '../src/pipeline/captions/caption-placement.js';
import { buildAss, captionBlocks, captionEmoji } from '../src/pipeline/captions/captions.js';
import type { CaptionCue } from '../src/domain/captions.js';
import type { ReframePlan } from '../src/domain/layout.js';

const SOURCE = { width: 1920, height: 1080 };
const PICTURE = { width: 1080, height: 1920 };

/** ffmpeg's expression for the crop offset, evaluated at t (clip and gte as ffmpeg defines them). */
function evalCrop(expr: string, t: number): number {
  const clip = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const gte = (a: number, b: number) => (a >= b ? 1 : 0);
  return Function('t', 'clip', 'gte', `return ${expr};`)(t, clip, gte) as number;
}

/** Ten phrases of four words, 1.5 s each. */
function cues(n = 10, len = 1.5): CaptionCue[] {
  return Array.from({ length: n }, (_, i) => {
    const start = i * len;
    const words = ['we', 'keep', 'talking', 'here'].map((text, j) => ({ text, start: start + j * 0.3, end: start + j * 0.3 + 0.25, probability: 1 }));
    return { start, end: start + len, words };
  });
}

function overlaps(a: Rect, top: number, b: CaptionBlock): boolean {
  return top < a.y + a.height && top + b.height > a.y && b.left < a.x + a.width && b.right > a.x;
}

/** Every page's block at its chosen top against every face band shown during it. */
function collisions(blocks: CaptionBlock[], tops: number[], busy: BusyArea[]): number {
  let n = 0;
  blocks.forEach((b, i) => {
    for (const a of busy) if (a.start < b.end && a.end > b.start && overlaps(a.rect, tops[i]!, b)) n++;
  });
  return n;
}

/** A plan with faces sampled every 0.5 s over 15 s at one place (normalised source box). */
function withFaces(plan: Omit<ReframePlan, 'faces' | 'faceCoverage'>, boxes: { cx: number; cy: number; w: number; h: number }[]): ReframePlan {
  return { ...plan, faceCoverage: 1, faces: Array.from({ length: 31 }, (_, i) => ({ t: i * 0.5, boxes })) };
}

describe('faces on the output picture', () => {
  it('follows the crop exactly as ffmpeg moves it between keyframes', () => {
    const keyframes = [{ t: 0, cx: 0.3, cy: 0.5 }, { t: 2, cx: 0.7, cy: 0.5 }, { t: 2, cx: 0.2, cy: 0.4 }, { t: 5, cx: 0.25, cy: 0.6 }];
    for (const axis of ['x', 'y'] as const) {
      const expr = cropExpression(keyframes, axis, axis === 'x' ? 606 : 1080, axis === 'x' ? 1920 : 1080);
      for (const t of [0, 0.5, 1.99, 2, 2.01, 3.3, 5, 9]) {
        expect(cropOffsetAt(keyframes, t, axis, axis === 'x' ? 606 : 1080, axis === 'x' ? 1920 : 1080)).toBeCloseTo(evalCrop(expr, t), 6);
      }
    }
  });

  it('fill: a face in the crop window lands where the crop scales it; one outside it is not on screen', () => {
    const plan: ReframePlan = { layout: 'fill', cropWidth: 606, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 };
    // Crop x = 960 - 303 = 657, scale 1080/606.
    const [r] = faceRectsOnPicture(plan, SOURCE, PICTURE, { cx: 0.5, cy: 0.75, w: 0.1, h: 0.2 }, 0);
    expect(r!.x).toBeCloseTo((864 - 657) * (1080 / 606), 3);
    expect(r!.y).toBeCloseTo(702 * (1920 / 1080), 3);
    expect(r!.height).toBeCloseTo(216 * (1920 / 1080), 3);
    expect(faceRectsOnPicture(plan, SOURCE, PICTURE, { cx: 0.1, cy: 0.5, w: 0.1, h: 0.2 }, 0)).toEqual([]);
    const [band] = faceBandsOnPicture(plan, SOURCE, PICTURE, { cx: 0.5, cy: 0.75, w: 0.1, h: 0.2 }, 0);
    const whole = eyesMouthBand(r!);
    expect(band!.y).toBeCloseTo(whole.y, 3);
    expect(band!.height).toBeCloseTo(whole.height, 3);
  });

  it('a face too small to be someone talking to the camera (a photo on the wall) does not move captions', () => {
    const plan = withFaces({ layout: 'fit', cropWidth: 1920, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }, [{ cx: 0.5, cy: 0.5, w: 0.05, h: 0.08 }]);
    // 0.08 x 608 px = 49 px on a 1920 tall picture: under MIN_FACE_SHARE.
    expect(faceAreas(plan, SOURCE, PICTURE)).toEqual([]);
    const big = withFaces({ layout: 'fit', cropWidth: 1920, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }, [{ cx: 0.5, cy: 0.5, w: 0.1, h: 0.2 }]);
    expect(faceAreas(big, SOURCE, PICTURE).length).toBe(31);
  });

  it('fit: the letterboxed picture; split: each half through its own crop; screen: the face panel under the screen', () => {
    const fit: ReframePlan = { layout: 'fit', cropWidth: 1920, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 };
    // 1920x1080 -> 1080x608 centred: y from 656.
    const [f] = faceRectsOnPicture(fit, SOURCE, PICTURE, { cx: 0.5, cy: 0.5, w: 0.2, h: 0.2 }, 0);
    expect(f!.y).toBeCloseTo(656 + 0.4 * 608, 3);
    expect(f!.width).toBeCloseTo(0.2 * 1080, 3);

    const split: ReframePlan = {
      layout: 'split', cropWidth: 810, cropHeight: 720, keyframes: [{ t: 0, cx: 0.25, cy: 0.5 }], second: { keyframes: [{ t: 0, cx: 0.75, cy: 0.5 }] }, faceCoverage: 1,
    };
    const [left] = faceRectsOnPicture(split, SOURCE, PICTURE, { cx: 0.25, cy: 0.5, w: 0.1, h: 0.2 }, 0);
    const [right] = faceRectsOnPicture(split, SOURCE, PICTURE, { cx: 0.75, cy: 0.5, w: 0.1, h: 0.2 }, 0);
    expect(left!.y + left!.height).toBeLessThanOrEqual(960);
    expect(right!.y).toBeGreaterThanOrEqual(960);
    expect(left!.y + left!.height / 2).toBeCloseTo(480, 3);
    expect(right!.y + right!.height / 2).toBeCloseTo(1440, 3);

    const screen: ReframePlan = {
      layout: 'screen', cropWidth: 300, cropHeight: 278, keyframes: [{ t: 0, cx: 0.85, cy: 0.8 }], screen: { x: 0, y: 0, width: 1440, height: 1080 }, faceCoverage: 1,
    };
    // Screen 1440x1080 -> 1080x810 on top; face panel 1080x1110 below.
    const rects = faceRectsOnPicture(screen, SOURCE, PICTURE, { cx: 0.85, cy: 0.8, w: 0.08, h: 0.14 }, 0);
    expect(rects).toHaveLength(1);
    expect(rects[0]!.y).toBeGreaterThanOrEqual(810);
    expect(rects[0]!.y + rects[0]!.height / 2).toBeCloseTo(810 + 1110 / 2, 0);
  });
});

describe('placing caption pages', () => {
  const blocks = captionBlocks(cues(), DEFAULT_TEMPLATE, PICTURE);

  it('keeps the template position when no face is under it (and writes the ASS as before)', () => {
    const plan = withFaces({ layout: 'fill', cropWidth: 606, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.4 }] }, [{ cx: 0.5, cy: 0.3, w: 0.12, h: 0.22 }]);
    const tops = captionTops(blocks, plan, SOURCE, PICTURE, []);
    expect(tops.every((t) => t === undefined)).toBe(true);
    expect(buildAss(cues(), DEFAULT_TEMPLATE, PICTURE, { tops })).toBe(buildAss(cues(), DEFAULT_TEMPLATE, PICTURE));
  });

  const cases: { name: string; plan: ReframePlan; source?: { width: number; height: number } }[] = [
    { name: 'fill, face low in the frame', plan: withFaces({ layout: 'fill', cropWidth: 606, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }, [{ cx: 0.5, cy: 0.72, w: 0.12, h: 0.2 }]) },
    { name: 'fill, big face filling the middle', plan: withFaces({ layout: 'fill', cropWidth: 606, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }, [{ cx: 0.5, cy: 0.55, w: 0.3, h: 0.45 }]) },
    { name: 'square, face at the bottom of the square', plan: withFaces({ layout: 'square', cropWidth: 1080, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }, [{ cx: 0.5, cy: 0.8, w: 0.15, h: 0.25 }]) },
    // A 4:3 source letterboxed: its picture reaches down into the caption rows.
    { name: 'fit, face low in a 4:3 picture', source: { width: 1440, height: 1080 }, plan: withFaces({ layout: 'fit', cropWidth: 1440, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }, [{ cx: 0.5, cy: 0.9, w: 0.15, h: 0.25 }]) },
    {
      name: 'split, two people', plan: withFaces({
        layout: 'split', cropWidth: 810, cropHeight: 720, keyframes: [{ t: 0, cx: 0.25, cy: 0.45 }], second: { keyframes: [{ t: 0, cx: 0.75, cy: 0.45 }] },
      }, [{ cx: 0.25, cy: 0.5, w: 0.12, h: 0.3 }, { cx: 0.75, cy: 0.5, w: 0.12, h: 0.3 }]),
    },
    {
      name: 'screen, face panel below', plan: withFaces({
        layout: 'screen', cropWidth: 320, cropHeight: 330, keyframes: [{ t: 0, cx: 0.85, cy: 0.8 }], screen: { x: 0, y: 0, width: 1440, height: 1080 },
      }, [{ cx: 0.85, cy: 0.82, w: 0.09, h: 0.16 }]),
    },
  ];
  for (const { name, plan, source } of cases) {
    it(`${name}: no page covers an eyes-mouth band, and the clip keeps one place`, () => {
      const busy = faceAreas(plan, source ?? SOURCE, PICTURE);
      expect(busy.length).toBeGreaterThan(0);
      // The template's own place collides (that is the point of each case) ...
      const preferred = blocks.map((b) => b.preferredTop);
      if (name !== 'split, two people') expect(collisions(blocks, preferred, busy)).toBeGreaterThan(0);
      // ... the chosen one does not, and is the same for every page.
      const tops = placeCaptions(blocks, { picture: PICTURE, busy, seam: plan.layout === 'split' ? 960 : null });
      expect(collisions(blocks, tops, busy)).toBe(0);
      expect(new Set(tops).size).toBe(1);
      // Inside the safe area.
      for (const [i, t] of tops.entries()) {
        expect(t).toBeGreaterThanOrEqual(192);
        expect(t + blocks[i]!.height).toBeLessThanOrEqual(1920 - 288);
      }
    });
  }

  it('split: captions sit on the seam between the two faces', () => {
    const plan = cases.find((c) => c.name.startsWith('split'))!.plan;
    const tops = placeCaptions(blocks, { picture: PICTURE, busy: faceAreas(plan, SOURCE, PICTURE), seam: 960 });
    expect(Math.abs(tops[0]! + blocks[0]!.height / 2 - 960)).toBeLessThan(2);
  });

  it('a face passing through the caption for one phrase moves that page only, and the hook title band is kept clear too', () => {
    // Face low in the frame from 6 s to 7.5 s only (phrase 5), high otherwise.
    const plan: ReframePlan = {
      layout: 'fill', cropWidth: 606, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1,
      faces: Array.from({ length: 31 }, (_, i) => ({ t: i * 0.5, boxes: [{ cx: 0.5, cy: i * 0.5 >= 6 && i * 0.5 < 7.5 ? 0.75 : 0.3, w: 0.12, h: 0.2 }] })),
    };
    const busy = faceAreas(plan, SOURCE, PICTURE);
    const tops = placeCaptions(blocks, { picture: PICTURE, busy });
    expect(collisions(blocks, tops, busy)).toBe(0);
    const moved = tops.map((t, i) => t !== blocks[i]!.preferredTop);
    expect(moved.filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(moved[0]).toBe(false);
    // A banner over the whole middle for the first 3 s and a face low: the pages of those seconds avoid both.
    const banner = [{ start: 0, end: 3, top: 800, bottom: 1100 }];
    const low = withFaces({ layout: 'fill', cropWidth: 606, cropHeight: 1080, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }] }, [{ cx: 0.5, cy: 0.75, w: 0.12, h: 0.2 }]);
    const placed = captionTops(blocks, low, SOURCE, PICTURE, banner).map((t, i) => t ?? blocks[i]!.preferredTop);
    const busy2 = [...faceAreas(low, SOURCE, PICTURE), { start: 0, end: 3, rect: { x: 0, y: 800, width: 1080, height: 300 } }];
    expect(collisions(blocks, placed, busy2)).toBe(0);
  });

  it('random faces in every layout: a page overlaps a band only when no place in the safe area is free', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let run = 0; run < 200; run++) {
      const n = 1 + Math.floor(rnd() * 2);
      const boxes = Array.from({ length: n }, () => ({ cx: 0.15 + rnd() * 0.7, cy: 0.2 + rnd() * 0.6, w: 0.06 + rnd() * 0.12, h: 0.12 + rnd() * 0.2 }));
      const layout = (['fill', 'square', 'fit', 'split', 'screen'] as const)[run % 5]!;
      const plan = withFaces({
        layout, cropWidth: layout === 'split' ? 810 : layout === 'screen' ? 400 : layout === 'fit' ? 1920 : 606, cropHeight: layout === 'split' ? 720 : layout === 'screen' ? 410 : 1080,
        keyframes: [{ t: 0, cx: boxes[0]!.cx, cy: 0.5 }], second: layout === 'split' ? { keyframes: [{ t: 0, cx: boxes[n - 1]!.cx, cy: 0.5 }] } : null,
        screen: layout === 'screen' ? { x: 0, y: 0, width: 1440, height: 1080 } : null,
      }, boxes);
      const template = TEMPLATES[run % TEMPLATES.length]!;
      const b = captionBlocks(cues(3), template, PICTURE);
      const busy = faceAreas(plan, SOURCE, PICTURE);
      const tops = placeCaptions(b, { picture: PICTURE, busy, seam: layout === 'split' ? 960 : null });
      // Brute force: is any top in the safe area free for a page? Then the chosen one must be free.
      b.forEach((block, i) => {
        const anyFree = Array.from({ length: 1920 }, (_, y) => y).some((y) => y >= 192 && y + block.height <= 1632 && collisions([block], [y], busy) === 0);
        if (anyFree) expect(collisions([block], [tops[i]!], busy), `${layout} run ${run} page ${i}`).toBe(0);
      });
    }
  });
});

describe('the moved caption in the ASS', () => {
  it('every event of a moved page is top-anchored at its place, and its emoji moves with it', () => {
    const template = TEMPLATES.find((t) => t.emoji)!;
    const c: CaptionCue[] = [{ start: 0, end: 2, words: [{ text: 'money', start: 0, end: 0.5, probability: 1 }, { text: 'talks', start: 0.6, end: 1, probability: 1 }] }];
    const [block] = captionBlocks(c, template, PICTURE);
    const ass = buildAss(c, template, PICTURE, { tops: [500] });
    const events = ass.split('\n').filter((l) => l.startsWith('Dialogue:'));
    expect(events.length).toBeGreaterThan(0);
    const room = block!.height - (captionBlocks(c, { ...template, emoji: null }, PICTURE)[0]!.height);
    for (const e of events) {
      expect(e.split(',')[7]).toBe(String(500 + room));
      expect(e).toContain('{\\an8}');
    }
    const moved = captionEmoji(c, template, PICTURE, { tops: [500] });
    const still = captionEmoji(c, template, PICTURE);
    expect(moved).toHaveLength(1);
    expect(Math.abs(moved[0]!.y - still[0]!.y - (500 - block!.preferredTop))).toBeLessThanOrEqual(1);
  });
});
