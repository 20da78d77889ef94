// kill -9 `shorts serve` mid-request and start it again: the request resumes from its last finished
// stage and completes; nothing accepted is lost, and its credit is spent once. The transcript of the range
// comes from the seeded cache (what is checked is the restart, not transcription), so the crash lands in the
// later stages, which a restart resumes from the checkpoints they left. Killed mid-render, the clips already
// made are kept (the same files, the same ids) and only the rest are rendered.
import { readFileSync, readdirSync, statSync } from 'node:fs';
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

/** A fresh data dir with the seeded transcript, a key, `serve` started, and a request for the sample's first minute. */
async function startRequest(extraEnv: Record<string, string>, maxShorts: number) {
  // A 1 s lease (issue 22): the killed server's lease has run out by the time the next one has started.
  const env = serveEnv({ SHORTS_LEASE_TTL: '1', ...extraEnv });
  seed(env.SHORTS_DATA_DIR!, warm);
  const { key } = await createKey(env, ['--hourly-limit', '2000', '--daily-limit', '20000']);
  cdn ??= await loopback(fileHandler(SAMPLE));
  serve = await startServe(env);
  const created = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/talk.mp4`, start: 0, end: 60, language: 'en', maxShorts,
    preferredLength: 'under30sec', layout: 'fit', blurBackground: false });
  return { env, key, id: created.json.data.requestId as string };
}

/** The request's status in the database (the truth at the moment of a crash). */
function statusInDb(env: NodeJS.ProcessEnv, id: string): string {
  const db = new Database(path.join(env.SHORTS_DATA_DIR!, 'shorts.db'), { readonly: true });
  try {
    return (db.prepare('SELECT status FROM requests WHERE id = ?').get(id) as { status: string }).status;
  } finally {
    db.close();
  }
}

describe('restart safety', () => {
  it('a request interrupted by kill -9 resumes on the next start and completes', async () => {
    const { env, key, id } = await startRequest({}, 2);
    const mid = await until(() => api(serve!.api, key, 'GET', `/shorts/${id}/status`),
      (r) => ['transcribing_audio', 'finding_highlights', 'finalizing'].includes(r.json.data.step), 120_000, 100);
    await serve!.kill('SIGKILL');
    expect(statusInDb(env, id)).toBe('processing'); // the truth at the moment of the crash

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

  it('killed -9 mid-render: the clips already made stay as they are, the plan keeps its clips, and the next start renders only the rest', async () => {
    // One clip at a time at a small size: the kill lands after the first clip is stored and before the last one.
    const { env, key, id } = await startRequest({ SHORTS_RENDER_CONCURRENCY: '1', SHORTS_RENDER_SIZE: '270x480', SHORTS_X264_PRESET: 'ultrafast' }, 3);
    const job = path.join(env.SHORTS_DATA_DIR!, 'jobs', id);
    const stored = () => { try { return readdirSync(path.join(job, 'clips')).filter((f) => f.endsWith('.mp4')); } catch { return []; } };
    await until(async () => stored(), (files) => files.length > 0, 240_000, 25);
    await serve!.kill('SIGKILL');
    const fileOf = (f: string) => {
      const st = statSync(path.join(job, 'clips', f));
      return { f, ino: st.ino, mtimeMs: st.mtimeMs };
    };
    const before = stored().map(fileOf);
    const planned = (JSON.parse(readFileSync(path.join(job, 'plan.json'), 'utf8')) as { clips: { id: string }[] }).clips.map((c) => c.id);
    expect(statusInDb(env, id)).toBe('processing'); // killed mid-render, not after the request completed

    serve = await startServe(env);
    const final = await until(() => api(serve!.api, key, 'GET', `/shorts/${id}/status`),
      (r) => ['completed', 'failed', 'cancelled'].includes(r.json.data.status), 240_000, 250);
    expect(final.json.data.status, JSON.stringify(final.json)).toBe('completed');
    const detail = await api(serve.api, key, 'GET', `/shorts/${id}`);
    // The plan made before the kill is the one completed: the same clips, under the same ids.
    expect(detail.json.data.shorts.map((s: { id: string }) => s.id).sort()).toEqual([...planned].sort());
    // The clips stored before the kill were not rendered again: the very same files.
    for (const b of before) expect(fileOf(b.f)).toEqual(b);
    for (const s of detail.json.data.shorts) expect((await fetch(s.video_url)).status).toBe(200);
    // And each clip's captions export as rendered (kept beside it, whether rendered before or after the restart).
    for (const s of detail.json.data.shorts) {
      const shortId = s.id as string;
      const ass = await fetch(`${serve.api}/shorts/${id}/shorts/${shortId}/export?format=ass`, { headers: { 'x-api-key': key } });
      expect(ass.status).toBe(200);
      expect(Buffer.from(await ass.arrayBuffer()).equals(readFileSync(path.join(job, 'captions', `${shortId}.ass`)))).toBe(true);
    }
    expect(serve.log()).toMatch(/resuming 1 interrupted request/);
  }, 420_000);
});
