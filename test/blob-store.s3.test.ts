// The blob store on S3 (src/adapters/s3/blob-store.ts) against a real S3-compatible server (s3rver on
// loopback): the port's conformance suite unchanged, then what only S3 has — presigned links a plain HTTP
// client fetches (ranges, expiry), multipart uploads, retries while the store restarts — and the choice of
// store from the settings, with the API's links going straight to the bucket.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import S3rver from 's3rver';
import { S3BlobStore } from '../src/adapters/s3/blob-store.js';
import { FsBlobStore } from '../src/adapters/fs/blob-store.js';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { SqliteAccounts } from '../src/adapters/sqlite/accounts.js';
import { blobStoreFromSettings } from '../src/app/blob-store-from-settings.js';
import { createEngine } from '../src/app/create-engine.js';
import type { ShortRecord } from '../src/ports/request-store.js';
import { AccountStore } from '../src/service/accounts.js';
import { Service } from '../src/service/service.js';
import { blobStoreConformance } from './conformance/blob-store.js';
import { SAMPLE, cliEnv, runCli } from './helpers/cli.js';
import { asS3Does, freePort, startS3, type S3 } from './helpers/engines.js';
import { keepTranscripts, shareTranscripts } from './helpers/transcript-pool.js';

let s3: S3;
let bucket: string;
const savedEnv: Record<string, string | undefined> = {};
const scratch = mkdtempSync(path.join(os.tmpdir(), 'blob-s3-'));
let n = 0;

/** A store on the test bucket under a fresh prefix, with its own local cache; credentials from the environment. */
function s3Store(extra: Partial<ConstructorParameters<typeof S3BlobStore>[0]> = {}): S3BlobStore {
  const id = `${process.pid}-${++n}`;
  return new S3BlobStore({
    bucket, prefix: `h${id}/blobs`, endpoint: s3.endpoint, forcePathStyle: true,
    cacheDir: path.join(scratch, `cache-${id}`), ...extra,
  });
}

beforeAll(async () => {
  s3 = await startS3();
  // The SDK's own credential and region chain reads them: the adapter is given none.
  for (const [k, v] of Object.entries(s3.env)) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
  bucket = await s3.createBucket();
});
afterAll(async () => {
  await s3.close();
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(scratch, { recursive: true, force: true });
});

blobStoreConformance('S3 (s3rver)', async () => {
  const store = s3Store();
  return { port: store, close: async () => store.destroy() };
});

