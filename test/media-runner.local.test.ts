// The media runner conformance suite against today's adapter (local child processes), and what only the
// local adapter promises: its cap on concurrent children.
import { describe, expect, it } from 'vitest';
import { createLocalMediaRunner } from '../src/media/local-runner.js';
import { mediaRunnerConformance, slowArgs } from './conformance/media-runner.js';

mediaRunnerConformance('local child processes', async () => ({ port: createLocalMediaRunner(), close: async () => {} }));

describe('local media runner', () => {
  it('runs at most maxChildren children at once, across its scoped runners', async () => {
    const media = createLocalMediaRunner({ maxChildren: 1 });
    const started = Date.now();
    await Promise.all([media.run('ffmpeg', slowArgs(0.6)), media.scoped().run('ffmpeg', slowArgs(0.6)), media.scoped().run('ffmpeg', slowArgs(0.6))]);
    // Each reads 0.6 s of input in real time; one at a time that is at least 1.8 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1800);
    expect(media.counts().ffmpeg).toBe(3);
  });

  it('a run waiting for a slot leaves at once when its job is cancelled, and never starts', async () => {
    const media = createLocalMediaRunner({ maxChildren: 1 });
    const busy = media.run('ffmpeg', slowArgs(2));
    const ctl = new AbortController();
    const waiting = media.scoped(ctl.signal).run('ffmpeg', slowArgs(2));
    setTimeout(() => ctl.abort(), 100);
    const t = Date.now();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - t).toBeLessThan(1000);
    await busy;
    expect(media.counts().ffmpeg).toBe(1);
  });
});
