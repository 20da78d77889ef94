// Re-rendering one clip (issue 14), end to end on a real `shorts serve` (loopback), real ffmpeg, real
// whisper.cpp (tiny.en) behind a wrapper that logs every run, real SQLite: recompiling is true during and
// false after, the previous MP4 is served until the new one replaces it, an unchanged range costs no
// transcription, a range past the request's transcribes only the missing part, the new durations hold
// within a frame, and a kill -9 mid-re-render resumes on the next start.
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { ROOT, SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mediaBinaries } from '../src/media/binaries.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

const execFileAsync = promisify(execFile);
const REAL_WHISPER = path.join(ROOT, 'node_modules', 'nodejs-whisper', 'cpp', 'whisper.cpp', 'build', 'bin', 'whisper-cli');
/** The request's range: the clip can move before it (0-15 s is not transcribed by the request). */
const RANGE = { start: 15, end: 80 };

/** whisper-cli behind a shell wrapper that logs each run: the size of the WAV it was given, then its arguments. */
function countingWhisper(): { bin: string; runs: () => { seconds: number; args: string }[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-whisper-count-'));
  const log = path.join(dir, 'runs.log');
  const bin = path.join(dir, 'whisper-cli');
  writeFileSync(bin, `#!/bin/sh
wav=""; prev=""
for a in "$@"; do if [ "$prev" = "-f" ]; then wav="$a"; fi; prev="$a"; done
size=$(stat -c %s "$wav" 2>/dev/null || echo 0)
echo "$size $*" >> '${log}'
exec '${REAL_WHISPER}' "$@"
`);
  chmodSync(bin, 0o755);
  return {
    bin,
    runs: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []).map((line) => {
      const [size, ...args] = line.split(' ');
      // 16 kHz mono 16-bit PCM after a 44-byte header (extractAudio's WAV).
      return { seconds: (Number(size) - 44) / 32_000, args: args.join(' ') };
    }),
  };
}

let serve: ServeProcess | undefined;
let cdn: Loopback | undefined;
let hook: Loopback | undefined;
let key = '';
let requestId = '';
const whisper = countingWhisper();
const env = serveEnv({ SHORTS_WHISPER_CLI: whisper.bin });

afterAll(async () => {
  await serve?.kill('SIGKILL');
  await cdn?.close();
  await hook?.close();
});

const detail = async () => (await api(serve!.api, key, 'GET', `/shorts/${requestId}`)).json.data;
const shortOf = async (id: string) => (await detail()).shorts.find((s: { id: string }) => s.id === id);
const sha = async (url: string) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex');
};
/**
 * How long the MP4 plays, fetched through its link (ffprobe): its sound (cut at the range's exact ends) and
 * its picture, whose first and last frames are the source frames nearest the range's ends, so the picture
 * may run up to a frame past the sound at each end when the range is not on the frame grid.
 */
async function fileSeconds(url: string): Promise<{ seconds: number; picture: number; fps: number }> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'shorts-edit-clip-')), 'clip.mp4');
  writeFileSync(file, Buffer.from(await (await fetch(url)).arrayBuffer()));
  const { stdout } = await execFileAsync(mediaBinaries().ffprobe, ['-v', 'error', '-show_entries', 'stream=codec_type,duration,avg_frame_rate', '-of', 'json', file]);
  const streams = (JSON.parse(stdout) as { streams: { codec_type: string; duration: string; avg_frame_rate: string }[] }).streams;
  const video = streams.find((x) => x.codec_type === 'video')!;
  const audio = streams.find((x) => x.codec_type === 'audio')!;
  const [n, d] = video.avg_frame_rate.split('/').map(Number) as [number, number];
  const fps = n / d;
  const picture = Number(video.duration);
  const seconds = Number(audio.duration);
  // The picture covers the sound, a frame's rounding at each end at most.
  expect(Math.abs(picture - seconds)).toBeLessThanOrEqual(2 / fps + 1e-3);
  return { seconds, picture, fps };
}

