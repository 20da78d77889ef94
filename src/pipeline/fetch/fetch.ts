// Stage 1: turn what the user submitted (a local path, a direct file URL or a video-platform page) into
// a local file we can read, with its title, the platform's heatmap and a content key for caching.
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { MediaError, probeMedia } from '../../media/probe.js';
import { DEFAULT_MAX_BYTES, downloadFile, type UrlCheck } from '../../net/download.js';
import { startEgressProxy } from '../../net/egress-proxy.js';
import { downloadWithYtDlp, fetchYtDlpInfo, parsePageUrl, resolveYtDlp } from '../../net/ytdlp.js';
import { ShortsError } from '../../errors.js';
import type { MediaRunner } from '../../ports/media-runner.js';
import type { FetchedSource, SourceInput } from '../../domain/source.js';


export interface FetchOptions {
  /** Folder for downloaded files (created if missing); local files are read in place. */
  workDir: string;
  signal?: AbortSignal;
  /** Runs ffprobe and yt-dlp; default defaultMediaRunner(). */
  media?: MediaRunner;
  /** Download progress 0..1 (not called for local files). */
  onProgress?: (fraction: number) => void;
  /** Default 10 GB (spec 4.2). */
  maxBytes?: number;
  /** URL guard (SSRF) applied to file URLs, their redirects, page URLs and every connection yt-dlp makes. */
  checkUrl?: UrlCheck;
  /**
   * Whole-file retries of a file URL after a transient failure (downloadFile's default 2); 0 where the
   * caller retries the whole stage itself (the engine's stage table).
   */
  downloadRetries?: number;
}

const KEY_SPAN = 1024 * 1024;

async function readAt(fh: import('node:fs/promises').FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return buf.subarray(0, done);
}

/**
 * sha256 over the size, the first MiB and the last MiB: identifies the same video whatever its name
 * or origin, and costs two small reads even for a multi-GB file (hashing all of it would take minutes).
 */
export async function contentKey(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const hash = createHash('sha256').update(`${size}\n`);
    hash.update(await readAt(fh, 0, Math.min(size, KEY_SPAN)));
    hash.update(await readAt(fh, Math.max(0, size - KEY_SPAN), Math.min(size, KEY_SPAN)));
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}

/** The container's title tag, or null. A file ffprobe cannot read is the probe stage's error to report. */
async function containerTitle(file: string, media: MediaRunner | undefined, signal?: AbortSignal): Promise<string | null> {
  try {
    const title = (await probeMedia(file, signal, { media })).containerTitle?.trim();
    return title || null;
  } catch (e) {
    if (e instanceof MediaError) return null;
    throw e;
  }
}

function stripExtension(name: string): string {
  const ext = path.extname(name);
  return ext && ext.length < name.length ? name.slice(0, -ext.length) : name;
}

async function fetchLocalFile(file: string, opts: FetchOptions): Promise<FetchedSource> {
  const full = path.resolve(file);
  let isFile: boolean;
  try {
    isFile = (await stat(full)).isFile();
  } catch {
    throw new ShortsError('invalid_request', `file not found: ${file}`);
  }
  if (!isFile) throw new ShortsError('invalid_request', `not a regular file: ${file}`);
  try {
    await access(full, constants.R_OK);
  } catch {
    throw new ShortsError('invalid_request', `file is not readable: ${file}`);
  }
  return {
    path: full,
    title: (await containerTitle(full, opts.media, opts.signal)) ?? stripExtension(path.basename(full)),
    url: file,
    heatmap: [],
    contentKey: await contentKey(full),
    downloaded: false,
  };
}

async function fetchFileUrl(url: string, opts: FetchOptions): Promise<FetchedSource> {
  await mkdir(opts.workDir, { recursive: true });
  const result = await downloadFile(url, {
    destDir: opts.workDir,
    maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES,
    signal: opts.signal,
    onProgress: opts.onProgress,
    checkUrl: opts.checkUrl,
    ...(opts.downloadRetries !== undefined ? { retries: opts.downloadRetries } : {}),
  });
  try {
    const fromName = result.suggestedName ? stripExtension(result.suggestedName) : null;
    return {
      path: result.path,
      title: (await containerTitle(result.path, opts.media, opts.signal)) ?? (fromName || new URL(url).hostname),
      url,
      heatmap: [],
      contentKey: await contentKey(result.path),
      downloaded: true,
    };
  } catch (e) {
    await rm(result.path, { force: true });
    throw e;
  }
}

async function fetchPageUrl(raw: string, opts: FetchOptions): Promise<FetchedSource> {
  const url = parsePageUrl(raw);
  await opts.checkUrl?.(url);
  const bin = await resolveYtDlp(opts.signal, opts.media);
  const workDir = path.resolve(opts.workDir);
  await mkdir(workDir, { recursive: true });
  const infoPath = path.join(workDir, 'ytdlp-info.json');
  // yt-dlp connects on its own (redirects, the media URLs the page lists, a second DNS answer for the
  // page's host): with a guard, every one of those connections goes through it.
  const proxy = opts.checkUrl ? await startEgressProxy(opts.checkUrl) : undefined;
  try {
    const info = await fetchYtDlpInfo(bin, url, infoPath, { signal: opts.signal, media: opts.media, proxy });
    const file = await downloadWithYtDlp(bin, infoPath, {
      workDir, maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES, signal: opts.signal, media: opts.media, onProgress: opts.onProgress, proxy,
    });
    try {
      return {
        path: file,
        title: info.title ?? (await containerTitle(file, opts.media, opts.signal)) ?? (stripExtension(path.basename(url.pathname)) || url.hostname),
        url: raw,
        heatmap: info.heatmap,
        contentKey: await contentKey(file),
        downloaded: true,
      };
    } catch (e) {
      await rm(file, { force: true });
      throw e;
    }
  } finally {
    await proxy?.close();
    await rm(infoPath, { force: true });
  }
}

/**
 * An uploaded file, already on this machine (the engine hands over the blob's local file): nothing is fetched,
 * and its title is the name it was uploaded under, without its extension.
 */
export async function uploadedSource(file: string, filename: string, url: string): Promise<FetchedSource> {
  return { path: file, title: stripExtension(filename) || 'upload', url, heatmap: [], contentKey: await contentKey(file), downloaded: false };
}

/** Stage 1. Throws ShortsError for bad input, PipelineError('fetching_video') for tool failures, AbortedError on cancel. */
export async function fetchSource(input: SourceInput, opts: FetchOptions): Promise<FetchedSource> {
  switch (input.kind) {
    case 'file': return fetchLocalFile(input.path, opts);
    case 'fileUrl': return fetchFileUrl(input.url, opts);
    case 'pageUrl': return fetchPageUrl(input.url, opts);
    // Its file is a blob of the engine's store: the engine reads it (uploadedSource), nothing is downloaded.
    case 'upload': throw new Error('an upload is read from the blob store by the engine, not fetched');
  }
}
