// The studio's one way to the server: same-origin fetch with the session cookie (never a key in the page),
// the API's `{data}` envelope unwrapped, and its `{error:{code,message}}` turned into an ApiError the views
// can show as it is.
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | boolean | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function call<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const res = await fetch(withQuery(path, query), {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // A proxy's HTML error page: reported below with the status.
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
    if (res.status === 401 && path !== '/studio/session') onSignedOut?.();
    throw new ApiError(res.status, err?.code ?? 'http_error', err?.message ?? `the server answered ${res.status}`, err?.details);
  }
  return (json as { data: T }).data;
}

/** Set by the app shell: a 401 anywhere means the session ended (expired, signed out elsewhere, key revoked). */
let onSignedOut: (() => void) | undefined;
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

/** An /api/v1 path. */
export const v1 = (path: string): string => `/api/v1${path}`;

export const api = {
  get: <T>(path: string, query?: Query) => call<T>('GET', path, undefined, query),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}),
  del: <T>(path: string) => call<T>('DELETE', path),
};

/** What a failed call should say to a person: the server's message, or why it could not be reached. */
export function messageOf(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return e instanceof Error ? e.message : String(e);
}
