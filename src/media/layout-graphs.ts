// Where the panels of the two multi-panel layouts (issue 13) sit in the picture, as plain numbers. The
// render graph (ffmpeg-args.ts) draws exactly these rectangles; the reframe planner (the face crop's
// aspect) and caption placement (face boxes mapped to output pixels) use the same functions, so the
// three never disagree by a rounding.
//
// "Picture" is what the layout fills: the whole output frame, or its top half with `gameVideo`.
// Every size here is even (yuv420p chroma is subsampled 2x2).
import type { SourceRect } from '../domain/layout.js';

export interface Size { width: number; height: number }
/** A rectangle in picture pixels (or source pixels, for crops and the screen region). */
export interface Rect { x: number; y: number; width: number; height: number }

/**
 * The face panel of the `screen` layout never gets less than this share of the picture's height: a tall
 * screen region (a portrait slide, a phone recording) is scaled down to leave it, and centred on the
 * background colour. At 30 % of 1920 (576 px) a face cropped to the panel's aspect is well over the
 * 300 px the issue asks for.
 */
export const SCREEN_MIN_FACE_SHARE = 0.3;

/**
 * Crop window (source px) of the panel's aspect: the plan's crop clamped to the source and made even,
 * then narrowed (or shortened) to the panel's aspect when it is off by more than 1 %, keeping its centre
 * (the keyframes). The planner already plans that aspect; this keeps a plan from another picture size
 * (or a rounding) from stretching faces. Off by less than 1 %, scaling's stretch cannot be seen.
 */
export function panelCrop(crop: Size, panel: Size, source: Size): Size {
  let { width: w, height: h } = clampCrop(crop, source);
  const aspect = panel.width / panel.height;
  const off = (w / h) / aspect;
  if (off > 1.01) w = Math.max(2, Math.min(w, even(h * aspect)));
  else if (off < 1 / 1.01) h = Math.max(2, Math.min(h, even(w / aspect)));
  return { width: w, height: h };
}

/** The crop window the renderer cuts (source px): the plan's size clamped to the source, even, at least 2x2. */
export function clampCrop(crop: Size, source: Size): Size {
  return {
    width: Math.max(2, Math.min(evenFloor(crop.width), evenFloor(source.width))),
    height: Math.max(2, Math.min(evenFloor(crop.height), evenFloor(source.height))),
  };
}

/**
 * `square` and `fit`: where the picture sits on the output picture, centred. square: the crop (already
 * clamped) at the full width, or at the full height when the picture is wider than the crop (the 9:8 top
 * half of a split screen is wider than a square); fit: the whole source scaled to fit inside.
 */
export function centredPicture(layout: 'square' | 'fit', picture: Size, source: Size, crop: Size): Rect {
  const W = picture.width, H = picture.height;
  let fw: number, fh: number;
  if (layout === 'square') {
    const { width: cw, height: ch } = crop;
    if (W * ch <= H * cw) {
      fw = W;
      fh = Math.min(H, even((W * ch) / cw));
    } else {
      fh = H;
      fw = Math.min(W, even((H * cw) / ch));
    }
  } else {
    const s = Math.min(W / source.width, H / source.height);
    fw = Math.min(W, even(source.width * s));
    fh = Math.min(H, even(source.height * s));
  }
  return { x: evenFloor((W - fw) / 2), y: evenFloor((H - fh) / 2), width: fw, height: fh };
}

export interface SplitGeometry {
  /** The top person's half and the bottom person's half; the seam is at bottom.y. */
  top: Rect;
  bottom: Rect;
  /** The crop window both halves use (source px): the plan's, fitted to the top half's aspect. */
  crop: Size;
}

/** `split`: two halves of the full picture width, stacked; the top one the even half (an odd half goes below). */
export function splitGeometry(picture: Size, source: Size, crop: Size): SplitGeometry {
  const th = evenFloor(picture.height / 2);
  const top = { x: 0, y: 0, width: picture.width, height: th };
  const bottom = { x: 0, y: th, width: picture.width, height: picture.height - th };
  return { top, bottom, crop: panelCrop(crop, top, source) };
}

export interface ScreenGeometry {
  /** The screen region as cropped: the plan's rect clamped to the source and made even (source px). */
  region: Rect;
  /** The band at the top of the picture that holds the screen (full width). */
  band: Rect;
  /** Where the scaled screen region sits in the picture: the whole band, or centred in it when capped. */
  screen: Rect;
  /**
   * True when the region was scaled to fit a shorter band (narrower than the picture, centred on the
   * background colour) to leave the face SCREEN_MIN_FACE_SHARE.
   */
  capped: boolean;
  /** The face panel below the band. */
  face: Rect;
  /** The face crop window (source px), fitted to the face panel's aspect; null when no crop was given. */
  crop: Size | null;
}

/**
 * `screen`: the region scaled to the picture's full width at the top (height width*h/w, even), the face
 * panel filling the rest. When that would leave the face under SCREEN_MIN_FACE_SHARE of the height, the
 * band is capped there and the region scaled to fit inside it, centred, on the background colour.
 * The planner calls this without a crop to learn the face panel's size (its crop aspect).
 */
export function screenGeometry(picture: Size, source: Size, rect: SourceRect, crop?: Size): ScreenGeometry {
  const region = evenRect(rect, source);
  const maxBand = evenFloor(picture.height * (1 - SCREEN_MIN_FACE_SHARE));
  const natural = Math.max(2, even((picture.width * region.height) / region.width));
  const bandHeight = Math.min(natural, maxBand);
  const band = { x: 0, y: 0, width: picture.width, height: bandHeight };
  const fitted = Math.max(2, Math.min(picture.width, even((bandHeight * region.width) / region.height)));
  // Within 1 % of the full width (a region the planner sized for the cap, off by a rounding) it is
  // scaled to the whole band: a stretch that small cannot be seen, a 2 px strip of background can.
  const capped = fitted < picture.width * 0.99;
  const screen = capped ? { x: evenFloor((picture.width - fitted) / 2), y: 0, width: fitted, height: bandHeight } : band;
  const face = { x: 0, y: bandHeight, width: picture.width, height: picture.height - bandHeight };
  return { region, band, screen, capped, face, crop: crop ? panelCrop(crop, face, source) : null };
}

/** The rect clamped inside the source, with even offsets and sizes (at least 2x2). */
function evenRect(r: SourceRect, source: Size): Rect {
  const x = Math.max(0, Math.min(evenFloor(r.x), evenFloor(source.width) - 2));
  const y = Math.max(0, Math.min(evenFloor(r.y), evenFloor(source.height) - 2));
  const width = Math.max(2, Math.min(evenFloor(r.width), evenFloor(source.width - x)));
  const height = Math.max(2, Math.min(evenFloor(r.height), evenFloor(source.height - y)));
  return { x, y, width, height };
}

function even(n: number): number { return Math.max(0, Math.round(n / 2) * 2); }
function evenFloor(n: number): number { return Math.floor(n / 2) * 2; }
/** A planned size (crop, panel) in even pixels, never under 2: what the planners hand the renderer. */
export function evenSize(n: number): number { return Math.max(2, 2 * Math.round(n / 2)); }
