// Video-platform pages through yt-dlp (a maintained extractor; we never scrape pages ourselves).
// Two runs: --dump-single-json resolves the page (title, duration, heatmap, chosen formats) and saves
// the info JSON; the download run loads that JSON (--load-info-json) instead of extracting the page again.
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { mediaBinaries } from '../media/binaries.js';
import { defaultMediaRunner } from '../media/local-runner.js';
import { AbortedError, ProcessError } from '../media/process.js';
import type { MediaRunner } from '../ports/media-runner.js';
import { PipelineError, ShortsError } from '../errors.js';
import { formatBytes } from './download.js';
import { proxiedEnv, type EgressProxy } from './egress-proxy.js';
import type { HeatmapPoint } from '../domain/source.js';
import { setting } from '../settings.js';

export interface YtDlpInfo {
  title: string | null;
  durationSec: number | null;
  heatmap: HeatmapPoint[];
}

/** Best stream up to 1080p (the output is 1080x1920, more is wasted download), merged to MP4. */
export const YTDLP_FORMAT = 'bv*[height<=1080]+ba/b[height<=1080]/b';

function finite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** Pure: the fields we use from yt-dlp's info JSON (a string or an already parsed object). */
export function parseYtDlpInfo(json: unknown): YtDlpInfo {
  const info = (typeof json === 'string' ? JSON.parse(json) : json) as Record<string, unknown> | null;
  if (!info || typeof info !== 'object') throw new TypeError('yt-dlp info is not a JSON object');
  const title = typeof info.title === 'string' && info.title.trim() ? info.title.trim() : null;
  const durationSec = finite(info.duration) && info.duration > 0 ? info.duration : null;
  const raw = Array.isArray(info.heatmap) ? (info.heatmap as unknown[]) : [];
  const heatmap: HeatmapPoint[] = [];
  for (const p of raw) {
    const { start_time: start, end_time: end, value } = (p ?? {}) as Record<string, unknown>;
    if (!finite(start) || !finite(end) || !finite(value) || end <= start) continue;
    heatmap.push({ start, end, value: Math.min(1, Math.max(0, value)) });
  }
  heatmap.sort((a, b) => a.start - b.start);
  return { title, durationSec, heatmap };
}

/** Spec 4.2: short-form pages (path /shorts/...) are not supported. */
export function isShortFormUrl(url: URL): boolean {
  return /^\/shorts(\/|$)/i.test(url.pathname);
}

/** Parses and vets a video-platform page URL. */
export function parsePageUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ShortsError('invalid_video_site_url', `not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ShortsError('invalid_video_site_url', `only http and https page URLs are supported, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (isShortFormUrl(url)) throw new ShortsError('invalid_video_site_url', 'short-form (/shorts/) URLs are not supported: submit the full video page');
  return url;
}

/** `[download]  42.0% of ...` -> 0.42; other lines -> null. */
export function parseYtDlpProgress(line: string): number | null {
  const m = /^\[download\]\s+(\d+(?:\.\d+)?)%/.exec(line.trim());
  return m ? Math.min(1, Number(m[1]) / 100) : null;
}

/** The readable part of yt-dlp's last ERROR line, without the "[extractor] id:" prefix and bug-report boilerplate. */
export function ytDlpErrorReason(stderr: string): string {
  const line = stderr.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('ERROR:')).pop();
  if (!line) return stderr.trim().split('\n').pop()?.trim().slice(0, 200) || 'yt-dlp failed';
  return line
    .replace(/^ERROR:\s*/, '')
    .replace(/^\[[^\]]+\]\s*[^:\s]*:\s*/, '')
    .replace(/;\s*please report this issue.*$/i, '')
    .replace(/\s*\(caused by .*$/i, '')
    .trim()
    .slice(0, 200) || 'yt-dlp failed';
}

// Keyed on what decides the answer, so a changed SHORTS_YTDLP or PATH is looked at again.
let resolved: { key: string; bin: string } | null = null;

/** yt-dlp to use: SHORTS_YTDLP, else `yt-dlp` on PATH. A missing tool is our setup's fault, not the URL's. */
export async function resolveYtDlp(signal?: AbortSignal, media: MediaRunner = defaultMediaRunner()): Promise<string> {
  const configured = setting('SHORTS_YTDLP');
  const key = `${configured ?? ''}\0${process.env.PATH ?? ''}`;
  if (resolved?.key === key) return resolved.bin;
  const bin = configured ?? 'yt-dlp';
  try {
    await media.run('yt-dlp', ['--version'], { program: bin, signal });
  } catch (e) {
    if (e instanceof AbortedError) throw e;
    throw new PipelineError('fetching_video', configured
      ? `SHORTS_YTDLP=${configured} is not a working yt-dlp executable`
      : 'yt-dlp is not installed: install it (apt-get install yt-dlp / pipx install yt-dlp) or set SHORTS_YTDLP', { cause: e });
  }
  resolved = { key, bin };
  return bin;
}

export interface YtDlpRunOptions {
  signal?: AbortSignal;
  /** Runs yt-dlp; default defaultMediaRunner(). */
  media?: MediaRunner;
  /** The guard's egress proxy (egress-proxy.ts): every connection yt-dlp makes goes through it. */
  proxy?: EgressProxy;
}

/**
 * Arguments and environment that put a yt-dlp run behind `proxy`. `--downloader native` keeps every
 * protocol (HLS and DASH included) in yt-dlp's own downloader, which honours --proxy; the proxy variables
 * cover any helper it still starts.
 */
