// Posts go out through the `publish` queue (issue 24): an API process schedules them (here, an engine in the test
// process that runs no worker) and separate processes serving only `publish` (node children running the built
// engine's publish worker) publish them on video_site's fake. A post scheduled before the queue existed (no job)
// is queued by a worker's start-up sweep; a later post waits in the queue until its time; a cancel cancels its
// job; a rate-limited attempt waits in the queue for its retry; a worker SIGKILLed while the platform takes the
// upload leaves the post to another worker process, which resumes it: one upload on the platform; one stopped
// cleanly hands it to another at once; a post whose publishing keeps dying with its process is failed.
// The engines are chosen by configuration (`env`: none for SQLite in the shared data dir, SHORTS_DATABASE_URL for
// PostgreSQL...), for the engine here and the children alike. The children load dist/ (build first). The clip is
// a small lavfi video stored through the engine's blob store.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/app/create-engine.js';
import { PUBLISH_QUEUE } from '../../src/engine/jobs.js';
import type { PostRecord } from '../../src/ports/post-store.js';
import type { Account } from '../../src/domain/account.js';
import { startFakePlatform, VIDEO_SITE_FAULTS, type FakeVideoSite } from './fake-platforms/index.js';
import { PLATFORM_URL_SETTING } from './posts-fixture.js';
import { ROOT } from './cli.js';
import { video } from './media.js';
import { until } from './serve.js';

const REQUEST_ID = '5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5';
const CLIP_ID = '0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3';

interface WorkerProcess { child: ChildProcess; log: () => string; stop(signal: NodeJS.Signals): Promise<void> }

/** The engines of a run: settings for every process (none: SQLite), and what stops them. */
export interface QueueEngines { env: Record<string, string>; close(): Promise<void> }

