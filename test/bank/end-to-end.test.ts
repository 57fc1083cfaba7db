import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { endToEndIdOf } from '../../src/connectors/bank/bank.instructions.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { fileUnacknowledged, statementMissing } from '../../src/connectors/bank/bank.conditions.js';
import { registryOf } from '../../src/connectors/registry.js';
import { createTestApp, operator, type Caller, type TestApp } from '../helpers/app.js';
import { camt053, camt054, pacs004, pain002, type EntryAnswer } from '../helpers/bank-answers.js';
import { SftpBank, type Pain001Transaction } from '../helpers/sftp-bank.js';
import { bankSection, sshdMissing, startSftpServer, type SftpServer } from '../helpers/sftp-server.js';
import { activeAccount, approveOnboarding } from '../virtual-accounts/helpers.js';
import { ADA, balance, fund, payingWorkspace, ref, waitFor } from '../payouts/helpers.js';
import { BANK_ROUTES, connectorsFile } from './helpers.js';

/**
 * The bank rails end to end: payouts created through the API leave as pain.001 files over the real
 * SFTP server (OpenSSH), the worker running; the test-side bank reads them from its inbox over SFTP
 * and answers into its outbox, which the worker's bank.poll takes in. Then a day's camt.053 covering
 * those movements reconciles to a zero difference through the operator API.
 */

const DAY = '2026-03-03';
const EUR_MAIN = { iban: 'DE02100100109307118603', currency: 'EUR' };

interface PayoutRead {
  id: string;
  status: string;
  amount: string;
  fee: string;
  failureReason: string | null;
  returnReason?: { code: string; description: string };
}

