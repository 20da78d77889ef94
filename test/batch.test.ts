// `shorts batch` end to end: the real CLI (dist/), real whisper.cpp (tiny model), real ffmpeg, one data dir
// for the whole file so each content is transcribed once (the transcript cache is keyed by content, so the
// copies and later batches hit it). Sources: one-minute cuts of the shipped sample's real speech at two
// offsets, small and at 5 fps, copied under six names (transcription is what costs here).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, cliEnv, runCli, startCli } from './helpers/cli.js';
import { FIXTURES } from './helpers/media.js';
import type { BatchState } from '../src/cli/batch/state.js';
import { parseCsv } from '../src/cli/batch/manifest.js';
import { expandGlob } from '../src/cli/batch/glob.js';
import { expandSources } from '../src/cli/batch/plan.js';
import { xmlEscape } from '../src/cli/batch/junit.js';
import type { RequestDetail } from '../src/api/types.js';

/** A minute of the sample from `offset` s, 320x240 at 5 fps: real speech, cheap pictures; cached by its recipe. */
function sampleCut(offset: number): string {
  mkdirSync(FIXTURES, { recursive: true });
  const out = path.join(FIXTURES, `batch-talk-${offset}s-v2.mp4`);
  if (!existsSync(out)) {
    const tmp = `${out}.tmp.mp4`;
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-ss', String(offset), '-t', '60', '-i', SAMPLE, '-vf', 'scale=320:240,fps=5',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-b:a', '64k', tmp]);
    execFileSync('mv', [tmp, out]);
  }
  return out;
}

const readState = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'batch.json'), 'utf8')) as BatchState;
const readDetail = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'request.json'), 'utf8')) as RequestDetail;
const overlaps = (a: BatchState['items'][number], b: BatchState['items'][number]) =>
  Date.parse(a.timings.startedAt!) < Date.parse(b.timings.finishedAt!) && Date.parse(b.timings.startedAt!) < Date.parse(a.timings.finishedAt!);

// What every item shares: the cheapest real request (one short clip, English named so no detection runs,
// the whole picture on a solid background: no face sampling for a crop, no blur to draw).
const COMMON = ['--start', '0', '--end', '60', '--max-shorts', '1', '--preferred-length', 'under30sec', '--language', 'en',
  '--layout', 'fit', '--no-blur-background'];