function proxied(opts: YtDlpRunOptions): { args: string[]; env?: NodeJS.ProcessEnv } {
  if (!opts.proxy) return { args: [] };
  return { args: ['--proxy', opts.proxy.url, '--downloader', 'native'], env: proxiedEnv(opts.proxy.url) };
}

/** yt-dlp's reason for a failure, or the guard's when it refused a connection (yt-dlp only saw a 403). */
function failureReason(e: ProcessError, opts: YtDlpRunOptions): string {
  const refused = opts.proxy?.refusals.at(-1);
  return refused ? `a connection was refused: ${refused}` : ytDlpErrorReason(e.stderr);
}

/** Resolves the page and writes yt-dlp's info JSON to `infoPath` (the download run reuses it). */
export async function fetchYtDlpInfo(bin: string, url: URL, infoPath: string, opts: YtDlpRunOptions = {}): Promise<YtDlpInfo> {
  let stdout: string;
  try {
    // Same -f as the download so the saved JSON already holds the chosen formats.
    const { args, env } = proxied(opts);
    ({ stdout } = await (opts.media ?? defaultMediaRunner()).run('yt-dlp', ['--dump-single-json', '--no-playlist', '--no-warnings', '-f', YTDLP_FORMAT, ...args, '--', url.href], { program: bin, signal: opts.signal, env }));
  } catch (e) {
    if (e instanceof ProcessError) throw new ShortsError('invalid_video_site_url', `could not read the video page: ${failureReason(e, opts)}`);
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new ShortsError('invalid_video_site_url', 'could not read the video page: yt-dlp returned no video information');
  }
  if ((parsed as { _type?: unknown })._type === 'playlist') {
    throw new ShortsError('invalid_video_site_url', 'the URL is a playlist, not a single video');
  }
  await writeFile(infoPath, stdout);
  return parseYtDlpInfo(parsed);
}

export interface YtDlpDownloadOptions extends YtDlpRunOptions {
  workDir: string;
  maxBytes: number;
  onProgress?: (fraction: number) => void;
}

/** Removes what a failed or cancelled yt-dlp run left (source.*, fragments, .part files). */
async function removeLeftovers(workDir: string): Promise<void> {
  const names = await readdir(workDir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith('source.')).map((n) => rm(path.join(workDir, n), { force: true, recursive: true })));
}

/** Downloads the video described by `infoPath` into workDir/source.<ext>; returns the file's path. */
export async function downloadWithYtDlp(bin: string, infoPath: string, opts: YtDlpDownloadOptions): Promise<string> {
  const info = JSON.parse(await readFile(infoPath, 'utf8')) as { requested_formats?: unknown[] };
  // "bv+ba" downloads two files one after the other, each 0..100%: spread them over the whole bar.
  const parts = Math.max(1, info.requested_formats?.length ?? 1);
  const pathFile = path.join(opts.workDir, 'source.path');
  const args = [
    '--load-info-json', infoPath, '-f', YTDLP_FORMAT, '--merge-output-format', 'mp4',
    '-o', path.join(opts.workDir, 'source.%(ext)s'), '--no-playlist', '--no-warnings', '--newline',
    '--max-filesize', String(opts.maxBytes), '--socket-timeout', '30',
    '--print-to-file', 'after_move:filepath', pathFile,
  ];
  const { args: proxyArgs, env } = proxied(opts);
  args.push(...proxyArgs);
  // Merge with the ffmpeg the rest of the pipeline uses when it is a configured or bundled path;
  // a bare "ffmpeg" is the one yt-dlp finds on PATH anyway.
  const ffmpeg = (() => { try { return mediaBinaries().ffmpeg; } catch { return null; } })();
  if (ffmpeg && path.isAbsolute(ffmpeg)) args.push('--ffmpeg-location', ffmpeg);

  let partIndex = -1;
  let best = 0;
  let pending = '';
  const onLine = (line: string) => {
    if (/^\[download\] Destination:/.test(line)) partIndex++;
    const pct = parseYtDlpProgress(line);
    if (pct === null || !opts.onProgress) return;
    const fraction = Math.min(1, (Math.max(0, partIndex) + pct) / parts);
    if (fraction > best) {
      best = fraction;
      opts.onProgress(fraction);
    }
  };
  let output: string;
  try {
    // yt-dlp writes its progress lines to stdout.
    const r = await (opts.media ?? defaultMediaRunner()).run('yt-dlp', args, {
      program: bin,
      signal: opts.signal,
      env,
      onStdout: (chunk) => {
        const lines = (pending + chunk).split(/\r?\n|\r/);
        pending = lines.pop() ?? '';
        lines.forEach(onLine);
      },
    });
    output = `${r.stdout}\n${r.stderr}`;
  } catch (e) {
    await removeLeftovers(opts.workDir);
    if (e instanceof ProcessError) throw new PipelineError('fetching_video', `could not download the video: ${failureReason(e, opts)}`, { cause: e });
    throw e;
  }
  const file = (await readFile(pathFile, 'utf8').catch(() => '')).trim().split('\n').pop() ?? '';
  await rm(pathFile, { force: true });
  const size = file ? await stat(file).then((s) => s.size, () => -1) : -1;
  if (size < 0 || size > opts.maxBytes) {
    await removeLeftovers(opts.workDir);
    if (size > opts.maxBytes || /larger than max-filesize/.test(output)) {
      throw new ShortsError('file_too_large', `the video is larger than the ${formatBytes(opts.maxBytes)} limit`, { maxBytes: opts.maxBytes });
    }
    throw new PipelineError('fetching_video', 'could not download the video: yt-dlp finished without writing a file');
  }
  return file;
}
