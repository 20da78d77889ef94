// Active speaker (issue 13): who speaks, sentence by sentence, among the faces of a shot. The decision
// logic on small hand-made series, then on REAL keypoints and a REAL transcript: the tuning fixture
// (franck.mp4 left, cap13_edit2.mp4 right, only the speaker's video running, LibriVox/Allison speech
// aligned to the turns; test/helpers/podcast-fixture.ts), transcribed by whisper.cpp (tiny.en) and
// sampled by BlazeFace at 10 fps. The holdout pair and the decoded-frame checks are in
// test/active-speaker.render.test.ts.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideSpeakers, holdTurns, HOLD_SEC, markCrossTalk, speechUnits, voteSentences, type SentenceVote, type SpeechTiming } from '../src/pipeline/reframe/active-speaker.js';
import { sampleFaces, type FaceSample } from '../src/pipeline/reframe/faces.js';
import { offFrameGrid, planReframe, SPEAKER_FPS } from '../src/pipeline/reframe/reframe.js';
import { createTranscriber } from '../src/pipeline/transcribe/transcribe.js';
import { probeMedia } from '../src/media/probe.js';
import type { MediaInfo } from '../src/domain/source.js';
import type { Word } from '../src/domain/transcript.js';
import { cropAt } from './helpers/crop.js';
import { FIXTURES } from './helpers/media.js';
import { sideBySide, turnAt, type PodcastFixture } from './helpers/podcast-fixture.js';

const word = (text: string, start: number, end: number): Word => ({ text, start, end, probability: 0.9 });
const vote = (start: number, end: number, speaker: number | null): SentenceVote => ({ start, end, speaker, scores: [] });

describe('decision logic (hand-made series)', () => {
  it('cuts a sentence at a pause long enough for a change of voice, not between words', () => {
    const words = [word('he', 0.4, 0.5), word('was', 0.53, 0.76), word('not', 0.9, 1.2), word('and', 1.69, 2), word('mister', 2.1, 2.5)];
    expect(speechUnits({ words, sentences: [{ start: 0.4, end: 2.5 }] })).toEqual([{ start: 0.4, end: 1.2 }, { start: 1.69, end: 2.5 }]);
    // Without words, the sentences as they are.
    expect(speechUnits({ words: [], sentences: [{ start: 1, end: 4 }] })).toEqual([{ start: 1, end: 4 }]);
  });

  it('holds each speaker at least 1.5 s: an interjection does not take the frame', () => {
    const turns = holdTurns([vote(0.4, 3.2, 0), vote(3.7, 10.3, 1), vote(11.5, 17.1, 0), vote(17.9, 18.8, 1), vote(19.5, 23, 0), vote(23.4, 28, 1)], { start: 0, end: 28.7 });
    expect(turns).toEqual([{ start: 0, end: 3.7, speaker: 0 }, { start: 3.7, end: 11.5, speaker: 1 }, { start: 11.5, end: 23.4, speaker: 0 }, { start: 23.4, end: 28.7, speaker: 1 }]);
    for (const t of turns) expect(t.end - t.start).toBeGreaterThanOrEqual(HOLD_SEC);
  });

  it('keeps the last speaker through cross-talk (no clear winner) and between sentences', () => {
    const turns = holdTurns([vote(0, 4, 0), vote(4.2, 6, null), vote(6.5, 9, null), vote(9.5, 12, 1)], { start: 0, end: 12 });
    expect(turns).toEqual([{ start: 0, end: 9.5, speaker: 0 }, { start: 9.5, end: 12, speaker: 1 }]);
    expect(holdTurns([vote(1, 2, null)], { start: 0, end: 5 })).toEqual([]);
  });

  it('puts a change of speaker between frames of every common rate, so no frame shows the crop mid-jump', () => {
    for (const t of [11, 3.5, 23, 0.1, 17.6]) {
      const c = offFrameGrid(t, 25);
      expect(Math.abs(c - t)).toBeLessThan(0.05);
      for (const fps of [24, 25, 30, 50, 60]) expect(Math.abs(c * fps - Math.round(c * fps)) / fps).toBeGreaterThan(0.001);
    }
  });

  it('a sentence goes to a track only with a clear margin over the other', () => {
    const series = (level: number) => Array.from({ length: 40 }, (_, i) => ({ t: i / 10, value: level }));
    const sentences = [{ start: 0, end: 2 }, { start: 2, end: 4 }];
    const clear = voteSentences([series(2), series(0.5)], [1, 1], sentences, { start: 0, end: 4 });
    expect(clear.map((v) => v.speaker)).toEqual([0, 0]);
    const close = voteSentences([series(1.1), series(1)], [1, 1], sentences, { start: 0, end: 4 });
    expect(close.map((v) => v.speaker)).toEqual([null, null]);
    // Agreement with the speech weighs in: the same activity, one track following the pauses.
    expect(voteSentences([series(1.1), series(1)], [1.5, 1], sentences, { start: 0, end: 4 }).map((v) => v.speaker)).toEqual([0, 0]);
  });

  it('cross-talk: a unit where the other person talks as they do when they speak keeps the last speaker', () => {
    // Track 0 speaks most of the shot at ~3x its quiet level; track 1 (a face still most of the time, so a
    // tiny quiet level) wins one turn at 40x and talks over track 0 at 30x in the fourth unit.
    const v = (start: number, end: number, scores: number[], speaker: number | null): SentenceVote => ({ start, end, scores, speaker });
    const votes = [v(0, 4, [3, 0.1], 0), v(4, 8, [0.2, 40], 1), v(8, 12, [3.2, 0.1], 0), v(12, 15, [2.9, 30], 1), v(15, 19, [3, 0.2], 0)];
    const marked = markCrossTalk(votes, [1, 1], [false, true]);
    expect(marked.map((x) => x.speaker)).toEqual([0, 1, 0, null, 0]);
    // Between two live faces relative activity is trusted: the margin alone decides.
    expect(markCrossTalk(votes, [1, 1], [false, false]).map((x) => x.speaker)).toEqual([0, 1, 0, 1, 0]);
    const turns = holdTurns(marked, { start: 0, end: 19 });
    expect(turns.map((t) => [t.speaker, t.start, t.end])).toEqual([[0, 0, 4], [1, 4, 8], [0, 8, 19]]);
    // The other face well under its talking level (listening, nodding): not cross-talk.
    expect(markCrossTalk([...votes.slice(0, 3), v(12, 15, [1, 30], 1)], [1, 1], [false, true]).at(-1)!.speaker).toBe(1);
  });
});

