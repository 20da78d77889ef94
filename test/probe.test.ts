import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SOURCE_SECONDS, MediaError, probeMedia, spokenDuration } from '../src/media/probe.js';
import { ShortsError } from '../src/errors.js';
import { claimDuration } from './helpers/mp4-header.js';
import { video, JFK_WAV } from './helpers/media.js';
import { SAMPLE } from './helpers/cli.js';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'probe-'));

describe('probeMedia (real ffprobe)', () => {
  it('reads duration, size, streams and the container title', async () => {
    const { info, containerTitle } = await probeMedia(SAMPLE);
    expect(info).toMatchObject({ hasVideo: true, hasAudio: true, width: 400, height: 300, fps: 25, variableFrameRate: false, videoCodec: 'h264', audioCodec: 'aac' });
    expect(info.durationSec).toBeCloseTo(80, 1);
    expect(containerTitle).toBe('How to learn any skill faster (shortwright sample)');
  });

  it('reports display size for rotated phone video', async () => {
    const src = video({ duration: 2, width: 640, height: 360 });
    const rotated = path.join(tmp(), 'rotated.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-i', src, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', rotated]);
    const { info } = await probeMedia(rotated);
    expect([info.width, info.height]).toEqual([360, 640]);
  });

  it('flags variable frame rate', async () => {
    const src = video({ duration: 4, width: 320, height: 240, fps: 30 });
    const vfr = path.join(tmp(), 'vfr.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-i', src, '-vf', "select='lt(mod(n,10),4)+eq(mod(n,3),0)'", '-fps_mode', 'vfr', '-c:v', 'libx264', '-preset', 'ultrafast', vfr]);
    expect((await probeMedia(vfr)).info.variableFrameRate).toBe(true);
  });

  it('sees audio-only files', async () => {
    const { info } = await probeMedia(JFK_WAV);
    expect(info).toMatchObject({ hasVideo: false, hasAudio: true, width: 0 });
  });

  it('rejects a file that is not media, without naming its path', async () => {
    const f = path.join(tmp(), 'notes.mp4');
    writeFileSync(f, 'hello');
    const e = await probeMedia(f).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MediaError);
    expect((e as Error).message).toBe('not a readable video file (invalid data found when processing input)');
  });

  it('refuses a file whose header claims more than the limit as video_too_long, before judging completeness', async () => {
    const src = video({ duration: 2, width: 160, height: 90, extraArgs: ['-movflags', '+faststart'] });
    const f = claimDuration(src, path.join(tmp(), 'long.mp4'), 40_000);
    const e = await probeMedia(f).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ShortsError);
    expect(e).toMatchObject({ code: 'video_too_long', details: { durationSec: 40_000, maxDurationSec: MAX_SOURCE_SECONDS } });
    expect((e as Error).message).toBe('the video is 11 h 6 min long (40000 s); the limit is 5 h (18000 s)');
    // A caller may set its own limit; at or under it the file is judged as usual (here: truncated).
    await expect(probeMedia(f, undefined, { maxDurationSec: 50_000 })).rejects.toThrow(/truncated: it holds 0%/);
  });

  it('says durations as people do', () => {
    expect([12, 60, 2820, 3600, 18_000, 40_000].map(spokenDuration)).toEqual(['12 s', '1 min', '47 min', '1 h', '5 h', '11 h 6 min']);
  });

  it('rejects a faststart MP4 cut short, whose index still claims the full duration', async () => {
    const f = path.join(tmp(), 'cut.mp4');
    const bytes = readFileSync(SAMPLE);
    writeFileSync(f, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expect(probeMedia(f)).rejects.toThrow(/truncated: it holds \d+% of the media/);
  });

  it('rejects an MP4 cut before its index (moov at the end)', async () => {
    const src = video({ duration: 3, width: 320, height: 240 });
    const f = path.join(tmp(), 'cut-nomoov.mp4');
    writeFileSync(f, readFileSync(src).subarray(0, 4000));
    await expect(probeMedia(f)).rejects.toThrow(/not a readable video file/);
  });
});
