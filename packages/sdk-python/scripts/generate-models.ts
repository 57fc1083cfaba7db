/**
 * Writes packages/sdk-python/corridor/models.py (TypedDicts of the schemas of the OpenAPI document a
 * Corridor built from this checkout serves). Run after any route schema change, beside
 * `npm run sdk:types`: `npm run sdk:python-models`. packages/sdk-python/test/models.test.ts fails
 * while the committed file differs from what the server serves now.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePythonModels } from './python-models.js';

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'corridor', 'models.py');
const text = await generatePythonModels();
fs.writeFileSync(target, text);
process.stdout.write(`wrote ${path.relative(process.cwd(), target)} (${text.length} characters)\n`);
