// Captions clear of faces (issue 13): where on the output picture each caption page goes so it never
// covers the eyes or mouth of a face on screen. Pure geometry: faces come from the reframe plan (sampled
// in source coordinates), are mapped through the same crop windows the renderer uses to output pixels,
// and each page's block (measured by captions.ts) is moved off them. The template's position is a
// preference: kept whenever it is free, and for the whole clip when it can be, so captions do not jump.
import { centredPicture, clampCrop, screenGeometry, splitGeometry } from '../../media/layout-graphs.js';
import type { CropKeyframe, ReframePlan } from '../../domain/layout.js';

export interface Size { width: number; height: number }
/** A rectangle in output-picture pixels. */
export interface Rect { x: number; y: number; width: number; height: number }
/** A normalised source face box (centre and size, 0..1), as ReframePlan.faces holds them. */
export interface NormBox { cx: number; cy: number; w: number; h: number }

/** One part of the output picture showing a window of the source (crop window moving over time). */
interface Panel {
  /** Where the panel sits on the picture. */
  dest: Rect;
  /** The source window (px) it shows at clip time t. */
  window: (t: number) => Rect;
}

/**
 * The crop offset (source px, top-left) on one axis at clip time t, exactly as cropExpression
 * (src/media/ffmpeg-args.ts) lets ffmpeg compute it: each keyframe's centre clamped and rounded to an
 * offset, linear between keyframes, held before the first and after the last.
 */
export function cropOffsetAt(keyframes: readonly CropKeyframe[], t: number, axis: 'x' | 'y', cropSize: number, sourceSize: number): number {
  const maxOffset = Math.max(0, sourceSize - cropSize);
  const offset = (c: number) => Math.min(maxOffset, Math.max(0, Math.round(c * sourceSize - cropSize / 2)));
  const points = [...keyframes].sort((a, b) => a.t - b.t).map((k) => ({ t: k.t, v: offset(axis === 'x' ? k.cx : k.cy) }));
  const first = points[0];
  if (!first) return Math.round(maxOffset / 2);
  let v = first.v;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!, b = points[i]!;
    const dt = b.t - a.t;
    const f = dt >= 0.001 ? Math.min(1, Math.max(0, (t - a.t) / dt)) : (t >= a.t ? 1 : 0);
    v += (b.v - a.v) * f;
  }
  return v;
}

function movingWindow(keyframes: readonly CropKeyframe[], cw: number, ch: number, source: Size): (t: number) => Rect {
  return (t) => ({ x: cropOffsetAt(keyframes, t, 'x', cw, source.width), y: cropOffsetAt(keyframes, t, 'y', ch, source.height), width: cw, height: ch });
}

/**
 * The panels of a plan's layout on a picture (the full output, or the top half with gameVideo), following
 * the renderer's geometry: fill scales the crop to the picture; square and fit centre a full-width (or
 * full-height) picture; split stacks two crops in halves; screen puts the screen region at full width on
 * top and the face crop below. The blurred background of fit/square shows no legible face and is ignored.
 */
export function layoutPanels(plan: ReframePlan, source: Size, picture: Size): Panel[] {
  const W = picture.width, H = picture.height;
  const crop = clampCrop({ width: plan.cropWidth, height: plan.cropHeight }, source);
  const { width: cw, height: ch } = crop;
  switch (plan.layout) {
    case 'fill':
      return [{ dest: { x: 0, y: 0, width: W, height: H }, window: movingWindow(plan.keyframes, cw, ch, source) }];
    case 'square':
      return [{ dest: centredPicture('square', picture, source, crop), window: movingWindow(plan.keyframes, cw, ch, source) }];
    case 'fit': {
      const whole = { x: 0, y: 0, width: source.width, height: source.height };
      return [{ dest: centredPicture('fit', picture, source, crop), window: () => whole }];
    }
    case 'split': {
      // The renderer's own geometry (layout-graphs.ts): the halves and the crop fitted to a half's aspect.
      const g = splitGeometry(picture, source, { width: plan.cropWidth, height: plan.cropHeight });
      const panels: Panel[] = [{ dest: g.top, window: movingWindow(plan.keyframes, g.crop.width, g.crop.height, source) }];
      if (plan.second) panels.push({ dest: g.bottom, window: movingWindow(plan.second.keyframes, g.crop.width, g.crop.height, source) });
      return panels;
    }
    case 'screen': {
      if (!plan.screen) return [{ dest: { x: 0, y: 0, width: W, height: H }, window: movingWindow(plan.keyframes, cw, ch, source) }];
      const g = screenGeometry(picture, source, plan.screen, { width: plan.cropWidth, height: plan.cropHeight });
      const region = g.region, crop = g.crop!;
      return [
        { dest: g.screen, window: () => region },
        { dest: g.face, window: movingWindow(plan.keyframes, crop.width, crop.height, source) },
      ];
    }
  }
}

