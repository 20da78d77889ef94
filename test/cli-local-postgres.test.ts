// Issue 24's "configuration only" in the CLI's local mode: a team member with the deployment's settings in their
// shell (SHORTS_DATABASE_URL, SHORTS_STORAGE_URL and the S3 ones) runs `shorts create --out` exactly as without
// them — the job runs in this process (no worker needed), its request lands in PostgreSQL and its clips in the
// bucket, and the clips are downloaded into the out folder. Another data dir (another machine of the team) finds
// the request with list, get, status and export. A wrong setting says which one. Real PostgreSQL and s3rver,
// started by the test on loopback; the real `shorts`, whisper.cpp and ffmpeg.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestDetail } from '../src/api/types.js';
import { SAMPLE, cliEnv, runCli, type CliResult } from './helpers/cli.js';
import { freePort, startPostgres, startS3, type Postgres, type S3 } from './helpers/engines.js';
import { keepTranscripts, shareTranscripts } from './helpers/transcript-pool.js';

let pgServer: Postgres;
let s3: S3;
let databaseUrl: string;
let bucket: string;
let deployment: Record<string, string>;
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};
/** The CLI's environment on a machine of the team: the deployment's settings and a data dir of its own. */
const machine = (extra: Record<string, string> = {}) => cliEnv({ ...deployment, SHORTS_DATA_DIR: tempDir('cli-pg-data-'), ...extra });

async function query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** The bucket's objects under `prefix`, with their bytes. */
async function bucketObjects(prefix: string): Promise<Map<string, Buffer>> {
  const client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: s3.env.AWS_REGION,
    credentials: { accessKeyId: s3.env.AWS_ACCESS_KEY_ID!, secretAccessKey: s3.env.AWS_SECRET_ACCESS_KEY! } });
  try {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    return new Map(await Promise.all((page.Contents ?? []).map(async (o) => {
      const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
      return [o.Key!, Buffer.from(await got.Body!.transformToByteArray())] as const;
    })));
  } finally {
    client.destroy();
  }
}