const render = (shortId: string, body: unknown) => api(serve!.api, key, 'POST', `/shorts/${requestId}/shorts/${shortId}/render`, body);
const settled = (shortId: string) => until(() => shortOf(shortId), (s) => s.recompiling === false, 240_000, 100);

describe('re-render one clip (API)', () => {
  let clip: { id: string; startTimestamp: number; endTimestamp: number; duration: number; video_url: string; sentenceIndexes: number[] };

  beforeAll(async () => {
    ({ key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']));
    cdn = await loopback(fileHandler(SAMPLE));
    hook = await loopback((_req, res) => { res.writeHead(200); res.end(); });
    serve = await startServe(env);
    const created = await api(serve.api, key, 'POST', '/shorts/create',
      { fileUrl: `${cdn.url}/talk.mp4`, ...RANGE, maxShorts: 1, preferredLength: 'under30sec', webhookUrl: `${hook.url}/hook` });
    expect(created.status, created.text).toBe(202);
    requestId = created.json.data.requestId;
    // 409 while the request runs (its clips do not exist yet: not a 404).
    const early = await render('00000000-0000-0000-0000-000000000000', {});
    expect(early.status, early.text).toBe(409);
    expect(early.json.error.code).toBe('short_not_editable');
    const done = await until(() => api(serve!.api, key, 'GET', `/shorts/${requestId}/status`), (r) => ['completed', 'failed'].includes(r.json.data.status), 300_000, 250);
    expect(done.json.data.status, JSON.stringify(done.json)).toBe('completed');
    clip = (await detail()).shorts[0];
    expect(clip.recompiling).toBe(false);
  }, 420_000);

  it('refuses bad fields (400), unknown ids (404) and a second re-render of the same clip (409)', async () => {
    const bad = await render(clip.id, { start: 'soon' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_request', details: { field: 'start' } });
    const requestWide = await render(clip.id, { maxShorts: 2 });
    expect(requestWide.status).toBe(400);
    expect(requestWide.json.error.details.field).toBe('maxShorts');
    const past = await render(clip.id, { end: 81 });
    expect(past.status).toBe(400);
    expect(past.json.error.message).toMatch(/past the end of the source/);
    const backwards = await render(clip.id, { start: clip.endTimestamp + 1 });
    expect(backwards.status).toBe(400);
    const template = await render(clip.id, { templateId: 'ffffffffffffffffffffffff' });
    expect(template.json.error.details.field).toBe('templateId');
    expect((await render('00000000-0000-0000-0000-000000000000', {})).status).toBe(404);
    expect((await api(serve!.api, key, 'POST', `/shorts/${'a'.repeat(24)}/shorts/${clip.id}/render`, {})).status).toBe(404);
    // Another account's request is unknown to this one.
    const other = (await createKey(env)).key;
    expect((await api(serve!.api, other, 'POST', `/shorts/${requestId}/shorts/${clip.id}/render`, {})).status).toBe(404);
    // None of these started anything.
    expect((await shortOf(clip.id)).recompiling).toBe(false);
  });

  it('an unchanged range: recompiling during, the old MP4 served until replaced, no transcription, same duration', async () => {
    const runsBefore = whisper.runs().length;
    const oldHash = await sha(clip.video_url);
    const accepted = await render(clip.id, { hookTitle: true, title: 'A title drawn over the start' });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.json.data).toMatchObject({ id: clip.id, recompiling: true, startTimestamp: clip.startTimestamp, endTimestamp: clip.endTimestamp });
    const again = await render(clip.id, { hookTitle: false });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('short_not_editable');
    // While it renders, the link serves the previous clip, whole.
    const during = await shortOf(clip.id);
    const servedDuring = await sha(during.video_url);
    if ((await shortOf(clip.id)).recompiling) expect(servedDuring).toBe(oldHash);
    expect(during.recompiling).toBe(true);
    const after = await settled(clip.id);
    expect(after.editError).toBeUndefined();
    expect(after.title).toBe('A title drawn over the start');
    expect(after.duration).toBe(clip.duration);
    expect(after.sentenceIndexes).toEqual(clip.sentenceIndexes);
    expect(await sha(after.video_url)).not.toBe(oldHash);
    expect(whisper.runs().length).toBe(runsBefore); // the cached transcript: whisper.cpp never ran
    const { seconds, fps } = await fileSeconds(after.video_url);
    expect(Math.abs(seconds - clip.duration)).toBeLessThanOrEqual(1 / fps + 1e-3);
  });

  it('a longer then a shorter range: new duration within a frame, sentences follow, still no transcription inside the request range', async () => {
    const runsBefore = whisper.runs().length;
    const longer = { start: Math.max(RANGE.start, clip.startTimestamp - 4), end: Math.min(RANGE.end, clip.endTimestamp + 6) };
    expect((await render(clip.id, longer)).status).toBe(202);
    const l = await settled(clip.id);
    expect(l.editError).toBeUndefined();
    expect([l.startTimestamp, l.endTimestamp]).toEqual([longer.start, longer.end]);
    expect(Math.abs(l.duration - (longer.end - longer.start))).toBeLessThan(1e-3);
    const lf = await fileSeconds(l.video_url);
    expect(Math.abs(lf.seconds - l.duration)).toBeLessThanOrEqual(1 / lf.fps + 1e-3);
    expect(l.sentenceIndexes.length).toBeGreaterThanOrEqual(clip.sentenceIndexes.length);

    const shorter = { start: longer.start + 2, end: longer.start + 12 };
    expect((await render(clip.id, shorter)).status).toBe(202);
    const s = await settled(clip.id);
    expect(s.editError).toBeUndefined();
    expect(s.duration).toBeCloseTo(10, 3);
    const sf = await fileSeconds(s.video_url);
    expect(Math.abs(sf.seconds - 10)).toBeLessThanOrEqual(1 / sf.fps + 1e-3);
    expect(s.sentenceIndexes.length).toBeLessThan(l.sentenceIndexes.length);
    expect(whisper.runs().length).toBe(runsBefore);
  });

  it('a range reaching before the request\'s transcribes only the missing part', async () => {
    const runsBefore = whisper.runs().length;
    const current = await shortOf(clip.id);
    const target = { start: 8, end: current.endTimestamp };
    expect((await render(clip.id, target)).status).toBe(202);
    const after = await settled(clip.id);
    expect(after.editError).toBeUndefined();
    expect(after.startTimestamp).toBe(8);
    const runs = whisper.runs().slice(runsBefore);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    // The missing 7 s (8-15) and at most the seam's overlap, never the request's 65 s again.
    const heard = runs.reduce((sum, r) => sum + r.seconds, 0);
    expect(heard).toBeGreaterThanOrEqual(6.9);
    expect(heard).toBeLessThan(RANGE.end - RANGE.start - 30);
    const f = await fileSeconds(after.video_url);
    expect(Math.abs(f.seconds - (after.endTimestamp - 8))).toBeLessThanOrEqual(1 / f.fps + 1e-3);
  });

  it('shorts --remote edit waits until the clip is re-rendered and prints it', async () => {
    const current = await shortOf(clip.id);
    const r = await runCli(['--remote', serve!.url, '--api-key', key, 'edit', requestId, clip.id, '--end', String(current.endTimestamp - 3), '--no-hook-title', '--json'],
      { ...env, SHORTS_POLL_INTERVAL_MS: '200' });
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(printed).toMatchObject({ id: clip.id, recompiling: false, endTimestamp: current.endTimestamp - 3 });
    expect(printed.duration).toBeCloseTo(current.endTimestamp - 3 - current.startTimestamp, 3);
    const nothing = await runCli(['--remote', serve!.url, '--api-key', key, 'edit', requestId, clip.id], env);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/nothing to change/);
  });

  it('kill -9 mid-re-render: the clip stays recompiling with its previous MP4, and the next start finishes it', async () => {
    const before = await shortOf(clip.id);
    const oldHash = await sha(before.video_url);
    const target = { start: 20, end: 50 };
    expect((await render(clip.id, target)).status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    await serve!.kill('SIGKILL');
    serve = await startServe(env);
    const resumedAt = await shortOf(clip.id);
    if (resumedAt.recompiling) expect(await sha(resumedAt.video_url)).toBe(oldHash);
    const after = await settled(clip.id);
    expect(after.editError).toBeUndefined();
    expect([after.startTimestamp, after.endTimestamp, after.duration]).toEqual([20, 50, 30]);
    const f = await fileSeconds(after.video_url);
    expect(Math.abs(f.seconds - 30)).toBeLessThanOrEqual(1 / f.fps + 1e-3);
    // Re-renders cost no credit and send no webhook: the creation's credit and the completion's one delivery.
    const db = new Database(path.join(env.SHORTS_DATA_DIR!, 'shorts.db'), { readonly: true });
    const ledger = db.prepare('SELECT reason, delta FROM credit_ledger WHERE request_id = ?').all(requestId);
    db.close();
    expect(ledger).toEqual([{ reason: 'creation', delta: -1 }]);
    expect(hook!.requests.filter((q) => q.url === '/hook')).toHaveLength(1);
  }, 300_000);

  it('a re-render that fails keeps the clip as it was and says why (editError)', async () => {
    const before = await shortOf(clip.id);
    const oldHash = await sha(before.video_url);
    // The downloaded source was deleted when the request completed: with its server gone, it cannot be fetched again.
    await cdn!.close();
    expect((await render(clip.id, { end: before.endTimestamp - 5 })).status).toBe(202);
    const after = await settled(clip.id);
    expect(after.editError).toMatch(/download|fetch|HTTP|connect/i);
    expect([after.startTimestamp, after.endTimestamp, after.duration]).toEqual([before.startTimestamp, before.endTimestamp, before.duration]);
    expect(await sha(after.video_url)).toBe(oldHash);
  });
});

describe('re-render one clip (local CLI)', () => {
  it('shorts edit runs in the foreground on the cached transcript, moves the range and fixes a caption word', async () => {
    const local = cliEnv({ SHORTS_WHISPER_CLI: whisper.bin });
    // The API request above transcribed this very range of this very file (the cache is keyed by content,
    // not path): its cache spares whisper.cpp here. What this test counts is the edit's runs, not the create's.
    const served = path.join(env.SHORTS_DATA_DIR!, 'cache');
    if (existsSync(served)) cpSync(served, path.join(local.SHORTS_DATA_DIR!, 'cache'), { recursive: true });
    const created = await runCli(['create', '--file', SAMPLE, '--start', '15', '--end', '80', '--language', 'en', '--max-shorts', '1', '--preferred-length', 'under30sec', '--json'], local);
    expect(created.code, created.stderr).toBe(0);
    const d = JSON.parse(created.stdout);
    const s = d.shorts[0];
    const runsBefore = whisper.runs().length;
    const edited = await runCli(['edit', d._id, s.id, '--end', String(s.endTimestamp - 2), '--word', '1=Zebra', '--json'], local);
    expect(edited.code, edited.stderr).toBe(0);
    const after = JSON.parse(edited.stdout);
    expect(after).toMatchObject({ id: s.id, recompiling: false, startTimestamp: s.startTimestamp, endTimestamp: s.endTimestamp - 2 });
    expect(after.duration).toBeCloseTo(s.duration - 2, 3);
    expect(after.video_url).toBe(s.video_url); // the same file, replaced in place
    expect(whisper.runs().length).toBe(runsBefore);
    // The corrected word is the clip's first caption word now; the request's sentences keep the transcript.
    const cues = JSON.parse(readFileSync(path.join(local.SHORTS_DATA_DIR!, 'jobs', d._id, `cues-${s.id}.json`), 'utf8'));
    expect(cues[0].words[0].text).toBe('Zebra');
    const got = JSON.parse((await runCli(['get', d._id, '--json'], local)).stdout);
    expect(got.sentences).toEqual(d.sentences);
  }, 400_000);
});
