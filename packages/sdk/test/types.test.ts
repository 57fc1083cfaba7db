import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateSdkTypes } from '../scripts/openapi-types.js';

const committed = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'generated', 'openapi.ts');

describe('the SDK types', () => {
  it('are what openapi-typescript generates from the OpenAPI document the server serves now (else run npm run sdk:types)', async () => {
    const fresh = await generateSdkTypes();
    const current = fs.readFileSync(committed, 'utf8');
    // Equal texts; on a difference, the first differing line says where.
    if (fresh !== current) {
      const a = current.split('\n');
      const b = fresh.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      expect({ line: line + 1, committed: a[line], served: b[line] }).toEqual({ line: 0, committed: 'up to date', served: 'up to date' });
    }
    expect(fresh === current).toBe(true);
  });
});
