/**
 * Writes test/http/operation-ids.txt: every operationId of the OpenAPI document a Corridor built from
 * this checkout serves, with its method and path. test/http/openapi-contract.test.ts fails while the
 * committed list differs, so no id changes or disappears unnoticed. Run after adding a route:
 * `npm run openapi:ids`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedOpenApi } from '../packages/sdk/scripts/openapi-types.js';
import { operationIdLines } from '../src/faces/docs/openapi.js';

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test', 'http', 'operation-ids.txt');
const text = operationIdLines(await servedOpenApi());
fs.writeFileSync(target, text);
process.stdout.write(`wrote ${path.relative(process.cwd(), target)} (${text.trim().split('\n').length} operations)\n`);
