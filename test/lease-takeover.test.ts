// Leases, not pids (issue 22), tried as two containers on one volume would: two `shorts serve`s, each the
// first process (pid 1) of its own PID namespace with its own host name (`unshare --pid --fork --mount-proc
// --uts`), on ONE data dir, with a 4 s lease. Each is killed -9 in turn mid-request, mid-re-render and
// mid-publish: the other takes the work over only after the lease expired (not during the first part of the
// TTL), every request completes once (one webhook each on a loopback receiver), the post is uploaded once
// (the fake platform counts). A live `sleep` holding the killed server's pid (1, in a namespace of its own)
// does not block the takeover. A server stopped (SIGSTOP) past the TTL and continued after the other finished
// its request writes nothing: the request completed once, one webhook, its clip files untouched.
// Needs root and unshare(1); skipped with a message otherwise. The requests use the seeded transcript and the
// cheapest render (one clip, fit layout, no captions, 360x640).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, SAMPLE } from './helpers/cli.js';
import { startFakePlatform, type FakePhotoSite } from './helpers/fake-platforms/index.js';
import { issueKey } from './helpers/issue-key.js';
import { addAccount, postsEnv, settledPost } from './helpers/posts-fixture.js';
import { api, loopback, until, type Loopback, type ServeProcess } from './helpers/serve.js';
import { seed, warmCache } from './helpers/seeded-cache.js';

const TTL_S = 4;
const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['--pid', '--fork', '--mount-proc', '--uts', 'true']).status === 0;
if (!canUnshare) console.warn('lease-takeover.test.ts skipped: it needs root and unshare(1) (separate PID namespaces, as two containers)');

interface NsServe extends ServeProcess { name: string; unshare: ChildProcess }

