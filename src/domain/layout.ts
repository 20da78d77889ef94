// How a source is placed inside the vertical frame: the layouts, the crop and the faces behind it.

/**
 * Spec 4.2's four layouts, plus two extensions (issue 13): `split` (two people of one wide shot stacked in
 * two halves) and `screen` (a screen region at full width on top, the presenter's face below).
 */
export type Layout = 'auto' | 'fill' | 'fit' | 'square' | 'split' | 'screen';
export type ResolvedLayout = Exclude<Layout, 'auto'>;

/** A rectangle in source pixels. */
export interface SourceRect { x: number; y: number; width: number; height: number }

/** Which half of a split screen holds the person speaking, over clip time (for the highlight). */
export interface SpeakerSpan { start: number; end: number; half: 'top' | 'bottom' }

/** A face box in normalised source coordinates (0..1), at source time t. */
export interface FaceBox { t: number; cx: number; cy: number; w: number; h: number; score: number }

/** One crop keyframe, clip-relative time, crop centre in normalised source coordinates. */
export interface CropKeyframe { t: number; cx: number; cy: number }

/** Stage 5 output: how to place the source inside the vertical frame. */
export interface ReframePlan {
  layout: ResolvedLayout;
  /** Crop window size in source pixels (fill/square); for fit, the whole frame. */
  cropWidth: number;
  cropHeight: number;
  /** Smoothed crop centres; a single keyframe means a static crop. */
  keyframes: CropKeyframe[];
  /** Fraction of sampled frames where the main face was found (0..1). */
  faceCoverage: number;
  /**
   * split only: the bottom half's person. `keyframes` (with cropWidth x cropHeight, the aspect of one
   * half: output.width x output.height/2) frame the top person, `second` the bottom one with the same crop
   * size. Optional so plans written before layouts existed keep their meaning.
   */
  second?: { keyframes: CropKeyframe[] } | null;
  /** split only: who speaks when, if known (the speaking half may be highlighted). */
  speakers?: SpeakerSpan[];
  /**
   * screen only: the screen region (source pixels), scaled to the full output width at the top; the face
   * crop (`keyframes`, cropWidth x cropHeight) fills the rest of the frame below it.
   */
  screen?: SourceRect | null;
  /**
   * The faces sampled in the clip (clip-relative t, normalised source coordinates), for placing captions
   * clear of them. Absent when no faces were looked for (fit without detection, plans written before).
   */
  faces?: { t: number; boxes: Omit<FaceBox, 't' | 'score'>[] }[];
}
