// Two people in one wide shot (a podcast's two-shot, an interview across a table): the split layout stacks
// them, the left person in the top half and the right person in the bottom half (reading order: left
// first). Pure: works on the face samples the reframer already has.
//
// When is it two people of one shot, and not a multi-camera edit or a crowd? Two face tracks of similar
// size, both present in most samples, side by side. A two-camera edit shows one face per shot, so no two
// tracks are both present through the clip; a lone talking head has one track.
//
// The issue asks for "two people who both speak within the clip": this module says who is THERE; who
// speaks is active-speaker.ts's (from mouth activity at 10 fps), and the reframer splits in `auto` only
// when both do (BOTH_SPEAK_SHARE). Without a transcript, presence alone decides, as before.
import { buildTracks, fillHoles, type FaceTrack, type TrackedSample } from './face-tracker.js';
import { median } from '../shared/stats.js';
import type { FaceBox } from '../../domain/layout.js';
import { evenSize } from '../../media/layout-graphs.js';

/** Each person is in at least this share of the samples... */
export const SPLIT_MIN_COVERAGE = 0.6;
/** ...their faces differ in height by at most this factor (a host and a guest at the same distance)... */
export const SPLIT_MAX_SIZE_RATIO = 1.6;
/**
 * ...and their centres are at least this many face widths (the mean of the two) apart horizontally: the
 * boxes clear of each other by half a face (not one face found twice, not a hug). Two 960-wide panels
 * with faces filling them (the podcast fixture: faces 0.28 and 0.18 of the frame wide, centres 0.44
 * apart) failed the earlier "2 x the larger width", though nobody would call them one face.
 */
export const SPLIT_MIN_SEPARATION = 1.5;

export interface Person {
  /** One box per sample (held over gaps), for the crop path. */
  path: FaceBox[];
  coverage: number;
  medianHeight: number;
  medianWidth: number;
  medianCx: number;
}

export interface TwoPeople { left: Person; right: Person }

function person(track: FaceTrack, samples: TrackedSample[]): Person {
  return {
    path: fillHoles(track, samples),
    coverage: track.boxes.length / samples.length,
    medianHeight: median(track.boxes.map((b) => b.h)),
    medianWidth: median(track.boxes.map((b) => b.w)),
    medianCx: median(track.boxes.map((b) => b.cx)),
  };
}

/**
 * The two people of a two-shot, or null. The two heaviest tracks (height x presence) must each cover
 * SPLIT_MIN_COVERAGE of the samples, be of similar size and be side by side.
 */
export function findTwoPeople(samples: TrackedSample[]): TwoPeople | null {
  if (samples.length < 3) return null;
  const tracks = buildTracks(samples)
    .filter((tr) => tr.boxes.length >= SPLIT_MIN_COVERAGE * samples.length)
    .sort((a, b) => b.boxes.reduce((s, x) => s + x.h, 0) - a.boxes.reduce((s, x) => s + x.h, 0));
  if (tracks.length < 2) return null;
  const [a, b] = [person(tracks[0]!, samples), person(tracks[1]!, samples)];
  const ratio = Math.max(a.medianHeight, b.medianHeight) / Math.min(a.medianHeight, b.medianHeight);
  if (ratio > SPLIT_MAX_SIZE_RATIO) return null;
  // A third person of about their size through the clip: a panel, not a two-shot; halves would hide someone.
  const smaller = Math.min(a.medianHeight, b.medianHeight);
  if (tracks.slice(2).some((tr) => median(tr.boxes.map((x) => x.h)) * SPLIT_MAX_SIZE_RATIO >= smaller)) return null;
  if (Math.abs(a.medianCx - b.medianCx) < (SPLIT_MIN_SEPARATION * (a.medianWidth + b.medianWidth)) / 2) return null;
  return a.medianCx <= b.medianCx ? { left: a, right: b } : { left: b, right: a };
}

/** Each half's crop is about this many face heights tall. */
const HALF_CROP_FACTOR = 2.5;

/**
 * Crop size (source pixels) shared by both halves: the aspect of one half (output.width x output.height/2),
 * HALF_CROP_FACTOR face heights tall, and no wider than the distance between the two faces, so a crop
 * centred on one person does not reach past the midpoint to the other.
 */
export function splitCropSize(two: TwoPeople, source: { width: number; height: number }, output: { width: number; height: number }): { width: number; height: number } {
  const aspect = output.width / (output.height / 2);
  const faceH = Math.max(two.left.medianHeight, two.right.medianHeight) * source.height;
  const apart = Math.abs(two.right.medianCx - two.left.medianCx) * source.width;
  let height = Math.min(source.height, faceH * HALF_CROP_FACTOR);
  let width = Math.min(height * aspect, apart, source.width);
  height = Math.min(source.height, width / aspect);
  width = height * aspect;
  return { width: Math.min(source.width, evenSize(width)), height: Math.min(source.height, evenSize(height)) };
}

/**
 * `auto` takes a two-shot as split only when one fill crop (the output's aspect, full height) could not
 * hold both faces: otherwise the fill crop shows both people in one picture, bigger than two halves would.
 */
export function needsSplit(two: TwoPeople, fillCropWidth: number): boolean {
  const span = Math.abs(two.right.medianCx - two.left.medianCx) + (two.left.medianWidth + two.right.medianWidth) / 2;
  return span > fillCropWidth;
}
