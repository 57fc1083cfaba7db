import fs from 'node:fs';
import path from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pain002 } from '../helpers/bank-answers.js';
import { SftpBank } from '../helpers/sftp-bank.js';
import { sshdMissing } from '../helpers/sftp-server.js';
import { ADA, ref, waitFor } from '../payouts/helpers.js';
import { startBankApp, type BankApp } from './helpers.js';

/**
 * The bank's Verification of Payee, reported per payment in its pain.002 (RCVC match, RVMC close
 * match with the name the payee's bank holds, RVNM no match, RVNA not possible): each kept on its
 * payout as its recipient check, in the shape every rail's check has; the payouts go on (they have left).
 */

const XSD = '../shared/iso20022/pain.002.001.11.xsd';

interface Read {
  status: string;
  recipientCheck?: { status: string; result: string; name: string; railName: string | null; reason: string; connector: string; checkedAt: string | null };
}

describe.skipIf(sshdMissing)(`Verification of Payee in the bank's pain.002${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let app: BankApp;
  let bank: SftpBank;

  beforeAll(async () => {
    app = await startBankApp({ pollSeconds: 1 }, { EUR: '500.00' });
    bank = await SftpBank.connect(app.server);
  }, 300_000);
  afterAll(async () => {
    await bank?.end();
    await app?.stop();
  }, 120_000);

  it('keeps RCVC, RVMC, RVNM and RVNA on the payouts as their recipient checks, with the name the bank returned', async () => {
    const created = await app.c.request('POST', '/v1/payouts', ['11.00', '12.00', '13.00', '14.00'].map((amount) => ({ clientRef: ref('vop'), amount, currency: 'EUR', route: 'sepa_credit', beneficiary: ADA })));
    expect(created.statusCode, created.body).toBe(201);
    const [match, close, none, notPossible] = created.json<{ id: string }[]>().map((p) => p.id) as [string, string, string, string];
    for (const id of [match, close, none, notPossible]) await waitFor(app.c, id, (p) => p.status === 'processing', 180_000);
    const msgId = (await bank.inbox())[0]?.msgId as string;

    const xml = pain002({
      originalMessageId: msgId,
      groupStatus: 'RVCM',
      transactions: [
        { endToEndId: match, status: 'RCVC' },
        { endToEndId: close, status: 'RVMC', creditorName: 'Augusta Ada King', reason: 'NARR', info: 'Close match' },
        { endToEndId: none, status: 'RVNM' },
        { endToEndId: notPossible, status: 'RVNA', reason: 'NARR', info: 'Payee PSP not reachable' },
      ],
    });
    const schema = await validateXML({ xml: [{ fileName: 'vop.xml', contents: xml }], schema: [{ fileName: 'pain.002.001.11.xsd', contents: fs.readFileSync(path.resolve(XSD), 'utf8') }] });
    expect(schema.errors.map((e) => e.message)).toEqual([]);
    await bank.answer('vop-pain002.xml', xml);
    expect(await bank.waitTakenIn('vop-pain002.xml', 180_000)).toBe('archive');

    const read = async (id: string) => (await app.c.request('GET', `/v1/payouts/${id}`)).json<Read>();
    const common = { status: 'passed', name: 'Ada Lovelace', connector: 'bank', checkedAt: expect.any(String) };
    expect(await read(match)).toMatchObject({ status: 'processing', recipientCheck: { ...common, result: 'match', railName: null, reason: "RCVC: the payee's name matches the account holder's" } });
    expect(await read(close)).toMatchObject({ status: 'processing', recipientCheck: { ...common, result: 'close_match', railName: 'Augusta Ada King', reason: 'RVMC: the payee\'s name is close to the account holder\'s (the bank: "Close match")' } });
    expect(await read(none)).toMatchObject({ status: 'processing', recipientCheck: { ...common, result: 'no_match', railName: null, reason: "RVNM: the payee's name does not match the account holder's" } });
    expect(await read(notPossible)).toMatchObject({
      status: 'processing',
      recipientCheck: { ...common, result: 'unavailable', railName: null, reason: 'RVNA: the payee\'s name could not be checked (the payee\'s bank did not answer, or the account cannot be checked) (the bank: "Payee PSP not reachable")' },
    });
    // Nothing about these statuses is an exception for the operator.
    const exceptions = await app.t.ctx.db.query<{ n: string }>("SELECT count(*)::text AS n FROM bank_exceptions WHERE message_type = 'pain.002'");
    expect(exceptions[0]?.n).toBe('0');
  }, 400_000);
});
