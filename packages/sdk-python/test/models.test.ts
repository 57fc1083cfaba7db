import path from 'node:path';
import { describe, it } from 'vitest';
import { expectGeneratedUpToDate } from '../../../test/helpers/generated-file.js';
import { generatePythonModels } from '../scripts/python-models.js';

const committed = path.join(import.meta.dirname, '..', 'corridor', 'models.py');

describe('the Python SDK models', () => {
  it('are what the generator writes from the OpenAPI document the server serves now (else run npm run sdk:python-models)', async () => {
    expectGeneratedUpToDate(committed, await generatePythonModels());
    // Generous: the generator builds and starts a whole app, which takes minutes on a loaded machine.
  }, 400_000);
});
