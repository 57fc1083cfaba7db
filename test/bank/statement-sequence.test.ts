import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STATEMENTS_READ_MAX, statementSequenceGap } from '../../src/connectors/bank/bank.conditions.js';
import { registryOf } from '../../src/connectors/registry.js';
import { sshdMissing } from '../helpers/sftp-server.js';
import { realWorldFile } from '../helpers/shared-files.js';
import { polledBankAppForSuite } from './helpers.js';

/**
 * Issue 32 (3) and issue 36 (2): a gap in a bank account's statement sequence numbers is alerted
 * (bank.statement_sequence_gap). The statements are published camt.053 files (PostFinance's, which
 * numbers them by ElctrncSeqNb; the Finnish banks' guideline sample, re-keyed to carry its LglSeqNb
 * alone), re-keyed to other days and numbers, and taken in through the real SFTP server by the
 * connector's own poll.
 */

const ACCOUNTS = [
  { id: 'pf-chf', iban: 'CH2909000000250094239', bic: 'POFICHBEXXX', name: 'Corridor Payments AG', currency: 'CHF' },
  { id: 'fi-eur', iban: 'FI7433010001222090', bic: 'NDEAFIHHXXX', name: 'Corridor Payments Oy', currency: 'EUR' },
];

const postFinance = fs.readFileSync(realWorldFile('iso20022', '01-postfinance-camt053-v04.xml'), 'utf8');
const finnish = fs.readFileSync(realWorldFile('iso20022', '03-fffs-finland-camt053-v02.xml'), 'utf8');

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** PostFinance's day statement as the one for `day`, numbered `seq` (ElctrncSeqNb), with its own message and statement ids. */
function postFinanceStatement(day: string, seq: number): string {
  const xml = postFinance
    .replace('<MsgId>20201124375204229003967</MsgId>', `<MsgId>PF-MSG-${day}-${seq}</MsgId>`)
    .replace('<Id>20201124375204229003973</Id>', `<Id>PF-STMT-${day}-${seq}</Id>`)
    .replace('<ElctrncSeqNb>118</ElctrncSeqNb>', `<ElctrncSeqNb>${seq}</ElctrncSeqNb>`)
    .replaceAll('2020-11-24', day);
  expect(xml).toContain(`<ElctrncSeqNb>${seq}</ElctrncSeqNb>`);
  return xml;
}

/** The Finnish sample for `day` with its legal sequence number (LglSeqNb) `seq` and no electronic one, as some banks send. */
function finnishStatement(day: string, seq: number): string {
  const xml = finnish
    .replace('<MsgId>BANKFILEID00001</MsgId>', `<MsgId>FI-MSG-${day}-${seq}</MsgId>`)
    .replace('<Id>BANKSTMTID0972009</Id>', `<Id>FI-STMT-${day}-${seq}</Id>`)
    .replace('<ElctrncSeqNb>120</ElctrncSeqNb>', '')
    .replace('<LglSeqNb>97</LglSeqNb>', `<LglSeqNb>${seq}</LglSeqNb>`)
    .replaceAll('2009-10-29', day)
    .replaceAll('2009-10-28', dayBefore(day));
  expect(xml).not.toContain('ElctrncSeqNb>');
  return xml;
}

