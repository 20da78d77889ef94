// Serves a file over HTTP with byte ranges (RFC 9110 section 14), so video players can seek in a clip
// without downloading it first.
//
// Decisions (docs/api.md, "Signed media links"):
// - One range (`bytes=a-b`, `bytes=a-`, `bytes=-n`) answers 206 with Content-Range.
// - Several ranges answer 200 with the whole file: RFC 9110 lets a server ignore Range, and players
//   ask for one range at a time; multipart/byteranges would buy nothing here.
// - A Range in another unit or with broken syntax is ignored (200, whole file), as RFC 9110 says.
// - A range that starts at or after the end of the file, a zero-length suffix, any range of an empty
//   file, or `a-b` with b < a answers 416 with `Content-Range: bytes */size`.
// - ETag (size + mtime) and Last-Modified are sent; If-Range with a stale validator gets the whole
//   file, and If-None-Match / If-Modified-Since that still match get 304.
import type http from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { BlobReader } from '../ports/blob-store.js';
import { openFileReader } from '../adapters/fs/blob-store.js';

export type ByteRange = [start: number, end: number];

/**
 * One `Range` header against a file size: the inclusive [start, end] to send, 'unsatisfiable' (416),
 * or null for "send the whole file" (no header, several ranges, another unit, broken syntax).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null;
  const [, a, b] = m as unknown as [string, string, string];
  if (a === '' && b === '') return null;
  if (a === '') {
    // Suffix: the last n bytes (the whole file when it is shorter than n).
    const n = Number(b);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(a);
  const last = b === '' ? size - 1 : Number(b);
  if (start >= size || last < start) return 'unsatisfiable';
  return [start, Math.min(last, size - 1)];
}

/** Strong validator from what changes when the file is replaced: its size and modification time. */
function etagOf(size: number, mtimeMs: number): string {
  return `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** If-Range holds an entity tag or an HTTP date; the range applies only while it still names this file. */
function ifRangeMatches(ifRange: string, etag: string, mtimeMs: number): boolean {
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag; // strong comparison: weak tags never match
  const date = Date.parse(value);
  return !Number.isNaN(date) && date === Math.floor(mtimeMs / 1000) * 1000;
}

/** If-None-Match / If-Modified-Since: true when the client's copy is current (answer 304). */
function notModified(req: http.IncomingMessage, etag: string, mtimeMs: number): boolean {
  const inm = headerValue(req.headers['if-none-match']);
  if (inm !== undefined) {
    // Weak comparison for this header (RFC 9110 13.1.2).
    return inm.trim() === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
  }
  const ims = headerValue(req.headers['if-modified-since']);
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Math.floor(mtimeMs / 1000) * 1000 <= since;
}

function sendNotFound(res: http.ServerResponse, message: string, extra: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: { code: 'resource_not_found', message } });
  res.writeHead(404, { ...extra, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Answers GET or HEAD for a local file (the package's catalog assets). Resolves when the response has ended
 * or the client has gone away; it never rejects for a client abort, and the file descriptor is closed in every case.
 */
export async function serveFile(req: http.IncomingMessage, res: http.ServerResponse, filePath: string, contentType: string): Promise<void> {
  return serveBlob(req, res, () => openFileReader(filePath), contentType);
}

/**
 * Answers GET or HEAD for one object of the blob store (a clip, a cover), opened by `open`: the stat the
 * validators and ranges are computed from and the bytes sent are one version of it. Same promises as serveFile.
 */
export async function serveBlob(req: http.IncomingMessage, res: http.ServerResponse, open: () => Promise<BlobReader>, contentType: string): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendNotFound(res, `${req.method ?? 'this method'} is not supported here; use GET or HEAD`, { allow: 'GET, HEAD' });
    return;
  }
  let reader: BlobReader;
  try {
    reader = await open();
  } catch {
    // Missing, or unreadable: either way there is nothing to serve.
    sendNotFound(res, 'this file is no longer available');
    return;
  }
  let streaming = false;
  try {
    const { size, mtimeMs } = reader.stat;
    const etag = etagOf(size, mtimeMs);
    const common: Record<string, string> = {
      'accept-ranges': 'bytes',
      'content-type': contentType,
      etag,
      'last-modified': new Date(mtimeMs).toUTCString(),
      // The link is signed and per user: shared caches must not keep it.
      'cache-control': 'private, max-age=3600',
    };
    if (notModified(req, etag, mtimeMs)) {
      res.writeHead(304, { etag, 'last-modified': common['last-modified']!, 'cache-control': common['cache-control']! });
      res.end();
      return;
    }
    const ifRange = headerValue(req.headers['if-range']);
    const rangeHeader = headerValue(req.headers.range);
    const range = ifRange !== undefined && !ifRangeMatches(ifRange, etag, mtimeMs) ? null : parseRange(rangeHeader, size);
    if (range === 'unsatisfiable') {
      res.writeHead(416, { ...common, 'content-range': `bytes */${size}`, 'content-length': '0' });
      res.end();
      return;
    }
    const [start, end] = range ?? [0, size - 1];
    const length = size === 0 ? 0 : end - start + 1;
    const headers: Record<string, string> = { ...common, 'content-length': String(length) };
    if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD' || length === 0) {
      res.end();
      return;
    }
    // The stream owns the handle from here and closes it when it ends or is destroyed; pipeline
    // destroys it when the client goes away, so an aborted download leaks nothing.
    streaming = true;
    await pipeline(reader.stream({ start, end }), res).catch(() => {
      // The client went away mid-transfer (or the disk failed): headers are out, nothing more to say.
    });
  } finally {
    if (!streaming) await reader.close();
  }
}
