// Pagination and filter parsing for the list endpoints (spec 4.1, 4.8-4.10), from strings (query
// strings, CLI flags) into typed values; the error names the bad parameter.
import { ShortsError } from '../errors.js';
import type { ListRequestsQuery } from '../api/types.js';
import { PLATFORMS, POST_STATUSES, type PostsQuery } from '../domain/posts-query.js';

const STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;
type Raw = Record<string, string | undefined>;

function int(raw: Raw, name: string, def: number, min: number, max: number): number {
  const s = raw[name];
  if (s === undefined || s === '') return def;
  const n = Number(s);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ShortsError('invalid_request', `${name} must be a whole number from ${min} to ${max}, got "${s}"`, { parameter: name });
  return n;
}

function oneOf<T extends string>(raw: Raw, name: string, values: readonly T[]): T | undefined {
  const s = raw[name];
  if (s === undefined || s === '') return undefined;
  if (!values.includes(s as T)) throw new ShortsError('invalid_request', `${name} must be one of ${values.join(', ')}, got "${s}"`, { parameter: name });
  return s as T;
}

export function parsePage(raw: Raw, defaultLimit: number): { page: number; limit: number } {
  return { page: int(raw, 'page', 1, 1, Number.MAX_SAFE_INTEGER), limit: int(raw, 'limit', defaultLimit, 1, 100) };
}

export function parseListRequests(raw: Raw): ListRequestsQuery {
  return {
    ...parsePage(raw, 20),
    status: oneOf(raw, 'status', STATUSES),
    sortBy: oneOf(raw, 'sortBy', ['createdAt', 'updatedAt'] as const) ?? 'createdAt',
    sortOrder: oneOf(raw, 'sortOrder', ['asc', 'desc'] as const) ?? 'desc',
  };
}

export function paginate<T>(items: readonly T[], page: number, limit: number) {
  const totalCount = items.length;
  return { items: items.slice((page - 1) * limit, page * limit), pagination: { page, limit, totalPages: Math.ceil(totalCount / limit), totalCount } };
}

function isoTime(raw: Raw, name: string): string | undefined {
  const s = raw[name];
  if (s === undefined || s === '') return undefined;
  // ISO 8601 date or date-time; normalised to UTC so string comparison in SQL orders correctly.
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) || Number.isNaN(Date.parse(s)))
    throw new ShortsError('invalid_request', `${name} must be an ISO 8601 date or time, got "${s}"`, { parameter: name });
  return new Date(s).toISOString();
}

/** GET /posts (spec 4.6): every filter validated, errors name the parameter. */
export function parsePostsQuery(raw: Raw): PostsQuery {
  const q: PostsQuery = {
    ...parsePage(raw, 50),
    status: oneOf(raw, 'status', POST_STATUSES),
    platform: oneOf(raw, 'platform', PLATFORMS),
    source: oneOf(raw, 'source', ['manual', 'automation'] as const),
    requestId: raw.requestId || undefined,
    shortId: raw.shortId || undefined,
    since: isoTime(raw, 'since'),
    until: isoTime(raw, 'until'),
    date: oneOf(raw, 'date', ['scheduled', 'published'] as const) ?? 'scheduled',
  };
  if (q.requestId !== undefined && !/^[0-9a-f]{24}$/.test(q.requestId))
    throw new ShortsError('invalid_request', `requestId must be a 24-character hex id, got "${q.requestId}"`, { parameter: 'requestId' });
  if (q.shortId !== undefined && !/^[0-9a-f-]{36}$/i.test(q.shortId))
    throw new ShortsError('invalid_request', `shortId must be a clip id (UUID), got "${q.shortId}"`, { parameter: 'shortId' });
  if (q.since && q.until && q.since > q.until)
    throw new ShortsError('invalid_request', 'since must not be later than until', { parameter: 'since' });
  // date=published means "when it went live", which only published posts have.
  if (q.date === 'published') {
    if (q.status && q.status !== 'published')
      throw new ShortsError('invalid_request', `date=published implies status=published, got status=${q.status}`, { parameter: 'status' });
    q.status = 'published';
  }
  return q;
}
