// Script-friendly CLI (issue 15), as a CI script uses it: `create --no-wait` prints the request id (or the
// create response with --json) and exits; `shorts wait ID…` waits for several, one line each, exit 0 only
// when all completed; Ctrl-C in `wait` stops waiting without cancelling what others run; --quiet silences
// progress; output piped or under NO_COLOR carries no ANSI escape. Remote mode against a live `shorts
// serve`, local mode with its detached runner.
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, statSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, startCli } from './helpers/cli.js';
import { createKey, loopback, serveEnv, startServe, type Loopback, type ServeProcess } from './helpers/serve.js';
import { CHEAP_RENDER, SEEDED_CREATE, SEEDED_RANGE, seed, warmCache } from './helpers/seeded-cache.js';
import { SAMPLE } from './helpers/cli.js';
import { LocalClient } from '../src/client/local-client.js';

const ID_LINE = /^[0-9a-f]{24}\n$/;
const ESC = '\x1b';

interface Final { _id: string; status: string; failureReason?: string }

/** Generous: this machine may be shared; what is checked never depends on speed. */
const SLOW_MACHINE_MS = 400_000;

let warm: string;
/** Serves the sample under any name; a name put in `held` gets no body until released (its request stays fetching). */
let files: Loopback;
const held = new Map<string, http.ServerResponse[]>();
beforeAll(async () => {
  warm = await warmCache();
  files = await loopback((req, res) => {
    const name = (req.url ?? '').slice(1);
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': statSync(SAMPLE).size });
    if (req.method === 'HEAD') return res.end();
    const waiting = held.get(name);
    if (waiting) waiting.push(res);
    else createReadStream(SAMPLE).pipe(res);
  });
}, 240_000);
afterAll(async () => { await files?.close(); });

function hold(name: string): string {
  held.set(name, []);
  return `${files.url}/${name}`;
}

function release(name: string): void {
  const waiting = held.get(name) ?? [];
  held.delete(name);
  for (const res of waiting) createReadStream(SAMPLE).pipe(res);
}

function seededEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'shorts-wait-'));
  seed(dir, warm);
  return cliEnv({ SHORTS_DATA_DIR: dir, ...extra });
}

/** Starts `shorts wait` in its own process group, Ctrl-Cs it once it has shown progress, returns its result. */
async function interruptedWait(ids: string[], env: NodeJS.ProcessEnv) {
  const run = startCli(['wait', ...ids], env, true);
  const end = Date.now() + 120_000;
  while (!/\(\d+%\)/.test(run.stderrSoFar()) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  try { process.kill(-run.child.pid!, 'SIGINT'); } catch { /* already ended: the assertions say how */ }
  return run.done;
}

describe('remote: create --no-wait, then wait', () => {
  let serve: ServeProcess;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const senv = serveEnv({ SHORTS_WORKERS: '2' });
    seed(senv.SHORTS_DATA_DIR!, warm);
    serve = await startServe(senv);
    // Every status poll counts against the account's hourly limit (spec 8.2): a 429 would park wait for minutes.
    const { key } = await createKey(senv, ['--hourly-limit', '2000', '--daily-limit', '20000']);
    env = cliEnv({ SHORTS_REMOTE: serve.api, SHORTS_API_KEY: key, SHORTS_POLL_INTERVAL_MS: '500' });
  });
  afterAll(async () => {
    await serve?.kill();
  });

  it('prints the id (or the create response), exits 0, and wait follows both to the end', async () => {
    const args = (url: string) => ['create', '--file-url', url, ...SEEDED_RANGE, ...CHEAP_RENDER, '--no-wait'];
    // The first one's download is held: it is surely still running when its wait is interrupted.
    const plain = await runCli(args(hold('remote-held.mp4')), env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(ID_LINE);
    const json = await runCli([...args(`${files.url}/talk.mp4`), '--json'], env);
    expect(json.code, json.stderr).toBe(0);
    const created = JSON.parse(json.stdout) as { requestId: string; status: string; creditsUsed: number };
    expect(created).toMatchObject({ creditsUsed: 1 });
    const ids = [plain.stdout.trim(), created.requestId];

    // Ctrl-C stops waiting; the server's request is not cancelled.
    const stopped = await interruptedWait([ids[0]!], env);
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toMatch(new RegExp(`^${ids[0]} (queued|processing): still running, no longer waited for\\n$`));
    release('remote-held.mp4');

    const waited = await runCli(['wait', ...ids, '--json'], env);
    expect(waited.code, waited.stderr).toBe(0);
    expect((JSON.parse(waited.stdout) as Final[]).map((s) => [s._id, s.status])).toEqual(ids.map((id) => [id, 'completed']));
    // Lines as each ends, and an unknown request makes the exit code 1.
    const unknown = 'f'.repeat(24);
    const lines = await runCli(['wait', ids[0]!, unknown], env);
    expect(lines.code).toBe(1);
    expect(lines.stdout.split('\n').filter(Boolean).sort()).toEqual([`${ids[0]} completed`, `${unknown} error: ${lines.stdout.match(/error: (.*)/)![1]}`].sort());
    expect(lines.stdout).toMatch(new RegExp(`${unknown} error: .*not found`, 'i'));
  }, SLOW_MACHINE_MS);
});

