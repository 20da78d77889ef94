// Pagination and filter parsing for the list endpoints (spec 4.1, 4.8-4.10), from strings (query
// strings, CLI flags) into typed values; the error names the bad parameter.
import { ShortsError } from './errors.js';
import type { ListRequestsQuery } from './api-types.js';

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
