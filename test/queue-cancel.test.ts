// A DELETE answered by one `shorts serve` stops the request another `serve` on the same data dir is running
// (issue 22: the cancel goes through the job queue; the running worker learns it when it extends its job's
// lock, every second). What a user would notice: the other server's download of the source stops within
// seconds, the request stays cancelled with its credit kept (processing had started), no webhook is sent.
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE } from './helpers/cli.js';
import { api, createKey, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';

describe('a cancel through another serve', () => {
  const serves: ServeProcess[] = [];
  const servers: Loopback[] = [];
  afterAll(async () => {
    await Promise.all(serves.map((s) => s.kill('SIGKILL')));
    await Promise.all(servers.map((s) => s.close()));
  });

  it('stops the job where it runs within seconds', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-queue-cancel-'));
    const env = serveEnv({ SHORTS_DATA_DIR: dir, SHORTS_WORKERS: '1' });
    // The source's download is held open: the request stays in its first step on the server that took it.
    let downloadClosedAt = 0;
    const files = await loopback((req, res) => {
      const size = readFileSync(SAMPLE).length;
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
      if (req.method === 'HEAD') return res.end();
      res.write(readFileSync(SAMPLE).subarray(0, 1024));
      res.on('close', () => { downloadClosedAt = Date.now(); });
    });
    servers.push(files);
    const hooks = await loopback((_req, res) => res.end('ok'));
    servers.push(hooks);
    const a = await startServe(env);
    serves.push(a);
    const { key } = await createKey(env);
    const created = await api(a.api, key, 'POST', '/shorts/create', { fileUrl: `${files.url}/talk.mp4`, start: 0, end: 60, webhookUrl: `${hooks.url}/hook` });
    expect(created.status, created.text).toBe(202);
    const id = created.json.data.requestId as string;
    await until(() => api(a.api, key, 'GET', `/shorts/${id}/status`), (r) => r.json.data.status === 'processing', 60_000, 100);
    await until(async () => files.requests.filter((r) => r.method === 'GET').length, (n) => n > 0, 60_000, 100);

    const b = await startServe(env);
    serves.push(b);
    const deleted = await api(b.api, key, 'DELETE', `/shorts/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    const cancelledAt = Date.now();
    await until(async () => downloadClosedAt, (t) => t > 0, 15_000, 50);
    expect(downloadClosedAt - cancelledAt).toBeLessThan(5_000);
    const status = await api(a.api, key, 'GET', `/shorts/${id}/status`);
    expect(status.json.data.status).toBe('cancelled');
    // Server A settled its job as cancelled: nothing runs it again, after a restart either.
    await until(async () => {
      const db = new Database(path.join(dir, 'shorts.db'), { readonly: true });
      try {
        return (db.prepare(`SELECT state FROM jobs WHERE id = ?`).get(id) as { state: string }).state;
      } finally {
        db.close();
      }
    }, (state) => state === 'cancelled', 15_000, 100);
    await new Promise((r) => setTimeout(r, 1500));
    expect(hooks.requests).toEqual([]);
    expect(a.log()).not.toMatch(/worker error/);
  }, 200_000);
});
