import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loudnessArgs, measureLoudness, parseRmsLevels, SILENCE_DB } from '../src/pipeline/loudness.js';
import { PipelineError } from '../src/service/errors.js';
import { video } from './helpers/media.js';

// A 440 Hz sine of amplitude A has an RMS level of 20*log10(A/sqrt(2)) dBFS.
const QUIET = 0.05, LOUD = 0.5;
const expectedDb = (amp: number) => 20 * Math.log10(amp / Math.SQRT2);

let dir: string;
/** quiet sine until `switchAt`, loud sine after, `duration` s in all. */
function steppedSine(name: string, switchAt: number, duration: number, channels = 1): string {
  const out = path.join(dir, name);
  const expr = `if(lt(t\\,${switchAt})\\,${QUIET}\\,${LOUD})*sin(2*PI*440*t)`;
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `aevalsrc=${Array(channels).fill(expr).join('|')}:s=16000:d=${duration}`, out]);
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

beforeAll(() => { dir = mkdtempSync(path.join(tmpdir(), 'loudness-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('measureLoudness', () => {
  it('measures the loud half louder by the real difference, in 0.5 s steps', async () => {
    const wav = steppedSine('step.wav', 2, 4);
    const track = await measureLoudness(wav, { start: 0, end: 4 });
    expect(track.start).toBe(0);
    expect(track.stepSec).toBe(0.5);
    expect(track.db).toHaveLength(8);
    const quiet = mean(track.db.slice(0, 4)), loud = mean(track.db.slice(4));
    expect(Math.abs(quiet - expectedDb(QUIET))).toBeLessThan(2);
    expect(Math.abs(loud - quiet - 20)).toBeLessThan(2);
  });

  it('decodes only the requested range: step 0 is the range start', async () => {
    const wav = steppedSine('offset.wav', 3, 6);
    const track = await measureLoudness(wav, { start: 2, end: 5 });
    expect(track.start).toBe(2);
    expect(track.db).toHaveLength(6);
    const quiet = mean(track.db.slice(0, 2)), loud = mean(track.db.slice(2));
    expect(Math.abs(loud - quiet - 20)).toBeLessThan(2);
    expect(Math.max(...track.db.slice(0, 2))).toBeLessThan(Math.min(...track.db.slice(2)) - 15);
  });

  it('reads the audio of a video file and downmixes stereo', async () => {
    const stereo = steppedSine('stereo.wav', 1, 2, 2);
    const mp4 = video({ duration: 2, width: 160, height: 90, fps: 10, audio: stereo });
    const track = await measureLoudness(mp4, { start: 0, end: 2 });
    expect(track.db.length).toBeGreaterThanOrEqual(4);
    const quiet = track.db[0]!, loud = track.db[3]!;
    expect(Math.abs(loud - quiet - 20)).toBeLessThan(2);
  });

  it('fails with a pipeline error a user can read when the file has no audio', async () => {
    const silentVideo = video({ duration: 1, width: 160, height: 90, fps: 10 });
    const err = await measureLoudness(silentVideo, { start: 0, end: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PipelineError);
    expect((err as PipelineError).stage).toBe('highlights');
  });

  it('stops at once when cancelled', async () => {
    const wav = steppedSine('cancel.wav', 1, 2);
    const ac = new AbortController();
    ac.abort();
    await expect(measureLoudness(wav, { start: 0, end: 2 }, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('loudness helpers', () => {
  it('builds an ffmpeg call that seeks before the input and measures mono 8 kHz frames of 0.5 s', () => {
    expect(loudnessArgs('/media/in.mp4', { start: 12.5, end: 72.5 })).toEqual([
      '-hide_banner', '-nostdin', '-v', 'error',
      '-ss', '12.500', '-t', '60.000',
      '-i', '/media/in.mp4',
      '-map', '0:a:0', '-vn', '-sn', '-dn',
      '-af', 'aformat=sample_fmts=flt:sample_rates=8000:channel_layouts=mono,asetnsamples=n=4000:p=0,'
        + 'astats=metadata=1:reset=1,ametadata=mode=print:key=lavfi.astats.Overall.RMS_level:file=-',
      '-f', 'null', '-',
    ]);
  });

  it('parses printed levels in order and clamps digital silence', () => {
    const out = [
      'frame:0    pts:0       pts_time:0',
      'lavfi.astats.Overall.RMS_level=-21.066195',
      'frame:1    pts:4000    pts_time:0.5',
      'lavfi.astats.Overall.RMS_level=-inf',
      'frame:2    pts:8000    pts_time:1',
      'lavfi.astats.Overall.RMS_level=-6.02',
    ].join('\n');
    expect(parseRmsLevels(out)).toEqual([-21.066195, SILENCE_DB, -6.02]);
  });
});
