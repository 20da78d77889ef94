// Who speaks, sentence by sentence, among the faces of one shot (issue 13). Pure: the reframer samples the
// faces (10 fps, only in shots with two or more people) and gives the transcript's timings.
//
// Each face track's mouth activity (mouth-activity.ts) is divided by that track's own quiet level over
// the shot (its 25th percentile: listening, pauses), because levels differ ~10x between people (cap13 ~0.004 talking, franck ~0.01; franck LISTENING is
// ~0.003): a fixed threshold, or comparing raw levels, would give the floor to whoever has the more
// mobile face. A sentence's speaker is the track whose relative activity over the sentence is highest,
// each weighted by how well the track follows the speech over the whole shot (correlation with the word
// envelope: a listener nodding through the other's talk scores high activity but does not follow the
// pauses). Measured on the tuning fixture (franck left + cap13 right, one side frozen at a time, six turns
// with a 1.4 s interjection; test/active-speaker.test.ts): the speaker's relative activity is 2-20x the
// other's in every sentence, so the margin below leaves room for live listeners.
//
// Then the hold: a speaker whose sentences span less than HOLD_SEC (an interjection, "sorry", "yes") does
// not take the frame; when no track clearly wins a sentence (cross-talk, laughter: both mouths move) the
// last speaker keeps it, since a fill crop cannot hold both people of a wide shot. Between sentences the
// last decision holds, and a change happens at the start of the new speaker's sentence.
import { buildTracks, fillHoles, type FaceTrack } from './face-tracker.js';
import type { FaceSample } from './faces.js';
import { mouthActivity, speechAgreement, speechFromWords, type MouthActivity } from './mouth-activity.js';
import { median } from '../shared/stats.js';
import type { FaceBox } from '../../domain/layout.js';
import type { TimeRange } from '../../domain/time.js';
import type { Word } from '../../domain/transcript.js';

/** What the transcript says about when people speak (source seconds). */
export interface SpeechTiming {
  words: readonly Word[];
  sentences: readonly TimeRange[];
}

/** A speaker holds the frame at least this long (the issue's ~1.5 s): shorter turns do not take it. */
export const HOLD_SEC = 1.5;
/** A sentence's best track must score this many times the runner-up, else it is cross-talk: no change. */
export const WIN_MARGIN = 1.3;
/**
 * `auto` splits a two-shot only when both people speak: each holds at least this share of the speech
 * time the clip's sentences were given to someone. One "yes" or "sorry" (a few percent of a 30-60 s clip)
 * does not make a conversation; on the tuning fixture the two hold 53 % and 47 %.
 */
export const BOTH_SPEAK_SHARE = 0.2;
/** A track in at least this share of the shot's samples is a person of the shot (not a passer-by). */
export const PERSON_MIN_COVERAGE = 0.6;
/** Faces smaller than this (frame heights) are background people: never the speaker to frame. */
const MIN_FACE = 0.05;
/**
 * Relative activity divides by the track's quiet level: this quantile of its activity over the shot (what
 * the face does listening or between words), floored, since a face frozen on a still frame has ~0.
 * Measured against the mean, which a person talking most of the shot inflates: with both faces live
 * (franck + cap13, 4 turns, scripts/bench-mouth.mjs --speaker and a second pairing) the mean gave 3/4
 * and 2/4 turns, the 20th-30th percentile 4/4 and 3/4 (the 4th a tie, kept by the last speaker); on the
 * frozen tuning and holdout fixtures both stay at 98-99 % of the time.
 */
const QUIET_QUANTILE = 0.25;
const LEVEL_FLOOR = 0.0005;
/** Sentences with less than this inside the shot say nothing about it. */
const MIN_SENTENCE_SEC = 0.3;
/** A silence between words at least this long may be a change of speaker: the sentence is cut there. */
export const PAUSE_SEC = 0.3;
/** A change of speaker in a pause happens at its middle, but at most this long before the new speech. */
const LEAD_IN_SEC = 0.4;

/**
 * The units a speaker is decided for: the transcript's sentences, cut at pauses of PAUSE_SEC or more
 * between their words. Whisper does not end a sentence where the voice changes: on the tuning fixture
 * the first two turns (two people, two recordings) came out as one 11 s sentence, with a 0.49 s gap
 * between the words at the change. Without words, the sentences as they are.
 */