describe.skipIf(sshdMissing)(`statement sequence gaps${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  const app = polledBankAppForSuite(ACCOUNTS);
  let files = 0;

  /** The bank puts the statements into its outbox and Corridor's poll takes them in; each is archived, none quarantined. */
  async function deliver(...xmls: string[]): Promise<void> {
    const names = xmls.map(() => `${String(++files).padStart(3, '0')}-camt053.xml`);
    for (const [i, xml] of xmls.entries()) await app().bank.answer(names[i] as string, xml);
    await app().poll();
    for (const name of names) expect(await app().bank.takenIn(name), name).toBe('archive');
  }

  const gaps = async (account: string, threshold = 30) =>
    (await statementSequenceGap.check(app().t.ctx, { threshold, filter: { account } })).map((f) => ({ subject: f.subject, summary: f.summary, missing: f.details?.missing, sequence: f.details?.sequence }));

  it('records each statement’s sequence numbers as it is read, and raises nothing while they follow one another', async () => {
    await deliver(postFinanceStatement('2026-03-02', 118), postFinanceStatement('2026-03-03', 119));
    const recorded = await app().t.ctx.db.query<{ statement_date: string; electronic_seq: string | null; legal_seq: string | null }>(
      "SELECT statement_date::text AS statement_date, electronic_seq::text AS electronic_seq, legal_seq::text AS legal_seq FROM bank_statements WHERE bank_account = 'pf-chf' ORDER BY statement_date",
    );
    expect(recorded).toEqual([
      { statement_date: '2026-03-02', electronic_seq: '118', legal_seq: null },
      { statement_date: '2026-03-03', electronic_seq: '119', legal_seq: null },
    ]);
    expect(await gaps('pf-chf')).toEqual([]);
    expect(registryOf(app().t.ctx.connectors).alertSources().map((s) => s.name)).toContain('bank.statement_sequence_gap');
  });

  it('alerts the numbers a statement skips, naming the account, and clears once the missing statements arrive', async () => {
    await deliver(postFinanceStatement('2026-03-06', 122));
    const found = await gaps('pf-chf');
    expect(found).toEqual([{ subject: 'pf-chf', summary: expect.stringContaining('120-121'), missing: [{ from: '120', to: '121' }], sequence: 'ElctrncSeqNb' }]);
    expect(found[0]?.summary).toContain('pf-chf');
    // The other account is not concerned.
    expect(await gaps('fi-eur')).toEqual([]);

    // The bank resends them, the later one first: one still missing, then none.
    await deliver(postFinanceStatement('2026-03-05', 121));
    expect((await gaps('pf-chf')).map((f) => f.missing)).toEqual([[{ from: '120', to: '120' }]]);
    await deliver(postFinanceStatement('2026-03-04', 120));
    expect(await gaps('pf-chf')).toEqual([]);
  });

  it('alerts the next number when the statement after the latest has not come N hours after it; a bank counting again from 1 is no gap', async () => {
    await app().t.ctx.db.query("UPDATE bank_statements SET created_at = created_at - interval '31 hours' WHERE bank_account = 'pf-chf'");
    expect((await gaps('pf-chf')).map((f) => f.missing)).toEqual([[{ from: '123', to: '123' }]]);
    // Not yet at a threshold of two days.
    expect(await gaps('pf-chf', 48)).toEqual([]);

    // The new year's first statement, numbered 1: the expected one came (a new count), nothing is missing.
    await deliver(postFinanceStatement('2026-03-09', 1));
    expect(await gaps('pf-chf')).toEqual([]);
  });

  it('uses the legal sequence number (LglSeqNb) of a bank that gives no electronic one', async () => {
    await deliver(finnishStatement('2026-03-02', 97), finnishStatement('2026-03-04', 99));
    expect(await app().t.ctx.db.query("SELECT electronic_seq, legal_seq::text AS legal_seq FROM bank_statements WHERE bank_account = 'fi-eur' ORDER BY statement_date")).toEqual([
      { electronic_seq: null, legal_seq: '97' },
      { electronic_seq: null, legal_seq: '99' },
    ]);
    expect(await gaps('fi-eur')).toEqual([{ subject: 'fi-eur', summary: expect.stringContaining('98'), missing: [{ from: '98', to: '98' }], sequence: 'LglSeqNb' }]);
  });

  it('reads only each account’s latest numbered statements: a gap further back than them is no longer looked for, a recent one is', async () => {
    // fi-eur misses number 98 (the test before). Then STATEMENTS_READ_MAX statements, one a day, numbered from 100 with 300 left out.
    const [first] = await app().t.ctx.db.query<{ file_id: string }>("SELECT file_id FROM bank_statements WHERE bank_account = 'fi-eur' LIMIT 1");
    await app().t.ctx.db.query(
      `INSERT INTO bank_statements (id, file_id, bank_account, statement_id, iban, currency, statement_date, opening_minor, closing_minor, legal_seq)
       SELECT gen_random_uuid(), $1, 'fi-eur', 'BULK-' || n, 'FI7433010001222090', 'EUR', DATE '2026-03-05' + n, 0, 0, n
         FROM generate_series(100, $2::int) AS n WHERE n <> 300`,
      [first?.file_id, 100 + STATEMENTS_READ_MAX],
    );
    expect(await gaps('fi-eur')).toEqual([{ subject: 'fi-eur', summary: expect.stringContaining('300'), missing: [{ from: '300', to: '300' }], sequence: 'LglSeqNb' }]);
  });
});
