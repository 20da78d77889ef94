// The one place that spawns external programs (ffmpeg, ffprobe, whisper-cli, yt-dlp); the media work
// reaches it through a MediaRunner (src/ports/media-runner.ts, local-runner.ts). Every call takes
// an AbortSignal so Ctrl-C and DELETE kill the child at once instead of waiting for it to finish, and
// on Linux every child dies with this process even when it is killed with SIGKILL (see withParentDeath).
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { MediaRunOptions, MediaRunResult } from '../ports/media-runner.js';

/** runProcess's options: the runner's, less the tool resolution (`program`) that the runner does. */
export type RunOptions = Omit<MediaRunOptions, 'program'>;
export type RunResult = MediaRunResult;

export class ProcessError extends Error {
  /** `signal`: what ended a child that did not exit (a SIGKILL nobody here sent is the OOM killer's). */
  constructor(readonly command: string, readonly code: number | null, readonly stderr: string, readonly signal: NodeJS.Signals | null = null) {
    super(`${command} exited with ${code ?? 'a signal'}: ${lastLines(stderr, 4)}`);
    this.name = 'ProcessError';
  }
}

export class AbortedError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'AbortError';
  }
}

export function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join(' | ');
}

/** Whether `file` is a regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` in `dirsFirst` then PATH, as a shell would find it; null when there is none. */
export function findOnPath(name: string, dirsFirst: readonly string[] = []): string | null {
  for (const dir of [...dirsFirst, ...(process.env.PATH ?? '').split(path.delimiter)]) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

let setprivPath: string | null | undefined;

/**
 * util-linux's setpriv (Essential on Debian, present on every mainstream Linux), when it can set a
 * parent-death signal; null elsewhere (macOS) or when missing. Looked up once.
 */
function setpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  if (process.platform !== 'linux') return null;
  const candidate = findOnPath('setpriv', ['/usr/bin', '/bin']);
  // --pdeathsig needs util-linux 2.33 (2019); an older one refuses the option and is not used.
  if (candidate && spawnSync(candidate, ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 0) setprivPath = candidate;
  return setprivPath;
}

/**
 * The command line that runs `command` so that the kernel sends it SIGKILL when this process dies:
 * `setpriv --pdeathsig KILL -- command args...` (prctl PR_SET_PDEATHSIG, which survives the exec; Node
 * cannot call prctl itself). Without it, a `shorts serve` or `shorts create` killed with SIGKILL (OOM
 * killer, kill -9, a crashed container runtime) leaves whisper-cli and ffmpeg running for up to the rest
 * of their work, and a restarted server competes with them for the cores. The kill on abort is
 * unchanged: setpriv execs the program, so the child's pid is the program's.
 */
function withParentDeath(command: string, args: readonly string[]): [string, readonly string[]] {
  const wrapper = setpriv();
  return wrapper ? [wrapper, ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, args];
}

/**
 * setpriv reports a program it could not execute with exit 127/126 and a line on stderr; turn that back
 * into the spawn error Node gives for a direct spawn (ENOENT/EACCES), which callers test for.
 */
function execFailure(command: string, args: readonly string[], code: number | null, stderr: string): Error | null {
  if ((code !== 127 && code !== 126) || !/^setpriv: failed to execute /m.test(stderr)) return null;
  const errno = code === 127 ? 'ENOENT' : 'EACCES';
  return Object.assign(new Error(`spawn ${command} ${errno}`), { code: errno, errno: code === 127 ? -2 : -13, syscall: `spawn ${command}`, path: command, spawnargs: [...args] });
}

/** Runs a program with an argument list (never a shell string) and collects its output. */
export function runProcess(command: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const limit = opts.stderrLimit ?? 64 * 1024;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new AbortedError());
    const [program, argv] = withParentDeath(command, args);
    const child = spawn(program, argv, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      if (opts.streamStdout) return opts.streamStdout(b);
      out.push(b);
      opts.onStdout?.(b.toString());
    });
    child.stderr.on('data', (b: Buffer) => {
      const s = b.toString();
      opts.onStderr?.(s);
      err = (err + s).slice(-limit);
    });
    const onAbort = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      opts.signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.on('close', (code, signal) => {
      opts.signal?.removeEventListener('abort', onAbort);
      // We only ever send SIGKILL; a child ended by SIGINT/SIGTERM got the user's Ctrl-C (the terminal
      // signals the whole process group), so it is a cancellation, not a failure of the stage.
      if (opts.signal?.aborted || signal === 'SIGINT' || signal === 'SIGTERM') return reject(new AbortedError());
      if (code !== 0) return reject(execFailure(command, args, code, err) ?? new ProcessError(command, code, err, signal));
      const bytes = Buffer.concat(out);
      resolve({ stdout: bytes.toString(), stdoutBytes: bytes, stderr: err, code: 0 });
    });
  });
}
