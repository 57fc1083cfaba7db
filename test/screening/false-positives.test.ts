import { describe, expect, it } from 'vitest';
import { parseListFile } from '../../src/controls/screening/lists/index.js';
import { ListIndex, screenAll } from '../../src/controls/screening/matching.js';
import { ordinaryNames } from '../../support/ordinary-names.js';
import { realSanctionsLists } from '../../support/real-world.js';

/**
 * Screening against the real lists (OFAC's SDN CSV set of July 2021 and the UN consolidated list of
 * February 2026, read from ../shared/real-world): how often an ordinary name is flagged, and that the
 * evasions of issue 33 are caught there too. The rate is written in docs/guides/screening.md.
 */
describe('screening against the real OFAC and UN lists', () => {
  const files = realSanctionsLists();
  const indexes = (['ofac-sdn', 'un'] as const).map((list) => new ListIndex(list, list, parseListFile(list, files[list]).entries));
  const THRESHOLD = 0.9;

  it('flags fewer than 2 in 100 of 5,000 ordinary names', () => {
    const names = ordinaryNames(5000);
    const flagged = names.filter((n) => screenAll(indexes, n, THRESHOLD).length > 0);
    expect(names.length).toBe(5000);
    expect(flagged.length / names.length).toBeLessThan(0.02);
  });

  it('catches a listed name behind a look-alike letter, a business word or a split', () => {
    for (const name of ['Kim Jong Un', 'K\u0456m Jong Un', 'Kim Jong Un Trading', 'Kim Jong-Un', 'Kim Jo-ng Un']) {
      for (const kind of ['individual', 'business'] as const) {
        expect(screenAll(indexes, { name, kind }, THRESHOLD)[0], `${name} as ${kind}`).toMatchObject({ list: 'ofac-sdn', entryId: '20157' });
      }
    }
  });
});
