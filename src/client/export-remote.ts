// The export endpoints over HTTP (issue 14): GET …/export?format= answers the file itself, not the
// `{data}` envelope RemoteClient.call unwraps, so it has its own small reader. Errors are the API's
// envelope, turned into the same ShortsError the rest of the client throws.
import got, { HTTPError, RequestError } from 'got';
import { ERROR_CODES, ShortsError, type ErrorCode } from '../errors.js';
import type { ExportFile } from '../api/export-formats.js';
import { apiBaseUrl } from './remote-client.js';

export async function exportRemote(baseUrl: string, apiKey: string, requestId: string, shortId: string | null, format: string, signal?: AbortSignal): Promise<ExportFile> {
  const base = apiBaseUrl(baseUrl);
  const where = shortId === null ? `shorts/${encodeURIComponent(requestId)}/export` : `shorts/${encodeURIComponent(requestId)}/shorts/${encodeURIComponent(shortId)}/export`;
  try {
    const res = await got(`${base}/${where}`, {
      searchParams: { format },
      headers: { 'x-api-key': apiKey, 'user-agent': 'shortwright-cli' },
      responseType: 'buffer',
      // The bytes as served: a cover is already compressed, and a project must match the server's byte for byte.
      decompress: false,
      retry: { limit: 2, methods: ['GET'], statusCodes: [502, 503, 504], backoffLimit: 2_000 },
      timeout: { connect: 15_000, response: 60_000 },
      signal,
    });
    const contentType = String(res.headers['content-type'] ?? 'application/octet-stream');
    return { contentType, filename: filenameOf(res.headers['content-disposition']) ?? `${shortId ?? requestId}.${format}`, body: res.body };
  } catch (e) {
    throw describe(e, base);
  }
}

/** The file name of a Content-Disposition header: filename* (RFC 5987, UTF-8) first, else filename. */
export function filenameOf(header: string | undefined): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try { return safe(decodeURIComponent(star[1]!.trim())); } catch { /* fall back to filename= */ }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i.exec(header);
  const name = plain?.[1] ?? plain?.[2]?.trim();
  return name ? safe(name) : null;
}

/** A server's file name never chooses a folder on this machine. */
function safe(name: string): string | null {
  const base = name.split(/[/\\]/).pop()!.replace(/^\.+/, '');
  return base || null;
}

function describe(e: unknown, base: string): unknown {
  if (e instanceof HTTPError) {
    let body: unknown;
    try { body = JSON.parse((e.response.body as Buffer).toString('utf8')); } catch { /* not JSON */ }
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: Record<string, unknown> } } | undefined)?.error;
    if (error && typeof error.code === 'string') {
      const text = typeof error.message === 'string' ? error.message : `HTTP ${e.response.statusCode}`;
      if (Object.hasOwn(ERROR_CODES, error.code)) return new ShortsError(error.code as ErrorCode, text, error.details);
      return new ShortsError('internal_error', text, { ...error.details, code: error.code, httpStatus: e.response.statusCode });
    }
    return new Error(`the Shorts API at ${base} answered HTTP ${e.response.statusCode} without an error body; is that the /api/v1 base of a shortwright server?`);
  }
  if (e instanceof RequestError) {
    if (e.name === 'AbortError' || e.code === 'ERR_ABORTED') return e;
    return new Error(`cannot reach the Shorts API at ${base}: ${e.code || e.message}`);
  }
  return e;
}
