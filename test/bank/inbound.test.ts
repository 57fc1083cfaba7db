import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollInbound, type InboundOptions } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, operator, type Caller, type TestApp } from '../helpers/app.js';
import { camt053, camt054, pacs004, pain002, writeAnswer } from '../helpers/bank-answers.js';
import { activeAccount, approveOnboarding } from '../virtual-accounts/helpers.js';
import { balance, fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

/** The bank's answers taken in from its outbox folder: payouts rejected, paid and returned, deposits credited, mismatches held back. */

const SETTLEMENT = { id: 'main-eur', iban: 'DE02100100100006820101', currency: 'EUR' };
const options: InboundOptions = { accounts: [SETTLEMENT] };

let t: TestApp;
let c: Caller;
let beneficiaryId: string;
let dir: string;
let source: LocalDirectorySource;
beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '600000' } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000.00');
  beneficiaryId = await saveBeneficiary(c);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-bank-outbox-'));
  source = new LocalDirectorySource(dir);
}, 300_000);
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Payout {
  id: string;
  status: string;
  failureReason: string | null;
  returnReason?: { code: string; description: string };
}

async function processingPayout(amount: string): Promise<string> {
  const res = await c.request('POST', '/v1/payouts', { clientRef: ref('bank'), amount, currency: 'EUR', beneficiary: { id: beneficiaryId } });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json<{ id: string }>().id;
  const moved = await operator(t.app, 'POST', `/operator/v1/payouts/${id}/process`);
  expect(moved.statusCode, moved.body).toBe(200);
  return id;
}

const payout = async (id: string) => (await c.request('GET', `/v1/payouts/${id}`)).json<Payout>();

async function take(name: string, xml: string) {
  writeAnswer(dir, name, xml);
  const results = await pollInbound(t.ctx, source, options);
  expect(results).toHaveLength(1);
  return results[0];
}

async function exceptionsOf(fileId: string) {
  return t.ctx.db.query<{ code: string; reason: string; end_to_end_id: string | null }>('SELECT code, reason, end_to_end_id FROM bank_exceptions WHERE file_id = $1 ORDER BY created_at', [fileId]);
}

async function movementsOf(objectId: string) {
  return t.ctx.db.query<{ kind: string; direction: string }>('SELECT kind, direction FROM bank_movements WHERE object_id = $1 ORDER BY created_at', [objectId]);
}

