// Streams a direct video-file URL to disk with got. Everything the spec asks of a file URL is checked
// on the response headers, before a byte of body is stored: HTTP status, a video Content-Type, and a
// Content-Length within the limit. The byte count is enforced again while streaming, because chunked
// responses announce no length. A partial file never survives a failure or a cancel.
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import got, { HTTPError, RequestError, type OptionsInit, type Response } from 'got';
import { AbortedError } from '../media/process.js';
import { ShortsError } from '../errors.js';
import { pinnedLookup } from './pinned-lookup.js';

/** Spec 4.2: a reported Content-Length above 10 GB is rejected. */
export const DEFAULT_MAX_BYTES = 10 * 1000 ** 3;

/**
 * Vets a URL before it is requested (and again for every redirect target). The SSRF guard
 * (src/net/url-guard.ts) plugs in here; it rejects by throwing. When it returns addresses, the
 * connection for that URL is made to those addresses only (no second DNS lookup to rebind).
 */
export type UrlCheck = (url: URL) => Promise<void | { addresses: readonly string[] }>;

export interface DownloadOptions {
  /** Folder the file is written into (it must exist). */
  destDir: string;
  /** File name without extension; the extension comes from the Content-Type. Default "source". */
  baseName?: string;
  maxBytes?: number;
  signal?: AbortSignal;
  /** Fraction 0..1; only called when the server sent a Content-Length, and once with 1 at the end. */
  onProgress?: (fraction: number) => void;
  checkUrl?: UrlCheck;
  /** Extra whole-file attempts after a transient network error or a 5xx. Default 2. */
  retries?: number;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  contentType: string;
  /** Name the server suggested (Content-Disposition), else the URL's last path segment; decoded. */
  suggestedName: string | null;
}

const VIDEO_EXTENSIONS: Record<string, string> = {
  'video/mp4': '.mp4', 'video/webm': '.webm', 'video/quicktime': '.mov', 'video/x-matroska': '.mkv',
  'video/matroska': '.mkv', 'video/x-msvideo': '.avi', 'video/mpeg': '.mpg', 'video/mp2t': '.ts',
  'video/ogg': '.ogv', 'video/3gpp': '.3gp', 'video/x-flv': '.flv', 'video/x-m4v': '.m4v',
};

const RETRY_STATUS = new Set([408, 429, 500, 502, 503, 504, 521, 522, 524]);
const RETRY_CODES = new Set(['ETIMEDOUT', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'ENETUNREACH']);

