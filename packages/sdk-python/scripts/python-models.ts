/**
 * The text of packages/sdk-python/corridor/models.py: one TypedDict per object schema of the
 * integrator's OpenAPI document (`components.schemas`, the operator's left out as for the TypeScript
 * SDK), an alias for every other schema. Python 3.9+: `typing` only, forward references quoted.
 */
import { integratorOpenApi } from '../../sdk/scripts/openapi-types.js';

type Schema = Record<string, unknown>;

export const PYTHON_HEADER = `"""Generated from Corridor's own /openapi.json (components.schemas): do not edit.

Regenerate with \`npm run sdk:python-models\` (packages/sdk-python/scripts/generate-models.ts).
Each object schema is a TypedDict (the JSON object as the API sends it, a plain dict at run time).
"""

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

`;

/** A schema name as a Python class name (`def-0` → `Def0`). */
export function pythonName(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = parts.map((p) => p[0]!.toUpperCase() + p.slice(1)).join('');
  return /^[0-9]/.test(joined) ? `Schema${joined}` : joined;
}

const PRIMITIVE: Record<string, string> = { string: 'str', integer: 'int', number: 'float', boolean: 'bool', null: 'None' };

const literal = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : typeof value === 'boolean' ? (value ? 'True' : 'False') : value === null ? 'None' : String(value));

/** The values of a const or enum schema, or undefined. */
function literalValues(schema: Schema): unknown[] | undefined {
  if ('const' in schema) return [schema.const];
  if (Array.isArray(schema.enum)) return schema.enum;
  return undefined;
}

/** `Union[...]` of distinct members (one member stands alone; `X` or None is `Optional[X]`). */
function union(members: string[]): string {
  const distinct = [...new Set(members)];
  if (distinct.includes('Any')) return 'Any';
  const others = distinct.filter((m) => m !== 'None');
  if (others.length === 0) return 'None';
  const inner = others.length === 1 ? others[0]! : `Union[${others.join(', ')}]`;
  return others.length < distinct.length ? `Optional[${inner}]` : inner;
}

/** The Python type of a schema, inside a type expression (references quoted). */
export function pythonType(schema: unknown): string {
  if (!schema || typeof schema !== 'object') return 'Any';
  const s = schema as Schema;
  if (typeof s.$ref === 'string') return `'${pythonName(s.$ref.replace('#/components/schemas/', ''))}'`;
  const values = literalValues(s);
  if (values) return `Literal[${values.map(literal).join(', ')}]`;
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives)) {
    // Alternatives that are all literals are one Literal (a string enum written as anyOf of consts).
    const all = alternatives.map((a) => (a && typeof a === 'object' ? literalValues(a as Schema) : undefined));
    if (all.every((v) => v !== undefined)) return `Literal[${[...new Set(all.flat())].map(literal).join(', ')}]`;
    return union(alternatives.map(pythonType));
  }
  if (Array.isArray(s.allOf)) return s.allOf.length === 1 ? pythonType(s.allOf[0]) : 'Dict[str, Any]';
  if (Array.isArray(s.type)) return union(s.type.map((t) => pythonType({ ...s, type: t })));
  if (s.type === 'array') return `List[${pythonType(s.items)}]`;
  if (s.type === 'object') {
    const extra = s.additionalProperties;
    return extra && typeof extra === 'object' && !s.properties ? `Dict[str, ${pythonType(extra)}]` : 'Dict[str, Any]';
  }
  return typeof s.type === 'string' && PRIMITIVE[s.type] ? PRIMITIVE[s.type]! : 'Any';
}

/** A docstring line of a schema's description or title (triple quotes and backslashes made harmless). */
function docstring(schema: Schema): string | undefined {
  const text = typeof schema.description === 'string' ? schema.description : typeof schema.title === 'string' ? schema.title : undefined;
  return text?.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"').trim() || undefined;
}

/** `TypedDict('Name', {...}, total=...)`: the functional form takes keys that are not identifiers (`from`, `x-y`). */
function functional(name: string, fields: [string, string][], total: boolean): string {
  const body = fields.map(([key, type]) => `    ${JSON.stringify(key)}: ${type},`).join('\n');
  return `${name} = TypedDict(${JSON.stringify(name)}, {\n${body}\n}${total ? '' : ', total=False'})\n`;
}

/** One schema as Python: a TypedDict (required keys in one base, optional ones in another) or an alias. */
function pythonSchema(name: string, schema: Schema): string {
  const cls = pythonName(name);
  const doc = docstring(schema);
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (schema.type !== 'object' || !properties) return `${doc ? `# ${doc.split('\n').join('\n# ')}\n` : ''}${cls} = ${pythonType(schema)}\n`;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const keys = Object.keys(properties).sort();
  const requiredFields = keys.filter((k) => required.has(k)).map((k): [string, string] => [k, pythonType(properties[k])]);
  const optionalFields = keys.filter((k) => !required.has(k)).map((k): [string, string] => [k, pythonType(properties[k])]);
  const parts: string[] = [];
  const bases: string[] = [];
  if (requiredFields.length) {
    parts.push(functional(`_${cls}Required`, requiredFields, true));
    bases.push(`_${cls}Required`);
  }
  if (optionalFields.length) {
    parts.push(functional(`_${cls}Optional`, optionalFields, false));
    bases.push(`_${cls}Optional`);
  }
  parts.push(`class ${cls}(${bases.length ? bases.join(', ') : 'TypedDict'}):\n    """${doc ?? name}"""\n`);
  return parts.join('\n');
}

/** models.py for a document's `components.schemas`. */
export function pythonModels(doc: Record<string, unknown>): string {
  const schemas = ((doc.components as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const names = Object.keys(schemas).sort();
  const seen = new Map<string, string>();
  for (const name of names) {
    const cls = pythonName(name);
    const other = seen.get(cls);
    if (other !== undefined) throw new Error(`schemas ${other} and ${name} would both be the Python class ${cls}`);
    seen.set(cls, name);
  }
  const all = `__all__ = [\n${names.map((n) => `    ${JSON.stringify(pythonName(n))},`).join('\n')}\n]\n`;
  return `${PYTHON_HEADER}${all}\n\n${names.map((n) => pythonSchema(n, schemas[n]!)).join('\n\n')}`;
}

/** The text of corridor/models.py for the document served now. */
export async function generatePythonModels(): Promise<string> {
  return pythonModels(await integratorOpenApi());
}
