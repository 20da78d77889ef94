// `shorts export` (issue 14) the way users run it locally, where the files are the user's own (the plan
// as kept, byte for byte, naming the source by its path). Against a remote `shorts serve`, an unknown
// request's export is checked in test/cli-contract.test.ts, which runs one server for the whole CLI.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRenderArgs } from '../src/media/ffmpeg-args.js';
import type { RenderPlan } from '../src/media/render-plan.js';
import type { RequestDetail } from '../src/api/types.js';
import { SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { keepTranscripts, shareTranscripts } from './helpers/transcript-pool.js';

describe('shorts export, local', () => {
  const env = cliEnv();
  let detail: RequestDetail;
  const out = mkdtempSync(path.join(os.tmpdir(), 'export-cli-'));

  beforeAll(async () => {
    // Exports are under test, not transcription: the sample's 0-80 s transcript is the one the other CLI
    // tests share, made once per machine (transcript-pool.ts).
    shareTranscripts(env.SHORTS_DATA_DIR!);
    const r = await runCli(['create', '--file', SAMPLE, '--start', '0', '--end', '80', '--max-shorts', '1', '--preferred-length', 'under30sec', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    keepTranscripts(env.SHORTS_DATA_DIR!);
    detail = JSON.parse(r.stdout) as RequestDetail;
    expect(detail.status).toBe('completed');
  }, 300_000);

  it('--format json prints the plan as kept: the same ffmpeg arguments, byte for byte', async () => {
    const short = detail.shorts[0]!;
    const r = await runCli(['export', detail._id, short.id, '--format', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    const kept = JSON.parse(readFileSync(path.join(env.SHORTS_DATA_DIR!, 'jobs', detail._id, `render-${short.id}.json`), 'utf8')) as RenderPlan;
    const { captionWords, ...plan } = JSON.parse(r.stdout) as RenderPlan & { captionWords: unknown[] };
    expect(plan).toEqual(kept);
    expect(buildRenderArgs(plan)).toEqual(buildRenderArgs(kept));
    expect(plan.input.path).toBe(SAMPLE);
    expect(captionWords.length).toBeGreaterThan(0);
  });

  it('--out a folder writes the export under its own name; the EDL names the user\'s file by its path', async () => {
    const r = await runCli(['export', detail._id, '--format', 'edl', '--out', `${out}/`], env);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(out)).toContain(`${detail._id}.edl`);
    const edl = readFileSync(path.join(out, `${detail._id}.edl`), 'utf8');
    expect(edl).toContain(`* SOURCE FILE: ${SAMPLE}`);
    expect(edl).toMatch(/^001 {2}TALK {5}AA\/V {2}C {8}\d\d:\d\d:\d\d:\d\d /m);
  });

  it('--format jpg --out writes the cover, a JPEG of the clip\'s size', async () => {
    const short = detail.shorts[0]!;
    const file = path.join(out, 'cover.jpg');
    const r = await runCli(['export', detail._id, short.id, '--format', 'jpg', '--out', file], env);
    expect(r.code, r.stderr).toBe(0);
    const jpg = readFileSync(file);
    expect(jpg.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(true);
    const size = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]).toString().trim();
    expect(size).toBe(`${short.width},${short.height}`);
  });

  it('refusals: an unknown format is a usage error, ass of a whole request is invalid_request', async () => {
    const unknown = await runCli(['export', detail._id, '--format', 'docx'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/docx/);
    const ass = await runCli(['export', detail._id, '--format', 'ass'], env);
    expect(ass.code).toBe(2);
    expect(ass.stderr).toMatch(/invalid_request|short id/);
  });
});