export function publishQueueSuite(label: string, engines: () => Promise<QueueEngines>): void {
  let fake: FakeVideoSite;
  let dir: string;
  let api: Engine;
  let account: Account;
  let clipBytes: Buffer;
  let run: QueueEngines | undefined;
  const workers: WorkerProcess[] = [];
  /** The settings this suite replaced in this process's environment, restored after it. */
  const saved = new Map<string, string | undefined>();

  /**
   * A process serving only the `publish` queue: the built engine's publish worker on the data dir, with a 2 s lease
   * (a killed one's posts are taken over 2 s after its last heartbeat) and retries 300 ms apart.
   */
  async function startWorker(): Promise<WorkerProcess> {
    const engineModule = JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'app', 'create-engine.js')).href);
    const script = `const { createEngine } = await import(${engineModule});
      const log = (line) => process.stderr.write(line + '\\n');
      const engine = createEngine({ dataDir: ${JSON.stringify(dir)}, log });
      const { worker } = engine.publishing({ scope: { kind: 'api' }, env: process.env, log, tuning: { retryDelaysMs: [300, 600] } });
      worker.start();
      const keepAlive = setInterval(() => {}, 1 << 30);
      process.once('SIGTERM', async () => { await worker.stop(); await engine.close(); clearInterval(keepAlive); });
      log('publish worker ready');`;
    const env = { ...process.env, SHORTS_LEASE_TTL: '2', [PLATFORM_URL_SETTING.video_site]: fake.url };
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (b: Buffer) => { log += b.toString(); });
    const w: WorkerProcess = {
      child, log: () => log,
      stop: (signal) => new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
    };
    workers.push(w);
    await until(async () => log, (l) => l.includes('publish worker ready') || child.exitCode !== null, 30_000, 20);
    if (child.exitCode !== null) throw new Error(`the publish worker exited: ${log}`);
    return w;
  }

  const post = async (id: string): Promise<PostRecord> => (await api.posts.posts.get(id))!;
  const settled = (id: string) => until(() => post(id), (p) => ['published', 'failed', 'canceled'].includes(p.status), 60_000, 50);
  /** The post's job once it ended (it ends a moment after the post does). */
  const endedJob = (id: string) => until(async () => api.queue.get(PUBLISH_QUEUE, id), (j) => ['completed', 'failed', 'cancelled'].includes(j?.state ?? ''), 10_000, 20);

  beforeAll(async () => {
    fake = await startFakePlatform('video_site');
    dir = mkdtempSync(path.join(os.tmpdir(), 'publish-queue-'));
    // The engines' settings for the engine here (createEngine reads them from the environment) and, inherited, the children.
    run = await engines();
    for (const [k, v] of Object.entries(run.env)) {
      saved.set(k, process.env[k]);
      process.env[k] = v;
    }
    // The API process: it schedules and cancels; it runs no worker.
    api = createEngine({ dataDir: dir, apiAccounts: true });
    const owner = await api.accounts.createAccount({ email: 'poster@example.com', credits: 1 });
    account = { id: owner.id, email: owner.email } as Account;
    clipBytes = readFileSync(video({ duration: 3, width: 360, height: 640, fps: 30 }));
    await api.blobs.put(`requests/${REQUEST_ID}/clip.mp4`, clipBytes);
    await api.store.insertRequest({ id: REQUEST_ID, accountId: owner.id, origin: 'api', userEmail: owner.email, options: {} as never, url: 'https://example.com/talk.mp4', start: 0, end: 60 });
    await api.store.replaceShorts(REQUEST_ID, [{
      id: CLIP_ID, requestId: REQUEST_ID, rank: 1, title: 'A clip for the queue', sentenceIndexes: [0], reason: 'test', description: 'Posted by a worker',
      viralScore: 80, startTimestamp: 0, endTimestamp: 3, duration: 3, width: 360, height: 640, recompiling: false, error: false, errorMessage: null,
      fileKey: `requests/${REQUEST_ID}/clip.mp4`,
    }]);
    await api.store.finish(REQUEST_ID, 'completed');
    const t = fake.issueTokens();
    await api.connectedAccounts.add(owner.id, { platform: 'video_site', handle: 'queuechannel', accessToken: t.accessToken, refreshToken: t.refreshToken, expiresInSec: 3600 });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop('SIGKILL')));
    await api?.close();
    await Promise.all([fake?.close(), run?.close()]);
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const schedule = async (extra: Record<string, unknown> = {}) => (await api.posts.schedule(account, { shortId: CLIP_ID, platform: 'video_site', ...extra })).id;

  /** Schedules a post now whose upload the platform answers `delayMs` late; resolves once its upload is in flight. */
  async function uploadInFlight(title: string, delayMs: number): Promise<{ id: string; inserts: number; videos: number }> {
    const inserts = fake.count('insert');
    const uploads = fake.count('upload');
    const videos = fake.publishCount;
    fake.fail('upload', { delayMs });
    const id = await schedule({ title });
    await until(async () => fake.count('upload'), (n) => n > uploads, 30_000, 5);
    return { id, inserts, videos };
  }

  describe(`posts on the publish queue (${label}), published by processes serving only \`publish\``, () => {
    it('a post scheduled before the queue existed (no job) is queued by a worker\'s start-up sweep and published', async () => {
      // As a data dir upgraded with a scheduled post: stored without going through the posts service.
      const legacy = await api.posts.posts.insert({
        accountId: account.id, connectedAccountId: (await api.connectedAccounts.list(account.id, 'video_site'))[0]!.id, platform: 'video_site',
        scheduledAt: new Date().toISOString(), shortId: CLIP_ID, requestId: REQUEST_ID, title: 'Scheduled before the queue', description: '', accountHandle: 'queuechannel', source: 'manual',
      });
      expect(await api.queue.get(PUBLISH_QUEUE, legacy.id)).toBeUndefined();
      const w = await startWorker();
      const done = await settled(legacy.id);
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'published', attempts: 1, errorCode: null });
      expect(fake.publishCount).toBe(1);
      expect([...fake.videos.values()][0]!.bytes.equals(clipBytes)).toBe(true);
      expect(done.url).toBe(`https://www.youtube.com/shorts/${[...fake.videos.values()][0]!.id}`);
      expect((await endedJob(legacy.id))?.state).toBe('completed');
      expect(w.log()).toContain('1 scheduled post(s) had no job');
    });

    it('a post scheduled through the API process waits in the queue until its time, then the worker process publishes it', async () => {
      const at = new Date(Date.now() + 2500).toISOString();
      const id = await schedule({ scheduledAt: at, title: 'At its time' });
      expect((await api.queue.get(PUBLISH_QUEUE, id))?.state).toBe('delayed');
      expect((await post(id)).status).toBe('scheduled');
      const done = await settled(id);
      expect(done).toMatchObject({ status: 'published', attempts: 1 });
      expect(Date.parse(done.publishedAt!)).toBeGreaterThanOrEqual(Date.parse(at));
      expect(fake.publishCount).toBe(2);
      expect([...fake.videos.values()].at(-1)!.title).toBe('At its time');
      // The worker's line may reach its stderr pipe a moment after the store says published.
      for (let i = 0; i < 100 && !workers[0]!.log().includes(`post ${id} published`); i++) await new Promise((r) => setTimeout(r, 100));
      expect(workers[0]!.log()).toContain(`post ${id} published on video_site`);
      expect((await endedJob(id))?.state).toBe('completed');
    });

    it('a cancel through the API process cancels the post\'s job: nothing is published', async () => {
      const id = await schedule({ scheduledAt: new Date(Date.now() + 1500).toISOString() });
      expect((await api.posts.cancel(account, id)).status).toBe('canceled');
      expect((await api.queue.get(PUBLISH_QUEUE, id))?.state).toBe('cancelled');
      await new Promise((r) => setTimeout(r, 2500));
      expect((await post(id)).status).toBe('canceled');
      expect(fake.publishCount).toBe(2);
    });

    it('a rate-limited attempt waits in the queue for its retry (the post scheduled again), then goes out on its second attempt', async () => {
      const inserts = fake.count('insert');
      fake.fail('insert', VIDEO_SITE_FAULTS.rateLimitExceeded);
      const id = await schedule({ title: 'Retried' });
      const waiting = await until(() => post(id), (p) => p.nextAttemptAt !== null || p.status === 'published', 30_000, 10);
      expect(waiting).toMatchObject({ status: 'scheduled', attempts: 1, errorCode: null });
      expect(['delayed', 'waiting', 'active']).toContain((await api.queue.get(PUBLISH_QUEUE, id))?.state);
      const done = await settled(id);
      expect(done).toMatchObject({ status: 'published', attempts: 2 });
      expect(fake.count('insert')).toBe(inserts + 2);
      expect(fake.publishCount).toBe(3);
      // The retry is the same job handed back, not a new start: nothing died.
      expect(await endedJob(id)).toMatchObject({ state: 'completed', attemptsMade: 1 });
    });

    it('a worker SIGKILLed while the platform takes the upload: another worker process resumes the post, one upload', async () => {
      const [victim] = workers;
      // The upload's answer comes 1.5 s late: the worker dies waiting for it, the platform keeps the video.
      const { id, inserts, videos } = await uploadInFlight('Killed mid-upload', 1500);
      await victim!.stop('SIGKILL');
      expect((await post(id)).status).toBe('processing');
      const survivor = await startWorker();
      const done = await settled(id);
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'published', attempts: 1, errorCode: null });
      const v = [...fake.videos.values()].at(-1)!;
      expect(fake.publishCount).toBe(videos + 1);
      expect(fake.count('insert')).toBe(inserts + 1);
      expect(v.bytes.equals(clipBytes)).toBe(true);
      expect(done.url).toBe(`https://www.youtube.com/shorts/${v.id}`);
      expect(survivor.log()).toContain(`post ${id}: resuming it`);
      expect(await endedJob(id)).toMatchObject({ state: 'completed', attemptsMade: 2 });
    });

    it('a worker stopped with SIGTERM mid-upload hands the post back at once: another worker process finishes it, one upload', async () => {
      const taker = workers.find((w) => w.child.exitCode === null && w.child.signalCode === null)!;
      const { id, inserts, videos } = await uploadInFlight('Handed back', 4000);
      // The only worker has the upload in flight; a second one starts, then the first is stopped cleanly.
      const other = await startWorker();
      await taker.stop('SIGTERM');
      expect(taker.child.exitCode).toBe(0);
      const done = await settled(id);
      expect(done, JSON.stringify(done)).toMatchObject({ status: 'published', attempts: 1, errorCode: null });
      expect(fake.publishCount).toBe(videos + 1);
      expect(fake.count('insert')).toBe(inserts + 1);
      expect(other.log()).toContain(`post ${id} published on video_site`);
      // Handed back, not stalled: no attempt of the job was used up.
      expect(await endedJob(id)).toMatchObject({ state: 'completed', attemptsMade: 1 });
    });
    it('a post whose publishing died with its process more times than its job\'s attempts is failed (unknown, saying so), not tried again', async () => {
      for (const w of workers) await w.stop('SIGTERM');
      const videos = fake.publishCount;
      const id = await schedule({ title: 'Keeps dying' });
      // Its job was taken three times by processes that died (their locks ran out without being extended).
      for (let i = 0; i < 3; i++) {
        expect(await api.queue.take([PUBLISH_QUEUE], `dead-${i}`, 20)).toMatchObject({ id, attempt: i + 1 });
        await new Promise((r) => setTimeout(r, 40));
      }
      await startWorker();
      const done = await settled(id);
      expect(done).toMatchObject({ status: 'failed', errorCode: 'unknown', retryable: true });
      expect(done.error).toContain('stopped unexpectedly 3 times');
      expect(fake.publishCount).toBe(videos);
      expect(await endedJob(id)).toMatchObject({ state: 'failed' });
    });
  });
}
