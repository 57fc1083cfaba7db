import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { answerInbox } from '../../src/connectors/bank/bank.simulator.js';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { ledgerInvariantViolations, systemAccountId } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, operator, type Caller, type TestApp } from '../helpers/app.js';
import { camt054, pain002 } from '../helpers/bank-answers.js';
import { ADA, balance, fund, payingWorkspace, ref, waitFor, type PayoutView } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile, GRACE } from './helpers.js';

/**
 * Money right at the bank (issue 32 point 2), through the bank connector on its sandbox folder: an
 * FX-funded payout paid on its instructed amount while the bank books the account's currency; a
 * rejected file or block held for the operator with the bank's words, a rejected transaction failed
 * saying who acts; a return named by its UETR and net of charges reverted in full, the charges the
 * operator's bank fee. The published files (../shared/real-world/iso20022/) are re-keyed to our payouts.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const XSD = path.join(HERE, '../../src/connectors/bank/inbound/xsd');
const REAL = path.join(HERE, '../../../shared/real-world/iso20022');
const ACCOUNTS = [
  { id: 'eur-main', iban: 'DE02100100109307118603', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'EUR' },
  { id: 'usd-main', iban: 'DE75512108001245126199', bic: 'PBNKDEFFXXX', name: 'Corridor Payments GmbH', currency: 'USD' },
];

type Read = PayoutView & { returnReason?: { code: string; description: string } };

describe('money right at the bank', () => {
  let dir: string;
  let t: TestApp;
  let runner: JobRunner;
  let c: Caller;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-money-'));
    const file = connectorsFile({ routes: BANK_ROUTES, bank: { directory: dir, accounts: ACCOUNTS, cutoff: { maxPayouts: 500, maxSeconds: 1 }, pollSeconds: 1 } });
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20' } });
    runner = createRunner(t.ctx);
    runner.start();
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '5000.00');
    await fund(c, 'USD', '200000.00');
  }, 180_000);
  afterAll(async () => {
    await runner?.stop();
    await t?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const post = async (body: Record<string, unknown> | Record<string, unknown>[]) => {
    const res = await c.request('POST', '/v1/payouts', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string } | { id: string }[]>();
  };
  const processing = (id: string) => waitFor(c, id, (p) => p.status === 'processing', 120_000);
  /** Two EUR payouts posted in one request (so they share their window's file), once both are processing. */
  const sentTogether = async (prefix: string, one: [string, string], two: [string, string]) => {
    const ids = ((await post([one, two].map(([amount, route]) => ({ clientRef: ref(prefix), amount, currency: 'EUR', route, beneficiary: ADA })))) as { id: string }[]).map((p) => p.id) as [string, string];
    for (const id of ids) await processing(id);
    return ids;
  };
  const sentIn = async (payoutId: string) =>
    (await t.ctx.db.query<{ msg_id: string; pmt_inf_id: string; uetr: string | null }>('SELECT f.msg_id, p.pmt_inf_id, p.uetr::text AS uetr FROM bank_files f JOIN bank_payouts p ON p.file_id = f.id WHERE p.payout_id = $1', [payoutId]))[0] as { msg_id: string; pmt_inf_id: string; uetr: string | null };
  const outbox = () => path.join(dir, 'out');
  const answer = (name: string, xml: string) => {
    fs.mkdirSync(outbox(), { recursive: true });
    fs.writeFileSync(path.join(outbox(), `${name}.part`), xml);
    fs.renameSync(path.join(outbox(), `${name}.part`), path.join(outbox(), name));
  };
  const takenIn = async (name: string) => {
    for (let i = 0; i < 4800 && !fs.existsSync(path.join(outbox(), 'archive', name)); i++) await new Promise((r) => setTimeout(r, 25));
    expect(fs.existsSync(path.join(outbox(), 'archive', name)), `${name} archived`).toBe(true);
  };
  const movementsOf = (payoutId: string) =>
    t.ctx.db.query<{ kind: string; direction: string; amount_minor: string; currency: string; bank_account: string; charges_minor: string | null }>(
      'SELECT kind, direction, amount_minor::text AS amount_minor, currency, bank_account, charges_minor::text AS charges_minor FROM bank_movements WHERE object_id = $1 ORDER BY created_at',
      [payoutId],
    );
  const exceptionsNaming = (endToEndId: string) => t.ctx.db.query<{ code: string; reason: string }>('SELECT code, reason FROM bank_exceptions WHERE end_to_end_id = $1 ORDER BY created_at', [endToEndId]);

  it('an FX-funded payout (instructed in USD, debited from the EUR account) is paid on its instructed amount; the sandbox bank books EUR and Corridor books the EUR it debited', async () => {
    const quote = await c.request('POST', '/v1/fx/quotes', { fromCurrency: 'EUR', toCurrency: 'USD', toAmount: '100.00', intent: 'payout' });
    expect(quote.statusCode, quote.body).toBe(201);
    const payout = (await post({ clientRef: ref('fx'), amount: '100.00', currency: 'USD', route: 'swift', beneficiary: GRACE, quoteId: quote.json<{ id: string }>().id })) as { id: string };
    await processing(payout.id);
    const answered = await answerInbox({ dir });
    const mine = answered.find((a) => a.answers.some((n) => n.includes('-camt054-')));
    expect(mine, JSON.stringify(answered)).toBeDefined();

    const paid = (await waitFor(c, payout.id, (p) => p.status === 'paid' || p.status === 'failed', 120_000)) as Read;
    expect(paid.status).toBe('paid');
    expect(await exceptionsNaming(endToEndIdOf(payout.id))).toEqual([]);
    // The bank debited 92.59 EUR (100.00 USD at the sandbox's 1.08) from the EUR account: the book holds that.
    expect(await movementsOf(payout.id)).toEqual([{ kind: 'payout', direction: 'debit', amount_minor: '9259', currency: 'EUR', bank_account: 'eur-main', charges_minor: null }]);

    // What the sandbox bank wrote: the entry in EUR, the instructed USD and the rate beside it, valid against camt.054.001.08.
    const name = mine?.answers.find((n) => n.includes('-camt054-')) as string;
    await takenIn(name);
    const xml = fs.readFileSync(path.join(outbox(), 'archive', name), 'utf8');
    expect(xml).toMatch(/<Ntry>\s*<Amt Ccy="EUR">92.59<\/Amt>/);
    expect(xml).toMatch(/<InstdAmt>\s*<Amt Ccy="USD">100.00<\/Amt>\s*<CcyXchg>\s*<SrcCcy>EUR<\/SrcCcy>\s*<TrgtCcy>USD<\/TrgtCcy>\s*<UnitCcy>EUR<\/UnitCcy>\s*<XchgRate>1.080000<\/XchgRate>/);
    const result = await validateXML({ xml: [{ fileName: name, contents: xml }], schema: [{ fileName: 'camt.054.001.08.xsd', contents: fs.readFileSync(path.join(XSD, 'camt.054.001.08.xsd'), 'utf8') }] });
    expect(result.errors.map((e) => e.message)).toEqual([]);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it("a bank's debit of an FX-funded payout that names the instructed amount in another currency than the payout's is an exception, nothing paid", async () => {
    const quote = await c.request('POST', '/v1/fx/quotes', { fromCurrency: 'EUR', toCurrency: 'USD', toAmount: '60.00', intent: 'payout' });
    expect(quote.statusCode, quote.body).toBe(201);
    const payout = (await post({ clientRef: ref('fx'), amount: '60.00', currency: 'USD', route: 'swift', beneficiary: GRACE, quoteId: quote.json<{ id: string }>().id })) as { id: string };
    await processing(payout.id);
    answer('fx-wrong.xml', camt054({ account: ACCOUNTS[0] as { iban: string; currency: string }, entries: [{ direction: 'debit', amount: '55.00', endToEndId: payout.id, instructed: { amount: '60.00', currency: 'GBP', rate: '1.090909' } }] }));
    await takenIn('fx-wrong.xml');
    expect((await c.request('GET', `/v1/payouts/${payout.id}`)).json<Read>().status).toBe('processing');
    expect((await exceptionsNaming(endToEndIdOf(payout.id))).map((e) => e.code)).toEqual(['currency_mismatch']);
  });

  it('a rejected payment block (the published PostFinance pain.002, re-keyed) holds its payouts for the operator with the bank\'s code and text; its rejected transaction fails saying why in words and who acts', async () => {
    const [aId, bId] = await sentTogether('blk', ['31.00', 'sepa_credit'], ['32.00', 'sepa_credit']);
    const [a, b] = [{ id: aId }, { id: bId }];
    const sent = await sentIn(a.id);
    expect((await sentIn(b.id)).pmt_inf_id).toBe(sent.pmt_inf_id);
    const before = await balance(c, 'EUR');
    const published = fs.readFileSync(path.join(REAL, '24-postfinance-pain002-v03ch-B-and-C-RJCT.xml'), 'utf8');
    const rekeyed = published.replace('<OrgnlMsgId>MsgId-006</OrgnlMsgId>', `<OrgnlMsgId>${sent.msg_id}</OrgnlMsgId>`).replace('<OrgnlPmtInfId>PmtInfId-006-01</OrgnlPmtInfId>', `<OrgnlPmtInfId>${sent.pmt_inf_id}</OrgnlPmtInfId>`).replace('<OrgnlEndToEndId>EndToEndId-006-01-01</OrgnlEndToEndId>', `<OrgnlEndToEndId>${endToEndIdOf(a.id)}</OrgnlEndToEndId>`);
    expect(rekeyed).toContain(sent.pmt_inf_id);
    answer('postfinance-block.xml', rekeyed);
    await takenIn('postfinance-block.xml');

    // The transaction the bank rejected on its own (AC01, "Konto ungültig"): failed, in words, saying who acts.
    const failed = (await c.request('GET', `/v1/payouts/${a.id}`)).json<Read>();
    expect(failed).toMatchObject({ status: 'failed', returnReason: { code: 'AC01', description: 'Format of the account number specified is not correct' } });
    expect(failed.failureReason).toBe("Rejected by the bank: AC01 Format of the account number specified is not correct (the bank: \"1301813;Konto ungültig\"). Who acts: the workspace, which corrects the beneficiary's details (or asks the beneficiary) and sends a new payout");

    // The rest of the block: held for the operator with the bank's code and text, still processing, its money still held.
    expect((await c.request('GET', `/v1/payouts/${b.id}`)).json<Read>().status).toBe('processing');
    const held = (await operator(t.app, 'GET', '/operator/v1/bank/held-payouts?limit=100')).json<{ data: { payoutId: string; reason: string }[] }>().data.find((h) => h.payoutId === b.id);
    expect(held?.reason).toContain(`The bank rejected payment information ${sent.pmt_inf_id} of message ${sent.msg_id} as a whole: NARR`);
    expect(held?.reason).toContain('Sammelauftrag ohne ausführbaren Einzelauftrag');
    expect(held?.reason).toContain('the payouts are held, not failed');
    const [exception] = await t.ctx.db.query<{ code: string; reason: string }>("SELECT code, reason FROM bank_exceptions WHERE code = 'block_rejected' AND entry_ref = $1", [sent.pmt_inf_id]);
    expect(exception?.reason).toContain('Sammelauftrag ohne ausführbaren Einzelauftrag');
    expect(exception?.reason).toContain('(1 payout held)');
    expect(Number((await balance(c, 'EUR'))?.pendingOut)).toBe(Number(before?.pendingOut) - 31);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it('a rejected file (group status RJCT, AM10 with the bank\'s text) holds every payout of it for the operator, none failed', async () => {
    const [aId, bId] = await sentTogether('grp', ['41.00', 'sepa_credit'], ['42.00', 'sepa_inst']);
    const [a, b] = [{ id: aId }, { id: bId }];
    const sent = await sentIn(a.id);
    expect((await sentIn(b.id)).msg_id).toBe(sent.msg_id);
    answer('group-reject.xml', pain002({ originalMessageId: sent.msg_id, groupStatus: 'RJCT', groupReason: 'AM10', groupInfo: 'Kontrollsumme falsch', transactions: [] }));
    await takenIn('group-reject.xml');
    const heldList = (await operator(t.app, 'GET', '/operator/v1/bank/held-payouts?limit=100')).json<{ data: { payoutId: string; reason: string }[] }>().data;
    for (const id of [a.id, b.id]) {
      expect((await c.request('GET', `/v1/payouts/${id}`)).json<Read>().status).toBe('processing');
      const held = heldList.find((h) => h.payoutId === id);
      expect(held?.reason).toContain(`The bank rejected message ${sent.msg_id} as a whole: AM10 Sum of instructed amounts does not equal the control sum (the bank: "Kontrollsumme falsch")`);
    }
  });

  it('a SWIFT return naming the payout by its UETR only and net of 20 USD charges (the published CBPR+ pacs.004, re-keyed) reverts it in full to the workspace and books the charges as the operator\'s bank fee', async () => {
    const before = await balance(c, 'USD');
    const payout = (await post({ clientRef: ref('rtn'), amount: '136500.00', currency: 'USD', route: 'swift', beneficiary: GRACE })) as { id: string };
    await processing(payout.id);
    const sent = await sentIn(payout.id);
    expect(sent.uetr).toMatch(/^[0-9a-f-]{36}$/);
    answer('swift-debit.xml', camt054({ account: ACCOUNTS[1] as { iban: string; currency: string }, entries: [{ direction: 'debit', amount: '136500.00', currency: 'USD', endToEndId: payout.id }] }));
    await waitFor(c, payout.id, (p) => p.status === 'paid', 120_000);

    const published = fs.readFileSync(path.join(REAL, '27-cbprplus-pacs004-p212-envelope.xml'), 'utf8');
    // Re-keyed by the UETR alone: the EndToEndId stays the published one, which is no payout of ours.
    const rekeyed = published.replace('<OrgnlUETR>174c245f-2682-4291-ad67-2a41e530cd27</OrgnlUETR>', `<OrgnlUETR>${sent.uetr}</OrgnlUETR>`);
    expect(rekeyed).toContain('<OrgnlEndToEndId>E2E04044506271305</OrgnlEndToEndId>');
    expect(rekeyed).toContain('<RtrdIntrBkSttlmAmt Ccy="USD">136480</RtrdIntrBkSttlmAmt>');
    answer('cbpr-return.xml', rekeyed);
    await takenIn('cbpr-return.xml');

    const reverted = (await c.request('GET', `/v1/payouts/${payout.id}`)).json<Read>();
    expect(reverted.status).toBe('failed');
    expect(reverted.failureReason).toContain('136480 USD came back, 20.00 USD taken in bank charges, borne by the operator');
    expect((await exceptionsNaming('E2E04044506271305')).map((e) => e.code)).toEqual([]);
    // In full to the workspace: its USD balance is what it was before the payout.
    expect((await balance(c, 'USD'))?.totalBalance).toBe(before?.totalBalance);
    // The book: the return as the bank booked it, net, with its charges beside it.
    expect(await movementsOf(payout.id)).toEqual([
      { kind: 'payout', direction: 'debit', amount_minor: '13650000', currency: 'USD', bank_account: 'usd-main', charges_minor: null },
      { kind: 'return', direction: 'credit', amount_minor: '13648000', currency: 'USD', bank_account: 'usd-main', charges_minor: '2000' },
    ]);
    // The ledger: the operator's bank-fee account paid the 20.00 to the SWIFT clearing.
    const fees = await t.ctx.db.query<{ amount_minor: string; description: string | null; credit: string }>(
      `SELECT t.amount_minor::text AS amount_minor, t.description, a.kind || ':' || a.code AS credit FROM ledger_transfers t JOIN ledger_accounts a ON a.id = t.credit_account_id
        WHERE t.debit_account_id = $1 AND t.reference_id = $2`,
      [systemAccountId('bank_fees', '', 'USD'), payout.id],
    );
    expect(fees).toEqual([{ amount_minor: '2000', description: 'Bank charges taken from the return', credit: 'provider_clearing:swift' }]);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });
});
