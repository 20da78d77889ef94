// Today's MediaRunner adapter: child processes on this machine (runProcess: argument lists, SIGKILL on
// abort, setpriv's parent-death signal). It counts children per tool, can cap how many run at once, and
// a scoped runner kills every child of its job when the job's signal aborts.
import type { MediaCounts, MediaRunOptions, MediaRunResult, MediaRunner, MediaTool } from '../ports/media-runner.js';
import { mediaBinaries } from './binaries.js';
import { AbortedError, runProcess } from './process.js';

export interface LocalMediaRunnerOptions {
  /** At most this many children at once, across the runner and every runner scoped from it; default no cap. */
  maxChildren?: number;
  /** How many `once` results are remembered (least recently used dropped first); default 64. */
  onceLimit?: number;
}

function zeroCounts(): MediaCounts {
  return { ffmpeg: 0, ffprobe: 0, 'whisper-cli': 0, 'yt-dlp': 0, pocketsphinx: 0 };
}

/** ffmpeg and ffprobe as configured (binaries.ts); the other tools by name on PATH unless the caller names one. */
function programFor(tool: MediaTool): string {
  if (tool === 'ffmpeg') return mediaBinaries().ffmpeg;
  if (tool === 'ffprobe') return mediaBinaries().ffprobe;
  return tool;
}

function either(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : a ?? b;
}

/** What a root runner and its scopes share: the cap on children and the remembered `once` results. */
class Shared {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  readonly memo = new Map<string, Promise<unknown>>();

  constructor(private readonly max: number, readonly onceLimit: number) {}

  /** Waits for a free slot; a job cancelled while it waits leaves at once. */
  acquire(signal: AbortSignal | undefined): Promise<void> {
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

class LocalMediaRunner implements MediaRunner {
  private readonly own = zeroCounts();

  constructor(private readonly shared: Shared, private readonly signal: AbortSignal | undefined, private readonly parent: LocalMediaRunner | null) {}

  async run(tool: MediaTool, args: readonly string[], opts: MediaRunOptions = {}): Promise<MediaRunResult> {
    const signal = either(this.signal, opts.signal);
    if (signal?.aborted) throw new AbortedError();
    await this.shared.acquire(signal);
    try {
      this.count(tool);
      const { program, ...rest } = opts;
      return await runProcess(program ?? programFor(tool), args, { ...rest, signal });
    } finally {
      this.shared.release();
    }
  }

  private count(tool: MediaTool): void {
    this.own[tool]++;
    this.parent?.count(tool);
  }

  scoped(signal?: AbortSignal): MediaRunner {
    return new LocalMediaRunner(this.shared, either(this.signal, signal), this);
  }

  counts(): MediaCounts {
    return { ...this.own };
  }

  once<T>(key: string, make: () => Promise<T>): Promise<T> {
    const memo = this.shared.memo;
    let p = memo.get(key) as Promise<T> | undefined;
    if (p) {
      memo.delete(key); // re-inserted last: most recently used
    } else {
      p = make();
      p.catch(() => { if (memo.get(key) === p) memo.delete(key); });
    }
    memo.set(key, p);
    while (memo.size > this.shared.onceLimit) memo.delete(memo.keys().next().value!);
    return p;
  }
}

/** A runner of local child processes, with its own counts, cap and remembered results. */
export function createLocalMediaRunner(opts: LocalMediaRunnerOptions = {}): MediaRunner {
  return new LocalMediaRunner(new Shared(opts.maxChildren ?? Infinity, opts.onceLimit ?? 64), undefined, null);
}

let fallback: MediaRunner | null = null;

/**
 * The runner of callers given none: a script or a test that calls a stage directly. The engine always
 * passes its own (serve.ts, local-client.ts), so its jobs are counted, capped and cancelled there.
 */
export function defaultMediaRunner(): MediaRunner {
  fallback ??= createLocalMediaRunner();
  return fallback;
}
