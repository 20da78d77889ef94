// The web studio's files (issue 25): dist/studio as Vite built it. Hashed files under /studio-assets/ are
// cached for a year (their names change with their content), in the precompressed variant (.br, .gz) the
// client accepts; index.html is revalidated every time and answers every SPA route. When the studio was not
// built (a development checkout), a short text says how to build it.
import { readFile, stat } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's dist/studio (from src/server or dist/server alike: two levels up is the package root). */
export const STUDIO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'studio');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.webp': 'image/webp', '.woff2': 'font/woff2',
  '.json': 'application/json', '.map': 'application/json', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
};

/** Paths that are never the studio's pages: the API, its files and the service endpoints keep their own 404s. */
const NOT_PAGES = ['/api', '/studio', '/studio-assets', '/media', '/assets', '/mcp', '/metrics', '/healthz', '/readyz', '/openapi', '/oauth'];

/** A hashed asset's name as Vite writes it: no separators, no dot-files. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * The Content-Security-Policy of the studio's pages. `mediaOrigins`: where clip links point besides this server
 * (the S3 bucket of presigned links), allowed for video and fetches.
 */
export function studioCsp(mediaOrigins: readonly string[] = []): string {
  const extra = mediaOrigins.map((o) => ` ${o}`).join('');
  // media-src also allows https: — the create view previews a pasted direct file URL (any host) when the user asks.
  return `default-src 'self'; img-src 'self' data: blob:${extra}; media-src 'self' blob: https:${extra}; connect-src 'self'${extra}; `
    + "style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";
}

export function isStudioPage(req: http.IncomingMessage, pathname: string): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (NOT_PAGES.some((p) => pathname === p || pathname.startsWith(`${p}/`) || (p === '/openapi' && pathname.startsWith(p)))) return false;
  const accept = Array.isArray(req.headers.accept) ? req.headers.accept.join(',') : req.headers.accept ?? '';
  return /\btext\/html\b/i.test(accept);
}

function encodings(req: http.IncomingMessage): { br: boolean; gzip: boolean } {
  const header = String(req.headers['accept-encoding'] ?? '').toLowerCase();
  // q=0 refuses a coding (RFC 9110 12.5.3).
  const accepts = (name: string) => header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    return coding?.trim() === name && !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
  });
  return { br: accepts('br'), gzip: accepts('gzip') };
}

async function readIfFile(file: string): Promise<Buffer | null> {
  try {
    if (!(await stat(file)).isFile()) return null;
    return await readFile(file);
  } catch {
    return null;
  }
}

const SECURITY = (csp: string): Record<string, string> => ({
  'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin', 'content-security-policy': csp, 'x-frame-options': 'DENY',
});

/** Sends `file` (or its .br/.gz neighbour, as the client accepts) with `headers`; false when the file is not there. */
async function sendVariant(req: http.IncomingMessage, res: http.ServerResponse, file: string, headers: Record<string, string>): Promise<boolean> {
  const accepted = encodings(req);
  for (const [suffix, coding] of [['.br', 'br'], ['.gz', 'gzip']] as const) {
    if (!accepted[coding === 'br' ? 'br' : 'gzip']) continue;
    const body = await readIfFile(file + suffix);
    if (body) return send(req, res, body, { ...headers, 'content-encoding': coding });
  }
  const body = await readIfFile(file);
  return body ? send(req, res, body, headers) : false;
}

function send(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, headers: Record<string, string>): true {
  res.writeHead(200, { ...headers, vary: 'Accept-Encoding', 'content-length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

export class StudioFiles {
  constructor(private readonly dir: string = STUDIO_DIR, private readonly cspOf: () => string = () => studioCsp()) {}

  /** index.html for any studio route; without a built studio, the text that says how to build it. */
  async page(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const headers = { ...SECURITY(this.cspOf()), 'content-type': TYPES['.html']!, 'cache-control': 'no-cache' };
    if (await sendVariant(req, res, path.join(this.dir, 'index.html'), headers)) return;
    const text = 'The web studio is not built in this checkout: run `npm run build`, then restart the server.\n';
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-length': String(Buffer.byteLength(text)) });
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  /** A hashed file of /studio-assets/; false when there is no such file (the caller answers 404). */
  async asset(req: http.IncomingMessage, res: http.ServerResponse, name: string): Promise<boolean> {
    if (!ASSET_NAME.test(name) || name.endsWith('.br') || name.endsWith('.gz')) return false;
    const type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    return sendVariant(req, res, path.join(this.dir, 'studio-assets', name), {
      ...SECURITY(this.cspOf()), 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable',
    });
  }
}