export function speechUnits(speech: SpeechTiming): TimeRange[] {
  const units: TimeRange[] = [];
  for (const s of speech.sentences) {
    const words = speech.words.filter((w) => w.start >= s.start - 1e-6 && w.end <= s.end + 1e-6).sort((a, b) => a.start - b.start);
    if (words.length === 0) { units.push({ start: s.start, end: s.end }); continue; }
    let cur = { start: words[0]!.start, end: words[0]!.end };
    for (const w of words.slice(1)) {
      if (w.start - cur.end >= PAUSE_SEC) { units.push(cur); cur = { start: w.start, end: w.end }; }
      else cur.end = Math.max(cur.end, w.end);
    }
    units.push(cur);
  }
  return units.sort((a, b) => a.start - b.start);
}

export interface SpeakerTrack {
  track: FaceTrack;
  /** One box per sample of the shot (held over gaps). */
  path: FaceBox[];
  medianCx: number;
  medianWidth: number;
  /** The track's quiet level of mouth activity over the shot (QUIET_QUANTILE; the normaliser). */
  level: number;
  /** Correlation of the track's activity with the speech envelope over the shot (null: flat). */
  correlation: number | null;
}

/** One sentence's vote: the winning track (index into tracks), or null for cross-talk / no evidence. */
export interface SentenceVote { start: number; end: number; speaker: number | null; scores: number[] }

/** Who has the frame from start to end (source seconds); `speaker` indexes the tracks. */
export interface SpeakerTurn { start: number; end: number; speaker: number }

export interface ActiveSpeakers {
  tracks: SpeakerTrack[];
  votes: SentenceVote[];
  /** Covers the shot without gaps, in time order, each at least HOLD_SEC of speech (but a lone one). */
  turns: SpeakerTurn[];
  /** Seconds of sentence time attributed to each track (after the hold): who speaks how much. */
  speechSec: number[];
}

/** A track survives a gap in the detections this long, at any sampling rate (the tracker counts samples). */
const TRACK_GAP_SEC = 1;

/** The people of a shot: tracks present in PERSON_MIN_COVERAGE of its samples, face big enough to frame. */
export function shotPeople(samples: readonly FaceSample[]): FaceTrack[] {
  if (samples.length < 3) return [];
  // At 10 fps the tracker's default gap (3 samples) is 0.3 s: a head turned away for half a second would
  // cut a person in two tracks, neither present enough. Scaled to the sampling step, like at 3 fps.
  const step = median(samples.slice(1).map((s, i) => s.t - samples[i]!.t));
  const maxGap = Math.max(3, Math.round(TRACK_GAP_SEC / Math.max(step, 1e-3)));
  return buildTracks([...samples], { maxGap }).filter((tr) => tr.boxes.length >= PERSON_MIN_COVERAGE * samples.length && median(tr.boxes.map((b) => b.h)) >= MIN_FACE);
}

/**
 * Per-sentence votes from the tracks' activity. `relative[i]` is track i's activity divided by its level;
 * `weights[i]` its agreement factor. Exported for tests with hand-made series.
 */
export function voteSentences(relative: readonly MouthActivity[][], weights: readonly number[], sentences: readonly TimeRange[], shot: TimeRange): SentenceVote[] {
  const votes: SentenceVote[] = [];
  for (const s of sentences) {
    const start = Math.max(s.start, shot.start), end = Math.min(s.end, shot.end);
    if (end - start < MIN_SENTENCE_SEC) continue;
    const scores = relative.map((act, i) => {
      const v = act.filter((a) => a.t >= start && a.t < end && a.value != null).map((a) => a.value!);
      return v.length === 0 ? 0 : (v.reduce((x, y) => x + y, 0) / v.length) * weights[i]!;
    });
    const order = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
    const best = order[0]!, second = order[1];
    const clear = scores[best]! > 0 && (second === undefined || scores[best]! >= WIN_MARGIN * scores[second]!);
    votes.push({ start, end, speaker: clear ? best : null, scores });
  }
  return votes;
}

