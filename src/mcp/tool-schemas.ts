// JSON Schemas of the MCP tools, derived, never retyped: the create tool's input from CREATE_OPTIONS (the
// one option table, through the same optionSchema the OpenAPI document uses), query tools' inputs from
// the OpenAPI operations' parameters, and every output from the OpenAPI response schemas (with their
// $refs inlined, since a tool schema must stand alone). test/openapi.test.ts keeps those schemas true to
// the Service's responses, so the SDK client's validation of structuredContent checks real shapes.
import { CREATE_OPTIONS } from '../api/create-options.js';
import { openApiDocument, optionSchema } from '../api/openapi.js';

export type JsonSchema = Record<string, unknown>;
/** MCP requires tool input and output schemas to describe an object. */
export type ObjectSchema = JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> };

interface OpenApiParameter { name: string; in: string; description?: string; schema: JsonSchema }
interface OpenApiShape {
  components: { schemas: Record<string, JsonSchema>; requestBodies: Record<string, { content: Record<string, { schema: JsonSchema }> }> };
  paths: Record<string, Record<string, { parameters?: OpenApiParameter[] }>>;
}

let cached: OpenApiShape | null = null;
function openApi(): OpenApiShape {
  // Only the schemas are read, never the server URL.
  return (cached ??= openApiDocument({ serverUrl: '/api/v1' }) as unknown as OpenApiShape);
}

/** Replaces every `#/components/schemas/X` reference by a copy of X (the schemas have no cycles). */
function inline(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inline);
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const ref = obj.$ref;
  if (typeof ref === 'string') {
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
    const target = name ? openApi().components.schemas[name] : undefined;
    if (!target) throw new Error(`MCP tool schemas: unresolvable reference ${ref}`);
    const { $ref: _ignored, ...rest } = obj;
    return { ...(inline(target) as Record<string, unknown>), ...(inline(rest) as Record<string, unknown>) };
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, inline(v)]));
}

function asObjectSchema(schema: unknown, what: string): ObjectSchema {
  const s = schema as JsonSchema | undefined;
  if (!s || s.type !== 'object' || typeof s.properties !== 'object') throw new Error(`MCP tool schemas: ${what} is not an object schema`);
  return s as ObjectSchema;
}

/**
 * The schema of what a ShortsClient method returns, from the OpenAPI component of that name. HTTP bodies
 * may wrap it as `{data: …}`; tools return the inner shape (what ShortsClient returns), so an envelope
 * with `data` as its only property is unwrapped.
 */
export function outputSchema(component: string): ObjectSchema {
  const raw = openApi().components.schemas[component];
  if (!raw) throw new Error(`MCP tool schemas: no OpenAPI schema named ${component}`);
  let s = asObjectSchema(inline(raw), component);
  const keys = Object.keys(s.properties);
  if (keys.length === 1 && keys[0] === 'data') s = asObjectSchema(s.properties.data, `${component}.data`);
  return s;
}

/** A tool input made of an OpenAPI operation's query parameters (same names, types, limits, defaults). */
export function queryInputSchema(path: string, method = 'get'): ObjectSchema {
  const op = openApi().paths[path]?.[method];
  if (!op) throw new Error(`MCP tool schemas: no OpenAPI operation ${method.toUpperCase()} ${path}`);
  const params = (op.parameters ?? []).filter((p) => p.in === 'query');
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(params.map((p) => [p.name, { ...(inline(p.schema) as JsonSchema), ...(p.description ? { description: p.description } : {}) }])),
  };
}

export const REQUEST_ID_INPUT: ObjectSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { requestId: { type: 'string', pattern: '^[0-9a-f]{24}$', description: 'the 24-character hex id create_shorts returned' } },
  required: ['requestId'],
};

/**
 * The create tool's input: every CREATE_OPTIONS field. `localFiles` (stdio in local mode) adds `file`, a
 * video on this machine, and "auto" as a language, exactly as `shorts create --file` accepts them. The
 * "exactly one source" rule is left to the description and the validator: a top-level oneOf is refused
 * by several agents' function-calling schemas.
 */
export function createInputSchema(localFiles: boolean): ObjectSchema {
  const properties: Record<string, JsonSchema> = {};
  if (localFiles) properties.file = { type: 'string', description: 'path of a video file on the machine running this MCP server (absolute, or relative to its working directory)' };
  for (const def of CREATE_OPTIONS) {
    const s = optionSchema(def) as JsonSchema;
    if (localFiles && def.field === 'language') {
      const { default: _spec, ...rest } = s;
      properties.language = { ...rest, enum: ['auto', ...(s.enum as string[])],
        description: `${def.description}, or "auto" to detect it (default "auto" with file, else "en")` };
    } else properties[def.field] = s;
  }
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    // Locally a file without a range is the whole recording (issue 15); the API keeps the spec's required range.
    ...(localFiles ? {} : { required: ['start', 'end'] }),
  };
}

export const SHORT_ID_INPUT: ObjectSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...REQUEST_ID_INPUT.properties,
    shortId: { type: 'string', pattern: '^[0-9a-f-]{36}$', description: "a clip's id (the `id` of an entry of get_request's shorts)" },
  },
  required: ['requestId', 'shortId'],
};

/** A tool input made of an OpenAPI request body (same fields, types, limits and required ones). */
export function requestBodyInputSchema(name: string): ObjectSchema {
  const body = openApi().components.requestBodies[name]?.content['application/json']?.schema;
  if (!body) throw new Error(`MCP tool schemas: no OpenAPI request body named ${name}`);
  return { ...asObjectSchema(inline(body), name), type: 'object', additionalProperties: false };
}

/** The re-render tool's input: the two ids and the body of POST /shorts/{id}/shorts/{shortId}/render, from the OpenAPI document. */
export function renderInputSchema(): ObjectSchema {
  const s = requestBodyInputSchema('RenderShortRequest');
  return { ...s, properties: { ...SHORT_ID_INPUT.properties, ...s.properties }, required: ['requestId', 'shortId'] };
}