describe('local: create --no-wait runs in a detached runner, wait follows it', () => {
  it('id on stdout, nothing on stderr with --quiet; Ctrl-C in wait leaves the runner going; exit 1 when one failed; a killed runner\'s request is interrupted, an unclaimed one run', async () => {
    // A short lease (issue 22): a killed runner's request is settled once its lease runs out, not after 30 s.
    const env = seededEnv({ SHORTS_ALLOW_PRIVATE_URLS: '1', SHORTS_LEASE_TTL: '5' });
    const ok = await runCli(['--quiet', 'create', ...SEEDED_CREATE, '--no-wait'], env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(ID_LINE);
    expect(ok.stderr).toBe('');
    const okId = ok.stdout.trim();
    // A source without an audio track fails in its runner (create accepts it: it is a valid video).
    const silent = path.join(env.SHORTS_DATA_DIR!, 'no-audio.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=black:s=64x64:r=5', '-t', '61', '-c:v', 'libx264', '-preset', 'ultrafast', silent]);
    const bad = await runCli(['create', '--file', silent, ...SEEDED_RANGE, '--language', 'en', '--no-wait', '--json'], env);
    expect(bad.code, bad.stderr).toBe(0);
    const badId = (JSON.parse(bad.stdout) as { requestId: string }).requestId;
    expect(bad.stderr).toMatch(/runs in the background \(process \d+, log .*runners/);

    // Ctrl-C in a wait that follows a runner (its download held, so surely still running) stops the wait only.
    const slow = await runCli(['create', '--file-url', hold('local-held.mp4'), ...SEEDED_RANGE, ...CHEAP_RENDER, '--language', 'en', '--no-wait'], env);
    const slowId = slow.stdout.trim();
    const stopped = await interruptedWait([slowId], env);
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toBe(`${slowId} processing: still running, no longer waited for\n`);
    release('local-held.mp4');

    const waited = await runCli(['wait', okId, badId, slowId], env);
    expect(waited.code).toBe(1);
    const lines = waited.stdout.split('\n').filter(Boolean);
    expect(lines).toContain(`${okId} completed`);
    expect(lines).toContain(`${slowId} completed`);
    expect(lines).toContain(`${badId} failed: the video has no audio track, so there is no speech to find clips in`);
    expect(lines).toHaveLength(3);

    // A runner killed -9 leaves its request to the next `wait`, which reports it interrupted (not run again).
    const doomed = await runCli(['create', ...SEEDED_CREATE, '--no-wait'], env);
    const doomedId = doomed.stdout.trim();
    process.kill(Number(/process (\d+)/.exec(doomed.stderr)![1]), 'SIGKILL');
    const killed = await runCli(['wait', doomedId], env);
    expect(killed).toMatchObject({ code: 1, stdout: `${doomedId} failed: interrupted: the shorts process running this request stopped before it finished\n` });
    // A request nobody ever took (as when a --no-wait runner dies before it starts) is run by `wait` itself.
    const library = new LocalClient(env.SHORTS_DATA_DIR!);
    const unclaimed = await library.create({ file: SAMPLE, start: 0, end: 60, maxShorts: 1, language: 'en', preferredLength: 'under30sec', layout: 'fit', blurBackground: false }, { claim: false });
    library.close();
    const ran = await runCli(['wait', unclaimed.requestId], env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(`${unclaimed.requestId} completed\n`);
    expect(ran.stderr).toMatch(/Finding interesting segments/);

    // Quiet: the outcome lines still come (stdout), no progress on stderr.
    const quiet = await runCli(['wait', okId, '--quiet'], env);
    expect(quiet).toMatchObject({ code: 0, stdout: `${okId} completed\n`, stderr: '' });

    // Tables into a pipe: no colour codes (cli-table3's grey border and cyan head used to come through).
    for (const args of [['list'], ['get', okId], ['status', okId], ['templates']]) {
      const r = await runCli(args, env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      expect(r.stdout.includes(ESC), args.join(' ')).toBe(false);
    }
    // On a terminal (a pty through script(1)): coloured by default, plain with NO_COLOR. The terminal is named
    // and CI unset: cli-table3's colour library stays plain under CI=true or without TERM, as a CI runner has.
    const onTerminal = (extra: Record<string, string>) =>
      execFileSync('script', ['-qec', `${process.execPath} ${BIN} list`, '/dev/null'], {
        env: { ...env, TERM: 'xterm-256color', CI: undefined, ...extra }, encoding: 'utf8',
      });
    expect(onTerminal({}).includes(ESC)).toBe(true);
    expect(onTerminal({ NO_COLOR: '1' }).includes(ESC)).toBe(false);
    // A pty without a size (as script(1) gives in CI): plain progress, and wait ends (a spinner there used to
    // clear upwards forever).
    const sizeless = execFileSync('script', ['-qec', `${process.execPath} ${BIN} wait ${okId}`, '/dev/null'], { env, encoding: 'utf8', timeout: 30_000 });
    expect(sizeless).toContain(`${okId} completed`);
  }, SLOW_MACHINE_MS);
});
