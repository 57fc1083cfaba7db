import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bai2Error, balanceOf, readBai2 } from '../../src/connectors/ach/bai2.js';
import { parseAchConfig } from '../../src/connectors/ach/config.js';
import { takeInStatements } from '../../src/connectors/ach/statements.js';
import { getStatement, listExceptions, statementLines } from '../../src/controls/reconciliation/reconciliation.service.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { realWorldFile, realWorldPath } from '../helpers/real-world.js';

const real = (name: string) => realWorldFile(`bai2/${name}`).toString('latin1');

/** What each published sample is: read (with a fact of it checked), or refused with the reason. */
const SAMPLES: Record<string, { read: (file: ReturnType<typeof readBai2>) => void } | { refused: RegExp }> = {
  'sample1.txt': {
    read: (f) => {
      expect(f.groups).toHaveLength(1);
      const [day1, day2] = f.groups[0]?.accounts ?? [];
      expect(day1?.currency).toBe('CAD');
      expect(day1?.transactions).toHaveLength(11);
      expect(day1?.transactions[0]).toMatchObject({ typeCode: '409', direction: 'debit', amountMinor: 2500n, fundsType: 'V', valueDate: '2006-03-16', text: 'RETURNED CHEQUE' });
      expect(day1?.transactions[3]).toMatchObject({ typeCode: '108', direction: 'credit', amountMinor: 203500n });
      // The 03's summaries continue in its 88: 100 (total credits) and 400 (total debits) with their counts.
      expect(day1?.summaries.map((s) => [s.typeCode, s.amountMinor, s.itemCount])).toEqual([['040', 0n, undefined], ['045', 0n, undefined], ['100', 208500n, 3], ['400', 208500n, 8]]);
      expect(day2?.transactions).toHaveLength(6);
    },
  },
  'sample2.txt': {
    read: (f) => {
      expect(f.groups.map((g) => [g.receiver, g.status, g.asOfDate, g.currency])).toEqual([
        ['031001234', '1', '2004-06-20', 'USD'],
        ['053003456', '1', '2004-06-20', 'USD'],
        ['071207890', '1', '2004-06-20', 'USD'],
        ['071207890', '3', '2004-06-20', 'USD'],
      ]);
      const lockbox = f.groups[0]?.accounts[1];
      // A summary whose amount is in the next 88 (…,190/ then 88,500000,…), and a negative one.
      expect(balanceOf(lockbox!, '190')).toBe(500000n);
      expect(balanceOf(lockbox!, '010')).toBe(-500000n);
      expect(lockbox?.transactions[0]).toMatchObject({ typeCode: '115', amountMinor: 500000n, fundsType: 'S', text: 'LOCK BOX NO.68751' });
      const credit = f.groups[1]?.accounts[0]?.transactions[0];
      // Funds type V with its value date; the text in the 88 after it.
      expect(credit).toMatchObject({ typeCode: '218', amountMinor: 20000000n, valueDate: '2004-06-22', bankReference: 'SP4738', customerReference: 'YRC065321', text: 'PROCEEDS OF LETTER OF CREDIT FROM THE ARAMCO OIL CO' });
    },
  },
  'sample3.txt': {
    read: (f) => {
      // Several records on one physical line, and a 16's text broken over a line break.
      const accounts = f.groups[0]?.accounts ?? [];
      expect(accounts).toHaveLength(15);
      expect(accounts[0]?.transactions.map((t) => [t.typeCode, t.direction, t.amountMinor])).toEqual([
        ['142', 'credit', 2500n],
        ['142', 'credit', 500n],
        ['142', 'credit', 100n],
        ['451', 'debit', 2500n],
        ['451', 'debit', 600n],
        ['451', 'debit', 100n],
      ]);
      expect(balanceOf(accounts[0]!, '010')).toBe(-3500n);
    },
  },
  // The two files of the Python bai2 library's issue 113: their account trailer's total (-1260161341762) is not what the records add up to.
  'sample4-continuations-newline-delimited.txt': { refused: /line 22: the account 107049932's control total is -1260161341762, its records add up to 7999960/ },
  'sample5-issue113.txt': { refused: /line 22: the account 107049932's control total is -1260161341762, its records add up to 7999960/ },
};

describe('BAI2 statements', () => {
  it('reads every published sample, or refuses it naming the record and the reason', () => {
    expect(fs.readdirSync(realWorldPath('bai2')).sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const [name, expected] of Object.entries(SAMPLES)) {
      if ('read' in expected) expected.read(readBai2(real(name)));
      else {
        expect(() => readBai2(real(name)), name).toThrow(Bai2Error);
        expect(() => readBai2(real(name)), name).toThrow(expected.refused);
      }
    }
  });

  it('reads amounts at the minor unit of their currency, and refuses a currency that is not ISO 4217', () => {
    const jpy = ['01,BANK,CORRIDOR,261127,0600,F1,,,2/', '02,CORRIDOR,BANK,1,261126,,JPY,2/', '03,777,,010,150000,,,015,149000,,/', '16,475,1000,0,R1,C1,FEE/', '49,300000,3/', '98,300000,1,5/', '99,300000,1,7/'].join('\n');
    const account = readBai2(jpy).groups[0]?.accounts[0];
    expect(account).toMatchObject({ currency: 'JPY', transactions: [{ amountMinor: 1000n, direction: 'debit' }] });
    expect(() => readBai2(jpy.replace(',JPY,', ',XXZ,'))).toThrow(/line 2: currency "XXZ" is not an ISO 4217 code/);
    expect(() => readBai2(jpy.replace('16,475,', '16,875,'))).toThrow(/type code 875, which is neither a credit \(100–399\) nor a debit \(400–699\)/);
    expect(() => readBai2(jpy.replace('99,300000,1,7/', ''))).toThrow(/ends without its file trailer \(99\)/);
  });
});

describe('BAI2 statements in reconciliation', () => {
  let t: TestApp;
  const config = parseAchConfig(
    {
      directory: '/tmp/unused',
      odfi: { routingNumber: '121042882', name: 'MY BANK' },
      originator: { name: 'CORRIDOR', companyId: '1234567890' },
      statementAccounts: [{ id: 'usd-ach', accountNumber: '5647772655' }],
    },
    'sandbox',
  );
  beforeAll(async () => {
    t = await createTestApp();
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  // Opening 10,000.00, closing 7,450.25; a debit of 2,500.00 (an ACH file's settlement) and 49.75 of fees: Corridor booked none of it.
  const STATEMENT = [
    '01,121042882,CORRIDOR,261127,0630,ST1127,80,1,2/',
    '02,CORRIDOR,121042882,1,261126,2400,USD,2/',
    '03,5647772655,USD,010,1000000,,,015,745025,,/',
    '16,455,250000,0,B-81234,ach-20261126-A,ACH SETTLEMENT/',
    '88,CORRIDOR PAYOUTS FILE A/',
    '16,698,4975,0,B-81235,,SERVICE FEES/',
    '49,2000000,5/',
    '98,2000000,1,7/',
    '99,2000000,1,9/',
  ].join('\n');

  it('records a BAI2 statement once and shows its difference from Corridor\'s book', async () => {
    const outcome = await takeInStatements(t.ctx, config, 'stmt-20261126.bai', Buffer.from(STATEMENT));
    expect(outcome).toEqual({ name: 'stmt-20261126.bai', outcome: 'applied', statements: 1, lines: 2, exceptions: 0 });
    const [row] = await t.ctx.db.query<{ id: string }>("SELECT id FROM bank_statements WHERE bank_account = 'usd-ach'");
    const statement = await getStatement(t.ctx.db, row!.id);
    expect(statement).toMatchObject({
      bankAccount: 'usd-ach',
      currency: 'USD',
      date: '2026-11-26',
      openingBalance: '10000.00',
      closingBalance: '7450.25',
      corridorClosingBalance: '10000.00',
      difference: '-2549.75',
      lines: { total: 2, matched: 0, unmatched: 2, ignored: 0 },
    });
    const lines = await statementLines(t.ctx.db, row!.id);
    expect(lines.map((l) => [l.direction, l.amount, l.entryRef, l.description])).toEqual([
      ['debit', '2500.00', 'B-81234', 'ACH SETTLEMENT CORRIDOR PAYOUTS FILE A'],
      ['debit', '49.75', 'B-81235', 'SERVICE FEES'],
    ]);
    // The same bytes again apply nothing.
    expect(await takeInStatements(t.ctx, config, 'stmt-20261126-again.bai', Buffer.from(STATEMENT))).toEqual({ name: 'stmt-20261126-again.bai', outcome: 'seen' });
    expect(await t.ctx.db.query("SELECT count(*)::int AS n FROM bank_statements WHERE bank_account = 'usd-ach'")).toEqual([{ n: 1 }]);
  });

  it('refuses a file whose totals disagree, and sends an account it does not know, or one without its ledger balances, to the exceptions', async () => {
    const refused = await takeInStatements(t.ctx, config, 'sample5.bai', realWorldFile('bai2/sample5-issue113.txt'));
    expect(refused).toMatchObject({ outcome: 'refused', reason: expect.stringMatching(/^not a BAI2 file Corridor can read: line 22: the account 107049932's control total/) });
    expect(await t.ctx.db.query("SELECT status FROM bank_inbound_files WHERE name = 'sample5.bai'")).toEqual([{ status: 'quarantined' }]);

    const outcome = await takeInStatements(t.ctx, config, 'sample1.bai', realWorldFile('bai2/sample1.txt'));
    expect(outcome).toEqual({ name: 'sample1.bai', outcome: 'applied', statements: 0, lines: 0, exceptions: 2 });
    const open = await listExceptions(t.ctx.db, { limit: 10 });
    expect(open.data.filter((e) => e.reason.includes('10200123456')).map((e) => e.code)).toEqual(['unknown_account', 'unknown_account']);
  });
});
