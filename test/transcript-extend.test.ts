// A transcript extended past its range (issue 14: re-rendering a clip beyond the request's range) with the
// real whisper.cpp binary and model: only the missing parts are recognised, and the joined transcript reads
// like one made over the whole range at once. Whisper runs are counted by a wrapper around the real binary
// that logs the length of each WAV it is handed. The fresh transcription of the whole range that the joined
// one is compared with is the sample's 0-60 s made once per machine (seeded-cache.ts, shared with other
// files): a real whisper.cpp run with the same model and decoder, kept under the same cache key.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKey } from '../src/pipeline/fetch/fetch.js';
import { createTranscriber, type Transcriber } from '../src/pipeline/transcribe/transcribe.js';
import { coverRange, type CoverReport } from '../src/pipeline/transcribe/transcript-extend.js';
import { whisperCliPath } from '../src/pipeline/transcribe/whisper-cli.js';
import type { Transcript } from '../src/domain/transcript.js';
import { JFK_TEXT, JFK_WAV } from './helpers/media.js';
import { seed, warmCache } from './helpers/seeded-cache.js';
import { wordErrorRate } from './helpers/wer.js';

const TALK = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'assets', 'sample', 'talk.mp4');
const JFK_KEY = 'transcript-extend-test-jfk';
/** The talk's content key, as a request's fetch stage computes it: the seeded 0-60 s transcript is found under it. */
let CACHE_KEY: string;

let dir: string, log: string;
let savedCli: string | undefined;
let transcriber: Transcriber;

/** Seconds of audio handed to whisper-cli since the last call (16 kHz mono s16 WAV, 44-byte header). */
function runs(): number[] {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  rmSync(log, { force: true });
  return lines.map((l) => (Number(l) - 44) / 32000);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'transcript-extend-'));
  log = path.join(dir, 'runs.log');
  CACHE_KEY = await contentKey(TALK);
  // Before the counting wrapper is in place: seeding (on a machine without the seed yet) is not counted.
  seed(path.join(dir, 'data'), await warmCache());
  savedCli = process.env.SHORTS_WHISPER_CLI;
  const real = whisperCliPath();
  const wrapper = path.join(dir, 'whisper-cli');
  writeFileSync(wrapper, `#!/bin/sh
wav=""; prev=""
for a in "$@"; do [ "$prev" = "-f" ] && wav="$a"; prev="$a"; done
[ -n "$wav" ] && stat -c %s "$wav" >> '${log}'
exec '${real}' "$@"
`);
  chmodSync(wrapper, 0o755);
  process.env.SHORTS_WHISPER_CLI = wrapper;
  // A fresh data dir holding only the seeded 0-60 s transcript: every other transcription below is a real Whisper run.
  transcriber = createTranscriber({ dataDir: path.join(dir, 'data'), threads: 2 });
}, 240_000);
afterAll(() => {
  if (savedCli === undefined) delete process.env.SHORTS_WHISPER_CLI;
  else process.env.SHORTS_WHISPER_CLI = savedCli;
  rmSync(dir, { recursive: true, force: true });
});

const text = (t: Transcript) => t.words.map((w) => w.text).join(' ');
const transcribe = (start: number, end: number) => transcriber.transcribe({ mediaPath: TALK, range: { start, end }, language: 'en', cacheKey: CACHE_KEY });

function expectInOrder(t: Transcript): void {
  for (let i = 1; i < t.words.length; i++) expect(t.words[i]!.start).toBeGreaterThanOrEqual(t.words[i - 1]!.start);
  expect(t.sentences.flatMap((s) => s.words)).toEqual(t.words);
  t.sentences.forEach((s, i) => expect(s.index).toBe(i));
  for (let i = 1; i < t.sentences.length; i++) expect(t.sentences[i]!.start).toBeGreaterThanOrEqual(t.sentences[i - 1]!.end - 1e-9);
}

