// Serves a file with HTTP range support (RFC 9110 single ranges) so players can seek in a clip.
import { createReadStream, statSync } from 'node:fs';
import type http from 'node:http';
import { pipeline } from 'node:stream/promises';

/** Parses one `bytes=` range against a size: [start, end] inclusive, 'unsatisfiable', or null for "whole file". */
export function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null; // several ranges or another unit: answer with the whole file (allowed)
  const [, a, b] = m as unknown as [string, string, string];
  if (a === '' && b === '') return null;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'unsatisfiable';
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return [start, end];
}

export async function serveFile(req: http.IncomingMessage, res: http.ServerResponse, filePath: string, contentType: string): Promise<void> {
  let size: number, mtime: Date;
  try {
    ({ size, mtime } = statSync(filePath));
  } catch {
    const body = JSON.stringify({ error: { code: 'resource_not_found', message: 'the file is gone' } });
    res.writeHead(404, { 'content-type': 'application/json' }).end(body);
    return;
  }
  const etag = `"${size.toString(16)}-${Math.floor(mtime.getTime() / 1000).toString(16)}"`;
  const common = { 'accept-ranges': 'bytes', 'content-type': contentType, etag, 'last-modified': mtime.toUTCString(), 'cache-control': 'private, max-age=3600' };
  // If-Range with a stale validator means "send me the whole new file".
  const ifRange = req.headers['if-range'];
  const range = ifRange && ifRange !== etag ? null : parseRange(req.headers.range, size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...common, 'content-range': `bytes */${size}` }).end();
    return;
  }
  const [start, end] = range ?? [0, size - 1];
  const headers: Record<string, string | number> = { ...common, 'content-length': size === 0 ? 0 : end - start + 1 };
  if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD' || size === 0) {
    res.end();
    return;
  }
  try {
    await pipeline(createReadStream(filePath, { start, end }), res);
  } catch {
    // the client went away mid-transfer; pipeline has closed the file
  }
}
