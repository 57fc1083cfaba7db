import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearBankConnectorOf } from '../../src/connectors/clearbank/index.js';
import { requestStatementOfDay, runStatementFetch } from '../../src/connectors/clearbank/statements.js';
import { operator, type Caller } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { eventTypesOf } from '../payouts/helpers.js';
import { ALAN, clearBankWorld, SIM_SORT_CODE, type ClearBankWorld } from './harness.js';

/**
 * ClearBank's camt.053 statements into Corridor's reconciliation, end to end: the connector asks
 * for the day's statement (POST /v1/statementrequests), the sandbox bank announces it by its signed
 * Statements.ReadyForDownload webhook, the connector fetches it (GET /v1/statements/{messageId}),
 * every call held by Prism to ClearBank's published Customer Statements definition, and the
 * statement is matched against what ClearBank's webhooks booked, through the bank connector's reader.
 */

interface StatementView {
  id: string;
  bankAccount: string;
  statementId: string;
  iban: string | null;
  date: string;
  openingBalance: string;
  closingBalance: string;
  corridorClosingBalance: string;
  difference: string;
  lines: { total: number; matched: number; unmatched: number; ignored: number };
  movementsNotOnStatement: unknown[];
}

interface ExceptionView {
  code: string;
  reason: string;
  bankAccount: string | null;
  direction: string | null;
  amount: string | null;
  currency: string | null;
  messageType: string;
}

const today = () => new Date().toISOString().slice(0, 10);