describe('coverRange (real whisper.cpp)', () => {
  let request: Transcript;
  beforeAll(async () => {
    request = await transcribe(25, 50);
    expect(runs()).toHaveLength(1);
  });

  it('a range the transcript covers costs no Whisper run', async () => {
    let report: CoverReport | null = null;
    const same = await coverRange(transcriber, request, { start: 30, end: 45 }, { mediaPath: TALK, cacheKey: CACHE_KEY }, (r) => { report = r; });
    expect(same).toBe(request);
    expect(report).toEqual({ pieces: [] });
    expect(runs()).toEqual([]);
  });

  it('extending on both sides recognises only the two missing parts, plus one sentence at each seam', async () => {
    let report: CoverReport | null = null;
    const progress: number[] = [];
    const extended = await coverRange(transcriber, request, { start: 0, end: 60 }, { mediaPath: TALK, cacheKey: CACHE_KEY, onProgress: (f) => progress.push(f) }, (r) => { report = r; });
    const heard = runs();
    expect(heard).toHaveLength(2);
    const pieces = report!.pieces;
    expect(pieces[0]!.start).toBe(0);
    expect(pieces[1]!.end).toBe(60);
    // 25 s missing before, 10 s after; each seam hears at most one sentence again (capped at 15 s).
    expect(pieces[0]!.end).toBeGreaterThan(25);
    expect(pieces[0]!.end).toBeLessThanOrEqual(40);
    expect(pieces[1]!.start).toBeLessThan(50);
    expect(pieces[1]!.start).toBeGreaterThanOrEqual(35);
    const seconds = heard.reduce((a, b) => a + b, 0);
    expect(seconds).toBeCloseTo(pieces.reduce((s, p) => s + p.end - p.start, 0), 0);
    // Each seam hears one sentence of the request's again (two at the end: the one the range cut, and the
    // one before it, whose pause the timing had closed up). Measured: 26.5 s + 15.3 s = 41.8 s heard,
    // against the 60 s a fresh transcription of the whole range costs.
    const reheard = (from: number, to: number) => request.sentences.filter((s) => s.start >= from && s.end <= to).length;
    expect(reheard(25, pieces[0]!.end)).toBeLessThanOrEqual(1);
    expect(reheard(pieces[1]!.start, 50)).toBeLessThanOrEqual(2);
    expect(seconds).toBeLessThan(50);
    expect(extended.range).toEqual({ start: 0, end: 60 });
    expectInOrder(extended);
    expect(progress.at(-1)).toBeCloseTo(1, 2);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]! - 1e-9);

    // The words of the request's range that were not heard again are the request's own.
    const inner = request.words.filter((w) => w.start >= pieces[0]!.end && w.end <= pieces[1]!.start);
    expect(inner.length).toBeGreaterThan(10);
    for (const w of inner) expect(extended.words).toContainEqual(w);

    // Joined, it reads like one transcription of the whole range: no word doubled or lost at the seams.
    // The whole range's transcript is the seeded one (a real whisper.cpp run of 0-60 s, made once per machine).
    const whole = await transcribe(0, 60);
    expect(runs()).toEqual([]);
    expect(whole.range).toEqual({ start: 0, end: 60 });
    expect(wordErrorRate(text(whole), text(extended))).toBeLessThan(0.05);
    for (const s of extended.sentences) expect(extended.sentences.filter((o) => o.sentence === s.sentence)).toHaveLength(1);
  });

  it('extending on one side recognises that side only; a second time it is cached', async () => {
    let report: CoverReport | null = null;
    const later = await coverRange(transcriber, request, { start: 40, end: 62 }, { mediaPath: TALK, cacheKey: CACHE_KEY }, (r) => { report = r; });
    expect(report!.pieces).toHaveLength(1);
    expect(report!.pieces[0]!.end).toBe(62);
    const heard = runs();
    expect(heard).toHaveLength(1);
    expect(heard[0]!).toBeLessThan(62 - 50 + 15 + 0.1);
    expect(later.range).toEqual({ start: 25, end: 62 });
    expectInOrder(later);
    expect(later.words.filter((w) => w.end <= report!.pieces[0]!.start)).toEqual(request.words.filter((w) => w.end <= report!.pieces[0]!.start));
    const again = await coverRange(transcriber, request, { start: 40, end: 62 }, { mediaPath: TALK, cacheKey: CACHE_KEY });
    expect(runs()).toEqual([]);
    expect(again).toEqual(later);
  });

  it('a transcript of a sentence or so, extended on both sides, is heard again whole in one run', async () => {
    const short = await transcriber.transcribe({ mediaPath: JFK_WAV, range: { start: 3, end: 7 }, language: 'en', cacheKey: JFK_KEY });
    expect(runs()).toHaveLength(1);
    let report: CoverReport | null = null;
    const whole = await coverRange(transcriber, short, { start: 0, end: 11 }, { mediaPath: JFK_WAV, cacheKey: JFK_KEY }, (r) => { report = r; });
    expect(report!.pieces).toEqual([{ start: 0, end: 11 }]);
    expect(runs()).toHaveLength(1);
    expect(wordErrorRate(JFK_TEXT, text(whole))).toBeLessThan(0.15);
    expectInOrder(whole);
  });

  it('a range far from the transcript is heard on its own, not bridged', async () => {
    let report: CoverReport | null = null;
    const far = await coverRange(transcriber, request, { start: 2, end: 8 }, { mediaPath: TALK, cacheKey: CACHE_KEY }, (r) => { report = r; });
    expect(report!.pieces).toEqual([{ start: 2, end: 8 }]);
    const heard = runs();
    expect(heard).toHaveLength(1);
    expect(heard[0]!).toBeCloseTo(6, 1);
    expect(far.range).toEqual({ start: 2, end: 8 });
    expect(text(far)).toMatch(/channel/i);
  });
});
