/**
 * Unknown body fields are refused, not dropped (issue 38 point 2, as Stripe's `parameter_unknown`):
 * a typo such as `referense` is answered 400 naming the field, with the field code UNKNOWN_FIELD.
 *
 * The one switch: every request body schema is validated closed. Each object schema that declares
 * its properties and says nothing of others gets `additionalProperties: false`; one that says
 * (`additionalProperties: true`, the token endpoint's RFC 6749 form; a `Type.Record`'s pattern) is
 * kept as it is, and so is an object that declares no property at all (free-form by intent).
 * Values (`examples`, `default`, `enum`, `const`) are not schemas and are left untouched.
 */
type Json = Record<string, unknown>;

const VALUE_KEYS = new Set(['examples', 'example', 'default', 'enum', 'const']);

function close(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(close);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) out[k] = VALUE_KEYS.has(k) ? v : k === 'properties' ? closeProperties(v) : close(v);
  const properties = out.properties as Json | undefined;
  const declares = properties && typeof properties === 'object' && Object.keys(properties).length > 0;
  if (declares && out.additionalProperties === undefined && out.patternProperties === undefined) out.additionalProperties = false;
  return out;
}

/** A `properties` map: its keys are field names (one may be called `enum` or `default`), each value a schema. */
function closeProperties(properties: unknown): unknown {
  if (!properties || typeof properties !== 'object') return properties;
  return Object.fromEntries(Object.entries(properties as Json).map(([name, schema]) => [name, close(schema)]));
}

const closed = new WeakMap<object, Json>();

/** The body schema as validated: a closed copy (the route's own schema, and the document made from it, are unchanged). */
export function closedBodySchema<T extends object>(schema: T): T {
  let copy = closed.get(schema);
  if (!copy) {
    copy = close(schema) as Json;
    closed.set(schema, copy);
  }
  return copy as T;
}

/** The field code of an unknown body field (catalogued at /docs/errors). */
export const UNKNOWN_FIELD = 'UNKNOWN_FIELD';
