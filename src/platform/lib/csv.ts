/**
 * CSV cells as every export of Corridor writes them (payouts, orders, deposits, events, statements,
 * import results, reconciliation lines): one guard against spreadsheet formulas, one quoting rule.
 */

/** A cell a spreadsheet would read as a formula or a command: = + - @, a tab or a carriage return first; a plain number (`-12.50`) is data. */
const LIVE = /^[=+\-@\t\r]/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * A value for a CSV cell: a cell that starts as a formula would (=, +, -, @, tab, carriage return),
 * other than a plain number, is defused with a leading apostrophe; quoted when it holds a comma, a
 * quote or a line break.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (LIVE.test(text) && !NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV row of cells, ended by CRLF. */
export function csvLine(values: readonly (string | number | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