/**
 * Where a source face box appears on the output picture at clip time t: one rectangle per panel that
 * shows it (clipped to the panel), none when every crop leaves it out.
 */
export function faceRectsOnPicture(plan: ReframePlan, source: Size, picture: Size, box: NormBox, t: number, panels = layoutPanels(plan, source, picture)): Rect[] {
  const bx = (box.cx - box.w / 2) * source.width, by = (box.cy - box.h / 2) * source.height;
  const bw = box.w * source.width, bh = box.h * source.height;
  const out: Rect[] = [];
  for (const p of panels) {
    const win = p.window(t);
    const sx = p.dest.width / win.width, sy = p.dest.height / win.height;
    const x0 = p.dest.x + (bx - win.x) * sx, y0 = p.dest.y + (by - win.y) * sy;
    const x1 = x0 + bw * sx, y1 = y0 + bh * sy;
    const r = intersect({ x: x0, y: y0, width: x1 - x0, height: y1 - y0 }, p.dest);
    if (r) out.push(r);
  }
  return out;
}

/** Eyes-to-mouth band of a BlazeFace box: the box runs from the forehead to the chin; eyes sit ~0.3, the mouth ~0.75 down. */
export const EYES_FROM = 0.25;
export const MOUTH_TO = 0.85;

/**
 * The part of a face rectangle a caption must not cover: from above the eyes to below the mouth. Computed
 * on the whole (unclipped) face so a face cut by a panel edge keeps only its visible part of the band.
 */
export function eyesMouthBand(face: Rect): Rect {
  return { x: face.x, y: face.y + face.height * EYES_FROM, width: face.width, height: face.height * (MOUTH_TO - EYES_FROM) };
}

/** Eyes-mouth bands of a source face box on the picture at t (one per panel showing it). */
export function faceBandsOnPicture(plan: ReframePlan, source: Size, picture: Size, box: NormBox, t: number, panels = layoutPanels(plan, source, picture)): Rect[] {
  // Band first (in source space), then through the panels: a band clipped by the panel edge stays a band.
  const band: NormBox = { cx: box.cx, cy: box.cy - box.h / 2 + box.h * (EYES_FROM + MOUTH_TO) / 2, w: box.w, h: box.h * (MOUTH_TO - EYES_FROM) };
  return faceRectsOnPicture(plan, source, picture, band, t, panels);
}

/** Rows a band of the picture is busy from start to end (clip seconds), e.g. the face of one sample. */
export interface BusyArea {
  start: number;
  end: number;
  rect: Rect;
  /** For a face's band: the whole face (forehead to chin), which a caption moved above or below it clears. */
  face?: Rect;
}

/**
 * A face shown smaller than this share of the picture's height is not someone speaking to the camera (a
 * photo on the wall, a crowd, a face on a slide): captions may cover it rather than move for it.
 */
export const MIN_FACE_SHARE = 0.03;

/**
 * The plan's faces as busy areas of the picture: each sample's eyes-mouth bands, from halfway to the
 * previous sample to halfway to the next (a face between samples is where the nearer sample saw it).
 */
export function faceAreas(plan: ReframePlan, source: Size, picture: Size): BusyArea[] {
  const samples = [...(plan.faces ?? [])].sort((a, b) => a.t - b.t);
  if (!samples.length || !source.width || !source.height) return [];
  const panels = layoutPanels(plan, source, picture);
  const out: BusyArea[] = [];
  samples.forEach((s, i) => {
    const prev = samples[i - 1], next = samples[i + 1];
    const start = prev ? (prev.t + s.t) / 2 : -Infinity, end = next ? (s.t + next.t) / 2 : Infinity;
    for (const box of s.boxes) {
      for (const panel of panels) {
        const [rect] = faceBandsOnPicture(plan, source, picture, box, s.t, [panel]);
        const [face] = faceRectsOnPicture(plan, source, picture, box, s.t, [panel]);
        // Judged by the face's full size on the picture (the box scaled by the panel), not its visible part.
        const shown = box.h * source.height * (panel.dest.height / panel.window(s.t).height);
        if (rect && shown >= picture.height * MIN_FACE_SHARE) out.push({ start, end, rect, ...(face ? { face } : {}) });
      }
    }
  });
  return out;
}