describe('S3 blob store: links, large objects, retries', () => {
  it('a presigned link is a plain GET of the bytes, with ranges and the type of the file', async () => {
    const store = s3Store();
    const bytes = randomBytes(200_000);
    await store.put('jobs/r1/clips/01-a.mp4', bytes);
    const link = await store.url('jobs/r1/clips/01-a.mp4');
    expect(link.startsWith(`${s3.endpoint}/${bucket}/`)).toBe(true);
    expect(new URL(link).searchParams.get('X-Amz-Expires')).toBe(String(24 * 3600));

    const whole = await fetch(link);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    const part = await fetch(link, { headers: { range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);

    await store.destroy();
  });

  it('a presigned link stops working after its lifetime', async () => {
    const store = s3Store({ linkTtlSec: 2 });
    await store.put('cover.jpg', 'jpeg bytes');
    const link = await store.url('cover.jpg');
    expect(new URL(link).searchParams.get('X-Amz-Expires')).toBe('2');
    const early = await fetch(link);
    expect(early.status).toBe(200);
    expect(await early.text()).toBe('jpeg bytes');
    // A link asked for with its own lifetime keeps it.
    const longer = await store.url('cover.jpg', { expiresInSec: 600 });
    await new Promise((r) => setTimeout(r, 3200));
    const late = await fetch(link);
    expect(late.status).toBe(403);
    expect(await late.text()).toMatch(/expired/i);
    expect((await fetch(longer)).status).toBe(200);
    await expect(store.url('cover.jpg', { expiresInSec: 8 * 24 * 3600 })).rejects.toThrow(/7 days/);
    await store.destroy();
  });

  it('a file larger than a part goes up as a multipart upload and comes back whole, ranges across parts included', async () => {
    const store = s3Store({ partSize: 5 * 1024 * 1024 });
    const bytes = randomBytes(12 * 1024 * 1024 + 12_345);
    const file = path.join(scratch, 'large.mp4');
    writeFileSync(file, bytes);
    await store.putFile('jobs/big/source.mp4', file);
    expect((await store.stat('jobs/big/source.mp4'))?.size).toBe(bytes.length);
    expect((await store.get('jobs/big/source.mp4')).equals(bytes)).toBe(true);
    // Across the boundary of the first and second part, and far into the object through a reader.
    const boundary = 5 * 1024 * 1024;
    const chunks: Buffer[] = [];
    for await (const c of await store.stream('jobs/big/source.mp4', { start: boundary - 10, end: boundary + 9 })) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes.subarray(boundary - 10, boundary + 10))).toBe(true);
    const reader = await store.open('jobs/big/source.mp4');
    expect(reader.stat.size).toBe(bytes.length);
    const tail: Buffer[] = [];
    for await (const c of reader.stream({ start: 11 * 1024 * 1024, end: bytes.length - 1 })) tail.push(c as Buffer);
    expect(Buffer.concat(tail).equals(bytes.subarray(11 * 1024 * 1024))).toBe(true);
    // A stream body of unknown length is uploaded in parts too.
    const { Readable } = await import('node:stream');
    await store.put('jobs/big/streamed.bin', Readable.from([bytes.subarray(0, 7_000_000), bytes.subarray(7_000_000)]));
    expect((await store.get('jobs/big/streamed.bin')).equals(bytes)).toBe(true);
    await store.destroy();
  });

  it('withLocalFile downloads once and reuses the copy until the object changes; a moved file becomes the copy', async () => {
    const store = s3Store();
    const key = 'jobs/r2/clips/01-b.mp4';
    const file = path.join(scratch, 'render.mp4');
    writeFileSync(file, 'first render');
    await store.putFile(key, file, { move: true });
    expect(existsSync(file)).toBe(false);
    const first = await store.withLocalFile(key, async (f) => f);
    expect(readFileSync(first, 'utf8')).toBe('first render');
    expect(await store.withLocalFile(key, async (f) => f)).toBe(first);
    // Handing the copy back is no change at all.
    await store.putFile(key, first);
    expect(existsSync(first)).toBe(true);
    // Another process replaces the object: the next withLocalFile sees the new bytes, the old copy goes.
    const other = s3Store({ prefix: store.prefix });
    await other.put(key, 'second render');
    const second = await store.withLocalFile(key, async (f) => readFileSync(f, 'utf8'));
    expect(second).toBe('second render');
    expect(existsSync(first)).toBe(false);
    await store.deletePrefix('jobs/r2');
    expect(await store.stat(key)).toBeNull();
    await other.destroy();
    await store.destroy();
  });

  it('deletePrefix removes more than one page (1000 keys) of objects', async () => {
    const store = s3Store();
    const keys = Array.from({ length: 1005 }, (_, i) => `jobs/many/k${i}.json`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, '{}')));
    await store.put('jobs/many-other/keep.json', '{}');
    await store.deletePrefix('jobs/many');
    expect(await store.stat(keys[0]!)).toBeNull();
    expect(await store.stat(keys[1004]!)).toBeNull();
    expect(await store.stat('jobs/many-other/keep.json')).not.toBeNull();
    await store.destroy();
  });

  it('an operation made while the store is down succeeds once it is back (the SDK retries)', async () => {
    // A server of its own, restarted on the same port and directory (the shared one is not stopped).
    const dir = mkdtempSync(path.join(scratch, 's3rver-'));
    const port = await freePort();
    const start = async () => {
      const server = new S3rver({ port, address: '127.0.0.1', directory: dir, silent: true, resetOnClose: false });
      asS3Does(server);
      await server.run();
      return server;
    };
    let server = await start();
    const store = new S3BlobStore({ bucket: 'restarts', prefix: '', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true, cacheDir: path.join(scratch, 'restart-cache') });
    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const admin = new S3Client({ endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true });
    await admin.send(new CreateBucketCommand({ Bucket: 'restarts' }));
    admin.destroy();
    await store.put('before.json', '{"a":1}');

    await server.close();
    const bytes = randomBytes(50_000);
    const put = store.put('during.bin', bytes);
    const get = store.get('before.json');
    await new Promise((r) => setTimeout(r, 1000));
    server = await start();
    await put;
    expect((await get).toString()).toBe('{"a":1}');
    expect((await store.get('during.bin')).equals(bytes)).toBe(true);
    await store.destroy();
    await server.close();
  });
});

