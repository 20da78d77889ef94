// Platform loudness on REAL small renders (180x320, ultrafast): every short, with or without music, a
// meme intro and an end card, measures -14 LUFS +- 1 integrated and at most -1 dBTP true peak, as
// ffmpeg's ebur128 measures the rendered file, from sources at the levels users bring (Allison's
// prompts at -18.7 LUFS, the same 12 dB quieter, LibriVox read speech at -25 LUFS, JFK at -15 LUFS),
// while the music and the sting keep their levels relative to the speech.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fontsDir } from '../src/catalog/templates.js';
import { findMemeHook, memeHookFilePath } from '../src/catalog/meme-hooks.js';
import { findMusic, musicFilePath } from '../src/catalog/music.js';
import { PLATFORM_LOUDNESS } from '../src/media/ffmpeg-args.js';
import { renderClip } from '../src/media/render.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import { measureIntegratedLoudness } from '../src/media/speech-loudness.js';
import { outroStingPath } from '../src/pipeline/render/outro.js';
import { ALLISON, LIBRIVOX, JFK_WAV, assemble, ebur128, rmsDb, samplesOf, withGain } from './helpers/audio-edges.js';
import { video } from './helpers/media.js';

const W = 180, H = 320;
let dir: string;
/** ~17 s of real speech with pauses: Allison's directory prompt, LibriVox, JFK. */
let speechWav: string;
let mastered: string, quiet: string, loud: string, silent: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loudness-test-'));
  speechWav = assemble([
    { file: `${ALLISON}/dir-intro.wav`, gapAfter: 0.4 },
    { file: `${LIBRIVOX}/sense_and_sensibility_01_austen_64kb-0880.wav`, gapAfter: 0.3 },
    { file: JFK_WAV, gapAfter: 0.2 },
  ]);
  const picture = `color=c=gray:s=${W}x${H}:r=30`;
  mastered = video({ duration: 26, width: W, height: H, fps: 30, audio: speechWav, picture });
  quiet = video({ duration: 26, width: W, height: H, fps: 30, audio: withGain(speechWav, -12), picture });
  // 8 dB hotter: Allison's peaks go over full scale, as in a clipped upload.
  loud = video({ duration: 16, width: W, height: H, fps: 30, audio: withGain(speechWav, 8), picture });
  silent = video({ duration: 6, width: W, height: H, fps: 30, audio: withGain(speechWav, -200), picture });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plan(name: string, source: string, range: { start: number; end: number }, over: Partial<RenderPlan> = {}): RenderPlan {
  return {
    version: 1,
    input: { path: source, ...range, width: W, height: H, hasAudio: true },
    output: { path: path.join(dir, name), width: W, height: H, preset: 'ultrafast', crf: 30, fps: 30 },
    reframe: { layout: 'fill', cropWidth: W, cropHeight: H, keyframes: [{ t: 0, cx: 0.5, cy: 0.5 }], faceCoverage: 1 },
    background: { blur: false, color: '#202020' },
    captions: null,
    loudness: { ...PLATFORM_LOUDNESS },
    ...over,
  };
}

function expectPlatformLoudness(file: string): void {
  const m = ebur128(file);
  console.info(`${path.basename(file)}: ${m.integrated} LUFS, ${m.truePeak} dBTP`);
  expect(m.integrated).toBeGreaterThanOrEqual(-15);
  expect(m.integrated).toBeLessThanOrEqual(-13);
  expect(m.truePeak).toBeLessThanOrEqual(-1);
}