describe.skipIf(sshdMissing)(`the bank rails end to end${sshdMissing ? ` (${sshdMissing})` : ''}`, () => {
  let server: SftpServer;
  let t: TestApp;
  let runner: JobRunner;
  let bank: SftpBank;
  let c: Caller;
  /** What the bank booked on EUR_MAIN on DAY, for the statement at the end. */
  const booked: EntryAnswer[] = [];
  let answers = 0;

  beforeAll(async () => {
    server = await startSftpServer();
    const file = connectorsFile({ routes: BANK_ROUTES, bank: bankSection(server, { cutoff: { maxPayouts: 500, maxSeconds: 1 }, pollSeconds: 1 }) });
    t = await createTestApp({ env: { CORRIDOR_CONNECTORS_FILE: file, JOB_POLL_MS: '20' } });
    runner = createRunner(t.ctx);
    runner.start();
    bank = await SftpBank.connect(server);
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '5000.00');
  });
  afterAll(async () => {
    await bank?.end();
    await runner?.stop();
    await t?.close();
    await server?.stop();
  });

  const read = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<PayoutRead>();

  /** A SEPA payout created through the API, once the bank has it in its inbox (and Corridor has it processing). */
  async function sentPayout(amount: string): Promise<{ id: string; tx: Pain001Transaction }> {
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref('e2e'), amount, currency: 'EUR', route: 'sepa_credit', beneficiary: ADA });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json<{ id: string }>().id;
    const tx = await bank.transferOf(endToEndIdOf(id));
    expect(tx).toMatchObject({ amount, currency: 'EUR', debtorIban: EUR_MAIN.iban });
    await waitFor(c, id, (p) => p.status === 'processing');
    return { id, tx };
  }

  /** The bank answers into its outbox; resolves once Corridor took the file in (archived after its transaction committed). */
  async function answer(kind: string, xml: string): Promise<string> {
    const name = `${String(++answers).padStart(3, '0')}-${kind}.xml`;
    await bank.answer(name, xml);
    expect(await bank.waitTakenIn(name)).toBe('archive');
    const [file] = await t.ctx.db.query<{ id: string }>('SELECT id FROM bank_inbound_files WHERE name = $1', [name]);
    return file?.id as string;
  }

  const transfers = () => t.ctx.db.query<{ id: string; status: string; reference_id: string | null }>('SELECT id, status, reference_id FROM ledger_transfers ORDER BY id');

  it('(a) pain.001 → camt.054 booked debit → paid; an unknown EndToEndId and an amount mismatch in the same file land in exceptions with nothing posted', async () => {
    const [{ id, tx }, other] = await Promise.all([sentPayout('125.40'), sentPayout('33.00')]);
    const before = await transfers();
    const unknown = '0badc0de00004000800000000000beef';
    const entries: EntryAnswer[] = [
      { direction: 'debit', amount: tx.amount, endToEndId: id, ref: 'E2E-PAY-A', bookingDate: DAY },
      { direction: 'debit', amount: '9.99', endToEndId: unknown, ref: 'E2E-UNKNOWN', bookingDate: DAY },
      { direction: 'debit', amount: '33.30', endToEndId: other.id, ref: 'E2E-MISMATCH', bookingDate: DAY },
    ];
    const fileId = await answer('camt054', camt054({ account: EUR_MAIN, entries }));
    booked.push(entries[0] as EntryAnswer);

    expect((await read(id)).status).toBe('paid');
    const exceptions = (await operator(t.app, 'GET', '/operator/v1/reconciliation/exceptions?status=open')).json<{ data: { code: string; fileId: string; endToEndId: string | null; amount: string | null }[] }>().data;
    expect(exceptions.filter((e) => e.fileId === fileId).map((e) => [e.code, e.endToEndId, e.amount]).sort()).toEqual([
      ['amount_mismatch', endToEndIdOf(other.id), '33.30'],
      ['unknown_end_to_end_id', unknown, '9.99'],
    ]);
    // Nothing posted for them: the mismatched payout is still processing, every ledger change is the paid payout's.
    expect((await read(other.id)).status).toBe('processing');
    const after = await transfers();
    const changed = after.filter((row) => !before.some((b) => b.id === row.id && b.status === row.status));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((row) => row.reference_id === id)).toBe(true);
    const movements = await t.ctx.db.query<{ object_id: string }>('SELECT object_id FROM bank_movements WHERE file_id = $1', [fileId]);
    expect(movements.map((m) => m.object_id)).toEqual([id]);

    // The bank then rejects the mismatched one, so the day's book holds only what it booked.
    await answer('pain002', pain002({ originalMessageId: other.tx.msgId, transactions: [{ endToEndId: other.id, status: 'RJCT', reason: 'AM09' }] }));
    expect((await read(other.id)).status).toBe('failed');
  });

  it('(b) pain.002 RJCT AC01 → failed with returnReason on the payout read and the payout.failed event', async () => {
    const { id, tx } = await sentPayout('47.11');
    await answer('pain002', pain002({ originalMessageId: tx.msgId, transactions: [{ endToEndId: id, status: 'RJCT', reason: 'AC01', amount: tx.amount }] }));
    const p = await read(id);
    const reason = { code: 'AC01', description: 'Format of the account number specified is not correct' };
    expect(p).toMatchObject({ status: 'failed', returnReason: reason, failureReason: `Rejected by the bank: AC01 ${reason.description}. Who acts: the workspace, which corrects the beneficiary's details (or asks the beneficiary) and sends a new payout` });
    const events = await t.ctx.db.query<{ data: { returnReason?: unknown } }>("SELECT data FROM events WHERE type = 'payout.failed' AND data->>'id' = $1", [id]);
    expect(events.map((e) => e.data.returnReason)).toEqual([reason]);
  });

  it('(c) paid, then a pacs.004 return with its ISO reason → reverted with returnReason, funds back', async () => {
    const start = await balance(c, 'EUR');
    const { id, tx } = await sentPayout('210.00');
    const debit: EntryAnswer = { direction: 'debit', amount: tx.amount, endToEndId: id, ref: 'E2E-PAY-C', bookingDate: DAY };
    await answer('camt054', camt054({ account: EUR_MAIN, entries: [debit] }));
    expect((await read(id)).status).toBe('paid');
    booked.push(debit);
    const paidBalance = await balance(c, 'EUR');
    expect(Number(paidBalance?.totalBalance)).toBeLessThan(Number(start?.totalBalance) - 209.99);

    await answer('pacs004', pacs004({ returns: [{ endToEndId: id, amount: tx.amount, reason: 'AC04' }], settlementDate: DAY }));
    const reason = { code: 'AC04', description: "Account number specified has been closed on the receiving bank's books" };
    expect(await read(id)).toMatchObject({ status: 'failed', returnReason: reason });
    const events = await t.ctx.db.query<{ type: string; data: { returnReason?: unknown } }>("SELECT type, data FROM events WHERE data->>'id' = $1 ORDER BY seq", [id]);
    expect(events.map((e) => e.type)).toEqual(['payout.processing', 'payout.paid', 'payout.reverted']);
    expect(events[2]?.data.returnReason).toEqual(reason);
    // The amount and its fee are back: the balance is what it was before the payout.
    const end = await balance(c, 'EUR');
    expect({ balance: end?.balance, pendingOut: end?.pendingOut, totalBalance: end?.totalBalance }).toEqual({ balance: start?.balance, pendingOut: start?.pendingOut, totalBalance: start?.totalBalance });
    const [movement] = await t.ctx.db.query<{ entry_ref: string }>("SELECT entry_ref FROM bank_movements WHERE object_id = $1 AND kind = 'return'", [id]);
    booked.push({ direction: 'credit', amount: tx.amount, endToEndId: id, ref: movement?.entry_ref, returnReason: 'AC04', bookingDate: DAY });
  });

  it("(d) a camt.054 credit to a virtual account's IBAN → one completed deposit into that workspace", async () => {
    await approveOnboarding(t.app, c);
    const account = await activeAccount(c, 'EUR');
    const iban = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: { id: string; iban?: string }[] }>().data.find((v) => v.id === account.id)?.iban as string;
    expect(iban).toBeTruthy();
    const before = Number((await balance(c, 'EUR'))?.totalBalance);
    const credit: EntryAnswer = { direction: 'credit', amount: '640.25', creditorIban: iban, debtorName: 'Grace Hopper', ref: 'E2E-CREDIT-D', bookingDate: DAY };
    await answer('camt054', camt054({ account: EUR_MAIN, entries: [credit] }));
    booked.push(credit);
    const deposits = (await c.request('GET', `/v1/deposits?virtualAccountId=${account.id}`)).json<{ data: { amount: string; status: string; rail: string }[] }>().data;
    expect(deposits).toEqual([expect.objectContaining({ amount: '640.25', status: 'completed', rail: 'bank_transfer' })]);
    const fee = Number(before) + 640.25 - Number((await balance(c, 'EUR'))?.totalBalance);
    expect(fee).toBeGreaterThanOrEqual(0);
    expect(fee).toBeLessThan(640.25);
  });

  it("(e) the day's camt.053 covering those movements reconciles with a zero difference through the operator API", async () => {
    expect(booked).toHaveLength(4);
    const statementFile = await answer('camt053', camt053({ account: EUR_MAIN, date: DAY, opening: '100000.00', statementId: 'STMT-E2E-0303', entries: booked }));
    const [file] = await t.ctx.db.query<{ status: string; exceptions: number }>('SELECT status, exceptions FROM bank_inbound_files WHERE id = $1', [statementFile]);
    expect(file).toEqual({ status: 'processed', exceptions: 0 });
    const list = await operator(t.app, 'GET', `/operator/v1/reconciliation/statements?bankAccount=eur-main&date=${DAY}`);
    expect(list.statusCode, list.body).toBe(200);
    const [s] = list.json<{ data: { id: string; closingBalance: string; corridorClosingBalance: string; difference: string; lines: Record<string, number>; movementsNotOnStatement: unknown[] }[] }>().data;
    // 100000.00 - 125.40 - 210.00 + 210.00 + 640.25
    expect(s).toMatchObject({ closingBalance: '100514.85', corridorClosingBalance: '100514.85', difference: '0.00', lines: { total: 4, matched: 4, unmatched: 0, ignored: 0 }, movementsNotOnStatement: [] });
    const lines = (await operator(t.app, 'GET', `/operator/v1/reconciliation/statements/${s?.id}/lines`)).json<{ data: { status: string; matched: { kind: string } | null }[] }>().data;
    expect(lines.map((l) => [l.status, l.matched?.kind])).toEqual([
      ['matched', 'payout'],
      ['matched', 'payout'],
      ['matched', 'return'],
      ['matched', 'deposit'],
    ]);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it("(f) alerts the operator of a delivered file the bank has not answered until its pain.002 arrives, and of an account whose statement is late", async () => {
    const { id, tx } = await sentPayout('12.34');
    const [sent] = await t.ctx.db.query<{ file_name: string }>('SELECT file_name FROM bank_files WHERE msg_id = $1', [tx.msgId]);
    const unanswered = async () => (await fileUnacknowledged.check(t.ctx, { threshold: 0, filter: { account: 'eur-main' } })).flatMap((f) => (f.details?.files as string[] | undefined) ?? []);
    expect(await unanswered()).toContain(sent?.file_name);
    // Not yet past an hour's threshold.
    expect(await fileUnacknowledged.check(t.ctx, { threshold: 60, filter: {} })).toEqual([]);

    await answer('pain002', pain002({ originalMessageId: tx.msgId, groupStatus: 'ACTC', transactions: [] }));
    expect(await unanswered()).not.toContain(sent?.file_name);
    const [acked] = await t.ctx.db.query<{ ack_status: string | null; acknowledged_at: Date | null }>('SELECT ack_status, acknowledged_at FROM bank_files WHERE msg_id = $1', [tx.msgId]);
    expect(acked?.ack_status).toBe('ACTC');
    expect(acked?.acknowledged_at).toBeInstanceOf(Date);
    expect((await read(id)).status).toBe('processing');

    // The statement of (e) arrived just now: not late at a threshold of one hour; two hours later it is, naming its day.
    expect(await statementMissing.check(t.ctx, { threshold: 1, filter: { account: 'eur-main' } })).toEqual([]);
    await t.ctx.db.query("UPDATE bank_statements SET created_at = created_at - interval '2 hours' WHERE bank_account = 'eur-main'");
    const late = await statementMissing.check(t.ctx, { threshold: 1, filter: { account: 'eur-main' } });
    expect(late.map((f) => [f.subject, f.details?.latestStatementDate])).toEqual([['eur-main', DAY]]);
    // The USD account has sent no file and had no statement: nothing to expect yet.
    expect(await statementMissing.check(t.ctx, { threshold: 1, filter: { account: 'usd-main' } })).toEqual([]);
    // Both are declared by the bank connector, so the alerts of this deployment evaluate them.
    expect(registryOf(t.ctx.connectors).alertSources().map((s) => s.name)).toEqual(expect.arrayContaining(['bank.file_unacknowledged', 'bank.statement_missing']));
  });
});