/** `shorts serve` as pid 1 of a new PID namespace named `name` (its host name: the owner ids say who holds what). */
async function startNsServe(name: string, env: NodeJS.ProcessEnv): Promise<NsServe> {
  const child = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--uts', '--kill-child', 'sh', '-c', `hostname ${name} && exec "$0" "$@"`,
    process.execPath, BIN, 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve ${name} did not start: ${log}`)), 60_000);
    child.stderr!.on('data', (b: Buffer) => {
      log += b.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(log);
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
    child.on('exit', (code) => reject(new Error(`serve ${name} exited with ${code}: ${log}`)));
  });
  return {
    name, unshare: child, url, api: `${url}/api/v1`, child, env, log: () => log,
    kill: (signal = 'SIGKILL') => new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal); // unshare --kill-child: its namespace's pid 1 (and so every process in it) gets SIGKILL
    }),
  };
}

/** Host pids of a process and all its descendants (the "container"). */
function tree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, pp] of parent) if (pp === out[i]) out.push(pid);
  return out;
}

describe.skipIf(!canUnshare)('two serves in separate PID namespaces on one data dir', () => {
  let env: NodeJS.ProcessEnv;
  let key: string;
  let photo: FakePhotoSite;
  let cdn: Loopback;
  let hooks: Loopback;
  const serves = new Map<string, NsServe>();
  const others: ChildProcess[] = [];
  /** GETs of these paths are held (their responses parked here) until released. */
  const hold = new Set<string>();
  const held = new Map<string, http.ServerResponse[]>();
  let generation = 0;

  const db = <T>(fn: (d: Database.Database) => T): T => {
    const d = new Database(path.join(env.SHORTS_DATA_DIR!, 'shorts.db'), { readonly: true });
    try { return fn(d); } finally { d.close(); }
  };
  /** The host name in the owner id of a key's lease (its last holder), and whether it is live now. */
  const holder = (kind: string, id: string) => db((d) => d.prepare(`SELECT owner, expires_at > CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) AS live
    FROM leases WHERE kind = ? AND id = ?`).get(kind, id) as { owner: string; live: number } | undefined);
  const holderName = (kind: string, id: string) => holder(kind, id)?.owner.split(':')[0];
  const request = (id: string) => db((d) => d.prepare('SELECT status, attempts, finished_at FROM requests WHERE id = ?').get(id) as { status: string; attempts: number; finished_at: string | null });
  const webhooks = (id: string) => hooks.requests.filter((r) => r.method === 'POST' && (JSON.parse(r.body) as { requestId: string; event: string }).requestId === id
    && (JSON.parse(r.body) as { event: string }).event === 'shorts.completed').length;
  const release = (p: string) => {
    hold.delete(p);
    for (const res of held.get(p) ?? []) { res.writeHead(200, { 'content-type': 'video/mp4' }); res.end(readFileSync(SAMPLE)); }
    held.delete(p);
  };
  const start = async (name: string) => {
    const s = await startNsServe(`${name}${++generation}`, env);
    serves.set(name, s);
    return s;
  };
  const byName = (host: string | undefined) => [...serves.values()].find((s) => s.name === host)!;
  const otherThan = (s: NsServe) => [...serves.values()].find((x) => x !== s)!;
  const create = async (via: NsServe, file: string) => {
    const r = await api(via.api, key, 'POST', '/shorts/create', { fileUrl: `${cdn.url}/${file}`, start: 0, end: 60, language: 'en', maxShorts: 1,
      preferredLength: 'under30sec', layout: 'fit', captionsEnabled: false, blurBackground: false, webhookUrl: `${hooks.url}/hook` });
    expect(r.status, r.text).toBe(202);
    return r.json.data.requestId as string;
  };
  /** Kills a serve -9 and checks, during the first part of the TTL, that nobody took its lease over. */
  const killAndCheckNotTaken = async (victim: NsServe, kind: string, id: string, taken: () => number) => {
    const before = taken();
    await victim.kill('SIGKILL');
    const killedAt = Date.now();
    await sleep(1000);
    const h = holder(kind, id);
    // Read well inside the TTL (the lease had at least 2/3 of it left at the kill): still the dead server's.
    if (Date.now() - killedAt < (TTL_S * 1000 * 2) / 3) {
      expect(h?.owner.split(':')[0]).toBe(victim.name);
      expect(taken()).toBe(before);
    }
  };

  beforeAll(async () => {
    photo = await startFakePlatform('photo_site') as FakePhotoSite;
    env = postsEnv({ photo_site: photo }, { SHORTS_LEASE_TTL: String(TTL_S), SHORTS_WORKERS: '1' });
    seed(env.SHORTS_DATA_DIR!, await warmCache());
    key = (await issueKey(env, { hourlyLimit: 2000, dailyLimit: 20000, credits: 50 })).key;
    cdn = await loopback((req, res) => {
      const p = (req.url ?? '').slice(1);
      if (req.method === 'GET' && hold.has(p)) {
        held.set(p, [...(held.get(p) ?? []), res]);
        hold.delete(p); // only the first GET is held: the server taking over downloads it at once
        return;
      }
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': statSync(SAMPLE).size });
      if (req.method === 'HEAD') return res.end();
      res.end(readFileSync(SAMPLE));
    });
    hooks = await loopback((_req, res) => { res.writeHead(200); res.end(); });
  }, 240_000);

  afterAll(async () => {
    for (const s of serves.values()) { try { process.kill(s.unshare.pid!, 'SIGCONT'); } catch { /* gone */ } }
    await Promise.all([...serves.values()].map((s) => s.kill('SIGKILL')));
    for (const o of others) o.kill('SIGKILL');
    for (const list of held.values()) for (const res of list) res.destroy();
    await Promise.all([cdn?.close(), hooks?.close(), photo?.close()]);
  });

  let first: string;

  it('kill -9 mid-request: the other server takes it over only after the lease expired, though a live process has the dead one\'s pid', async () => {
    const a = await start('a');
    hold.add('r1.mp4');
    first = await create(a, 'r1.mp4');
    await until(async () => holderName('request', first), (h) => h === a.name, 60_000, 50);
    const b = await start('b');
    // An unrelated live process with the killed server's pid: pid 1 of a namespace of its own.
    const sleeper = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'sleep', '600'], { stdio: 'ignore' });
    others.push(sleeper);
    await killAndCheckNotTaken(a, 'request', first, () => request(first).attempts);
    serves.delete('a');
    release('r1.mp4');
    await until(async () => request(first), (r) => r.status === 'completed', 240_000, 250);
    expect(request(first).attempts).toBe(2);
    expect(holderName('request', first)).toBe(b.name);
    expect(b.log()).toMatch(/taking over 1 request\(s\)/);
    expect(sleeper.exitCode).toBeNull();
    await sleep(1000);
    expect(webhooks(first)).toBe(1);
  }, 400_000);

  it('kill -9 mid-re-render: the other server re-renders the clip once the lease expired', async () => {
    await start('a');
    const clip = db((d) => d.prepare('SELECT id, end_ts FROM shorts WHERE request_id = ?').get(first) as { id: string; end_ts: number });
    // The re-render downloads the source again (a completed request's download is deleted): held, so surely mid-way when killed.
    hold.add('r1.mp4');
    const r = await api(otherThan(serves.get('a')!).api, key, 'POST', `/shorts/${first}/shorts/${clip.id}/render`, { end: clip.end_ts - 2 });
    expect(r.status, r.text).toBe(202);
    await until(async () => holder('rerender', clip.id), (h) => h?.live === 1, 60_000, 50);
    const victim = byName(holderName('rerender', clip.id));
    const attempts = () => db((d) => (d.prepare('SELECT rerender_attempts AS n FROM shorts WHERE id = ?').get(clip.id) as { n: number }).n);
    await killAndCheckNotTaken(victim, 'rerender', clip.id, attempts);
    serves.delete([...serves].find(([, s]) => s === victim)![0]);
    release('r1.mp4');
    const done = await until(async () => db((d) => d.prepare('SELECT recompiling, edit_error, end_ts FROM shorts WHERE id = ?').get(clip.id) as { recompiling: number; edit_error: string | null; end_ts: number }),
      (s) => s.recompiling === 0, 240_000, 250);
    expect(done).toMatchObject({ edit_error: null, end_ts: clip.end_ts - 2 });
    expect(attempts()).toBe(2);
    expect(webhooks(first)).toBe(1);
  }, 400_000);

  it('kill -9 mid-publish: the other server resumes the post once the lease expired; the platform gets it once', async () => {
    if (!serves.has('a')) await start('a');
    if (!serves.has('b')) await start('b');
    const any = serves.get('a')!;
    await addAccount(any, key, photo, 'photo_site', 'insta', { platformUserId: photo.igUser!.id });
    const clipId = db((d) => (d.prepare('SELECT id FROM shorts WHERE request_id = ?').get(first) as { id: string }).id);
    // media_publish answers slowly: the server is killed after sending it, the platform goes on and publishes.
    photo.fail('publish', { delayMs: 3000 });
    const calls = photo.count('publish');
    const published = photo.publishCount;
    const r = await api(any.api, key, 'POST', '/posts', { shortId: clipId, platform: 'photo_site' });
    expect(r.status, r.text).toBe(201);
    const postId = r.json.data.id as string;
    await until(async () => photo.count('publish'), (n) => n > calls, 60_000, 20);
    const victim = byName(holderName('post', postId));
    await killAndCheckNotTaken(victim, 'post', postId, () => photo.count('publish'));
    serves.delete([...serves].find(([, s]) => s === victim)![0]);
    const survivor = [...serves.values()][0]!;
    const done = await settledPost(survivor, key, postId, 120_000);
    expect(done.status, JSON.stringify(done)).toBe('published');
    expect(holderName('post', postId)).toBe(survivor.name);
    expect(photo.publishCount).toBe(published + 1);
    expect(photo.count('publish')).toBe(calls + 1);
  }, 400_000);

  it('a server stopped past its lease and continued after the other finished writes nothing and stops that work', async () => {
    if (!serves.has('a')) await start('a');
    if (!serves.has('b')) await start('b');
    hold.add('r2.mp4');
    const second = await create(serves.get('a')!, 'r2.mp4');
    await until(async () => holder('request', second), (h) => h?.live === 1, 60_000, 50);
    const stale = byName(holderName('request', second));
    const fresh = otherThan(stale);
    const frozen = tree(stale.unshare.pid!);
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    try {
      await until(async () => request(second), (r) => r.status === 'completed', 240_000, 250);
      expect(holderName('request', second)).toBe(fresh.name);
      const finished = request(second);
      const dir = path.join(env.SHORTS_DATA_DIR!, 'jobs', second);
      const files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.mp4') || f.endsWith('.jpg'));
      expect(files.length).toBeGreaterThan(0);
      const mtimes = files.map((f) => statSync(path.join(dir, f)).mtimeMs);
      await sleep(1000);
      expect(webhooks(second)).toBe(1);
      for (const pid of frozen) { try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ } }
      // Its download goes on: whatever it would do next, its lease is gone.
      release('r2.mp4');
      await until(async () => stale.log(), (l) => l.includes(`request ${second}: another process took it over`), 60_000, 100);
      await sleep(2000);
      expect(request(second)).toEqual(finished);
      expect(webhooks(second)).toBe(1);
      expect(files.filter((f) => existsSync(path.join(dir, f))).map((f) => statSync(path.join(dir, f)).mtimeMs)).toEqual(mtimes);
    } finally {
      for (const pid of frozen) { try { process.kill(pid, 'SIGCONT'); } catch { /* gone */ } }
    }
  }, 400_000);
});
