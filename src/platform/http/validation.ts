import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';

/** A request validator as Fastify calls it: true, or false with `errors` set. */
export interface RequestValidator {
  (data: unknown, dataCxt?: unknown): boolean;
  errors?: ErrorObject[] | null;
  /** Fastify passes the parent (so the root value can be coerced) when this is set. */
  schemaEnv?: unknown;
}

type Schema = Record<string, unknown>;

/** The JSON type of a parsed value, as a schema's `type` names it. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Counts the values in `data`, stopping once past `max` (so counting a huge body costs no more than a small one). */
function valuesAtMost(data: unknown, max: number): boolean {
  const stack: unknown[] = [data];
  let seen = 0;
  while (stack.length > 0) {
    const value = stack.pop();
    if (++seen > max) return false;
    if (Array.isArray(value)) for (const v of value) stack.push(v);
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) stack.push(v);
  }
  return true;
}

/**
 * A union whose branches each take one JSON type (`{...} | [...]`): the branch per type, so a value
 * is reported against the branch the caller meant (an object body against the object schema), not
 * against every branch ("must be an array" on a single payout).
 */
function branchesByType(schema: Schema): Map<string, Schema> | undefined {
  const anyOf = schema.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length < 2) return undefined;
  const byType = new Map<string, Schema>();
  for (const branch of anyOf as Schema[]) {
    if (typeof branch.type !== 'string' || byType.has(branch.type)) return undefined;
    byType.set(branch.type, branch);
  }
  return byType;
}

/**
 * Validation that costs what a request is worth (issue 14.1):
 * - an array longer than its schema's `maxItems` is refused before any item is looked at;
 * - validation stops at the first failure; only a body of at most `reportValuesMax` values is
 *   validated again with every error collected (so a caller sees each failing field of a normal
 *   body, and a hostile one costs a single early-stopping pass);
 * - a union of one object or an array is validated against the branch of the value's type.
 */
export function compileRequestValidator(fast: Ajv, full: Ajv, schema: Schema, reportValuesMax: number): RequestValidator {
  const compile = (s: Schema) => {
    const first = fast.compile(s);
    let every: ValidateFunction | undefined;
    const maxItems = s.type === 'array' && typeof s.maxItems === 'number' ? s.maxItems : undefined;
    const validate: RequestValidator = (data, dataCxt) => {
      if (maxItems !== undefined && Array.isArray(data) && data.length > maxItems) {
        const error: ErrorObject = { keyword: 'maxItems', instancePath: '', schemaPath: '#/maxItems', params: { limit: maxItems }, message: `must NOT have more than ${maxItems} items` };
        validate.errors = [error];
        return false;
      }
      if (first(data, dataCxt as never)) return true;
      validate.errors = first.errors;
      if (valuesAtMost(data, reportValuesMax)) {
        every ??= full.compile(s);
        if (!every(data, dataCxt as never)) validate.errors = every.errors;
      }
      return false;
    };
    validate.schemaEnv = first.schemaEnv;
    return validate;
  };
  const whole = compile(schema);
  const branches = branchesByType(schema);
  if (!branches) return whole;
  const byType = new Map([...branches].map(([type, branch]) => [type, compile(branch)]));
  const validate: RequestValidator = (data, dataCxt) => {
    const type = jsonType(data);
    const branch = byType.get(type) ?? (type === 'integer' ? byType.get('number') : undefined) ?? whole;
    const ok = branch(data, dataCxt);
    validate.errors = ok ? null : branch.errors;
    return ok;
  };
  validate.schemaEnv = whole.schemaEnv;
  return validate;
}
