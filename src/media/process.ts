// The one place that spawns external programs (ffmpeg, ffprobe, whisper-cli, yt-dlp). Every call takes
// an AbortSignal so Ctrl-C and DELETE kill the child at once instead of waiting for it to finish.
import { spawn } from 'node:child_process';

export interface RunOptions {
  signal?: AbortSignal;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each chunk of stderr (progress parsing). */
  onStderr?: (chunk: string) => void;
  /** Called with each chunk of stdout, for programs that report progress there (yt-dlp). */
  onStdout?: (chunk: string) => void;
  /**
   * Streams stdout's bytes here instead of collecting them (RunResult's stdout is then empty): hours of
   * raw PCM are analysed as they arrive rather than held in memory.
   */
  streamStdout?: (chunk: Buffer) => void;
  /** Keep at most this many bytes of stderr for error messages. */
  stderrLimit?: number;
}

export interface RunResult {
  stdout: string;
  /** stdout as bytes, for programs that write raw frames there. */
  stdoutBytes: Buffer;
  stderr: string;
  code: number;
}

export class ProcessError extends Error {
  constructor(readonly command: string, readonly code: number | null, readonly stderr: string) {
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

/** Runs a program with an argument list (never a shell string) and collects its output. */
export function runProcess(command: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const limit = opts.stderrLimit ?? 64 * 1024;
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new AbortedError());
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
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
      if (code !== 0) return reject(new ProcessError(command, code, err));
      const bytes = Buffer.concat(out);
      resolve({ stdout: bytes.toString(), stdoutBytes: bytes, stderr: err, code: 0 });
    });
  });
}
