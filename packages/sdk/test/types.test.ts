import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { expectGeneratedUpToDate } from '../../../test/helpers/generated-file.js';
import { generateSdkTypes } from '../scripts/openapi-types.js';

const committed = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'generated', 'openapi.ts');

describe('the SDK types', () => {
  it('are what openapi-typescript generates from the OpenAPI document the server serves now (else run npm run sdk:types)', async () => {
    expectGeneratedUpToDate(committed, await generateSdkTypes());
    // Generous: the generator builds and starts a whole app, which takes minutes on a loaded machine.
  }, 400_000);
});
