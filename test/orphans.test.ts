// Children die with their parent (issue 12): after `kill -9` of `shorts serve` or of a local `shorts
// create`, the whisper-cli and ffmpeg it started must not run on (they would compete with a restarted
// server for the cores). Linux only: the children are found through /proc.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runProcess } from '../src/media/process.js';
import { ROOT, SAMPLE, cliEnv, startCli } from './helpers/cli.js';
import { api, createKey, fileHandler, loopback, serveEnv, startServe, type Loopback } from './helpers/serve.js';

interface Proc { pid: number; ppid: number; comm: string; state: string }

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const [state, ppid] = stat.slice(close + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(ppid), comm: stat.slice(stat.indexOf('(') + 1, close), state: state! });
    } catch { /* exited while listed */ }
  }
  return out;
}

/** Alive = listed and not a zombie (a dead child nobody has reaped yet holds no CPU and no files). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const WORKERS = /^(whisper-cli|ffmpeg)$/;

/** Waits until `parent` runs whisper-cli or ffmpeg; returns every live child it has then. */
async function busyChildren(parent: number, timeoutMs = 120_000): Promise<Proc[]> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const kids = processes().filter((p) => p.ppid === parent && p.state !== 'Z');
    if (kids.some((p) => WORKERS.test(p.comm))) return kids;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no whisper-cli or ffmpeg child of ${parent} within ${timeoutMs} ms`);
}

async function expectAllGone(pids: number[], withinMs: number): Promise<void> {
  const end = Date.now() + withinMs;
  while (pids.some(alive) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(pids.filter(alive).map((pid) => processes().find((p) => p.pid === pid))).toEqual([]);
}

describe.runIf(process.platform === 'linux')('children die with their parent on kill -9', () => {
  let files: Loopback | undefined;
  afterAll(async () => { await files?.close(); });

  it('the runner: a child that never writes (so no SIGPIPE would end it) dies with its parent', async () => {
    // A parent process running `sleep 60` through the built runner, as serve runs whisper-cli.
    const runner = pathToFileURL(path.join(ROOT, 'dist', 'media', 'process.js')).href;
    const parent = spawn(process.execPath, ['--input-type=module', '-e',
      `const { runProcess } = await import(${JSON.stringify(runner)}); runProcess('sleep', ['60']).catch(() => {}); setInterval(() => {}, 1000);`], { stdio: 'ignore' });
    try {
      let kids: Proc[] = [];
      for (let i = 0; i < 200 && !kids.some((k) => k.comm === 'sleep'); i++) {
        await new Promise((r) => setTimeout(r, 50));
        kids = processes().filter((p) => p.ppid === parent.pid);
      }
      expect(kids.map((k) => k.comm)).toEqual(['sleep']);
      parent.kill('SIGKILL');
      await expectAllGone(kids.map((k) => k.pid), 2000);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('the runner still reports a missing program as ENOENT (callers test for it)', async () => {
    await expect(runProcess('shortwright-no-such-program', ['x'])).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('shorts serve: its whisper-cli/ffmpeg are gone within 2 s', async () => {
    const env = serveEnv();
    const { key } = await createKey(env);
    const serve = await startServe(env);
    try {
      files = await loopback(fileHandler(SAMPLE));
      const created = await api(serve.api, key, 'POST', '/shorts/create', { fileUrl: `${files.url}/talk.mp4`, start: 0, end: 80 });
      expect(created.status, created.text).toBe(202);
      const kids = await busyChildren(serve.child.pid!);
      process.kill(serve.child.pid!, 'SIGKILL');
      await expectAllGone(kids.map((k) => k.pid), 2000);
    } finally {
      if (serve.child.exitCode === null && serve.child.signalCode === null) await serve.kill('SIGKILL');
    }
  }, 180_000);

  it('local shorts create: its whisper-cli/ffmpeg are gone within 2 s', async () => {
    const run = startCli(['create', '--file', SAMPLE, '--start', '0', '--end', '80'], cliEnv());
    try {
      const kids = await busyChildren(run.child.pid!);
      run.child.kill('SIGKILL');
      await expectAllGone(kids.map((k) => k.pid), 2000);
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.done;
    }
  }, 180_000);
});