/** One caption page to place: its time and the height of its block (text plus any emoji room), px. */
export interface CaptionBlock {
  start: number;
  end: number;
  height: number;
  /** Top of the block where the template puts it. */
  preferredTop: number;
  /** Left and right edges of the text area (the block is centred between the side margins). */
  left: number;
  right: number;
}

export interface PlacementOptions {
  picture: Size;
  /** Areas a caption must avoid: face bands, the hook title and CTA banners. */
  busy: BusyArea[];
  /** Vertical room captions may use: the platforms' UI covers the top ~10 % and bottom ~15 %. */
  safeTop?: number;
  safeBottom?: number;
  /** The seam of a split screen (its y), a candidate of its own. */
  seam?: number | null;
}

/** Gap kept between a caption and a face it moves above or below, as a fraction of the picture height. */
const FACE_GAP = 0.015;

/** An anchor: a caption position that holds for blocks of any height (top edge, centre or bottom edge at y). */
type Anchor = { kind: 'top' | 'centre' | 'bottom'; y: number };

function topOf(a: Anchor, h: number): number {
  return a.kind === 'top' ? a.y : a.kind === 'centre' ? a.y - h / 2 : a.y - h;
}

/**
 * The top (px) of each block: the template's preferred place when no face band or banner is under it
 * during the block's time; otherwise the nearest free place among the lower third, the middle (the seam
 * of a split), the top of the safe area, the bottom of it, and just above or below each face in the way;
 * when none is free, the place with the least overlap. One clip-wide place is chosen first (the preferred
 * one, else the nearest place free for every block) so captions only move for a page that needs it.
 */
export function placeCaptions(blocks: readonly CaptionBlock[], opts: PlacementOptions): number[] {
  const H = opts.picture.height;
  const safeTop = opts.safeTop ?? Math.ceil(H * 0.1);
  const safeBottom = opts.safeBottom ?? H - Math.ceil(H * 0.15);
  const clampTop = (top: number, h: number) => Math.max(safeTop, Math.min(safeBottom - h, top));
  const fixed: Anchor[] = [
    { kind: 'centre', y: H * 2 / 3 },
    { kind: 'centre', y: opts.seam ?? H / 2 },
    { kind: 'top', y: safeTop },
    { kind: 'bottom', y: safeBottom },
  ];
  const cost = (b: CaptionBlock, top: number) => overlapCost(b, top, opts.busy, 'band');
  // Soft cost, after the bands: covering the rest of a face (forehead, chin) when a place clear of it exists.
  const soft = (b: CaptionBlock, top: number) => overlapCost(b, top, opts.busy, 'face');
  const free = (b: CaptionBlock, top: number) => cost(b, top) === 0;
  const tops = (a: Anchor, b: CaptionBlock) => clampTop(topOf(a, b.height), b.height);

  // The clip-wide place. A split screen's is its seam (the only rows between the two faces). Otherwise
  // the template's, unless it covers a face in more than a quarter of the pages: then the fixed place that
  // covers the fewest (nearest to the template's on a tie), so a face that stays put moves the captions
  // once for the whole clip, and one passing through them moves only the pages it passes.
  const preferred = (b: CaptionBlock) => (opts.seam != null ? tops({ kind: 'centre', y: opts.seam }, b) : b.preferredTop);
  let clipWide: ((b: CaptionBlock) => number) = preferred;
  const colliding = (at: (b: CaptionBlock) => number) => blocks.filter((b) => !free(b, at(b))).length;
  if (colliding(preferred) > blocks.length / 4) {
    const centreOf = (b: CaptionBlock) => preferred(b) + b.height / 2;
    const ranked = fixed
      .map((a) => ({ a, n: colliding((b) => tops(a, b)), s: blocks.reduce((sum, b) => sum + soft(b, tops(a, b)), 0), d: distance(a, blocks, centreOf) }))
      .sort((x, y) => x.n - y.n || x.s - y.s || x.d - y.d);
    const best = ranked[0]!;
    if (best.n < colliding(preferred)) clipWide = (b) => tops(best.a, b);
  }

  let previous: number | null = null;
  return blocks.map((b) => {
    const home = clipWide(b);
    let chosen: number;
    if (free(b, home)) {
      chosen = home;
    } else if (previous !== null && free(b, previous)) {
      chosen = previous; // stay where the last page was when that is still clear
    } else {
      // Tier 0: the fixed places and just above or below a whole face; tier 1: just above or below the
      // eyes-mouth band (on the forehead or the chin), only when nothing of tier 0 is free.
      const candidates = [
        ...[...fixed.map((a) => tops(a, b)), ...faceNeighbours(b, opts.busy, H, 'face'), preferred(b)].map((top) => ({ top, tier: 0 })),
        ...faceNeighbours(b, opts.busy, H, 'band').map((top) => ({ top, tier: 1 })),
      ];
      const ranked = candidates
        .map(({ top, tier }) => ({ top: clampTop(top, b.height), tier }))
        .map(({ top, tier }) => ({ top, tier, c: cost(b, top), s: soft(b, top), d: Math.abs(top - home) }))
        .sort((x, y) => x.c - y.c || x.tier - y.tier || x.s - y.s || x.d - y.d);
      chosen = ranked[0]!.top;
    }
    chosen = Math.round(chosen);
    previous = chosen;
    return chosen;
  });
}

