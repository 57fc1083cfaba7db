import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { parseInbound, type StatementMessage } from '../../src/connectors/bank/inbound/iso20022.parse.js';
import { bankRef, camt053, type Booking } from '../../src/connectors/clearbank/camt053.js';

const XSD = path.join(import.meta.dirname, '../../src/connectors/bank/inbound/xsd/camt.053.001.08.xsd');

const at = new Date('2026-11-28T10:15:00Z');
const payee = { name: 'Alan & Co <Ltd>', sortCode: '700000', accountNumber: '12345601' };
const bookings: Booking[] = [
  { at, direction: 'debit', amountMinor: 1050n, transactionId: '0b6f8c1e-2d3a-4b5c-8d7e-6f5a4b3c2d1e', endToEndId: 'a'.repeat(32), counterparty: payee, reference: 'INV 1', family: 'ICDT', subFamily: 'DMCT' },
  { at: new Date('2026-11-28T10:16:00Z'), direction: 'credit', amountMinor: 1050n, transactionId: '1c7f9d2f-3e4b-4c6d-9e8f-7a6b5c4d3e2f', endToEndId: 'a'.repeat(32), counterparty: payee, reference: 'INV 1', family: 'ICDT', subFamily: 'RRTN', returnReason: { code: 'AC04', words: 'Account closed' } },
  { at: new Date('2026-11-28T11:00:00Z'), direction: 'credit', amountMinor: 4200n, transactionId: '2d8a0e3a-4f5c-4d7e-8f9a-8b7c6d5e4f3a', endToEndId: 'b'.repeat(32), counterparty: { name: 'Ada Lovelace', sortCode: '700000', accountNumber: '87654321' }, reference: 'INVOICE 42', family: 'RCDT', subFamily: 'DMCT' },
  // The next day's booking is not on this day's statement.
  { at: new Date('2026-11-29T00:00:00Z'), direction: 'debit', amountMinor: 99n, transactionId: '3e9b1f4b-5a6d-4e8f-9a0b-9c8d7e6f5a4b', endToEndId: 'c'.repeat(32), counterparty: payee, reference: 'LATER', family: 'ICDT', subFamily: 'DMCT' },
];
const xml = camt053({ messageId: 'CAMT053_20261128_20261129_abcdefgh', createdAt: new Date('2026-11-29T01:00:00Z'), iban: 'GB29NWBK60161331926819', start: new Date('2026-11-28T00:00:00Z'), end: new Date('2026-11-29T00:00:00Z'), sequence: 3, openingMinor: 100_000_000n, bookings });

describe("the sandbox ClearBank's camt.053 statement", () => {
  it('validates against the camt.053.001.08 schema', async () => {
    const result = await validateXML({ xml: [{ fileName: 'statement.xml', contents: xml }], schema: [{ fileName: 'camt.053.001.08.xsd', contents: fs.readFileSync(XSD, 'utf8') }] });
    expect(result.errors.map((e) => e.message)).toEqual([]);
  });

  it("reads back through the bank connector's reader: the day's bookings, balances that add up, the references Corridor matches on", () => {
    const message = parseInbound(xml) as StatementMessage;
    expect(message).toMatchObject({ kind: 'camt.053', version: 'camt.053.001.08', messageId: 'CAMT053_20261128_20261129_abcdefgh' });
    const [statement] = message.statements;
    expect(statement?.account.iban).toBe('GB29NWBK60161331926819');
    expect(statement?.electronicSeq).toBe(3n);
    expect(statement?.balances.map((b) => [b.type, b.signedMinor, b.date])).toEqual([
      ['OPBD', 100_000_000n, '2026-11-28'],
      ['CLBD', 100_004_200n, '2026-11-28'],
    ]);
    expect(statement?.entries.map((e) => [e.direction, e.amount.minor, e.ref, e.transactions[0]?.endToEndId, e.bankTransactionCode, e.transactions[0]?.returnReason?.code])).toEqual([
      ['debit', 1050n, bankRef(bookings[0]?.transactionId ?? ''), 'a'.repeat(32), 'PMNT/ICDT/DMCT', undefined],
      ['credit', 1050n, bankRef(bookings[1]?.transactionId ?? ''), 'a'.repeat(32), 'PMNT/ICDT/RRTN', 'AC04'],
      ['credit', 4200n, bankRef(bookings[2]?.transactionId ?? ''), 'b'.repeat(32), 'PMNT/RCDT/DMCT', undefined],
    ]);
    expect(statement?.entries[0]?.transactions[0]?.reference).toBe('INV 1');
  });
});