describe('choosing the blob store from the settings', () => {
  it('the data dir without SHORTS_STORAGE_URL; S3 with it', async () => {
    expect(blobStoreFromSettings(scratch, {})).toBeInstanceOf(FsBlobStore);
    const store = blobStoreFromSettings(scratch, { SHORTS_STORAGE_URL: `s3://${bucket}/from-settings/x`, SHORTS_S3_ENDPOINT: s3.endpoint, SHORTS_S3_FORCE_PATH_STYLE: '1', SHORTS_MEDIA_TTL: '120' });
    expect(store).toBeInstanceOf(S3BlobStore);
    await store.put('a.json', '{}');
    expect((await store.get('a.json')).toString()).toBe('{}');
    expect(new URL(await store.url('a.json')).searchParams.get('X-Amz-Expires')).toBe('120');
    await (store as S3BlobStore).destroy();
  });

  it('a setting that cannot work is an error naming it', () => {
    const bad = (env: Record<string, string>) => () => blobStoreFromSettings(scratch, env);
    for (const url of ['http://bucket/x', 's3://', 's3://Upper/x', 's3://b/x', 's3://bucket/a//b', 's3://bucket/a b', 's3://bucket/x?y=1'])
      expect(bad({ SHORTS_STORAGE_URL: url }), url).toThrow(/SHORTS_STORAGE_URL/);
    expect(bad({ SHORTS_STORAGE_URL: 's3://bucket/x', SHORTS_S3_FORCE_PATH_STYLE: 'maybe' })).toThrow(/SHORTS_S3_FORCE_PATH_STYLE/);
    expect(bad({ SHORTS_STORAGE_URL: 's3://bucket/x', SHORTS_S3_ENDPOINT: '127.0.0.1:9000' })).toThrow(/SHORTS_S3_ENDPOINT/);
    expect(bad({ SHORTS_STORAGE_URL: 's3://bucket/x', SHORTS_MEDIA_TTL: String(30 * 24 * 3600) })).toThrow(/SHORTS_MEDIA_TTL/);
  });

  it("an engine on S3 reports the bucket in its readiness, and a bucket it cannot use as not ready", async () => {
    const dataDir = mkdtempSync(path.join(scratch, 'engine-'));
    const readiness = async (url: string) => {
      const saved = { SHORTS_STORAGE_URL: process.env.SHORTS_STORAGE_URL, SHORTS_S3_ENDPOINT: process.env.SHORTS_S3_ENDPOINT, SHORTS_S3_FORCE_PATH_STYLE: process.env.SHORTS_S3_FORCE_PATH_STYLE };
      Object.assign(process.env, { SHORTS_STORAGE_URL: url, SHORTS_S3_ENDPOINT: s3.endpoint, SHORTS_S3_FORCE_PATH_STYLE: '1' });
      try {
        const engine = createEngine({ dataDir });
        const checks = await engine.readiness();
        await engine.close();
        return checks.find((c) => c.name === 'blobs');
      } finally {
        for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
      }
    };
    expect(await readiness(`s3://${bucket}/ready`)).toMatchObject({ ok: true, detail: `bucket ${bucket} reachable` });
    expect(await readiness('s3://no-such-bucket-here/ready')).toMatchObject({ ok: false });
  });

  it('a bad SHORTS_STORAGE_URL stops serve and the CLI at start, naming the variable', async () => {
    const served = await runCli(['serve', '--port', '0'], cliEnv({ SHORTS_STORAGE_URL: 'https://bucket.example.com/x' }));
    expect(served.code).toBe(1);
    expect(served.stderr).toMatch(/SHORTS_STORAGE_URL must be s3:\/\/BUCKET/);
    const listed = await runCli(['list'], cliEnv({ SHORTS_STORAGE_URL: 's3://bucket/x', SHORTS_S3_FORCE_PATH_STYLE: 'perhaps' }));
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(/SHORTS_S3_FORCE_PATH_STYLE/);
  });

  it("with S3, a clip's video_url and thumbnail_url are presigned links to the bucket, not the server's own links", async () => {
    const dir = mkdtempSync(path.join(scratch, 'service-'));
    const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
    const accounts = new AccountStore(new SqliteAccounts(store.db));
    const blobs = s3Store({ linkTtlSec: 300 });
    // The server's own signed links, as serve passes them: the bucket's links must win over them.
    const service = new Service(store, { blobs, mediaUrl: (s) => `http://serve.invalid/media/${s.id}.mp4`, thumbnailUrl: (s) => `http://serve.invalid/media/${s.id}.jpg` });
    const account = await accounts.createAccount({ email: 's3@example.com', credits: 5 });
    const { requestId } = await service.create(account, { fileUrl: 'http://127.0.0.1:9/source.mp4', start: 0, end: 60 }, 'api');
    const clip = randomBytes(30_000), cover = randomBytes(3_000);
    const shortId = randomUUID();
    const clipKey = `jobs/${requestId}/clips/01-${shortId}.mp4`;
    await blobs.put(clipKey, clip);
    await blobs.put(clipKey.replace(/\.mp4$/, '.jpg'), cover);
    const short: ShortRecord = {
      requestId, id: shortId, rank: 0, title: 'Clip', sentenceIndexes: [], reason: 'hook', description: 'd', viralScore: 70,
      startTimestamp: 0, endTimestamp: 20, duration: 20, width: 1080, height: 1920, recompiling: false,
      error: false, errorMessage: null, fileKey: clipKey, coverKey: clipKey.replace(/\.mp4$/, '.jpg'),
    };
    await store.replaceShorts(requestId, [short]);
    await store.finish(requestId, 'completed');

    const o = await service.short(account, requestId, shortId);
    expect(o.video_url.startsWith(`${s3.endpoint}/${bucket}/`)).toBe(true);
    expect(new URL(o.video_url).searchParams.get('X-Amz-Expires')).toBe('300');
    const video = await fetch(o.video_url);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await video.arrayBuffer()).equals(clip)).toBe(true);
    const thumb = await fetch(o.thumbnail_url!);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await thumb.arrayBuffer()).equals(cover)).toBe(true);

    // The data dir keeps the server's own links.
    const local = new Service(store, { blobs: new FsBlobStore(dir), mediaUrl: (s) => `http://serve.invalid/media/${s.id}.mp4`, thumbnailUrl: (s) => `http://serve.invalid/media/${s.id}.jpg` });
    const l = await local.short(account, requestId, shortId);
    expect(l.video_url).toBe(`http://serve.invalid/media/${shortId}.mp4`);
    expect(l.thumbnail_url).toBe(`http://serve.invalid/media/${shortId}.jpg`);
    await blobs.destroy();
    await store.close();
  });
});

