import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { operator } from '../helpers/app.js';
import { sshdMissing } from '../helpers/sftp-server.js';
import { realWorldFile } from '../helpers/shared-files.js';
import { polledBankAppForSuite } from './helpers.js';

/**
 * The sixteen published bank files of ../shared/real-world/iso20022/ (issue 32), as they are, through
 * the real SFTP server and the connector's own poll. None of them names a Corridor payout or virtual
 * account, so what a bank's operations team expects is: every file read, none quarantined (whatever
 * its currency, version, national namespace or envelope); the statements of the configured accounts
 * recorded on their booked balances (or the available ones when that is all they carry); each entry
 * that cannot be tied to Corridor one exception saying why, nothing posted; the accounts Corridor is
 * not configured for not read, one exception each.
 */

const ACCOUNTS = [
  { id: 'pf-chf', iban: 'CH2909000000250094239', bic: 'POFICHBEXXX', name: 'Corridor Payments AG', currency: 'CHF' },
  { id: 'fi-eur', iban: 'FI7433010001222090', bic: 'NDEAFIHHXXX', name: 'Corridor Payments Oy', currency: 'EUR' },
  { id: 'lt-eur', iban: 'LT007180000000000000', bic: 'CBSBLT26XXX', name: 'Corridor Payments UAB', currency: 'EUR' },
  { id: 'nl-eur', iban: 'NL26VAYB8060476890', bic: 'VAYBNL2AXXX', name: 'Corridor Payments BV', currency: 'EUR' },
  { id: 'ch-eur', iban: 'CH2801234000123456789', bic: 'POFICHBEXXX', name: 'Corridor Payments AG', currency: 'EUR' },
];

const uva = 'unknown_virtual_account';
const e2e = 'unknown_end_to_end_id';

/** Per file: the message and version read, and the exceptions (sorted) a bank's operations team expects from reading it. */
const EXPECTED: Record<string, { version: string; exceptions: string[] }> = {
  // PostFinance day statement in CHF (v04): recorded for pf-chf, OPBD to CLBD, five lines, nothing to post.
  '01-postfinance-camt053-v04.xml': { version: 'camt.053.001.04', exceptions: [] },
  // Finnish banks' guideline statement (v02), batch entries included: recorded for fi-eur.
  '03-fffs-finland-camt053-v02.xml': { version: 'camt.053.001.02', exceptions: [] },
  // Šiaulių bankas statement with available balances only (OPAV, CLAV): recorded on those.
  '04-siauliu-bankas-lt-camt053-v02.xml': { version: 'camt.053.001.02', exceptions: [] },
  // CBPR+ statement in its envelope, for an account known by another id than an IBAN: not ours, not read.
  '07-cbprplus-camt053-p251-envelope.xml': { version: 'camt.053.001.12', exceptions: ['unknown_bank_account'] },
  // camt.053.001.08 for nl-eur: recorded.
  '08-genkgo-camt053-v08.xml': { version: 'camt.053.001.08', exceptions: [] },
  // Every balance type (OPBD, PRCD, OPAV, CLBD, CLAV, FWAV, ITAV, ITBD…): recorded OPBD to CLBD.
  '09-genkgo-camt053-v02-all-balance-types.xml': { version: 'camt.053.001.02', exceptions: [] },
  // A CHF credit to the account itself, no virtual account named: held for the operator.
  '12-postfinance-camt054-credit-v04.xml': { version: 'camt.054.001.04', exceptions: [uva] },
  // A CHF debit whose EndToEndId is no payout of Corridor's.
  '13-postfinance-camt054-debit-v04.xml': { version: 'camt.054.001.04', exceptions: [e2e] },
  // An ESR batch credit of five transactions (each held: no virtual account) and a debit without EndToEndId.
  '14-postfinance-camt054-esr-batch-v04.xml': { version: 'camt.054.001.04', exceptions: ['no_end_to_end_id', uva, uva, uva, uva, uva] },
  // Finnish notifications: six credits held, three debits without EndToEndId, two with foreign ones; the INFO entry moves nothing.
  '17-fffs-finland-camt054-v02.xml': { version: 'camt.054.001.02', exceptions: ['no_end_to_end_id', 'no_end_to_end_id', 'no_end_to_end_id', e2e, e2e, uva, uva, uva, uva, uva, uva] },
  // CBPR+ JPY notification in its envelope for an account Corridor does not hold: not read (and JPY quarantines nothing).
  '18-cbprplus-camt054-c5431-envelope.xml': { version: 'camt.054.001.12', exceptions: ['unknown_bank_account'] },
  // A batch credit of six transactions to the account itself: each held.
  '20-postfinance-camt054-batch-v04.xml': { version: 'camt.054.001.04', exceptions: [uva, uva, uva, uva, uva, uva] },
  // SIX pain.002 (.ch.02 namespace) rejecting a file Corridor never sent: the transaction and its block are the operator's to look at.
  '24-postfinance-pain002-v03ch-B-and-C-RJCT.xml': { version: 'pain.002.001.03.ch.02', exceptions: ['block_rejected', e2e] },
  // CBPR+ pain.002 in its envelope: ACSC, accepted, nothing to do.
  '26-cbprplus-pain002-p251-envelope.xml': { version: 'pain.002.001.10', exceptions: [] },
  // CBPR+ returns in their envelopes, of payments Corridor never made.
  '27-cbprplus-pacs004-p212-envelope.xml': { version: 'pacs.004.001.13', exceptions: [e2e] },
  '28-cbprplus-pacs004-p231a-envelope.xml': { version: 'pacs.004.001.13', exceptions: [e2e] },
};

