import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { closedBodySchema } from '../../platform/http/closed-bodies.js';
import { fieldErrorsFromValidation } from '../../platform/http/errors.js';
import { isDateTime, isDay } from '../../platform/lib/dates.js';
import { validationError } from '../../platform/lib/errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * A body a page builds from its form (a payout, a beneficiary, a row of a CSV) checked against the
 * API route's own schema, as src/app.ts sets up body validation (no coercion, every error), so a
 * form is refused exactly as the same JSON sent to the API would be, field by field (an unknown
 * field included: the schema is closed as the API's is).
 */
const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, removeAdditional: false, strict: false, verbose: true });
addFormats(ajv);
ajv.addFormat('date-time', isDateTime);
ajv.addFormat('date', isDay);
ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });

const compiled = new WeakMap<object, ValidateFunction>();

/** Throws the API's 400 (one error per failing field, dotted paths) when `body` does not fit `schema`. */
export function checkBody<T>(schema: object, body: unknown): T {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(closedBodySchema(schema));
    compiled.set(schema, validate);
  }
  if (!validate(body)) throw validationError(fieldErrorsFromValidation(validate.errors ?? [], 'body'));
  return body as T;
}