describe('a whole local request with SHORTS_STORAGE_URL', () => {
  it('renders into the bucket and `create --out` downloads the clip and cover through their presigned links', async () => {
    const env = cliEnv({ SHORTS_STORAGE_URL: `s3://${bucket}/e2e`, SHORTS_S3_ENDPOINT: s3.endpoint, SHORTS_S3_FORCE_PATH_STYLE: '1' });
    const out = path.join(env.SHORTS_DATA_DIR!, 'out');
    // The sample's 0-80 s transcript from the pool (transcript-pool.ts): what is checked here is where the clips go.
    shareTranscripts(env.SHORTS_DATA_DIR!);
    const r = await runCli(['create', '--file', SAMPLE, '--start', '0', '--end', '80', '--max-shorts', '1',
      '--preferred-length', 'under30sec', '--out', out], env);
    keepTranscripts(env.SHORTS_DATA_DIR!);
    expect(r.code, r.stderr).toBe(0);
    const detail = JSON.parse(readFileSync(path.join(out, 'request.json'), 'utf8')) as { _id: string; shorts: { video_url: string; thumbnail_url?: string; error: boolean }[] };
    const clip = detail.shorts.find((c) => !c.error)!;
    const { fileURLToPath } = await import('node:url');
    const local = readFileSync(fileURLToPath(clip.video_url));
    // The bytes the user got are the object in the bucket, under the request's keys.
    const store = s3Store({ prefix: 'e2e' });
    const { S3Client, ListObjectsCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true });
    const listed = await client.send(new ListObjectsCommand({ Bucket: bucket, Prefix: `e2e/jobs/${detail._id}/clips/` }));
    client.destroy();
    const keys = (listed.Contents ?? []).map((o) => o.Key!.slice('e2e/'.length));
    const mp4 = keys.find((k) => k.endsWith('.mp4'))!;
    expect(keys).toContain(mp4.replace(/\.mp4$/, '.jpg'));
    expect((await store.get(mp4)).equals(local)).toBe(true);
    expect(readFileSync(fileURLToPath(clip.thumbnail_url!)).equals(await store.get(mp4.replace(/\.mp4$/, '.jpg')))).toBe(true);
    await store.destroy();
  });
});
