import { readFile } from 'node:fs/promises';
import type { Static } from 'typebox';
import { CorridorError, type Corridor, type PayoutRequest } from '../../packages/sdk/src/index.js';
import { DomainError } from '../platform/lib/errors.js';
import { csvLine } from '../platform/lib/csv.js';
import { duplicateRefs, parsePayoutCsv, payoutBodyOfRow, payoutCsvDigest, payoutCsvRowKey } from '../domains/payouts/payouts.csv.js';
import { PayoutBody } from '../domains/payouts/payouts.schemas.js';
import { checkBody } from '../faces/web/body-check.js';

export interface ImportSummary {
  rows: number;
  sent: number;
  refused: number;
  /** Rows refused by the file's own check: nothing was sent. */
  invalid: number;
}

/**
 * `corridor payouts import file.csv`: the dashboard's bulk upload from a terminal. The whole file
 * is checked first (its shape, each row against the API's payout schema, client references unique
 * in the file); with any error nothing is sent and each row's error is printed. Then each row is
 * POST /v1/payouts with the Idempotency-Key derived from the file's bytes and the row's line, the
 * same key the dashboard uses: the same file sent again (here or in the dashboard) pays nobody
 * twice. Writes a results CSV (line, clientRef, payoutId, status, error) to `out`.
 */
export async function importPayouts(corridor: Corridor, file: string, out: (text: string) => void, log: (text: string) => void): Promise<ImportSummary> {
  const bytes = await readFile(file);
  const rows = parsePayoutCsv(bytes);
  const duplicates = duplicateRefs(rows);
  const invalid: string[] = [];
  for (const row of rows) {
    const duplicate = duplicates.get(row.line);
    if (duplicate) invalid.push(`line ${row.line}: ${duplicate}`);
    else {
      try {
        checkBody<Static<typeof PayoutBody>>(PayoutBody, payoutBodyOfRow(row));
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        invalid.push(`line ${row.line}: ${(err.details ?? []).map((d) => d.message).join('; ') || err.message}`);
      }
    }
  }
  if (invalid.length) {
    for (const line of invalid) log(line);
    return { rows: rows.length, sent: 0, refused: 0, invalid: invalid.length };
  }
  const digest = payoutCsvDigest(bytes);
  out(csvLine(['line', 'clientRef', 'payoutId', 'status', 'error']));
  let sent = 0;
  let refused = 0;
  for (const [i, row] of rows.entries()) {
    try {
      const payout = (await corridor.payouts.create(payoutBodyOfRow(row) as unknown as PayoutRequest, { idempotencyKey: payoutCsvRowKey(digest, row.line) })) as unknown as { id: string; status: string };
      sent++;
      out(csvLine([row.line, row.values.clientRef, payout.id, payout.status, '']));
    } catch (err) {
      if (!(err instanceof CorridorError) || err.status >= 500 || err.status === 0) throw err;
      refused++;
      out(csvLine([row.line, row.values.clientRef, '', 'refused', err.details.map((d) => d.message).join('; ') || err.message]));
    }
    if ((i + 1) % 50 === 0 || i + 1 === rows.length) log(`${i + 1} of ${rows.length} rows sent`);
  }
  return { rows: rows.length, sent, refused, invalid: 0 };
}