describe('shorts batch (local mode)', () => {
  // No multilingual model: the language is named, so no advisory language check runs (a second whisper.cpp
  // run per source, with a larger model); what batch does with an item does not depend on it.
  // A short lease (issue 22): after a kill -9 the re-run takes the folder and the orphaned request over once it runs out.
  const env = cliEnv({ SHORTS_WHISPER_MULTILINGUAL_MODEL: 'off', SHORTS_LEASE_TTL: '3' });
  const work = mkdtempSync(path.join(os.tmpdir(), 'shorts-batch-'));
  const videos = path.join(work, 'videos');
  const CORRUPT = 'talk4';

  beforeAll(() => {
    mkdirSync(videos);
    for (const [i, offset] of [0, 10, 0, null, 10, 0].entries()) {
      const file = path.join(videos, `talk${i + 1}.mp4`);
      if (offset === null) writeFileSync(file, Buffer.from('this is not a video file\n'.repeat(4000)));
      else copyFileSync(sampleCut(offset), file);
    }
  }, 120_000);

  const out1 = path.join(work, 'run1');
  const junit = path.join(work, 'junit.xml');
  let first: BatchState;

  it('runs six sources two at a time: the corrupt one fails, the report, the JUnit file and the exit code say so', async () => {
    const r = await runCli(['batch', videos, ...COMMON, '-j', '2', '--out', out1, '--junit', junit, '--json'], env);
    expect(r.code, r.stderr).toBe(1);
    first = JSON.parse(r.stdout) as BatchState;
    expect(first).toEqual(readState(out1));
    expect(first.items.map((i) => i.out)).toEqual(['talk1', 'talk2', 'talk3', 'talk4', 'talk5', 'talk6']);
    expect(first.totals).toMatchObject({ items: 6, completed: 5, failed: 1, pending: 0, running: 0, interrupted: 0 });
    for (const item of first.items) {
      expect(item.source).toEqual({ kind: 'file', value: path.join(videos, `${item.out}.mp4`) });
      expect(item).toMatchObject({ start: 0, end: 60, options: { maxShorts: 1, preferredLength: 'under30sec', language: 'en' }, attempts: 1 });
      expect(item.timings.seconds).toBeGreaterThan(0);
      if (item.out === CORRUPT) {
        expect(item.status).toBe('failed');
        expect(item.failureReason).toMatch(/not a readable video file/);
        expect(existsSync(path.join(out1, item.out))).toBe(false);
        continue;
      }
      expect(item.status, item.failureReason ?? '').toBe('completed');
      expect(item.requestId).toMatch(/^[0-9a-f]{24}$/);
      // The item's folder is what `create --out` writes: the clip, its cover, request.json pointing at them.
      const folder = path.join(out1, item.out);
      const detail = readDetail(folder);
      expect(detail._id).toBe(item.requestId);
      expect(detail.shorts).toHaveLength(1);
      expect(item.clips).toHaveLength(1);
      const clip = item.clips[0]!;
      expect(clip).toMatchObject({ rank: 1, id: detail.shorts[0]!.id, title: detail.shorts[0]!.title, viralScore: detail.shorts[0]!.viral_score });
      expect(detail.shorts[0]!.video_url).toBe(pathToFileURL(path.join(out1, clip.file!)).href);
      expect(readFileSync(path.join(out1, clip.cover!)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      expect(readdirSync(folder).sort()).toEqual([path.basename(clip.cover!), path.basename(clip.file!), 'request.json'].sort());
    }
    // Six items, each its own request and folder; the same video gives the same clip.
    expect(new Set(first.items.filter((i) => i.requestId !== null).map((i) => i.requestId)).size).toBe(5);
    const title = (n: number) => first.items[n - 1]!.clips[0]!.title;
    expect([title(3), title(6)]).toEqual([title(1), title(1)]);
    expect(title(5)).toBe(title(2));
    // Two at a time: some items ran side by side.
    const done = first.items.filter((i) => i.status === 'completed');
    expect(done.some((a, i) => done.slice(i + 1).some((b) => overlaps(a, b)))).toBe(true);

    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(readFileSync(junit, 'utf8'));
    const suite = xml.testsuites.testsuite;
    expect(xml.testsuites).toMatchObject({ tests: '6', failures: '1', skipped: '0' });
    expect(suite).toMatchObject({ name: 'shorts batch', tests: '6', failures: '1', errors: '0', skipped: '0' });
    const cases = suite.testcase as { name: string; failure?: { message: string }; skipped?: unknown }[];
    expect(cases.map((c) => c.name)).toEqual(first.items.map((i) => i.out));
    const failed = cases.filter((c) => c.failure);
    expect(failed.map((c) => c.name)).toEqual([CORRUPT]);
    expect(failed[0]!.failure!.message).toBe(first.items[3]!.failureReason);
    expect(cases.filter((c) => 'skipped' in c)).toEqual([]);
  }, 600_000);

  it('a re-run skips what completed, keeps a failure without --retry-failed, and with it processes only the fixed source', async () => {
    copyFileSync(sampleCut(0), path.join(videos, `${CORRUPT}.mp4`));
    const args = ['batch', videos, ...COMMON, '-j', '2', '--out', out1];
    const again = await runCli(args, env);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).not.toMatch(/started/);
    expect(readState(out1).items.map((i) => [i.status, i.requestId, i.attempts])).toEqual(first.items.map((i) => [i.status, i.requestId, i.attempts]));

    const retry = await runCli([...args, '--retry-failed'], env);
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stderr.match(/: started/g)).toHaveLength(1);
    const after = readState(out1);
    expect(after.totals).toMatchObject({ items: 6, completed: 6, failed: 0 });
    for (const [i, item] of after.items.entries()) {
      if (item.out === CORRUPT) {
        expect(item).toMatchObject({ status: 'completed', attempts: 2, failureReason: null });
        expect(readDetail(path.join(out1, item.out))._id).toBe(item.requestId);
      } else {
        // Untouched: the same request, the same run.
        expect([item.requestId, item.timings]).toEqual([first.items[i]!.requestId, first.items[i]!.timings]);
      }
    }
  }, 300_000);

  it('a manifest row\'s options override the command line\'s, and a bad cell is refused naming its line', async () => {
    const out = path.join(work, 'manifest-run');
    const bad = path.join(work, 'bad.csv');
    writeFileSync(bad, 'file,maxShorts\nvideos/talk1.mp4,2\nvideos/talk2.mp4,20\n');
    const refused = await runCli(['batch', '--manifest', bad, ...COMMON, '--out', out], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('bad.csv line 3: maxShorts must be a whole number from 1 to 12, got 20');
    expect(existsSync(out)).toBe(false);

    const manifest = path.join(work, 'talks.csv');
    writeFileSync(manifest, [
      'file,maxShorts,templateId,layout,out',
      'videos/talk1.mp4,2,5599b3c40d926deb77e807b4,fit,first',
      '"videos/talk2.mp4",,7c5a12121c05330cc35885b7,square,',
    ].join('\r\n'));
    // A layout on the command line that neither row keeps (rows override it): no clip is made with it.
    const r = await runCli(['batch', '--manifest', manifest, ...COMMON, '--layout', 'fill', '--out', out], env);
    expect(r.code, r.stderr).toBe(0);
    const state = readState(out);
    expect(state.items.map((i) => [i.out, i.origin, i.options.maxShorts, i.options.layout])).toEqual([
      ['first', 'talks.csv line 2', 2, 'fit'], ['talk2', 'talks.csv line 3', 1, 'square']]);
    const firstDetail = readDetail(path.join(out, 'first'));
    const secondDetail = readDetail(path.join(out, 'talk2'));
    expect(firstDetail.template).toBe('bold-pop');
    expect(secondDetail.template).toBe('minimal');
    expect(firstDetail.shorts.map((s) => s.layout)).toEqual(firstDetail.shorts.map(() => 'fit'));
    expect(secondDetail.shorts.map((s) => s.layout)).toEqual(['square']);
    // maxShorts 2 from the row, 1 from the command line: as many MP4s in each folder.
    expect(firstDetail.shorts).toHaveLength(2);
    expect(readdirSync(path.join(out, 'first')).filter((f) => f.endsWith('.mp4'))).toHaveLength(2);
    expect(readdirSync(path.join(out, 'talk2')).filter((f) => f.endsWith('.mp4'))).toHaveLength(1);
  }, 300_000);

  it('Ctrl-C leaves the state resumable; after a kill -9 a re-run completes without redoing finished items', async () => {
    const out = path.join(work, 'killed');
    const args = ['batch', path.join(videos, 'talk[12].mp4'), ...COMMON, '-j', '1', '--out', out];
    const waitFor = async (ready: (s: BatchState) => boolean) => {
      for (let i = 0; i < 1200; i++) {
        try {
          const s = readState(out);
          if (ready(s)) return s;
        } catch { /* not written yet */ }
        await sleep(100);
      }
      throw new Error('the batch did not get there');
    };
    const secondRunning = (attempt: number) => (s: BatchState) => s.items[0]!.status === 'completed' && s.items[1]!.status === 'running'
      && s.items[1]!.attempts === attempt && s.items[1]!.requestId !== null && !s.items[1]!.previousRequestIds.includes(s.items[1]!.requestId);

    // Ctrl-C (SIGINT to the process group, as a terminal sends it): the running item is cancelled and left interrupted.
    const run1 = startCli(args, env, true);
    const before = await waitFor(secondRunning(1));
    process.kill(-run1.child.pid!, 'SIGINT');
    const stopped = await run1.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    const interrupted = readState(out);
    expect(interrupted.items.map((i) => i.status)).toEqual(['completed', 'interrupted']);

    // kill -9 while the interrupted item runs again: batch.json still says running, its request is orphaned.
    const run2 = startCli(args, env, true);
    const running = await waitFor(secondRunning(2));
    const killedRequest = running.items[1]!.requestId!;
    // The whole group, as a power loss would: no ffmpeg or whisper.cpp of the dead batch lingers.
    process.kill(-run2.child.pid!, 'SIGKILL');
    expect((await run2.done).signal).toBe('SIGKILL');

    const last = await runCli(args, env);
    expect(last.code, last.stderr).toBe(0);
    const after = readState(out);
    expect(after.items.map((i) => i.status)).toEqual(['completed', 'completed']);
    expect([after.items[0]!.requestId, after.items[0]!.timings]).toEqual([before.items[0]!.requestId, before.items[0]!.timings]);
    // The Ctrl-C'd request, then the orphaned one (taken over if the engine resumes it, else replaced).
    expect([...after.items[1]!.previousRequestIds, after.items[1]!.requestId].slice(0, 2)).toEqual([before.items[1]!.requestId, killedRequest]);
    expect(after.items[1]!.attempts).toBe(3);
    expect(readDetail(path.join(out, 'talk2'))._id).toBe(after.items[1]!.requestId);
  }, 300_000);
});

// Remote mode against a local server speaking the Shorts API's wire contract (spec 4): what batch must do
// is client-side (how many requests it keeps in flight, how it takes a 429), so no engine runs here.
describe('shorts batch (remote mode)', () => {
  it('keeps at most -j requests in flight, waits out a 429 retryAfter on create, and downloads each item\'s clips', async () => {
    const polls = new Map<string, number>();
    const creates: number[] = [];
    let live = 0, mostLive = 0, refusedAt = 0;
    const server = http.createServer((req, res) => {
      const send = (status: number, body: unknown, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
      };
      const url = new URL(req.url!, 'http://x');
      if (req.headers['x-api-key'] !== 'sk_test' && !url.pathname.startsWith('/media/')) return send(401, { error: { code: 'invalid_api_key', message: 'bad key' } });
      if (req.method === 'POST' && url.pathname === '/api/v1/shorts/create') {
        req.resume();
        // The second create is refused once: the spec's 429 with details.retryAfter (seconds).
        if (creates.length === 1 && refusedAt === 0) {
          refusedAt = Date.now();
          return send(429, { error: { code: 'rate_limit_exceeded', message: 'Video creation limit reached', details: { retryAfter: 1 } } });
        }
        creates.push(Date.now());
        const id = `${String(creates.length).padStart(24, '0')}`;
        polls.set(id, 0);
        mostLive = Math.max(mostLive, ++live);
        return send(200, { data: { requestId: id, status: 'processing', creditsUsed: 1, estimatedCompletionTime: new Date().toISOString(), queuePosition: null } });
      }
      const status = /^\/api\/v1\/shorts\/(\w+)\/status$/.exec(url.pathname);
      if (status) {
        const id = status[1]!;
        const n = polls.get(id)! + 1;
        polls.set(id, n);
        const done = n >= 3;
        if (done && n === 3) live--;
        return send(200, { data: { _id: id, status: done ? 'completed' : 'processing', step: done ? 'completed' : 'transcribing_audio',
          stepMessage: done ? 'Task complete!' : 'Analyzing video...', progress: done ? 100 : 40, userEmail: 'ci@example.com', isDemo: false } });
      }
      const detail = /^\/api\/v1\/shorts\/(\w+)$/.exec(url.pathname);
      if (detail) {
        const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        return send(200, { data: { _id: detail[1], status: 'completed', progress: 100, start: 0, end: 90, title: 'talk', url: 'https://cdn.example.com/x.mp4',
          shorts: [{ id: `clip-${detail[1]}`, title: 'The best minute', viral_score: 77, startTimestamp: 10, endTimestamp: 40, duration: 30, error: false,
            video_url: `${base}/media/${detail[1]}.mp4`, thumbnail_url: `${base}/media/${detail[1]}.jpg` }] } });
      }
      if (url.pathname.startsWith('/media/')) return send(200, Buffer.from(`bytes of ${url.pathname}`), 'application/octet-stream');
      send(404, { error: { code: 'resource_not_found', message: url.pathname } });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const work = mkdtempSync(path.join(os.tmpdir(), 'shorts-batch-remote-'));
      const manifest = path.join(work, 'talks.jsonl');
      writeFileSync(manifest, [1, 2, 3, 4, 5].map((n) => JSON.stringify({ fileUrl: `https://cdn.example.com/talk${n}.mp4`, start: 0, end: 90 })).join('\n'));
      const out = path.join(work, 'out');
      const r = await runCli(['--remote', `http://127.0.0.1:${port}`, '--api-key', 'sk_test', 'batch', '--manifest', manifest, '-j', '2', '--out', out, '--json'],
        cliEnv({ SHORTS_POLL_INTERVAL_MS: '50' }));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/rate limited by the server \(Video creation limit reached\); the next create in 1 s/);
      expect(mostLive).toBe(2);
      expect(creates).toHaveLength(5);
      // Nothing was sent again before retryAfter had passed.
      expect(creates[1]! - refusedAt).toBeGreaterThanOrEqual(950);
      const state = JSON.parse(r.stdout) as BatchState;
      expect(state.mode).toBe('remote');
      expect(state.items.map((i) => [i.out, i.status, i.source.kind])).toEqual([1, 2, 3, 4, 5].map((n) => [`talk${n}`, 'completed', 'fileUrl']));
      for (const item of state.items) {
        expect(item.clips).toMatchObject([{ rank: 1, title: 'The best minute', viralScore: 77, file: `${item.out}/01-the-best-minute.mp4` }]);
        expect(readFileSync(path.join(out, item.clips[0]!.file!), 'utf8')).toBe(`bytes of /media/${item.requestId}.mp4`);
        expect(readDetail(path.join(out, item.out))._id).toBe(item.requestId);
      }
    } finally {
      server.close();
    }
  });
});

describe('batch inputs', () => {
  it('reads CSV as RFC 4180 writes it: quoted commas, doubled quotes, line breaks in a cell, CRLF; each record with its line', () => {
    expect(parseCsv('file,ctaText\r\n"a, b.mp4","say ""hi""\nnow"\r\nc.mp4,\n')).toEqual([
      { line: 1, cells: ['file', 'ctaText'] }, { line: 2, cells: ['a, b.mp4', 'say "hi"\nnow'] }, { line: 4, cells: ['c.mp4', ''] }]);
  });

  it('expands folders (video files, natural order) and globs (*, ?, [..], {a,b}, **), each file once', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'shorts-batch-glob-'));
    for (const f of ['a/talk2.mp4', 'a/talk10.mp4', 'a/notes.txt', 'a/.hidden.mp4', 'a/deep/er/talk3.MOV', 'b/x.mkv']) {
      mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      writeFileSync(path.join(root, f), '');
    }
    const rel = (files: string[]) => files.map((f) => path.relative(root, f));
    expect(rel(expandSources(['a'], root))).toEqual(['a/talk2.mp4', 'a/talk10.mp4']);
    expect(rel(expandGlob('a/**/*.{mp4,MOV}', root))).toEqual(['a/deep/er/talk3.MOV', 'a/talk2.mp4', 'a/talk10.mp4']);
    expect(rel(expandGlob('?/*[!4].mkv', root))).toEqual(['b/x.mkv']);
    expect(rel(expandSources(['a/talk2.mp4', 'a/talk*.mp4'], root))).toEqual(['a/talk2.mp4', 'a/talk10.mp4']);
    expect(() => expandSources(['a/*.webm'], root)).toThrow(/no file matches a\/\*\.webm/);
    expect(() => expandSources(['missing.mp4'], root)).toThrow(/missing.mp4: no such file or folder/);
  });

  it('escapes what a failure reason may hold for JUnit XML', () => {
    expect(xmlEscape('ffmpeg said <"bad" & \'worse\'>\u0007')).toBe('ffmpeg said &lt;&quot;bad&quot; &amp; &apos;worse&apos;&gt;');
  });
});
