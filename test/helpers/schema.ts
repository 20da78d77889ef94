// A small JSON-schema checker for the subset our OpenAPI document uses ($ref, type incl. type arrays,
// required, properties, additionalProperties: false, enum, items, minimum/maximum). Enough to prove a
// real response has exactly the documented shape; returns the list of problems.
type Schema = Record<string, any>;

export function validate(value: unknown, schema: Schema, root: Schema, at = '$'): string[] {
  if (schema.$ref) return validate(value, resolve(schema.$ref as string, root), root, at);
  const problems: string[] = [];
  const types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type);
  if (types.length && !types.some((t) => typeMatches(value, t))) return [`${at}: expected ${types.join('|')}, got ${JSON.stringify(value)?.slice(0, 60)}`];
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${at}: below minimum`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${at}: above maximum`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => problems.push(...validate(v, schema.items, root, `${at}[${i}]`)));
  if (value && typeof value === 'object' && !Array.isArray(value) && schema.properties) {
    const obj = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in obj)) problems.push(`${at}: missing ${r}`);
    for (const [k, v] of Object.entries(obj)) {
      if (schema.properties[k]) problems.push(...validate(v, schema.properties[k], root, `${at}.${k}`));
      else if (schema.additionalProperties === false) problems.push(`${at}: undocumented field ${k}`);
    }
  }
  return problems;
}

function typeMatches(v: unknown, t: string): boolean {
  switch (t) {
    case 'null': return v === null;
    case 'array': return Array.isArray(v);
    case 'object': return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'integer': return Number.isInteger(v);
    default: return typeof v === t;
  }
}

function resolve(ref: string, root: Schema): Schema {
  return ref.replace(/^#\//, '').split('/').reduce((node: any, key) => node?.[key], root) as Schema;
}

/** The schema of an operation's response for a status code in the document. */
export function responseSchema(doc: Schema, path: string, method: string, status: number): Schema {
  const schema = doc.paths?.[path]?.[method]?.responses?.[status]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no ${status} response documented for ${method.toUpperCase()} ${path}`);
  return schema as Schema;
}
