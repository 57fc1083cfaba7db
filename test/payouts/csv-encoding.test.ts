import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/platform/lib/errors.js';
import { parsePayoutCsv } from '../../src/domains/payouts/payouts.csv.js';

/** Issue 33 point 13: a payouts CSV saved as Latin-1 was read as if it were UTF-8, its accented letters replaced. */

const TEXT = 'clientRef,amount,currency,beneficiaryName,city\nr-1,2.50,EUR,Ada Lovelace,Berlin\nr-2,3.00,EUR,Jürgen Groß,Köln\n';

describe('the payouts CSV encoding', () => {
  it('reads a UTF-8 file (with or without a byte order mark) with its accented letters', () => {
    for (const bytes of [Buffer.from(TEXT, 'utf8'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT, 'utf8')])]) {
      const rows = parsePayoutCsv(bytes);
      expect(rows[1]?.values).toMatchObject({ beneficiaryName: 'Jürgen Groß', city: 'Köln' });
    }
  });

  it('refuses a Latin-1 file as a whole, naming the file field and the first line that is not UTF-8', () => {
    const latin1 = Buffer.from(TEXT, 'latin1');
    let error: unknown;
    try {
      parsePayoutCsv(latin1);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    const details = (error as DomainError).details ?? [];
    expect(details).toEqual([expect.objectContaining({ field: 'file', message: expect.stringMatching(/not UTF-8 \(line 3 .*CSV UTF-8/) })]);
  });
});