/** Share of a 0.1 s grid over the fixture (interjection turns left out) where `side(t)` says the speaker's side. */
function agreement(fx: PodcastFixture, side: (t: number) => 'left' | 'right' | null): number {
  let ok = 0, n = 0;
  for (let t = 0.05; t < fx.duration; t += 0.1) {
    const turn = turnAt(fx.turns, t);
    if (!turn || turn.interjection) continue;
    n++;
    if (side(t) === turn.side) ok++;
  }
  return ok / n;
}

/** Changes of speaker in the truth, interjections (shorter than the hold) left out. */
function truthChanges(fx: PodcastFixture): number[] {
  const sides = fx.turns.filter((t) => !t.interjection);
  return sides.slice(1).filter((t, i) => t.side !== sides[i]!.side).map((t) => t.start);
}

describe('on real footage: franck (left) and cap13 (right) taking turns (tuning fixture)', () => {
  let fx: PodcastFixture;
  let speech: SpeechTiming;
  let dense: FaceSample[];
  let info: MediaInfo;

  beforeAll(async () => {
    // Half-size frames (960x540): the pipeline decides on normalised geometry and 256 px thumbnails (podcast-fixture.ts).
    fx = sideBySide({ left: 'franck', right: 'cap13', height: 540 });
    // The transcriber's own cache (keyed by the fixture's content hash in its name) makes reruns cheap.
    const transcriber = createTranscriber({ dataDir: path.join(FIXTURES, 'active-speaker-transcripts'), threads: 2 });
    const tr = await transcriber.transcribe({ mediaPath: fx.path, range: { start: 0, end: fx.duration }, language: 'en', cacheKey: path.basename(fx.path) });
    speech = { words: tr.words, sentences: tr.sentences.map(({ start, end }) => ({ start, end })) };
    dense = await sampleFaces(fx.path, { start: 0, end: fx.duration }, { fps: SPEAKER_FPS });
    info = (await probeMedia(fx.path)).info;
  }, 300_000);

  it('finds who speaks in >= 90 % of the time, switching within 0.5 s, never for less than 1.5 s', () => {
    const found = decideSpeakers(dense, { start: 0, end: fx.duration }, { words: speech.words, sentences: speechUnits(speech) }, 16 / 9)!;
    expect(found).not.toBeNull();
    const sideOf = (t: number) => {
      const turn = found.turns.find((tu) => t >= tu.start && t < tu.end);
      return turn ? (found.tracks[turn.speaker]!.medianCx < 0.5 ? 'left' : 'right') : null;
    };
    const share = agreement(fx, sideOf);
    console.log(`active-speaker: tuning fixture, decision on the speaker's side ${(share * 100).toFixed(1)} % of the time; changes at ${found.turns.slice(1).map((t) => t.start.toFixed(2)).join(', ')} s (truth ${truthChanges(fx).map((t) => t.toFixed(2)).join(', ')} s)`);
    expect(share).toBeGreaterThanOrEqual(0.9);
    const changes = found.turns.slice(1).map((t) => t.start);
    const truth = truthChanges(fx);
    expect(changes).toHaveLength(truth.length);
    changes.forEach((c, i) => expect(Math.abs(c - truth[i]!)).toBeLessThanOrEqual(0.5));
    for (const t of found.turns) expect(t.end - t.start).toBeGreaterThanOrEqual(HOLD_SEC);
  });

  it('fill follows the speaker with jump cuts: the crop is on the speaker, never in between', async () => {
    const plan = await planReframe({ mediaPath: fx.path, info, range: { start: 0, end: fx.duration }, layout: 'fill', output: { width: 1080, height: 1920 }, speech });
    expect(plan.layout).toBe('fill');
    const cropW = plan.cropWidth / fx.width;
    // Left face ~0.25-0.3 of the width, right ~0.75: a crop centred past the middle is on the right person.
    const share = agreement(fx, (t) => (cropAt(plan.keyframes, t).cx < 0.5 ? 'left' : 'right'));
    console.log(`active-speaker: fill crop on the speaker ${(share * 100).toFixed(1)} % of the time (${plan.keyframes.length} keyframes)`);
    expect(share).toBeGreaterThanOrEqual(0.9);
    // A jump cut, not a pan: the crop never spends a sampled moment in the middle of the room.
    for (let t = 0; t < fx.duration; t += 0.04) {
      const cx = cropAt(plan.keyframes, t).cx;
      expect(Math.abs(cx - 0.5)).toBeGreaterThan(cropW / 4);
    }
  });

  it('auto: both speak -> split with the speaking half marked; one speaks -> fill on that person', async () => {
    const range = { start: 0, end: fx.duration };
    const both = await planReframe({ mediaPath: fx.path, info, range, layout: 'auto', output: { width: 1080, height: 1920 }, speech });
    expect(both.layout).toBe('split');
    const halves = both.speakers ?? [];
    const share = agreement(fx, (t) => {
      const s = halves.find((h) => t >= h.start && t < h.end);
      return s ? (s.half === 'top' ? 'left' : 'right') : null;
    });
    expect(share).toBeGreaterThanOrEqual(0.9);

    // Only franck's (left) sentences: cap13 moves in his turns but says nothing anyone hears.
    const leftTurns = fx.turns.filter((t) => t.side === 'left');
    const inLeft = (a: { start: number; end: number }) => leftTurns.some((t) => a.start >= t.start - 0.6 && a.end <= t.end + 0.6);
    const oneSpeaks = { words: speech.words.filter(inLeft), sentences: speechUnits(speech).filter(inLeft) };
    const one = await planReframe({ mediaPath: fx.path, info, range, layout: 'auto', output: { width: 1080, height: 1920 }, speech: oneSpeaks });
    expect(one.layout).toBe('fill');
    for (let t = 0; t < fx.duration; t += 0.5) expect(cropAt(one.keyframes, t).cx).toBeLessThan(0.5);
  });
});
