// JSON Schema and OpenAPI building blocks shared by the route table (src/api/routes.ts) and the document
// built from it (src/server/openapi.ts): one spelling of `string`, a closed object, a query parameter, an
// error body, so the table's entries and the document's components read alike.
import type { ErrorCode } from '../errors.js';

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str: Schema = { type: 'string' };
export const num: Schema = { type: 'number' };
export const int: Schema = { type: 'integer' };
export const bool: Schema = { type: 'boolean' };
export const dateTime: Schema = { type: 'string', format: 'date-time' };
/** An absolute link a client can fetch (http(s) from `serve`). */
export const link: Schema = { type: 'string', format: 'uri' };
export const nullable = (s: Schema): Schema => ({ ...s, type: [s.type as string, 'null'] });
export const enumOf = (values: readonly string[]): Schema => ({ type: 'string', enum: [...values] });
/** A closed object: every listed property is required unless named in `optional`. */
export const obj = (properties: Record<string, Schema>, optional: readonly string[] = []): Schema => ({
  type: 'object', additionalProperties: false, properties, required: Object.keys(properties).filter((k) => !optional.includes(k)),
});

export const query = (name: string, schema: Schema, description: string): Schema => ({ name, in: 'query', required: false, schema, description });
export const pageParams = (defaultLimit: number): Schema[] => [
  query('page', { type: 'integer', minimum: 1, default: 1 }, 'Page number, from 1'),
  query('limit', { type: 'integer', minimum: 1, maximum: 100, default: defaultLimit }, 'Items per page, 1-100'),
];

/** The error envelope narrowed to the codes one response can carry. */
export function errorSchema(codes: readonly ErrorCode[]): Schema {
  const details: Schema = codes.includes('rate_limit_exceeded')
    ? {
      ...obj({
        retryAfter: { type: 'integer', minimum: 1, description: 'seconds until the blocking limit resets' },
        reset: { ...dateTime, description: 'when the blocking limit resets' },
        limit: { ...str, description: '"hourly", "daily" or the endpoint limiter\'s name' },
      }),
    }
    : { type: 'object', description: 'e.g. {"field": "ctaText"} or {"parameter": "limit"}' };
  const error = obj({ code: enumOf(codes), message: str, details }, codes.includes('rate_limit_exceeded') ? [] : ['details']);
  return obj({ error });
}

/**
 * Node's HTTP parser answers a request whose headers exceed 16 KB with a bare 431 before any route runs:
 * a real answer of every endpoint (the only 4xx of health, readiness and the document).
 */
export const HEADERS_TOO_LARGE: Schema = { $ref: '#/components/responses/HeadersTooLarge' };