/**
 * Cross-talk a relative activity cannot see: a face still through most of the shot (its quiet level at
 * LEVEL_FLOOR, e.g. someone who only interrupts) scores a huge relative activity the moment it moves, and
 * takes the frame while the speaker goes on talking (H2's holdout, 3.8 s of cross-talk: every frame went
 * to the interrupting face). So a unit such a face wins is cross-talk, and the last speaker keeps the
 * frame, when another track moves its mouth at least this share of the way it does when it is the one
 * speaking (the median over the units it won). Only for still faces: applied to live faces too, it took
 * the live-listener case of `bench-mouth --speaker` from 74 % to 50 % (a listener whose head moves as much
 * as his mouth does talking blocked every change), so between two live faces WIN_MARGIN alone decides.
 */
export const CROSS_TALK_SHARE = 0.6;

/**
 * Marks the clear votes of still faces (`still[i]`: quiet level at the floor) as cross-talk (speaker null)
 * where another track is talking too, judged against that track's own talking level (the median of its
 * relative activity over the units it won, known once it has won HOLD_SEC of them). `weights` turn the
 * votes' weighted scores back into activity.
 */
export function markCrossTalk(votes: readonly SentenceVote[], weights: readonly number[], still: readonly boolean[]): SentenceVote[] {
  const talking = weights.map((w, i) => {
    const won = votes.filter((v) => v.speaker === i);
    if (won.reduce((sum, v) => sum + v.end - v.start, 0) < HOLD_SEC) return null;
    return median(won.map((v) => v.scores[i]! / w));
  });
  return votes.map((v) => {
    if (v.speaker == null || !still[v.speaker]) return v;
    const both = v.scores.some((score, i) => i !== v.speaker && talking[i] != null && talking[i]! > 0
      && score / weights[i]! >= CROSS_TALK_SHARE * talking[i]!);
    return both ? { ...v, speaker: null } : v;
  });
}

/**
 * Votes -> turns covering the shot. A change happens at the start of the new speaker's first sentence;
 * unclear sentences keep the current speaker; a run of one speaker's sentences spanning less than
 * `hold` seconds is given to the speaker around it (the shortest first, until none is left).
 */
export function holdTurns(votes: readonly SentenceVote[], shot: TimeRange, hold = HOLD_SEC): SpeakerTurn[] {
  // Runs of consecutive clear votes for one speaker (unclear votes extend nothing and break nothing).
  let runs: { speaker: number; first: number; last: number; speech: number }[] = [];
  for (const v of votes) {
    if (v.speaker == null) continue;
    const prev = runs[runs.length - 1];
    if (prev && prev.speaker === v.speaker) { prev.last = v.end; prev.speech += v.end - v.start; }
    else runs.push({ speaker: v.speaker, first: v.start, last: v.end, speech: v.end - v.start });
  }
  const merge = () => {
    const out: typeof runs = [];
    for (const r of runs) {
      const prev = out[out.length - 1];
      if (prev && prev.speaker === r.speaker) { prev.last = r.last; prev.speech += r.speech; }
      else out.push({ ...r });
    }
    runs = out;
  };
  while (runs.length > 1) {
    let worst = -1;
    for (let i = 0; i < runs.length; i++) {
      const span = runs[i]!.last - runs[i]!.first;
      if (span < hold && (worst < 0 || span < runs[worst]!.last - runs[worst]!.first)) worst = i;
    }
    if (worst < 0) break;
    // The short run goes to the speaker before it (the one holding the frame), or after it at the start.
    const into = worst > 0 ? runs[worst - 1]! : runs[worst + 1]!;
    into.first = Math.min(into.first, runs[worst]!.first);
    into.last = Math.max(into.last, runs[worst]!.last);
    into.speech += runs[worst]!.speech;
    runs.splice(worst, 1);
    merge();
  }
  if (runs.length === 0) return [];
  return runs.map((r, i) => ({
    start: i === 0 ? shot.start : r.first,
    end: i === runs.length - 1 ? shot.end : runs[i + 1]!.first,
    speaker: r.speaker,
  }));
}

/** How far before the new speaker's first word the change may be moved to where their mouth takes over. */
export const CHANGE_SEARCH_SEC = 1;

/**
 * Where a change of speaker really happens, near `at` (the first word of the new speaker's sentence as
 * the transcript times it): walking back from `at`, the earliest moment from which the new speaker's
 * weighted relative activity stays above the old one's and above its own quiet level, no earlier than
 * `earliest`. Whisper's word times
 * are off by up to ~0.5 s at a change of voice (on the tuning fixture "them." was put 0.4 s after the
 * end of the speech it closes), the mouths are not.
 */
