// Any number of `shorts` processes on one data dir (issue 15), tried as a CI script would: real CLI
// processes (dist/), real `shorts serve`s, one real SQLite file. What a user would notice: no process fails
// on the store's first-run setup, every request is run by exactly one process and completes, a second
// serve leaves the first one's running job alone and takes it over only once that serve is gone.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteRequestStore } from '../src/adapters/sqlite/request-store.js';
import { MIGRATIONS } from '../src/adapters/sqlite/migrations.js';
import { ROOT, SAMPLE, cliEnv, runCli, startCli, type CliResult } from './helpers/cli.js';
import { api, createKey, loopback, serveEnv, startServe, until, type Loopback, type ServeProcess } from './helpers/serve.js';
import { SEEDED_CREATE, seed, warmCache } from './helpers/seeded-cache.js';

const ID = /^[0-9a-f]{24}$/;
const STORE_TROUBLE = /already exists|SQLITE_BUSY|database is locked|SqliteError/i;

/** Generous: this machine may be shared; what is checked never depends on speed. */
const SLOW_MACHINE_MS = 400_000;

let warm: string;
beforeAll(async () => { warm = await warmCache(); }, 240_000);

function freshDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-concurrency-'));
  seed(dir, warm);
  return dir;
}

/**
 * The store's view of a request, read the way an operator would (sqlite3 on the file); `runner_pid` is the pid
 * in the owner id of its lease's last holder (`host:pid:uuid`), null when none ever held it.
 */
function row(dir: string, id: string): { status: string; origin: string; attempts: number; runner_pid: number | null } {
  const db = new Database(path.join(dir, 'shorts.db'), { readonly: true });
  try {
    const r = db.prepare(`SELECT status, origin, attempts, l.owner AS owner FROM requests r
      LEFT JOIN leases l ON l.kind = 'request' AND l.id = r.id WHERE r.id = ?`).get(id) as { status: string; origin: string; attempts: number; owner: string | null };
    return { status: r.status, origin: r.origin, attempts: r.attempts, runner_pid: r.owner === null ? null : Number(r.owner.split(':').at(-2)) };
  } finally {
    db.close();
  }
}

