// Conformance suite of the media runner port (src/ports/media-runner.ts), written against the interface
// only: today's local child processes run it, and a runner that places the work elsewhere later runs it
// unchanged. It needs ffmpeg and ffprobe wherever the adapter runs them; it never names a binary's path.
import { describe, expect, it } from 'vitest';
import type { MediaRunner } from '../../src/ports/media-runner.js';

export type MediaRunnerFactory = () => Promise<{ port: MediaRunner; close: () => Promise<void> }>;

/** ffmpeg arguments for `seconds` of silence read in real time (-re) and thrown away: a child that runs that long. */
export function slowArgs(seconds: number): string[] {
  return ['-nostdin', '-v', 'error', '-re', '-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', String(seconds), '-f', 'null', '-'];
}

export function mediaRunnerConformance(name: string, factory: MediaRunnerFactory): void {
  const withRunner = (fn: (runner: MediaRunner) => Promise<void>) => async () => {
    const { port, close } = await factory();
    try {
      await fn(port);
    } finally {
      await close();
    }
  };

  describe(`MediaRunner conformance: ${name}`, () => {
    it('runs a tool with an argument list and gives back its stdout', withRunner(async (media) => {
      const r = await media.run('ffprobe', ['-version']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^ffprobe version/);
      expect(r.stdoutBytes.toString()).toBe(r.stdout);
    }));

    it('streams stdout to streamStdout instead of collecting it', withRunner(async (media) => {
      let bytes = 0;
      const r = await media.run('ffmpeg', ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=8000', '-t', '0.5',
        '-ac', '1', '-f', 's16le', '-c:a', 'pcm_s16le', '-'], { streamStdout: (b) => { bytes += b.length; } });
      expect(bytes).toBe(8000); // 0.5 s x 8000 samples/s x 2 bytes
      expect(r.stdoutBytes.length).toBe(0);
    }));

    it('a non-zero exit rejects as a ProcessError carrying the exit code and stderr', withRunner(async (media) => {
      await expect(media.run('ffprobe', ['-v', 'error', '/nonexistent/shortwright-missing.mp4']))
        .rejects.toMatchObject({ name: 'ProcessError', code: 1, stderr: expect.stringMatching(/No such file/) });
    }));

    it('counts the children it started per tool; a scoped runner counts its own and adds to its parent', withRunner(async (media) => {
      const before = media.counts();
      const job = media.scoped();
      await job.run('ffprobe', ['-version']);
      await job.run('ffprobe', ['-version']);
      await job.run('ffmpeg', ['-version']);
      await media.run('ffmpeg', ['-version']);
      expect(job.counts()).toMatchObject({ ffprobe: 2, ffmpeg: 1, 'whisper-cli': 0 });
      const after = media.counts();
      expect(after.ffprobe - before.ffprobe).toBe(2);
      expect(after.ffmpeg - before.ffmpeg).toBe(2);
    }));

    it('aborting a job\'s signal kills every child of the job at once; later runs are refused', withRunner(async (media) => {
      const ctl = new AbortController();
      const job = media.scoped(ctl.signal);
      const started = Date.now();
      const runs = [job.run('ffmpeg', slowArgs(60)), job.run('ffmpeg', slowArgs(60))];
      // A child of another job (here: the parent) is not touched.
      const other = media.run('ffmpeg', slowArgs(1));
      setTimeout(() => ctl.abort(), 300);
      await Promise.all(runs.map((r) => expect(r).rejects.toMatchObject({ name: 'AbortError' })));
      expect(Date.now() - started).toBeLessThan(10_000);
      await expect(other).resolves.toMatchObject({ code: 0 });
      await expect(job.run('ffprobe', ['-version'])).rejects.toMatchObject({ name: 'AbortError' });
    }));

    it('a run\'s own signal kills that child only', withRunner(async (media) => {
      const ctl = new AbortController();
      const job = media.scoped();
      const killed = job.run('ffmpeg', slowArgs(60), { signal: ctl.signal });
      const kept = job.run('ffmpeg', slowArgs(0.5));
      setTimeout(() => ctl.abort(), 200);
      await expect(killed).rejects.toMatchObject({ name: 'AbortError' });
      await expect(kept).resolves.toMatchObject({ code: 0 });
    }));

    it('once makes a result once per key for every runner of the same root, and forgets a failure', withRunner(async (media) => {
      const key = `conformance-${Date.now()}-${Math.random()}`;
      let made = 0;
      const make = async () => ++made;
      const [a, b] = await Promise.all([media.once(key, make), media.scoped().once(key, make)]);
      expect([a, b, made]).toEqual([1, 1, 1]);
      const failing = `${key}-failing`;
      await expect(media.once(failing, () => Promise.reject(new Error('no')))).rejects.toThrow('no');
      await expect(media.once(failing, async () => 'yes')).resolves.toBe('yes');
    }));
  });
}