export function refineChange(relative: readonly MouthActivity[][], weights: readonly number[], from: number, to: number, at: number, earliest: number): number {
  const a = relative[from]!, b = relative[to]!;
  const valueAt = (act: readonly MouthActivity[], t: number) => act.find((x) => Math.abs(x.t - t) < 1e-6)?.value ?? null;
  const times = b.map((x) => x.t).filter((t) => t <= at + 1e-9 && t >= earliest - 1e-9).sort((p, q) => q - p);
  let change = at;
  for (const t of times) {
    const va = valueAt(a, t), vb = valueAt(b, t);
    // The new speaker's mouth must also be above its own quiet level: a face still frozen (or at rest)
    // while the old speaker pauses between words is not someone starting to talk (H2's holdout: a cut
    // 1.1 s early into the end of franck's turn, his mouth still between words, cap12 still frozen).
    if (va == null || vb == null || vb <= 1 || vb * weights[to]! <= va * weights[from]!) break;
    change = t;
  }
  return change;
}

/**
 * Who speaks when in one shot, from its face samples (10 fps; the shot's range only) and the transcript's
 * timings. Null when the shot has fewer than two people or no sentence in it decides anything.
 * `aspect` is the source frame's width / height.
 */
export function decideSpeakers(samples: readonly FaceSample[], shot: TimeRange, speech: SpeechTiming, aspect: number): ActiveSpeakers | null {
  const inShot = samples.filter((s) => s.t >= shot.start && s.t < shot.end);
  const people = shotPeople(inShot);
  if (people.length < 2) return null;
  const envelope = speechFromWords(speech.words, shot);
  const tracks: SpeakerTrack[] = [];
  const relative: MouthActivity[][] = [];
  const weights: number[] = [];
  for (const track of people) {
    const activity = mouthActivity(track.boxes.map((b) => ({ t: b.t, keypoints: (b as FaceSample['faces'][number]).keypoints })), aspect);
    const values = activity.flatMap((a) => (a.value == null ? [] : [a.value]));
    const level = values.length ? [...values].sort((x, y) => x - y)[Math.floor(values.length * QUIET_QUANTILE)]! : 0;
    const correlation = speechAgreement(activity, envelope, shot).correlation;
    tracks.push({
      track, path: fillHoles(track, inShot), level, correlation,
      medianCx: median(track.boxes.map((b) => b.cx)), medianWidth: median(track.boxes.map((b) => b.w)),
    });
    const norm = Math.max(level, LEVEL_FLOOR);
    relative.push(activity.map((a) => ({ t: a.t, value: a.value == null ? null : a.value / norm })));
    // Following the speech's pauses doubles a track's weight at most; moving against them halves it.
    weights.push(Math.min(2, Math.max(0.5, 1 + (correlation ?? 0))));
  }
  const votes = markCrossTalk(voteSentences(relative, weights, speech.sentences, shot), weights, tracks.map((t) => t.level <= LEVEL_FLOOR));
  const turns = holdTurns(votes, shot);
  if (turns.length === 0) return null;
  for (let i = 1; i < turns.length; i++) {
    const at = refineChange(relative, weights, turns[i - 1]!.speaker, turns[i]!.speaker, turns[i]!.start, Math.max(turns[i - 1]!.start + HOLD_SEC, turns[i]!.start - CHANGE_SEARCH_SEC));
    turns[i - 1]!.end = at;
    turns[i]!.start = at;
  }
  const speechSec = tracks.map(() => 0);
  for (const v of votes) {
    const turn = turns.find((tu) => v.start >= tu.start - 1e-9 && v.start < tu.end);
    if (turn) speechSec[turn.speaker]! += v.end - v.start;
  }
  return { tracks, votes, turns, speechSec };
}

/** Seconds of speech per person across shots' decisions, each track mapped to a person by `personOf`. */
export function speechShares<P>(results: readonly ActiveSpeakers[], personOf: (t: SpeakerTrack) => P): Map<P, number> {
  const seconds = new Map<P, number>();
  let total = 0;
  for (const r of results) {
    r.speechSec.forEach((sec, i) => {
      const p = personOf(r.tracks[i]!);
      seconds.set(p, (seconds.get(p) ?? 0) + sec);
      total += sec;
    });
  }
  for (const [p, sec] of seconds) seconds.set(p, total > 0 ? sec / total : 0);
  return seconds;
}
