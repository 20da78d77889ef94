import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MediaError, probeMedia } from '../src/media/probe.js';
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

  it('rejects a file that is not media', async () => {
    const f = path.join(tmp(), 'notes.mp4');
    writeFileSync(f, 'hello');
    await expect(probeMedia(f)).rejects.toThrow(MediaError);
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