/** Places just above and just below each busy area seen during the block: its whole face, or its band (banners: the band). */
function faceNeighbours(b: CaptionBlock, busy: readonly BusyArea[], H: number, of: 'face' | 'band'): number[] {
  const gap = H * FACE_GAP;
  return busy.filter((a) => during(a, b)).flatMap((a) => {
    const r = of === 'face' ? a.face ?? a.rect : a.rect;
    return [r.y - gap - b.height, r.y + r.height + gap];
  });
}

function during(a: BusyArea, b: { start: number; end: number }): boolean {
  return a.start < b.end && a.end > b.start;
}

/** Overlap (px² of the block's rows and columns over busy rectangles, or over their whole faces) of a block at a top during its time. */
function overlapCost(b: CaptionBlock, top: number, busy: readonly BusyArea[], of: 'band' | 'face'): number {
  let total = 0;
  for (const a of busy) {
    if (!during(a, b)) continue;
    const r = of === 'face' ? a.face ?? a.rect : a.rect;
    const h = Math.min(top + b.height, r.y + r.height) - Math.max(top, r.y);
    const w = Math.min(b.right, r.x + r.width) - Math.max(b.left, r.x);
    if (h > 0 && w > 0) total += h * w;
  }
  return total;
}

function distance(a: Anchor, blocks: readonly CaptionBlock[], centreOf: (b: CaptionBlock) => number): number {
  let sum = 0;
  for (const b of blocks) sum += Math.abs(topOf(a, b.height) + b.height / 2 - centreOf(b));
  return sum / Math.max(1, blocks.length);
}

function intersect(a: Rect, b: Rect): Rect | null {
  const x0 = Math.max(a.x, b.x), y0 = Math.max(a.y, b.y);
  const x1 = Math.min(a.x + a.width, b.x + b.width), y1 = Math.min(a.y + a.height, b.y + b.height);
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/**
 * The clip's placement for buildAss/captionEmoji: each page's top when it moves off a face or a banner
 * (hook title, CTA), undefined where the template's place is kept (the ASS then stays as it was).
 */
export function captionTops(blocks: readonly CaptionBlock[], plan: ReframePlan, source: Size, picture: Size,
  banners: readonly { start: number; end: number; top: number; bottom: number }[]): (number | undefined)[] {
  const busy: BusyArea[] = [
    ...faceAreas(plan, source, picture),
    ...banners.map((b) => ({ start: b.start, end: b.end, rect: { x: 0, y: b.top, width: picture.width, height: b.bottom - b.top } })),
  ];
  if (!busy.length) return blocks.map(() => undefined);
  const tops = placeCaptions(blocks, { picture, busy, seam: plan.layout === 'split' ? picture.height / 2 : null });
  return tops.map((top, i) => (Math.abs(top - blocks[i]!.preferredTop) < 1 ? undefined : top));
}