/** Parses and vets the scheme of a file URL; only http and https are fetched (spec 4.2, rule 5). */
export function parseFileUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ShortsError('invalid_file_url', `not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ShortsError('invalid_file_url', `only http and https file URLs are supported, not ${url.protocol.replace(/:$/, '')}`);
  }
  return url;
}

/** The media type without parameters, lower-cased ("video/mp4; codecs=..." -> "video/mp4"). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** File name from a Content-Disposition header; RFC 6266 `filename*` wins over `filename`. */
export function dispositionFileName(header: string | undefined): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended?.[2]) {
    try {
      return path.basename(decodeURIComponent(extended[2].trim()));
    } catch { /* malformed escape: fall through to the plain form */ }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
  return name ? path.basename(name) : null;
}

function urlFileName(url: URL): string | null {
  const last = url.pathname.split('/').filter(Boolean).pop();
  if (!last) return null;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Counts bytes as they pass and fails the stream as soon as the limit is crossed. */
class ByteLimit extends Transform {
  bytes = 0;
  private lastReported = -1;
  constructor(private readonly maxBytes: number, private readonly total: number | null,
    private readonly onProgress?: (fraction: number) => void) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(new ShortsError('file_too_large', `the file is larger than the ${formatBytes(this.maxBytes)} limit`, { maxBytes: this.maxBytes }));
      return;
    }
    // Whole percent steps: a 5 GB file would otherwise call back hundreds of thousands of times.
    if (this.total && this.onProgress) {
      const percent = Math.floor((this.bytes / this.total) * 100);
      if (percent > this.lastReported && percent < 100) {
        this.lastReported = percent;
        this.onProgress(percent / 100);
      }
    }
    done(null, chunk);
  }
}

export function formatBytes(n: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return `${i === 0 ? v : Number(v.toFixed(1))} ${units[i]}`;
}

/** Rejects a response whose headers already show it is not an acceptable video file. */
function vetResponse(response: Response, maxBytes: number): void {
  const type = mediaType(response.headers['content-type']);
  if (!type) throw new ShortsError('invalid_file_url', 'the file URL sent no Content-Type; a video type (e.g. video/mp4) is required');
  if (!type.startsWith('video/')) throw new ShortsError('invalid_file_url', `${type} is not a video (the file URL must serve a video type such as video/mp4)`, { contentType: type });
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > maxBytes) {
    throw new ShortsError('file_too_large', `the file is ${formatBytes(length)}, above the ${formatBytes(maxBytes)} limit`, { contentLength: length, maxBytes });
  }
}

type GuardedGotOptions = Pick<OptionsInit, 'dnsLookup' | 'agent' | 'hooks'>;

function pinFor(checked: void | { addresses: readonly string[] }): OptionsInit['dnsLookup'] {
  return checked && checked.addresses.length > 0 ? pinnedLookup(checked.addresses) : undefined;
}

/**
 * got options that make a request obey `checkUrl`: `url` is checked now, every redirect target in got's
 * beforeRedirect hook (before anything connects to it), and each hop's connection is pinned to the
 * addresses its own check returned. Agents are private to the request, so no pooled keep-alive socket
 * opened under an older DNS answer is reused. Without a check: no options.
 */
export async function guardedGotOptions(url: URL, checkUrl: UrlCheck | undefined): Promise<GuardedGotOptions> {
  if (!checkUrl) return {};
  const first = await checkUrl(url);
  return {
    dnsLookup: pinFor(first),
    agent: { http: new http.Agent({ keepAlive: false }), https: new https.Agent({ keepAlive: false }) },
    hooks: {
      beforeRedirect: [async (next) => {
        next.dnsLookup = pinFor(await checkUrl(new URL(String(next.url))));
      }],
    },
  };
}

function isTransient(e: unknown): boolean {
  if (e instanceof HTTPError) return RETRY_STATUS.has(e.response.statusCode);
  return e instanceof RequestError && RETRY_CODES.has(e.code);
}

/**
 * Whether a download failed for a cause that may pass (HTTP 408/429/5xx, a dropped or timed-out
 * connection), judged on the error downloadFile throws; the engine's fetch stage retries these.
 */
export function isTransientDownloadError(e: unknown): boolean {
  if (!(e instanceof ShortsError) || e.code !== 'invalid_file_url') return false;
  const { status, code } = e.details ?? {};
  return (typeof status === 'number' && RETRY_STATUS.has(status)) || (typeof code === 'string' && RETRY_CODES.has(code));
}

/** Maps got's errors onto the spec's codes with a message a user can act on. */
function describe(e: unknown, url: URL): unknown {
  if (e instanceof ShortsError || e instanceof AbortedError) return e;
  if (e instanceof HTTPError) {
    const { statusCode, statusMessage } = e.response;
    return new ShortsError('invalid_file_url', `the file URL answered HTTP ${statusCode}${statusMessage ? ` ${statusMessage}` : ''}`, { status: statusCode });
  }
  if (e instanceof RequestError) {
    // A checkUrl rejection thrown inside got's redirect hook arrives wrapped.
    if (e.cause instanceof ShortsError) return e.cause;
    return new ShortsError('invalid_file_url', `could not download ${url.host}: ${e.code || e.message}`, { code: e.code });
  }
  return e;
}

async function attempt(url: URL, part: string, opts: DownloadOptions, maxBytes: number): Promise<{ bytes: number; response: Response }> {
  // Checked again on every attempt: a retry resolves the name afresh, and that answer is vetted too.
  const guarded = await guardedGotOptions(url, opts.checkUrl);
  const stream = got.stream(url, {
    ...guarded,
    signal: opts.signal,
    // Whole-file retries happen in downloadFile: a got stream can only retry through a 'retry' listener
    // that builds a new stream, which does not fit a pipeline already writing to disk.
    retry: { limit: 0 },
    // Byte counts must match Content-Length and the file on disk, so ask for the bytes as stored.
    decompress: false,
    maxRedirects: 5,
    // No total deadline (multi-GB files are slow); instead fail a stalled connection or server.
    timeout: { lookup: 10_000, connect: 15_000, secureConnect: 15_000, response: 30_000, socket: 60_000 },
  });
  const response = await new Promise<Response>((resolve, reject) => {
    stream.once('response', resolve);
    // Stays attached for the stream's life: pipeline() handles later errors, this one only early ones.
    stream.on('error', reject);
  });
  try {
    vetResponse(response, maxBytes);
  } catch (e) {
    stream.destroy();
    throw e;
  }
  const length = Number(response.headers['content-length']);
  const counter = new ByteLimit(maxBytes, Number.isFinite(length) && length > 0 ? length : null, opts.onProgress);
  await pipeline(stream, counter, createWriteStream(part), { signal: opts.signal });
  return { bytes: counter.bytes, response };
}

export interface FileUrlHead { contentType: string; contentLength: number | null; finalUrl: string }

/**
 * Spec 4.2's acceptance check for a file URL, without downloading: a HEAD request that must succeed
 * and show a video Content-Type and a Content-Length within the limit. Same errors as downloadFile.
 */
export async function headFileUrl(rawUrl: string, opts: Pick<DownloadOptions, 'maxBytes' | 'signal' | 'checkUrl'> = {}): Promise<FileUrlHead> {
  const url = parseFileUrl(rawUrl);
  const guarded = await guardedGotOptions(url, opts.checkUrl);
  try {
    const response = await got.head(url, {
      ...guarded,
      signal: opts.signal,
      maxRedirects: 5,
      timeout: { lookup: 10_000, connect: 15_000, secureConnect: 15_000, response: 30_000 },
    });
    vetResponse(response, opts.maxBytes ?? DEFAULT_MAX_BYTES);
    const length = Number(response.headers['content-length']);
    return { contentType: mediaType(response.headers['content-type']), contentLength: Number.isFinite(length) ? length : null, finalUrl: response.url };
  } catch (e) {
    if (opts.signal?.aborted) throw new AbortedError();
    throw describe(e, url);
  }
}

/** Downloads `rawUrl` into opts.destDir. Throws ShortsError (spec codes) or AbortedError. */
export async function downloadFile(rawUrl: string, opts: DownloadOptions): Promise<DownloadResult> {
  const url = parseFileUrl(rawUrl);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const baseName = opts.baseName ?? 'source';
  const part = path.join(opts.destDir, `${baseName}.part`);
  const retries = opts.retries ?? 2;
  for (let tryNo = 0; ; tryNo++) {
    try {
      if (opts.signal?.aborted) throw new AbortedError();
      const { bytes, response } = await attempt(url, part, opts, maxBytes);
      const type = mediaType(response.headers['content-type']);
      const suggestedName = dispositionFileName(response.headers['content-disposition']) ?? urlFileName(new URL(response.url));
      const ext = VIDEO_EXTENSIONS[type] ?? (suggestedName ? path.extname(suggestedName).toLowerCase() : '');
      const final = path.join(opts.destDir, `${baseName}${/^\.[a-z0-9]{1,5}$/.test(ext) ? ext : '.video'}`);
      await rename(part, final);
      opts.onProgress?.(1);
      return { path: final, bytes, contentType: type, suggestedName };
    } catch (e) {
      await rm(part, { force: true });
      if (opts.signal?.aborted) throw new AbortedError();
      if (tryNo < retries && isTransient(e)) {
        await sleep(1000 * 2 ** tryNo, undefined, { signal: opts.signal }).catch(() => undefined);
        continue;
      }
      throw describe(e, url);
    }
  }
}
