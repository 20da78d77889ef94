// The one HTTP call the connectors and the OAuth wire code make: fetch, with the answer read whole and a
// dropped connection or timeout turned into a TransportError, so each caller decides between "resume",
// "retry" and "fail" on one kind of failure instead of on undici's assorted errors.

export class TransportError extends Error {
  constructor(message: string, readonly url: string) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or null when it is not JSON. */
  json: unknown;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  /** A string, bytes, or a stream (sent chunked: the upload of a whole file without holding it in memory). */
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
  signal?: AbortSignal;
  /** Gives up (TransportError) when no full answer came in this long; default 120 s. */
  timeoutMs?: number;
}

export async function httpCall(url: string, req: HttpRequest = {}): Promise<HttpAnswer> {
  const timeout = AbortSignal.timeout(req.timeoutMs ?? 120_000);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  let res: Response;
  let text: string;
  try {
    const init: RequestInit & { duplex?: 'half' } = {
      method: req.method ?? 'GET', headers: req.headers, body: req.body as RequestInit['body'], signal, redirect: 'manual',
    };
    if (req.body instanceof ReadableStream) init.duplex = 'half';
    res = await fetch(url, init);
    text = await res.text();
  } catch (e) {
    // The caller's own abort stays an abort: the scheduler is stopping, not the platform failing.
    if (req.signal?.aborted) throw req.signal.reason instanceof Error ? req.signal.reason : new Error('aborted');
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const why = timeout.aborted ? 'timed out' : cause?.code ?? cause?.message ?? (e as Error).message;
    throw new TransportError(`${req.method ?? 'GET'} ${new URL(url).host}: connection failed (${why})`, url);
  }
  let json: unknown = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** `record[key]` when `record` is an object, else undefined: reading untyped platform JSON without casts everywhere. */
export function field(record: unknown, key: string): unknown {
  return record !== null && typeof record === 'object' ? (record as Record<string, unknown>)[key] : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

export function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Resolves after `ms`, or rejects at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