describe('platform loudness in the rendered short (real ffmpeg)', () => {
  it('brings speech at -19, -31 and -11 LUFS to -14 LUFS, peaks under -1 dBTP; the source level no longer shows', async () => {
    const before = (await measureIntegratedLoudness(mastered, { start: 0, end: 15.6 }))!;
    const quietBefore = (await measureIntegratedLoudness(quiet, { start: 0, end: 15.6 }))!;
    expect(quietBefore).toBeLessThan(before - 10);
    for (const [name, source] of [['mastered.mp4', mastered], ['quiet.mp4', quiet], ['loud.mp4', loud]] as const) {
      await renderClip(plan(name, source, { start: 0, end: 15.6 }));
      expectPlatformLoudness(path.join(dir, name));
    }
    // Without the loudness plan the clip keeps the source's level: the gain is the pass's doing.
    await renderClip(plan('as-is.mp4', quiet, { start: 0, end: 15.6 }, { loudness: null }));
    expect(ebur128(path.join(dir, 'as-is.mp4')).integrated).toBeLessThan(-25);
  });

  it('one clip of each recording (Allison, LibriVox, JFK) measures -14 on its own', async () => {
    // The three recordings sit at different levels in the source; each clip is normalised by itself.
    for (const [i, range] of [{ start: 0, end: 12.4 }, { start: 12.5, end: 15.6 }, { start: 15.6, end: 26 }].entries()) {
      await renderClip(plan(`part${i}.mp4`, mastered, range));
      expectPlatformLoudness(path.join(dir, `part${i}.mp4`));
    }
  });

  it('with music under the speech: the whole mix at -14, the music as far under the voice as without the loudness pass', async () => {
    const track = findMusic('Funky Gameplay')!;
    const speechLufs = await measureIntegratedLoudness(quiet, { start: 0, end: 12.4 });
    const music = { path: musicFilePath(track), volume: 10, trackLufs: track.loudnessLufs, speechLufs };
    await renderClip(plan('music.mp4', quiet, { start: 0, end: 12.4 }, { music }));
    await renderClip(plan('music-as-is.mp4', quiet, { start: 0, end: 12.4 }, { music, loudness: null }));
    const out = path.join(dir, 'music.mp4');
    expectPlatformLoudness(out);
    // The voice (a stretch of the prompt) against the bed alone (the 0.4 s gap after the prompt, where
    // the ducking has let go): the same distance with and without the loudness pass.
    const distance = (file: string) => rmsDb(samplesOf(file, 2, 3)) - rmsDb(samplesOf(file, 12.15, 0.2));
    const normalised = distance(out), asIs = distance(path.join(dir, 'music-as-is.mp4'));
    expect(normalised).toBeGreaterThan(8);
    expect(Math.abs(normalised - asIs)).toBeLessThan(1.5);
    expect(rmsDb(samplesOf(out, 12.15, 0.2))).toBeGreaterThan(-60);
  });

  it('a meme intro and the end card: the whole short at -14, the sting under the speech', async () => {
    const meme = findMemeHook('Wait For It')!;
    const memeHook = { path: memeHookFilePath(meme), seconds: meme.duration, fps: 30, hasAudio: true };
    const outro = { seconds: 2, fps: 30, text: null, handle: null, imagePath: null, stingPath: outroStingPath(), assPath: null, fontsDir: fontsDir() };
    await renderClip(plan('meme-outro.mp4', quiet, { start: 15.6, end: 26 }, { memeHook, outro }));
    const out = path.join(dir, 'meme-outro.mp4');
    expectPlatformLoudness(out);
    // Each part measured alone: the content (-27 LUFS in the source) raised to the target; the meme
    // (-19.4 LUFS, peaks already at 0 dBTP in its file) kept near its level, as far as its full-scale
    // sound effect allows under the limiter; the bell 3 LU under the speech.
    const end = meme.duration + 10.4;
    const part = (from: number, to: number) => ebur128(out, { start: from, end: to }).integrated;
    expect(part(0, meme.duration)).toBeGreaterThan(-21);
    expect(Math.abs(part(meme.duration, end) + 14)).toBeLessThan(1);
    const sting = part(end, end + 2);
    expect(sting).toBeLessThan(-15);
    expect(sting).toBeGreaterThan(-20);
  });

  it('a silent source is not raised into noise; with a meme intro the short is still at the target', async () => {
    await renderClip(plan('silent.mp4', silent, { start: 0, end: 6 }));
    expect(rmsDb(samplesOf(path.join(dir, 'silent.mp4'), 0, 6))).toBeLessThan(-100);
    const meme = findMemeHook('Bruh') ?? findMemeHook('Wait For It')!;
    const memeHook = { path: memeHookFilePath(meme), seconds: meme.duration, fps: 30, hasAudio: true };
    await renderClip(plan('silent-meme.mp4', silent, { start: 0, end: 6 }, { memeHook }));
    expectPlatformLoudness(path.join(dir, 'silent-meme.mp4'));
  });
});