describe('inbound bank files', () => {
  it('a pain.002 reject with AC01 fails the payout with the ISO reason on the payout, its event and in words; the hold comes back', async () => {
    const id = await processingPayout('40.00');
    const before = await balance(c, 'EUR');
    const result = await take('pain002-reject.xml', pain002({ originalMessageId: 'MSG-1', transactions: [{ endToEndId: id, status: 'RJCT', reason: 'AC01', amount: '40.00' }] }));
    expect(result).toMatchObject({ outcome: 'processed', messageType: 'pain.002', entries: 1, exceptions: 0 });
    const p = await payout(id);
    expect(p.status).toBe('failed');
    expect(p.returnReason).toEqual({ code: 'AC01', description: 'Format of the account number specified is not correct' });
    expect(p.failureReason).toBe("Rejected by the bank: AC01 Format of the account number specified is not correct. Who acts: the workspace, which corrects the beneficiary's details (or asks the beneficiary) and sends a new payout");
    const [event] = await t.ctx.db.query<{ data: { returnReason?: unknown } }>("SELECT data FROM events WHERE type = 'payout.failed' AND data->>'id' = $1", [id]);
    expect(event?.data.returnReason).toEqual({ code: 'AC01', description: 'Format of the account number specified is not correct' });
    expect(Number((await balance(c, 'EUR'))?.pendingOut)).toBe(Number(before?.pendingOut) - 40);
    expect(fs.existsSync(path.join(dir, 'archive', 'pain002-reject.xml'))).toBe(true);
  });

  it('a booked camt.054 debit pays the payout; a later camt.054 return entry reverts it with the return reason, funds back', async () => {
    const id = await processingPayout('25.00');
    const paid = await take('camt054-debit.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '25.00', endToEndId: id, ref: 'BOOK-25' }] }));
    expect(paid).toMatchObject({ outcome: 'processed', entries: 1, exceptions: 0 });
    expect((await payout(id)).status).toBe('paid');
    const total = Number((await balance(c, 'EUR'))?.totalBalance);
    const returned = await take('camt054-return.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'credit', amount: '25.00', endToEndId: id, returnReason: 'AC04', ref: 'RTN-25' }] }));
    expect(returned).toMatchObject({ outcome: 'processed', entries: 1, exceptions: 0 });
    const p = await payout(id);
    expect(p).toMatchObject({ status: 'failed', returnReason: { code: 'AC04', description: "Account number specified has been closed on the receiving bank's books" } });
    expect(Number((await balance(c, 'EUR'))?.totalBalance)).toBeGreaterThanOrEqual(total + 25);
    expect(await movementsOf(id)).toEqual([{ kind: 'payout', direction: 'debit' }, { kind: 'return', direction: 'credit' }]);
    const types = await t.ctx.db.query<{ type: string }>("SELECT type FROM events WHERE data->>'id' = $1 ORDER BY seq", [id]);
    expect(types.map((e) => e.type)).toEqual(['payout.processing', 'payout.paid', 'payout.reverted']);
  });

  it('one camt.054 booking many payments pays each once, in the order the bank booked them: a payment booked twice is an exception, a return after its payment reverts it', async () => {
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(await processingPayout(`${10 + i}.00`));
    const [twice, returned] = ids as [string, string];
    const result = await take('camt054-many.xml', camt054({ account: SETTLEMENT, entries: [
      ...ids.map((id, i) => ({ direction: 'debit' as const, amount: `${10 + i}.00`, endToEndId: id, ref: `MANY-${i}` })),
      { direction: 'debit', amount: '10.00', endToEndId: twice, ref: 'MANY-AGAIN' },
      { direction: 'credit', amount: '11.00', endToEndId: returned, returnReason: 'AC04', ref: 'MANY-RTN' },
    ] }));
    expect(result).toMatchObject({ outcome: 'processed', entries: 8, exceptions: 1 });
    const exceptions = await exceptionsOf((result as { fileId: string }).fileId);
    expect(exceptions).toEqual([expect.objectContaining({ code: 'payout_state', reason: `Payout ${twice} is paid: "pay" does not apply to it` })]);
    const statuses = await Promise.all(ids.map(async (id) => (await payout(id)).status));
    expect(statuses).toEqual(['paid', 'failed', 'paid', 'paid', 'paid', 'paid']);
    expect(await movementsOf(twice)).toEqual([{ kind: 'payout', direction: 'debit' }]);
    expect(await movementsOf(returned)).toEqual([{ kind: 'payout', direction: 'debit' }, { kind: 'return', direction: 'credit' }]);
    const paidEvents = await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'payout.paid' AND data->>'id' = ANY($1::text[])", [ids]);
    expect(paidEvents[0]?.n).toBe(6);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it('a pacs.004 return of a paid payout reverts it with its ISO return reason', async () => {
    const id = await processingPayout('12.00');
    await take('camt054-debit-12.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '12.00', endToEndId: id }] }));
    const result = await take('pacs004.xml', pacs004({ returns: [{ endToEndId: id, amount: '12.00', reason: 'MD07' }] }));
    expect(result).toMatchObject({ outcome: 'processed', messageType: 'pacs.004', exceptions: 0 });
    expect(await payout(id)).toMatchObject({ status: 'failed', returnReason: { code: 'MD07', description: 'End customer is deceased' } });
  });

  it('a camt.054 credit to a virtual account IBAN lands as a deposit through the deposit service', async () => {
    await approveOnboarding(t.app, c);
    const account = await activeAccount(c, 'EUR');
    const listed = (await c.request('GET', '/v1/virtual-accounts')).json<{ data: { id: string; iban?: string }[] }>().data.find((v) => v.id === account.id);
    expect(listed?.iban).toBeTruthy();
    const before = Number((await balance(c, 'EUR'))?.totalBalance);
    const result = await take('camt054-credit.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'credit', amount: '75.50', creditorIban: listed?.iban as string, debtorName: 'Grace Hopper', ref: 'CRD-7550' }] }));
    expect(result).toMatchObject({ outcome: 'processed', entries: 1, exceptions: 0 });
    const deposits = (await c.request('GET', `/v1/deposits?virtualAccountId=${account.id}`)).json<{ data: { amount: string; status: string; rail: string }[] }>().data;
    expect(deposits[0]).toMatchObject({ amount: '75.50', status: 'completed', rail: 'bank_transfer' });
    expect(Number((await balance(c, 'EUR'))?.totalBalance)).toBeCloseTo(before + 75.5, 2);
    // The same credit notified again in another message posts nothing: an exception says why.
    const again = await take('camt054-credit-again.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'credit', amount: '75.50', creditorIban: listed?.iban as string, ref: 'CRD-7550' }] }));
    expect(again).toMatchObject({ outcome: 'processed', exceptions: 1 });
    expect((await exceptionsOf((again as { fileId: string }).fileId)).map((e) => e.code)).toEqual(['duplicate_entry']);
  });

  it('an unknown EndToEndId, an amount mismatch and an IBAN of no virtual account land in exceptions with nothing posted', async () => {
    const id = await processingPayout('30.00');
    const transfers = async () => (await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ledger_transfers'))[0]?.n;
    const before = await transfers();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const result = await take('camt054-mismatch.xml', camt054({ account: SETTLEMENT, entries: [
      { direction: 'debit', amount: '30.00', endToEndId: unknown },
      { direction: 'debit', amount: '31.00', endToEndId: id },
      { direction: 'credit', amount: '5.00', creditorIban: 'FR7630006000011234567890189' },
    ] }));
    expect(result).toMatchObject({ outcome: 'processed', entries: 3, exceptions: 3 });
    const exceptions = await exceptionsOf((result as { fileId: string }).fileId);
    expect(exceptions.map((e) => e.code)).toEqual(['unknown_end_to_end_id', 'amount_mismatch', 'unknown_virtual_account']);
    expect(exceptions[1]?.reason).toContain('31.00 EUR');
    expect((await payout(id)).status).toBe('processing');
    expect(await transfers()).toBe(before);
    const listed = await operator(t.app, 'GET', '/operator/v1/reconciliation/exceptions?status=open');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json<{ data: { code: string }[] }>().data.map((e) => e.code)).toEqual(expect.arrayContaining(['unknown_end_to_end_id', 'amount_mismatch', 'unknown_virtual_account']));
  });

  it('the same file twice applies once; an unreadable file is quarantined with the reason', async () => {
    const id = await processingPayout('8.00');
    const xml = camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '8.00', endToEndId: id }] });
    const first = await take('twice-a.xml', xml);
    const second = await take('twice-b.xml', xml);
    expect(first).toMatchObject({ outcome: 'processed', entries: 1 });
    expect(second).toMatchObject({ outcome: 'duplicate', fileId: (first as { fileId: string }).fileId });
    expect(await movementsOf(id)).toHaveLength(1);
    const bad = await take('broken.xml', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn><GrpHdr></GrpHdr>');
    expect(bad).toMatchObject({ outcome: 'quarantined' });
    expect((bad as { reason: string }).reason).toMatch(/not well-formed|missing/);
    expect(fs.existsSync(path.join(dir, 'quarantine', 'broken.xml'))).toBe(true);
    const files = (await operator(t.app, 'GET', '/operator/v1/bank/inbound-files?status=quarantined')).json<{ data: { name: string; reason: string }[] }>().data;
    expect(files.map((f) => f.name)).toEqual(['broken.xml']);
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });

  it("a day's camt.053 reconciles to a zero difference against the movements booked that day", async () => {
    const day = '2026-03-04';
    const id = await processingPayout('60.00');
    await take('day-debit.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '60.00', endToEndId: id, ref: 'D4-60', bookingDate: day }] }));
    const statement = await take('day-statement.xml', camt053({ account: SETTLEMENT, date: day, opening: '5000.00', statementId: 'STMT-0304', entries: [
      { direction: 'debit', amount: '60.00', endToEndId: id, ref: 'D4-60' },
      { direction: 'debit', amount: '1.50', ref: 'FEE-0304' },
    ] }));
    expect(statement).toMatchObject({ outcome: 'processed', messageType: 'camt.053', exceptions: 0 });
    const list = await operator(t.app, 'GET', `/operator/v1/reconciliation/statements?bankAccount=main-eur&date=${day}`);
    expect(list.statusCode, list.body).toBe(200);
    const [s] = list.json<{ data: { id: string; difference: string; lines: { matched: number; unmatched: number } }[] }>().data;
    // The bank fee is on the statement but not in Corridor's book: shown as the difference and an unmatched line.
    expect(s).toMatchObject({ difference: '-1.50', lines: { matched: 1, unmatched: 1 } });
    const lines = (await operator(t.app, 'GET', `/operator/v1/reconciliation/statements/${s?.id}/lines`)).json<{ data: { id: string; status: string; matched: { object: { type: string; id: string } } | null }[] }>().data;
    expect(lines[0]).toMatchObject({ status: 'matched', matched: { object: { type: 'payout', id } } });
    const ignored = await t.app.inject({ method: 'POST', url: `/operator/v1/reconciliation/lines/${lines[1]?.id}/ignore`, headers: { authorization: 'Bearer op_test_key_0123456789', 'idempotency-key': ref('ign') }, payload: { reason: 'Monthly account fee, booked to bank charges' } });
    expect(ignored.statusCode, ignored.body).toBe(200);
    expect(ignored.json()).toMatchObject({ status: 'ignored', reason: 'Monthly account fee, booked to bank charges' });
    const csv = await operator(t.app, 'GET', `/operator/v1/reconciliation/statements/${s?.id}/lines.csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\r\n')[1]).toContain(`payout,${id}`);

    // A day where the statement carries only what Corridor booked: zero difference, every line matched.
    const day2 = '2026-03-05';
    const id2 = await processingPayout('20.00');
    await take('day2-debit.xml', camt054({ account: SETTLEMENT, entries: [{ direction: 'debit', amount: '20.00', endToEndId: id2, ref: 'D5-20', bookingDate: day2 }] }));
    await take('day2-statement.xml', camt053({ account: SETTLEMENT, date: day2, opening: '4938.50', entries: [{ direction: 'debit', amount: '20.00', endToEndId: id2, ref: 'D5-20' }] }));
    const [s2] = (await operator(t.app, 'GET', `/operator/v1/reconciliation/statements?bankAccount=main-eur&date=${day2}`)).json<{ data: { difference: string; closingBalance: string; corridorClosingBalance: string; lines: { matched: number; unmatched: number } }[] }>().data;
    expect(s2).toMatchObject({ difference: '0.00', closingBalance: '4918.50', corridorClosingBalance: '4918.50', lines: { matched: 1, unmatched: 0 } });
  });
});
