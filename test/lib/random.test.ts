import { describe, expect, it } from 'vitest';
import { poolRandomBytes } from '../../src/platform/lib/random.js';

describe('poolRandomBytes', () => {
  it('hands out the asked number of bytes, never the same bytes twice, across pool refills', () => {
    const seen = new Set<string>();
    // 2,000 × 12 bytes crosses several 4 KiB pools, with slices that do not divide a pool evenly.
    const kept: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      const bytes = poolRandomBytes(12);
      expect(bytes.length).toBe(12);
      const hex = bytes.toString('hex');
      expect(seen.has(hex)).toBe(false);
      seen.add(hex);
      kept.push(bytes);
    }
    // A slice handed out earlier is not overwritten by a later refill.
    expect(new Set(kept.map((b) => b.toString('hex'))).size).toBe(2000);
    expect([...seen].every((hex, i) => hex === (kept[i] as Buffer).toString('hex'))).toBe(true);
    expect(poolRandomBytes(256).length).toBe(256);
    expect(poolRandomBytes(1).length).toBe(1);
  });

  it('refuses sizes outside 1 to 256', () => {
    for (const n of [0, -1, 257, 1.5]) expect(() => poolRandomBytes(n)).toThrow(RangeError);
  });
});
