type Json = Record<string, unknown>;

/** Keywords whose values are data, not schemas: left as they are. */
const VALUES = new Set(['examples', 'example', 'const', 'enum', 'default']);

/**
 * Every object of the schema closed (`additionalProperties: false` where it declares properties and
 * says nothing): a field the document does not name fails validation.
 */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, closed(s)])) : VALUES.has(k) ? v : closed(v)]),
  );
  if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
