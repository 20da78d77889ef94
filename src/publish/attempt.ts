// One publish attempt's plumbing shared by the three connectors: the current access token (refreshed
// once on a refusal, section 5 rule 1), the saved progress, transient failures retried with backoff
// inside the attempt (rule 2), and status polling bounded by the processing deadline (rule 3).
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { httpCall, sleep, TransportError, type HttpAnswer, type HttpRequest } from './http.js';
import type { Mapped } from './platform-errors.js';
import { PublishError, type PublishJob, type PublishState } from './types.js';

export interface ConnectorOptions {
  /** Where SHORTS_PLATFORM_URL_* is read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** An origin replacing the platform's hosts (wins over the setting). */
  baseUrl?: string | null;
  /** Between processing-status polls; the first poll is immediate. Defaults per platform. */
  pollIntervalMs?: number;
  /**
   * One attempt's polling gives up with processing_timeout after this long; default 5 minutes (photo_site's
   * guidance) for photo_site and short_video_site, none for video_site (bounded by the platform's limit instead).
   */
  processingDeadlineMs?: number;
  /** The clock processing limits are measured on (ms since epoch); default Date.now. Tests: the fake platform's clock. */
  now?: () => number;
  /** Waits before each retry of a transient failure (5xx, dropped connection); default 1 s, 4 s, 15 s. */
  retryDelaysMs?: number[];
  /** Upload chunk size (video_site: a multiple of 256 KiB; short_video_site: 5-64 MB on the real service). */
  chunkSizeBytes?: number;
  /** One request's time limit; default 10 minutes (a chunk upload on a slow line). */
  requestTimeoutMs?: number;
}

export const DEFAULT_DEADLINE_MS = 5 * 60_000;
export const DEFAULT_RETRY_DELAYS_MS = [1000, 4000, 15_000];

export interface SendOptions {
  /** Retry 5xx and dropped connections (safe for reads and for steps whose repeat does no harm). */
  retry?: boolean;
  /** Whether an answer is a failure; default: not 2xx. */
  failed?: (a: HttpAnswer) => boolean;
}

export class Attempt {
  token: string;
  state: PublishState;
  private refreshed = false;
  readonly retryDelays: number[];
  readonly deadlineMs: number;
  readonly now: () => number;

  constructor(readonly job: PublishJob, readonly opts: ConnectorOptions, readonly pollIntervalMs: number, private readonly map: (a: HttpAnswer) => Mapped, defaultDeadlineMs = DEFAULT_DEADLINE_MS) {
    this.token = job.account.accessToken;
    this.state = { ...(job.state ?? {}) };
    this.retryDelays = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.deadlineMs = opts.processingDeadlineMs ?? defaultDeadlineMs;
    this.now = opts.now ?? Date.now;
  }

  get signal(): AbortSignal | undefined {
    return this.job.signal;
  }

  /** Records progress (the scheduler has persisted it when this resolves). */
  async save(patch: PublishState): Promise<void> {
    this.state = { ...this.state, ...patch };
    await this.job.saveState({ ...this.state });
  }

  /** The platform refused the token: refresh once; a second refusal is auth_expired. */
  async authRefused(detail: string): Promise<void> {
    if (this.refreshed) throw new PublishError('auth_expired', `the platform refused the account's token even after a refresh (${detail}); connect the account again`);
    this.refreshed = true;
    this.token = await this.job.refreshAccessToken();
  }

  /** Waits the n-th backoff delay, or returns false when the retries are used up. */
  async backoff(n: number): Promise<boolean> {
    const d = this.retryDelays[n];
    if (d === undefined) return false;
    await sleep(d, this.signal);
    return true;
  }

  /**
   * One API call, with the token applied by `build`. A refused token is refreshed once; with `retry`,
   * 5xx answers and dropped connections are tried again after the backoff delays. Anything else that
   * failed is thrown as the platform mapping's PublishError.
   */
  async send(url: string, build: (token: string) => HttpRequest, opts: SendOptions = {}): Promise<HttpAnswer> {
    const failed = opts.failed ?? ((a: HttpAnswer) => a.status < 200 || a.status >= 300);
    for (let tries = 0; ; ) {
      let a: HttpAnswer;
      try {
        a = await httpCall(url, { timeoutMs: this.opts.requestTimeoutMs ?? 600_000, ...build(this.token), signal: this.signal });
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        if (opts.retry && (await this.backoff(tries++))) continue;
        throw new PublishError('unknown', `${e.message}; will try again later`);
      }
      if (!failed(a)) return a;
      if (a.status >= 500 && opts.retry && (await this.backoff(tries++))) continue;
      const m = this.map(a);
      if (m === 'auth') {
        await this.authRefused(`HTTP ${a.status}`);
        continue;
      }
      throw m;
    }
  }

  /**
   * Calls `check` now and then every poll interval until it returns a value; past this attempt's polling
   * deadline, or `limit.until` (a time on the attempt's clock), that is processing_timeout (retryable: the
   * next attempt resumes polling, it does not re-upload). With `limit.maxIntervalMs` the interval doubles
   * after each poll up to that (a long wait costs few status reads).
   */
  async poll<T>(what: string, check: () => Promise<T | null>, limit: { until?: number; maxIntervalMs?: number; timedOut?: () => PublishError } = {}): Promise<T> {
    const deadline = Math.min(this.now() + this.deadlineMs, limit.until ?? Infinity);
    let interval = this.pollIntervalMs;
    for (;;) {
      const r = await check();
      if (r !== null) return r;
      if (this.now() + interval > deadline) {
        throw limit.timedOut?.() ?? new PublishError('processing_timeout', `${what} was not finished after ${Math.round(this.deadlineMs / 1000)} s of polling; it will be checked again on the next attempt`);
      }
      await sleep(interval, this.signal);
      interval = Math.min(interval * 2, Math.max(this.pollIntervalMs, limit.maxIntervalMs ?? this.pollIntervalMs));
    }
  }
}

/** Reads `length` bytes of `file` from `position` (an upload chunk). */
export async function readChunk(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) throw new PublishError('video_missing', 'the clip file became shorter during the upload; create the clip again');
    got += bytesRead;
  }
  return buf;
}

/** The upload Content-Type from the file's extension (our renders are .mp4). */
export function mimeOf(file: string): string {
  const ext = file.toLowerCase().split('.').pop();
  return ext === 'mov' ? 'video/quicktime' : ext === 'webm' ? 'video/webm' : 'video/mp4';
}

/** Opens the clip for reading; a file that is gone is video_missing. */
export async function openClip(file: string): Promise<{ fh: FileHandle; size: number }> {
  try {
    const fh = await open(file, 'r');
    return { fh, size: (await fh.stat()).size };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new PublishError('video_missing', "the clip's video file is no longer there; create the clip again");
    throw e;
  }
}

/** `text` cut to at most `max` characters (UTF-16 units), on a word boundary when one is near, with an ellipsis. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  const space = room.lastIndexOf(' ');
  return `${(space > max * 0.6 ? room.slice(0, space) : room).trimEnd()}…`;
}
