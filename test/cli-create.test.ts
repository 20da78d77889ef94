// End to end: the real CLI, real whisper.cpp, real ffmpeg, a real SQLite store, the shipped sample.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { keepTranscripts, shareTranscripts } from './helpers/transcript-pool.js';
import type { RequestDetail } from '../src/api/types.js';

function probe(file: string) {
  return JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file]).toString()) as {
    streams: { codec_type: string; codec_name: string; width?: number; height?: number; pix_fmt?: string }[];
    format: { duration: string };
  };
}

describe('shorts create on the shipped sample (local mode)', () => {
  const env = cliEnv();
  const out = mkdtempSync(path.join(os.tmpdir(), 'shorts-out-'));
  let detail: RequestDetail;
  let result: Awaited<ReturnType<typeof runCli>>;

  beforeAll(async () => {
    // The sample's 0-80 s transcript is made once per machine (transcript-pool.ts): these tests check the
    // clips, files and commands built on it; test/transcribe.test.ts judges transcription itself.
    shareTranscripts(env.SHORTS_DATA_DIR!);
    result = await runCli(['create', '--file', SAMPLE, '--start', '0', '--end', '80', '--max-shorts', '2',
      '--preferred-length', 'under30sec', '--out', out, '--json'], env);
    keepTranscripts(env.SHORTS_DATA_DIR!);
    detail = JSON.parse(result.stdout) as RequestDetail;
  }, 300_000);

  it('exits 0 and prints the request detail as JSON on stdout', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(detail.status).toBe('completed');
    expect(detail.progress).toBe(100);
    // No --language on a local file: detected (English here), recorded as "en", and no language warning.
    expect(detail.language).toBe('en');
    expect(detail.warnings).toBeUndefined();
  });

  it('writes request.json shaped like GET /shorts/:id', () => {
    const written = JSON.parse(readFileSync(path.join(out, 'request.json'), 'utf8')) as RequestDetail;
    expect(Object.keys(written).sort()).toEqual(['_id', 'captionLanguage', 'createdAt', 'end', 'heatmap', 'language', 'preferredLength', 'progress',
      'projectId', 'sentences', 'shorts', 'start', 'status', 'template', 'title', 'url', 'userEmail'].sort());
    expect(written).toMatchObject({ start: 0, end: 80, language: 'en', template: 'karaoke', captionLanguage: '', preferredLength: 'under30sec',
      projectId: null, heatmap: [], title: 'How to learn any skill faster (shortwright sample)' });
    expect(written.sentences.length).toBeGreaterThan(10);
    for (const [i, s] of written.sentences.entries()) {
      expect(Object.keys(s).sort()).toEqual(['end', 'index', 'sentence', 'start']);
      expect(s.index).toBe(i);
    }
    for (const s of written.shorts) {
      expect(Object.keys(s).sort()).toEqual(['description', 'duration', 'endTimestamp', 'error', 'height', 'id', 'layout', 'posts', 'reason', 'recompiling',
        'sentenceIndexes', 'startTimestamp', 'thumbnail_url', 'title', 'video_url', 'viral_score', 'width'].sort());
      // The clip and its cover sit side by side in the folder.
      expect(path.dirname(fileURLToPath(s.thumbnail_url!))).toBe(out);
      expect(fileURLToPath(s.thumbnail_url!)).toBe(fileURLToPath(s.video_url).replace(/\.mp4$/, '.jpg'));
      expect(readFileSync(fileURLToPath(s.thumbnail_url!)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
      expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(s.viral_score).toBeGreaterThanOrEqual(0);
      expect(s.viral_score).toBeLessThanOrEqual(100);
      expect(s.description).toMatch(/#\w+/);
      expect(s.posts).toEqual([]);
    }
  });

  it('honours --max-shorts and ranks clips by viral score', () => {
    expect(detail.shorts.length).toBeGreaterThanOrEqual(1);
    expect(detail.shorts.length).toBeLessThanOrEqual(2);
    const scores = detail.shorts.map((s) => s.viral_score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('cuts clips on sentence boundaries, in the pause around them', () => {
    for (const s of detail.shorts) {
      const firstIndex = s.sentenceIndexes[0]!;
      const lastIndex = s.sentenceIndexes.at(-1)!;
      const first = detail.sentences[firstIndex]!;
      const last = detail.sentences[lastIndex]!;
      // Edges sit in the silence around the clip's sentences: a short lead and tail, never a word of the
      // neighbouring sentences. Recognised word times can be a few hundred ms off where the audio shows
      // the pause elsewhere (test/clip-edges.test.ts checks the audio itself), hence the allowances.
      expect(s.startTimestamp).toBeLessThanOrEqual(first.start + 0.05);
      expect(s.startTimestamp).toBeGreaterThan(first.start - 1);
      expect(s.endTimestamp).toBeGreaterThanOrEqual(last.end - 0.05);
      expect(s.endTimestamp).toBeLessThan(last.end + 1);
      const before = detail.sentences[firstIndex - 1];
      const after = detail.sentences[lastIndex + 1];
      if (before) expect(s.startTimestamp).toBeGreaterThanOrEqual(before.end - 0.3);
      if (after) expect(s.endTimestamp).toBeLessThanOrEqual(after.start + 0.3);
      expect(s.duration).toBeCloseTo(s.endTimestamp - s.startTimestamp, 2);
    }
  });

  it('leaves one H.264/AAC MP4 per clip at the configured size and duration', () => {
    const files = readdirSync(out).filter((f) => f.endsWith('.mp4'));
    expect(files).toHaveLength(detail.shorts.length);
    for (const s of detail.shorts) {
      const file = new URL(s.video_url).pathname;
      expect(existsSync(file)).toBe(true);
      const p = probe(file);
      const v = p.streams.find((x) => x.codec_type === 'video')!;
      expect(v).toMatchObject({ codec_name: 'h264', width: 270, height: 480, pix_fmt: 'yuv420p' });
      expect(p.streams.find((x) => x.codec_type === 'audio')?.codec_name).toBe('aac');
      expect(Number(p.format.duration)).toBeCloseTo(s.duration, 0);
      expect(s).toMatchObject({ width: 270, height: 480, error: false, recompiling: false });
    }
  });

  it('finds the request with status, get and list (--json)', async () => {
    const status = await runCli(['status', detail._id, '--json'], env);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({ _id: detail._id, status: 'completed', step: 'completed', stepMessage: 'Task complete!',
      progress: 100, userEmail: expect.stringMatching(/@/), isDemo: false });
    const get = await runCli(['get', detail._id, '--json'], env);
    expect(JSON.parse(get.stdout)._id).toBe(detail._id);
    const list = await runCli(['list', '--json'], env);
    const listed = JSON.parse(list.stdout) as { data: { requests: { requestId: string; duration: number }[]; pagination: unknown } };
    expect(listed.data.requests).toEqual([expect.objectContaining({ requestId: detail._id, status: 'completed', progress: 100, duration: 80 })]);
    expect(listed.data.pagination).toEqual({ page: 1, limit: 20, totalPages: 1, totalCount: 1 });
    const human = await runCli(['list'], env);
    expect(human.stdout).toContain(detail._id);
  });

  it('refuses to cancel a finished request (exit 1, request_not_cancellable)', async () => {
    const r = await runCli(['cancel', detail._id], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/request_not_cancellable.*already completed/);
  });
});

describe('shorts create --no-clipping', () => {
  it('makes the whole range one clip (here with background music mixed in)', async () => {
    const env = cliEnv();
    shareTranscripts(env.SHORTS_DATA_DIR!);
    const r = await runCli(['create', '--file', SAMPLE, '--start', '5', '--end', '70', '--no-clipping', '--no-captions', '--layout', 'fit',
      '--music', '--music-volume', '30', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    keepTranscripts(env.SHORTS_DATA_DIR!);
    const d = JSON.parse(r.stdout) as RequestDetail;
    expect(d.shorts).toHaveLength(1);
    const only = d.shorts[0]!;
    expect(only.startTimestamp).toBeCloseTo(5, 0);
    expect(only.endTimestamp).toBeCloseTo(70, 0);
    expect(only.sentenceIndexes).toEqual(d.sentences.map((s) => s.index));
  }, 300_000);
});

describe('shorts create with overlays and a gameplay split screen', () => {
  it('renders captions, hook title and CTA over the top half with gameplay below', async () => {
    const env = cliEnv();
    shareTranscripts(env.SHORTS_DATA_DIR!);
    const r = await runCli(['create', '--file', SAMPLE, '--start', '0', '--end', '80', '--max-shorts', '1', '--preferred-length', 'under30sec',
      '--game-video', '--game-video-name', 'Neon Life', '--hook-title', '--cta', '--cta-text', 'Follow for part 2', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as RequestDetail;
    const file = new URL(d.shorts[0]!.video_url).pathname;
    const p = probe(file);
    expect(p.streams.find((x) => x.codec_type === 'video')).toMatchObject({ width: 270, height: 480 });
    expect(p.streams.filter((x) => x.codec_type === 'audio')).toHaveLength(1);
    expect(Number(p.format.duration)).toBeCloseTo(d.shorts[0]!.duration, 0);
  }, 300_000);
});