describe('shorts in local mode on PostgreSQL and S3 (SHORTS_DATABASE_URL, SHORTS_STORAGE_URL)', () => {
  const out = tempDir('cli-pg-out-');
  let created: CliResult;
  let detail: RequestDetail;

  beforeAll(async () => {
    [pgServer, s3] = await Promise.all([startPostgres(), startS3()]);
    [databaseUrl, bucket] = await Promise.all([pgServer.createDatabase('localcli'), s3.createBucket()]);
    deployment = {
      ...s3.env,
      SHORTS_DATABASE_URL: databaseUrl,
      SHORTS_STORAGE_URL: `s3://${bucket}/shorts`, SHORTS_S3_ENDPOINT: s3.endpoint, SHORTS_S3_FORCE_PATH_STYLE: '1',
      SHORTS_SECRET_KEY: 'cd'.repeat(32),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const env = machine();
    // The sample's 0-80 s transcript from the pool (transcript-pool.ts): what is checked here is where things go.
    shareTranscripts(env.SHORTS_DATA_DIR!);
    // No `db migrate` first and no worker running: the first statement migrates, and the CLI runs the job itself.
    created = await runCli(['create', '--file', SAMPLE, '--start', '0', '--end', '80', '--max-shorts', '1',
      '--preferred-length', 'under30sec', '--out', out, '--json'], env);
    keepTranscripts(env.SHORTS_DATA_DIR!);
    detail = JSON.parse(created.stdout || '{}') as RequestDetail;
  }, 300_000);

  afterAll(async () => {
    await Promise.all([pgServer?.close(), s3?.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('runs the job in the foreground: exit 0, and the clip, downloaded from the bucket, plays in the out folder', () => {
    expect(created.code, created.stderr).toBe(0);
    expect(detail.status).toBe('completed');
    expect(detail.shorts).toHaveLength(1);
    const clip = detail.shorts[0]!;
    // request.json and the printed detail point at the out folder's copies, as in SQLite mode.
    const file = fileURLToPath(clip.video_url);
    expect(path.dirname(file)).toBe(out);
    expect(readdirSync(out).filter((f) => f.endsWith('.mp4'))).toEqual([path.basename(file)]);
    const duration = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString());
    expect(duration).toBeCloseTo(clip.duration, 0);
  });

  it('records the request in PostgreSQL and keeps the clip and its cover in the bucket, the very bytes in the out folder', async () => {
    const [row] = await query<{ origin: string; status: string }>('select origin, status from requests where id = $1', [detail._id]);
    expect(row).toEqual({ origin: 'local', status: 'completed' });
    const clips = await query<{ id: string; file_key: string; cover_key: string }>('select id, file_key, cover_key from shorts where request_id = $1', [detail._id]);
    expect(clips.map((c) => c.id)).toEqual([detail.shorts[0]!.id]);
    const objects = await bucketObjects(`shorts/jobs/${detail._id}/clips/`);
    const clip = detail.shorts[0]!;
    expect(objects.get(`shorts/${clips[0]!.file_key}`)?.equals(readFileSync(fileURLToPath(clip.video_url)))).toBe(true);
    expect(objects.get(`shorts/${clips[0]!.cover_key}`)?.equals(readFileSync(fileURLToPath(clip.thumbnail_url!)))).toBe(true);
  });

  it('another machine of the team (an empty data dir) finds it: list, get, status and export', async () => {
    const env = machine();
    const shortId = detail.shorts[0]!.id;
    const [list, get, status, srt] = await Promise.all([
      runCli(['list', '--json'], env), runCli(['get', detail._id, '--json'], env), runCli(['status', detail._id, '--json'], env),
      runCli(['export', detail._id, shortId, '--format', 'srt'], env),
    ]);
    for (const r of [list, get, status, srt]) expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(list.stdout).data.requests).toEqual([expect.objectContaining({ requestId: detail._id, status: 'completed', progress: 100 })]);
    expect(JSON.parse(status.stdout)).toMatchObject({ _id: detail._id, status: 'completed', progress: 100 });
    // Without an out folder the clip is where it lives: a presigned link to the bucket, which any client fetches.
    const stored = (JSON.parse(get.stdout) as RequestDetail).shorts[0]!;
    expect(stored.video_url.startsWith(`${s3.endpoint}/${bucket}/shorts/`)).toBe(true);
    const fetched = await fetch(stored.video_url);
    expect(fetched.status).toBe(200);
    expect((await fetched.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    // The captions come from the request's checkpoints in the stores, not from the machine that made it.
    expect(srt.stdout).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n\S/);
  });

  it('cancels a local request its --no-wait runner has, from another machine, at once, without the queues\' server (SHORTS_REDIS_URL down here)', async () => {
    const deadRedis = { SHORTS_REDIS_URL: `redis://127.0.0.1:${await freePort()}` };
    const made = await runCli(['create', '--file', SAMPLE, '--start', '0', '--end', '60', '--language', 'en', '--no-wait', '--json'], machine(deadRedis));
    expect(made.code, made.stderr).toBe(0);
    const id = (JSON.parse(made.stdout) as { requestId: string }).requestId;
    const runner = Number(/runs in the background \(process (\d+)/.exec(made.stderr)?.[1]);
    expect(runner).toBeGreaterThan(0);
    const asked = Date.now();
    const cancelled = await runCli(['cancel', id], machine(deadRedis));
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(Date.now() - asked).toBeLessThan(20_000);
    // Its runner (the detached process of --no-wait) stops.
    const alive = () => { try { process.kill(runner, 0); return true; } catch { return false; } };
    for (const until = Date.now() + 20_000; alive() && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toBe(false);
    expect(await query('select status from requests where id = $1', [id])).toEqual([{ status: 'cancelled' }]);
  });

  it('says which setting is wrong, once, with exit 1: an unreachable database, a missing bucket (nothing recorded)', async () => {
    const port = await freePort();
    const before = await query('select id from requests order by id');
    const [noDatabase, noBucket] = await Promise.all([
      runCli(['list'], machine({ SHORTS_DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/shorts` })),
      runCli(['create', '--file', SAMPLE, '--start', '0', '--end', '60', '--out', tempDir('cli-pg-none-')], machine({ SHORTS_STORAGE_URL: 's3://no-such-bucket/shorts' })),
    ]);
    expect(noDatabase.code).toBe(1);
    expect(noDatabase.stderr.trim()).toBe(`error: the PostgreSQL database of SHORTS_DATABASE_URL (127.0.0.1:${port}/shorts) cannot be used: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(noBucket.code).toBe(1);
    expect(noBucket.stderr.trim()).toBe('error (internal_error): the object store of SHORTS_STORAGE_URL cannot be used: bucket no-such-bucket does not exist');
    expect(await query('select id from requests order by id')).toEqual(before);
  });
});
