// kill -9 `shorts serve` mid-request and start it again: the request resumes from its last finished
// stage and completes; nothing accepted is lost, and its credit is spent once. The transcript of the range
// comes from the seeded cache (what is checked is the restart, not transcription), so the crash lands in the
// later stages, which a restart resumes from the checkpoints they left.
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE } from './helpers/cli.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';
import { seed, warmCache } from './helpers/seeded-cache.js';

let serve: ServeProcess | undefined;
let cdn: Loopback | undefined;
let warm: string;
beforeAll(async () => { warm = await warmCache(); }, 240_000);
afterAll(async () => {
  await serve?.kill('SIGKILL');
  await cdn?.close();
});

describe('restart safety', () => {
  it('a request interrupted by kill -9 resumes on the next start and completes', async () => {
    // A 1 s lease (issue 22): the killed server's lease has run out by the time the next one has started.
    const env = serveEnv({ SHORTS_LEASE_TTL: '1' });
    seed(env.SHORTS_DATA_DIR!, warm);
    const { key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']);
    cdn = await loopback(fileHandler(SAMPLE));
    serve = await startServe(env);
    const created = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60, language: 'en', maxShorts: 2,
      preferredLength: 'under30sec', layout: 'fit', blurBackground: false });
    const id = created.json.data.requestId as string;
    const mid = await until(() => api(serve!.api, key, 'GET', `/shorts/${id}/status`),
      (r) => ['transcribing_audio', 'finding_highlights', 'finalizing'].includes(r.json.data.step), 120_000, 100);
    await serve.kill('SIGKILL');
    const db = new Database(path.join(env.SHORTS_DATA_DIR!, 'shorts.db'), { readonly: true });
    const row = db.prepare('SELECT status FROM requests WHERE id = ?').get(id) as { status: string };
    db.close();
    expect(row.status).toBe('processing'); // the truth at the moment of the crash

    serve = await startServe(env);
    const final = await until(() => api(serve!.api, key, 'GET', `/shorts/${id}/status`),
      (r) => ['completed', 'failed', 'cancelled'].includes(r.json.data.status), 240_000, 250);
    expect(final.json.data.status, JSON.stringify(final.json)).toBe('completed');
    expect(final.json.data.progress).toBeGreaterThanOrEqual(mid.json.data.progress);
    const detail = await api(serve.api, key, 'GET', `/shorts/${id}`);
    expect(detail.json.data.shorts.length).toBeGreaterThanOrEqual(1);
    for (const s of detail.json.data.shorts) expect((await fetch(s.video_url)).status).toBe(200);
    expect(serve.log()).toMatch(/resuming 1 interrupted request/);

    const check = new Database(path.join(env.SHORTS_DATA_DIR!, 'shorts.db'), { readonly: true });
    const ledger = check.prepare('SELECT reason, delta FROM credit_ledger WHERE request_id = ?').all(id);
    check.close();
    expect(ledger).toEqual([{ reason: 'creation', delta: -1 }]);
  }, 420_000);
});