async function statementsOf(w: ClearBankWorld, bankAccount: string, date: string): Promise<StatementView[]> {
  const res = await operator(w.t.app, 'GET', `/operator/v1/reconciliation/statements?bankAccount=${bankAccount}&date=${date}&limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: StatementView[] }>().data;
}

async function openExceptions(w: ClearBankWorld, bankAccount: string): Promise<ExceptionView[]> {
  const res = await operator(w.t.app, 'GET', `/operator/v1/reconciliation/exceptions?status=open&bankAccount=${bankAccount}&limit=100`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: ExceptionView[] }>().data;
}

/** Asks for today's statement as the scheduled job asks for a day's, and waits until reconciliation has it. */
async function reconcileToday(w: ClearBankWorld, bankAccount: string): Promise<StatementView> {
  const cb = clearBankConnectorOf(w.t.ctx);
  if (!cb) throw new Error('no ClearBank connector');
  await requestStatementOfDay(w.t.ctx, cb.runtime, today());
  const [statement] = await until('the statement to be reconciled', () => statementsOf(w, bankAccount, today()), (s) => s.length === 1);
  return statement as StatementView;
}

describe('ClearBank statements reconciled with what its webhooks booked', () => {
  const bankAccount = 'gbp-clearbank';
  let w: ClearBankWorld;
  let c: Caller;

  beforeAll(async () => {
    w = await clearBankWorld({ statementsAccount: bankAccount });
    c = await w.caller();
  }, 300_000);

  afterAll(async () => {
    await w?.close();
  });

  it('reconciles the day at zero after a few payouts settled and one returned: every line matched, nothing left over', async () => {
    const paid = await Promise.all(['10.00', '25.50', '7.25'].map((amount) => w.payout(c, ALAN(), amount)));
    const returned = await w.payout(c, ALAN('00000301'), '12.00');
    for (const id of paid) await w.waitFor(c, id, (p) => p.status === 'paid');
    await w.waitFor(c, returned, (p) => p.status === 'failed');
    expect(await eventTypesOf(w.t, returned)).toEqual(expect.arrayContaining(['payout.paid', 'payout.reverted']));

    const statement = await reconcileToday(w, bankAccount);
    expect(statement).toMatchObject({
      bankAccount,
      iban: 'GB29NWBK60161331926819',
      date: today(),
      openingBalance: '1000000.00',
      closingBalance: '999957.25',
      corridorClosingBalance: '999957.25',
      difference: '0.00',
      lines: { total: 5, matched: 5, unmatched: 0, ignored: 0 },
      movementsNotOnStatement: [],
    });
    expect(statement.statementId).toMatch(/^CAMT053_\d{8}_\d{8}_\w{8}$/);
    expect(await openExceptions(w, bankAccount)).toEqual([]);
    expect(w.violations()).toEqual([]);
  }, 300_000);

  it('applies a statement fetched twice once: the second fetch is known by its hash and changes nothing', async () => {
    const [statement] = await statementsOf(w, bankAccount, today());
    const cb = clearBankConnectorOf(w.t.ctx);
    if (!statement || !cb) throw new Error('no statement of today');
    const lines = await w.t.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM bank_statement_lines l JOIN bank_statements s ON s.id = l.statement_id WHERE s.bank_account = $1', [bankAccount]);

    await runStatementFetch(w.t.ctx, cb.runtime, statement.statementId);

    expect(await statementsOf(w, bankAccount, today())).toEqual([statement]);
    const files = (await operator(w.t.app, 'GET', '/operator/v1/bank/inbound-files?limit=100')).json<{ data: { name: string; status: string; messageId: string | null }[] }>().data.filter((f) => f.name.startsWith(statement.statementId));
    expect(files).toEqual([expect.objectContaining({ status: 'processed', messageId: statement.statementId })]);
    expect(await w.t.ctx.db.query('SELECT count(*)::text AS n FROM bank_statement_lines l JOIN bank_statements s ON s.id = l.statement_id WHERE s.bank_account = $1', [bankAccount])).toEqual(lines);
    expect(await openExceptions(w, bankAccount)).toEqual([]);
    expect(w.sim.calls.filter((call) => call.path === `/v1/statements/${statement.statementId}`)).toHaveLength(2);
    expect(w.violations()).toEqual([]);
  }, 300_000);
});

describe('ClearBank statements with a booking Corridor does not expect', () => {
  const bankAccount = 'gbp-clearbank-b';
  let w: ClearBankWorld;
  let c: Caller;

  beforeAll(async () => {
    w = await clearBankWorld({ statementsAccount: bankAccount });
    c = await w.caller();
  }, 300_000);

  afterAll(async () => {
    await w?.close();
  });

  it('puts a credit nothing of Corridor\'s explains on the exceptions list with its reason, and the statement shows the difference', async () => {
    const id = await w.payout(c, ALAN(), '20.00');
    await w.waitFor(c, id, (p) => p.status === 'paid');
    const transactionId = await w.sim.receiveCredit({ amountPence: 4200n, name: 'Ada Lovelace', sortCode: SIM_SORT_CODE, accountNumber: '87654321', reference: 'INVOICE 42' });
    await until('the credit\'s webhook to be acknowledged', async () => w.sim.webhooks.find((h) => h.transactionId === transactionId), (h) => h?.acknowledged === true);

    const statement = await reconcileToday(w, bankAccount);
    expect(statement).toMatchObject({ openingBalance: '1000000.00', closingBalance: '1000022.00', corridorClosingBalance: '999980.00', difference: '42.00', lines: { total: 2, matched: 1, unmatched: 1, ignored: 0 } });
    const exceptions = await openExceptions(w, bankAccount);
    expect(exceptions).toEqual([expect.objectContaining({ code: 'unexpected_booking', messageType: 'camt.053', direction: 'credit', amount: '42.00', currency: 'GBP' })]);
    expect(exceptions[0]?.reason).toMatch(/^Statement CAMT053_\w+ of gbp-clearbank-b books a credit of 42\.00 GBP \(bank reference \w+, EndToEndId \w+, "INVOICE 42"\) that nothing Corridor booked explains/);
    expect(exceptions[0]?.reason).toMatch(/The operator finds out with the bank what it is/);
    expect(w.violations()).toEqual([]);
  }, 300_000);
});
