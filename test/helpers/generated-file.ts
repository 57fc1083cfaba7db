import fs from 'node:fs';
import { expect } from 'vitest';

/**
 * Expects the committed generated file at `committedPath` to be `fresh`, the text its generator writes
 * now; on a difference, the first differing line says where.
 */
export function expectGeneratedUpToDate(committedPath: string, fresh: string): void {
  const current = fs.readFileSync(committedPath, 'utf8');
  if (fresh !== current) {
    const a = current.split('\n');
    const b = fresh.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    expect({ line: line + 1, committed: a[line], served: b[line] }).toEqual({ line: 0, committed: 'up to date', served: 'up to date' });
  }
  expect(fresh === current).toBe(true);
}