describe('several shorts processes on one data dir', () => {
  const serves: ServeProcess[] = [];
  let files: Loopback | undefined;
  afterAll(async () => {
    // A serve already killed -9 has exitCode null (signalCode set): only the ones still running are stopped.
    await Promise.all(serves.filter((s) => s.child.exitCode === null && s.child.signalCode === null).map((s) => s.kill('SIGKILL')));
    await files?.close();
  });

  it('lists, --no-wait creates and a serve all start at once on a fresh data dir', async () => {
    const dir = freshDir();
    const env = cliEnv({ SHORTS_DATA_DIR: dir });
    // All started in the same tick: before the fix, the second to migrate failed with "table requests already exists".
    const runs = [
      ...Array.from({ length: 4 }, () => startCli(['list', '--json'], env)),
      startCli(['create', ...SEEDED_CREATE, '--no-wait'], env),
      startCli(['create', ...SEEDED_CREATE, '--no-wait'], env),
    ];
    const serving = startServe(serveEnv({ SHORTS_DATA_DIR: dir }));
    const results: CliResult[] = await Promise.all(runs.map((r) => r.done));
    const serve = await serving;
    serves.push(serve);
    for (const r of results) {
      expect(r.stderr).not.toMatch(STORE_TROUBLE);
      expect(r.code, r.stderr).toBe(0);
    }
    for (const r of results.slice(0, 4)) expect(JSON.parse(r.stdout).data.pagination.page).toBe(1);
    const ids = results.slice(4, 6).map((r) => r.stdout.trim());
    for (const id of ids) expect(id).toMatch(ID);

    // The two --no-wait requests run in their detached runners; `wait` follows them and runs neither itself.
    const waited = await runCli(['wait', ...ids, '--json'], env);
    expect(waited.code, waited.stderr).toBe(0);
    expect((JSON.parse(waited.stdout) as { _id: string; status: string }[]).map((s) => [s._id, s.status])).toEqual(ids.map((id) => [id, 'completed']));
    for (const id of ids) {
      const log = readFileSync(path.join(dir, 'runners', `${id}.log`), 'utf8');
      expect(log).toContain(`request ${id} completed`);
      expect(log.match(/rendered clip 1\/1/g)).toHaveLength(1);
    }

    // One schema, fully migrated; every request local, completed, and never picked up by the serve.
    const db = new Database(path.join(dir, 'shorts.db'), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    const list = await runCli(['list', '--json'], env);
    const all = JSON.parse(list.stdout).data.requests as { requestId: string; status: string }[];
    expect(all.map((r) => r.status)).toEqual(['completed', 'completed']);
    for (const r of all) expect(row(dir, r.requestId)).toMatchObject({ origin: 'local', attempts: 0 });
    expect(serve.log()).not.toMatch(/resuming|taking over/);
    expect(serve.log()).not.toMatch(STORE_TROUBLE);
  }, SLOW_MACHINE_MS);

  it('of several processes taking one queued request at once, exactly one gets it', async () => {
    const dir = freshDir();
    const store = new SqliteRequestStore(path.join(dir, 'shorts.db'));
    const id = 'a'.repeat(24);
    await store.insertRequest({ id, accountId: 'local', origin: 'local', userEmail: 'u@localhost', options: {} as never, url: SAMPLE, start: 0, end: 60 });
    store.close();
    // Each process waits for the same instant, takes, and stays alive a while (a live runner holds it).
    const jobStore = pathToFileURL(path.join(ROOT, 'dist', 'adapters', 'sqlite', 'request-store.js')).href;
    const leaseStore = pathToFileURL(path.join(ROOT, 'dist', 'adapters', 'sqlite', 'lease-store.js')).href;
    const at = Date.now() + 2500;
    const script = `const { SqliteRequestStore } = await import(${JSON.stringify(jobStore)});
      const { SqliteLeaseStore } = await import(${JSON.stringify(leaseStore)});
      const store = new SqliteRequestStore(${JSON.stringify(path.join(dir, 'shorts.db'))});
      const leases = new SqliteLeaseStore(store.db);
      while (Date.now() < ${at}) await new Promise((r) => setTimeout(r, 1));
      const lease = await leases.acquire({ kind: 'request', id: ${JSON.stringify(id)} }, 'runner-' + process.pid, 30000);
      process.stdout.write(lease ? 'taken' : 'held');
      await new Promise((r) => setTimeout(r, 3000));`;
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '', err = '';
      child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
      child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
    })));
    expect(outcomes.sort()).toEqual(['held', 'held', 'held', 'held', 'held', 'taken']);
  });

  it('a second serve on the same data dir leaves the first one\'s running job alone, and takes it over once that serve is killed', async () => {
    const dir = freshDir();
    // A short lease: the killed serve's request is taken over once its lease runs out (issue 22).
    const env = serveEnv({ SHORTS_DATA_DIR: dir, SHORTS_WORKERS: '1', SHORTS_LEASE_TTL: '4' });
    // The first request's download is held until released: it stays `processing` on serve A as long as needed.
    let released = false;
    const held: http.ServerResponse[] = [];
    files = await loopback((req, res) => {
      const size = readFileSync(SAMPLE).length;
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': size });
      if (req.method === 'HEAD') return res.end();
      if (req.url === '/slow.mp4' && !released) {
        held.push(res);
        return;
      }
      res.end(readFileSync(SAMPLE));
    });
    const a = await startServe(env);
    serves.push(a);
    const { key } = await createKey(env);
    // The seeded range and language (the transcript comes from the cache), rendered as cheaply as it can be.
    const body = (name: string) => ({ fileUrl: `${files!.url}/${name}`, start: 0, end: 60, language: 'en', maxShorts: 1, preferredLength: 'under30sec',
      layout: 'fit', blurBackground: false });
    const first = await api(a.api, key, 'POST', '/shorts/create', body('slow.mp4'));
    expect(first.status, first.text).toBe(202);
    const slowId = first.json.data.requestId as string;
    await until(async () => row(dir, slowId), (r) => r.status === 'processing' && r.runner_pid === a.child.pid, 60_000, 100);

    const b = await startServe(env);
    serves.push(b);
    expect(b.log()).not.toMatch(/resuming/);
    const second = await api(b.api, key, 'POST', '/shorts/create', body('fast.mp4'));
    const fastId = second.json.data.requestId as string;
    await until(async () => row(dir, fastId), (r) => r.status === 'completed', 120_000);
    expect(row(dir, fastId)).toMatchObject({ attempts: 1, origin: 'api' });
    // Serve B had a free slot all along, and still never took A's running job.
    expect(row(dir, slowId)).toMatchObject({ status: 'processing', attempts: 1, runner_pid: a.child.pid });

    await a.kill('SIGKILL');
    released = true;
    for (const res of held) res.destroy();
    const done = await until(async () => row(dir, slowId), (r) => r.status === 'completed', 120_000);
    expect(done).toMatchObject({ attempts: 2, runner_pid: b.child.pid });
    expect(b.log()).toMatch(/taking over 1 request\(s\) left processing by a stopped process/);
    const status = await api(b.api, key, 'GET', `/shorts/${slowId}/status`);
    expect(status.json.data.status).toBe('completed');
  }, SLOW_MACHINE_MS);
});
