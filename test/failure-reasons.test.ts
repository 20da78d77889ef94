// Failure reasons name the problem in the user's terms (issue 12, "Edges a hostile client found"): a
// file whose header claims 40,000 s is video_too_long, a file that is not a video is not an "internal
// error", and no reason shows a path of the server's data directory.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutServerPaths, failureReason } from '../src/engine/failure-reason.js';
import { MediaError } from '../src/media/probe.js';
import { ProcessError } from '../src/media/process.js';
import { ShortsError } from '../src/errors.js';
import { runCli } from './helpers/cli.js';
import { claimDuration } from './helpers/mp4-header.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'reasons-'));

/** A 3-second H.264/AAC MP4 whose header claims 40,000 seconds (11 h 6 min), and 20 kB of noise named .mp4. */
function hostileFiles(dir: string): { long: string; garbage: string } {
  const small = path.join(dir, 'small.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=16000',
    '-t', '3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-movflags', '+faststart', small]);
  const long = claimDuration(small, path.join(dir, 'long.mp4'), 40_000);
  const garbage = path.join(dir, 'garbage.mp4');
  writeFileSync(garbage, Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7919 + 13) % 251)));
  return { long, garbage };
}

describe('withoutServerPaths', () => {
  const dataDir = '/srv/shorts data';
  const source = `${dataDir}/jobs/0123456789abcdef01234567/work/source.mp4`;

  it('names the downloaded video and working files, never the data directory', () => {
    const text = `ffmpeg failed: ${source}: Invalid data; could not write ${dataDir}/jobs/0123456789abcdef01234567/work/a.ass.`;
    const out = withoutServerPaths(text, { dataDir, sourcePath: source, hideAllPaths: true });
    expect(out).toBe('ffmpeg failed: the downloaded video: Invalid data; could not write a working file.');
    expect(withoutServerPaths(`model ${dataDir}/models/ggml-tiny.bin is broken`, { dataDir })).toBe('model the speech model is broken');
  });

  it('on serve, cuts other absolute paths to their last segment; URLs stay', () => {
    const out = withoutServerPaths("/usr/bin/ffmpeg exited with 1: Error opening '/opt/x/font.ttf' for http://cdn.example.com/a/b.mp4",
      { dataDir, hideAllPaths: true });
    expect(out).toBe("ffmpeg exited with 1: Error opening 'font.ttf' for http://cdn.example.com/a/b.mp4");
  });

  it("locally, keeps the user's own file path (it is theirs) but still hides the data directory", () => {
    const own = '/home/ana/talk.mp4';
    expect(withoutServerPaths(`cannot read ${own} (${dataDir}/jobs/x/work/a.wav)`, { dataDir, sourcePath: own }))
      .toBe(`cannot read ${own} (a working file)`);
  });

  it("the user's bad file is not an internal error; a crash of ours is, without the path", () => {
    expect(failureReason(new MediaError('not a readable video file (invalid data found when processing input)'), { dataDir }))
      .toBe('not a readable video file (invalid data found when processing input)');
    expect(failureReason(new ShortsError('video_too_long', 'the video is 11 h 6 min long'), { dataDir })).toBe('the video is 11 h 6 min long');
    const crash = new ProcessError('/usr/bin/ffmpeg', 1, `${source}: Conversion failed!`);
    expect(failureReason(crash, { dataDir, sourcePath: source, hideAllPaths: true }))
      .toBe('internal error: ffmpeg exited with 1: the downloaded video: Conversion failed!');
  });
});

describe('failure reasons through a real `serve` and the local CLI', () => {
  let serve: ServeProcess;
  let files: Loopback;
  let key: string;
  let dataDir: string;
  let hostile: { long: string; garbage: string };

  beforeAll(async () => {
    hostile = hostileFiles(tmp());
    const env = serveEnv();
    dataDir = env.SHORTS_DATA_DIR!;
    ({ key } = await createKey(env));
    serve = await startServe(env);
    files = await loopback((req, res) => {
      const file = req.url === '/long.mp4' ? hostile.long : req.url === '/garbage.mp4' ? hostile.garbage : null;
      if (!file) { res.writeHead(404).end(); return; }
      fileHandler(file)(req, res);
    });
  }, 60_000);
  afterAll(async () => {
    await serve?.kill();
    await files?.close();
  });

  const body = (r: { json: any }) => r.json?.data ?? r.json;

  async function failedReason(name: string): Promise<string> {
    const created = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${files.url}/${name}`, start: 0, end: 60 });
    expect(created.status, created.text).toBe(202);
    const id = body(created).requestId as string;
    const final = await until(() => api(serve.api, key, 'GET', `/shorts/${id}/status`), (r) => ['failed', 'completed'].includes(body(r)?.status), 60_000);
    expect(body(final).status).toBe('failed');
    return body(final).failureReason as string;
  }

  function expectNoServerPath(reason: string): void {
    expect(reason).not.toContain(dataDir);
    expect(reason).not.toMatch(/\/jobs\/|\/work\/|source\.mp4/);
    expect(reason).not.toMatch(/(^|\s)\/[\w.-]+\//);
    expect(reason).not.toMatch(/internal error/i);
  }

  it('a file whose header claims 40,000 s fails as too long, naming the limit', async () => {
    const reason = await failedReason('long.mp4');
    expect(reason).toMatch(/11 h 6 min long \(40000 s\); the limit is 5 h \(18000 s\)/);
    expect(reason).not.toMatch(/truncated/);
    expectNoServerPath(reason);
  }, 90_000);

  it('a file that is not a video says so, in the user\'s terms', async () => {
    const reason = await failedReason('garbage.mp4');
    expect(reason).toMatch(/^not a readable video file \(/);
    expectNoServerPath(reason);
  }, 90_000);

  it('locally the same file is refused at creation with video_too_long', async () => {
    const r = await runCli(['create', '--file', hostile.long, '--start', '0', '--end', '60', '--json'], serveEnv());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error \(video_too_long\): the video is 11 h 6 min long \(40000 s\); the limit is 5 h/);
    expect(r.stdout + r.stderr).not.toMatch(/truncated/);
  }, 60_000);
});