describe.skipIf(sshdMissing)(`published bank files through SFTP${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  const app = polledBankAppForSuite(ACCOUNTS);

  it('every published file is read with the effect a bank operations team expects; none is quarantined', async () => {
    const dir = realWorldFile('iso20022');
    const names = fs.readdirSync(dir).filter((n) => n.endsWith('.xml')).sort();
    expect(names).toEqual(Object.keys(EXPECTED).sort());
    for (const name of names) await app().bank.answer(name, fs.readFileSync(path.join(dir, name), 'utf8'));
    await app().poll();

    const files = (await operator(app().t.app, 'GET', '/operator/v1/bank/inbound-files?limit=100')).json<{ data: { id: string; name: string; status: string; reason: string | null; messageVersion: string | null }[] }>().data;
    const effects: Record<string, { version: string | null; exceptions: string[] }> = {};
    for (const f of files) {
      expect(f, f.name).toMatchObject({ status: 'processed', reason: null });
      const exceptions = await app().t.ctx.db.query<{ code: string }>('SELECT code FROM bank_exceptions WHERE file_id = $1', [f.id]);
      effects[f.name] = { version: f.messageVersion, exceptions: exceptions.map((e) => e.code).sort() };
    }
    expect(effects).toEqual(EXPECTED);
    for (const name of names) expect(await app().bank.takenIn(name), name).toBe('archive');

    const statements = (await operator(app().t.app, 'GET', '/operator/v1/reconciliation/statements?limit=100')).json<{ data: { bankAccount: string; currency: string; openingBalance: string; closingBalance: string }[] }>().data;
    expect(statements.map((s) => s.bankAccount).sort()).toEqual(['ch-eur', 'fi-eur', 'lt-eur', 'nl-eur', 'pf-chf']);
    expect(statements.find((s) => s.bankAccount === 'pf-chf')).toMatchObject({ currency: 'CHF', closingBalance: expect.stringMatching(/^-?\d+\.\d{2}$/) });
    expect(await app().t.ctx.db.query('SELECT 1 FROM bank_movements')).toEqual([]);
    expect(await ledgerInvariantViolations(app().t.ctx.db)).toEqual([]);
  });
});
