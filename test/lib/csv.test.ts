import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/platform/lib/csv.js';

/** Issue 33 point 10: every CSV export (payouts, orders, deposits, events, statements, reconciliation) defuses cells a spreadsheet would run. */
describe('CSV cells of every export', () => {
  it('defuses a cell starting with =, +, -, @, a tab or a carriage return', () => {
    const live = ['=HYPERLINK("http://evil","x")', '+cmd|calc', '-2+3', '-1abc', '@SUM(A1)', '\t=1+1', '\r=1+1', '-', '+'];
    for (const value of live) {
      const cell = csvCell(value);
      const unquoted = cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell;
      expect(unquoted.startsWith("'"), JSON.stringify(value)).toBe(true);
    }
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe('"\'\rx"');
  });

  it('leaves plain numbers, negative amounts and ordinary text as they are', () => {
    expect(csvCell('-12.50')).toBe('-12.50');
    expect(csvCell('100')).toBe('100');
    expect(csvCell(7)).toBe('7');
    expect(csvCell('Ada Lovelace')).toBe('Ada Lovelace');
    expect(csvCell(null)).toBe('');
  });

  it('quotes a cell holding a comma, a quote or a line break, and ends a row with CRLF', () => {
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines', '=x'])).toBe('"a,b","say ""hi""","two\nlines",\'=x\r\n');
  });
});
