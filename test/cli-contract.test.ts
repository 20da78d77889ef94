// One CLI suite, two backends: the same commands and assertions against the local client (in-process
// engine) and against a live `shorts serve` (remote mode through got).
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { createKey, fileHandler, loopback, serveEnv, startServe, type Loopback, type ServeProcess } from './helpers/serve.js';
import { keepTranscripts, shareTranscripts } from './helpers/transcript-pool.js';
import type { RequestDetail } from '../src/api/types.js';
import { CLIP_LAYOUTS } from '../src/api/create-options.js';

let cdn: Loopback;
let serve: ServeProcess;
const envs: Record<'local' | 'remote', NodeJS.ProcessEnv> = { local: {}, remote: {} };

beforeAll(async () => {
  cdn = await loopback(fileHandler(SAMPLE));
  envs.local = cliEnv();
  const serverEnv = serveEnv();
  const { key } = await createKey(serverEnv, ['--hourly-limit', '2000', '--daily-limit', '20000']);
  serve = await startServe(serverEnv);
  // The client side has its own (empty) data dir: everything goes through HTTP.
  envs.remote = cliEnv({ SHORTS_REMOTE: serve.api, SHORTS_API_KEY: key, SHORTS_POLL_INTERVAL_MS: '300' });
}, 60_000);

afterAll(async () => {
  await serve?.kill();
  await cdn?.close();
});

describe.each(['local', 'remote'] as const)('the CLI in %s mode', (mode) => {
  let detail: RequestDetail;
  const out = mkdtempSync(path.join(os.tmpdir(), `contract-${mode}-`));

  it('create --file-url ... --out --json finishes and writes the clips', async () => {
    // What runs the request is under test here, not transcription: the sample's 0-80 s transcript is made
    // once per machine (transcript-pool.ts) and handed to whichever data dir transcribes (the server's, remotely).
    const dataDir = mode === 'local' ? envs.local.SHORTS_DATA_DIR! : serve.env.SHORTS_DATA_DIR!;
    shareTranscripts(dataDir);
    const r = await runCli(['create', '--file-url', `${cdn.url}/talk.mp4`, '--start', '0', '--end', '80', '--max-shorts', '1',
      '--preferred-length', 'under30sec', '--out', out, '--json'], envs[mode]);
    expect(r.code, r.stderr).toBe(0);
    keepTranscripts(dataDir);
    detail = JSON.parse(r.stdout) as RequestDetail;
    expect(detail).toMatchObject({ status: 'completed', start: 0, end: 80, url: `${cdn.url}/talk.mp4` });
    expect(detail.shorts).toHaveLength(1);
    const files = readdirSync(out).filter((f) => f.endsWith('.mp4'));
    expect(files).toHaveLength(1);
    const written = JSON.parse(readFileSync(path.join(out, 'request.json'), 'utf8')) as RequestDetail;
    expect(existsSync(new URL(written.shorts[0]!.video_url).pathname)).toBe(true);
  }, 300_000);

  it('status, get and list agree', async () => {
    const status = JSON.parse((await runCli(['status', detail._id, '--json'], envs[mode])).stdout);
    expect(status).toMatchObject({ _id: detail._id, status: 'completed', progress: 100, step: 'completed' });
    const got = JSON.parse((await runCli(['get', detail._id, '--json'], envs[mode])).stdout) as RequestDetail;
    expect(got.shorts.map((s) => s.id)).toEqual(detail.shorts.map((s) => s.id));
    // Each clip says which layout `auto` gave it (issue 13), through the in-process engine and through HTTP alike.
    expect(got.shorts.map((s) => s.layout)).toEqual(detail.shorts.map((s) => s.layout));
    for (const s of got.shorts) expect(CLIP_LAYOUTS).toContain(s.layout);
    const list = JSON.parse((await runCli(['list', '--status', 'completed', '--json'], envs[mode])).stdout);
    expect(list.data.requests.map((q: { requestId: string }) => q.requestId)).toContain(detail._id);
  });

  it('cancel of a finished request fails with request_not_cancellable (exit 1)', async () => {
    const r = await runCli(['cancel', detail._id], envs[mode]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/request_not_cancellable/);
  });

  it('catalog and posts commands answer the API envelopes', async () => {
    const t = JSON.parse((await runCli(['templates', '--json'], envs[mode])).stdout);
    expect(t.defaultTemplateName).toBe('Karaoke');
    const music = JSON.parse((await runCli(['music', '--limit', '5', '--json'], envs[mode])).stdout);
    expect(music.data.music).toHaveLength(5);
    expect(music.data.music[0]).toEqual({ name: expect.any(String), duration: expect.any(Number), url: expect.stringMatching(mode === 'local' ? /^file:.*\.opus$/ : /\/assets\/catalog\/music\/.+\/media$/) });
    expect(music.data.pagination).toMatchObject({ page: 1, limit: 5, totalCount: expect.any(Number) });
    const memes = JSON.parse((await runCli(['meme-hooks', '--limit', '3', '--json'], envs[mode])).stdout);
    expect(memes.data.memeHooks).toHaveLength(3);
    // A file:// URL locally, the server's public preview route remotely.
    expect(memes.data.memeHooks[0]).toEqual({ name: expect.any(String), preview: expect.stringMatching(mode === 'local' ? /^file:.*\.png$/ : /\/assets\/catalog\/meme-hooks\/.+\/preview$/), video: expect.stringMatching(mode === 'local' ? /^file:.*\.mp4$/ : /\/assets\/catalog\/meme-hooks\/.+\/media$/), video_duration: expect.any(Number) });
    const games = JSON.parse((await runCli(['game-videos', '--limit', '3', '--json'], envs[mode])).stdout);
    expect(games.data.gameVideos).toHaveLength(3);
    expect(games.data.gameVideos[0]).toEqual({ name: expect.any(String), preview: expect.stringMatching(mode === 'local' ? /^file:.*\.png$/ : /\/assets\/catalog\/game-videos\/.+\/preview$/), video: expect.stringMatching(mode === 'local' ? /^file:.*\.mp4$/ : /\/assets\/catalog\/game-videos\/.+\/media$/), video_duration: expect.any(Number) });
    const posts = JSON.parse((await runCli(['posts', '--json'], envs[mode])).stdout);
    expect(posts.data.pagination).toMatchObject({ page: 1, limit: 50 });
  });

  it('validation errors exit 2 with the rule, unknown ids exit 1 (status and export)', async () => {
    const bad = await runCli(['create', '--file-url', `${cdn.url}/talk.mp4`, '--start', '0', '--end', '30'], envs[mode]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid_request.*window end - start must be from 60 to/);
    const unknown = await runCli(['status', 'b'.repeat(24)], envs[mode]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/resource_not_found/);
    // `shorts export` of an unknown request: resource_not_found (exit 1), as the API says (issue 14).
    const exported = await runCli(['export', 'c'.repeat(24), '--format', 'mlt'], envs[mode]);
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(/resource_not_found|not found/);
  });
});
