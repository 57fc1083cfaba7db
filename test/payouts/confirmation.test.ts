import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { pdfText, type PdfText } from '../helpers/pdf-text.js';
import { dashboardUser } from '../helpers/web-client.js';
import { ADA, fund, payingWorkspace, ref, saveBeneficiary, type PayoutView } from './helpers.js';

const OPERATOR_NAME = 'Example Payments B.V.';

let t: TestApp;
let c: Caller;
let other: Caller;
let beneficiaryId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { CORRIDOR_OPERATOR_NAME: OPERATOR_NAME } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000.00');
  beneficiaryId = await saveBeneficiary(c);
  other = await payingWorkspace(t);
  await fund(other, 'EUR', '100.00');
}, 120_000);
afterAll(async () => t?.close());

async function payout(owner: Caller, body: Record<string, unknown>): Promise<PayoutView & { reference?: string; createdAt: string }> {
  const res = await owner.request('POST', '/v1/payouts', { clientRef: ref('conf'), currency: 'EUR', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function confirmation(owner: Caller, id: string): Promise<PdfText> {
  const res = await owner.request('GET', `/v1/payouts/${id}/confirmation.pdf`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  return pdfText(res.rawPayload);
}

const fact = (pdf: PdfText, label: string): string | undefined => pdf.rows.find((r) => r[0] === label)?.slice(1).join(' ');
const utc = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

describe('GET /v1/payouts/{id}/confirmation.pdf', () => {
  it('names the payer, the payee and the account paid, the amount and currency, the date, the reference and the status of a paid payout', async () => {
    const created = await payout(c, { amount: '125.40', beneficiary: { id: beneficiaryId }, reference: 'Invoice 1042' });
    for (const move of ['process', 'pay']) expect((await c.request('POST', `/v1/sandbox/payouts/${created.id}/${move}`)).statusCode).toBe(200);
    const paid = (await c.request('GET', `/v1/payouts/${created.id}`)).json<PayoutView & { createdAt: string; completedAt: string }>();
    const res = await c.request('GET', `/v1/payouts/${created.id}/confirmation.pdf`);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="payment-confirmation-${created.clientRef}.pdf"`);
    expect(res.headers['cache-control']).toBe('no-store');
    const pdf = pdfText(res.rawPayload);
    expect(pdf.lines[0]).toBe('Payment confirmation');
    expect(pdf.lines[1]).toMatch(new RegExp(`^Issued by ${OPERATOR_NAME.replace(/\./g, '\\.')} on `));
    expect(fact(pdf, 'Status')).toBe('paid');
    expect(fact(pdf, 'Amount')).toBe('125.40 EUR');
    expect(fact(pdf, 'Payer')).toBe('Acme Ltd');
    expect(fact(pdf, 'Payee')).toBe(ADA.name);
    expect(fact(pdf, 'Payee account')).toBe('IBAN ending 3000');
    expect(fact(pdf, 'Reference')).toBe('Invoice 1042');
    expect(fact(pdf, 'Payer reference')).toBe(created.clientRef);
    expect(fact(pdf, 'Date')).toBe(utc(paid.createdAt));
    expect(fact(pdf, 'Paid on')).toBe(utc(paid.completedAt));
    expect(fact(pdf, 'Payment id')).toBe(created.id);
    expect(pdf.lines.join(' ')).toContain(`Paid on ${utc(paid.completedAt)}`);
    // The whole account number is not on a document meant to be passed on.
    expect(pdf.lines.join(' ')).not.toContain(ADA.accounts[0]!.data.iban);
  });

  it('names the originator given as senderInfo, and the payee of a one-off beneficiary', async () => {
    const created = await payout(c, {
      amount: '10.00',
      beneficiary: { ...ADA, name: 'Émile Zola', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'FR1420041010050500013M02606' } }] },
      senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' },
    });
    const pdf = await confirmation(c, created.id);
    expect(fact(pdf, 'On behalf of')).toBe('Grace Hopper');
    expect(fact(pdf, 'Payee')).toBe('Émile Zola');
    expect(fact(pdf, 'Payee account')).toBe('IBAN ending 2606');
  });

  it('says a payout not yet paid is not paid, and a failed one is not paid with its reason', async () => {
    const queued = await payout(c, { amount: '11.00', beneficiary: { id: beneficiaryId } });
    const waiting = await confirmation(c, queued.id);
    expect(fact(waiting, 'Status')).toBe('queued');
    expect(fact(waiting, 'Paid on')).toBeUndefined();
    expect(waiting.lines.join(' ')).toContain('Not yet paid: the payment is queued.');
    const failing = await payout(c, { amount: '12.00', beneficiary: { id: beneficiaryId } });
    expect((await c.request('POST', `/v1/sandbox/payouts/${failing.id}/fail`, { reason: 'beneficiary_account_invalid' })).statusCode).toBe(200);
    const failed = await confirmation(c, failing.id);
    expect(fact(failed, 'Status')).toBe('failed');
    expect(failed.lines.join(' ')).toContain('Not paid: the payment failed');
  });

  it("answers 404 for another workspace's payout, and for no payout", async () => {
    const theirs = await payout(other, { amount: '5.00', beneficiary: ADA });
    const res = await c.request('GET', `/v1/payouts/${theirs.id}/confirmation.pdf`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).not.toBe('application/pdf');
    expect(res.body).not.toContain(theirs.clientRef);
    expect((await c.request('GET', '/v1/payouts/00000000-0000-4000-8000-000000000000/confirmation.pdf')).statusCode).toBe(404);
    expect((await other.request('GET', `/v1/payouts/${theirs.id}/confirmation.pdf`)).statusCode).toBe(200);
  });
});

describe("the dashboard payout page's confirmation", () => {
  it('links the PDF, which is the API\'s document, and answers 404 for another workspace\'s payout', async () => {
    const created = await payout(c, { amount: '13.00', beneficiary: { id: beneficiaryId }, reference: 'Rent May' });
    const web = await dashboardUser(t.app, c.workspaceId, `ops-${ref()}@example.test`, 'viewer');
    const page = await web.get(`/dashboard/payouts/${created.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/dashboard/payouts/${created.id}/confirmation.pdf"`);
    const res = await web.get(`/dashboard/payouts/${created.id}/confirmation.pdf`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const pdf = pdfText(res.rawPayload);
    expect(fact(pdf, 'Reference')).toBe('Rent May');
    expect(fact(pdf, 'Payee')).toBe(ADA.name);
    const theirs = await payout(other, { amount: '6.00', beneficiary: ADA });
    expect((await web.get(`/dashboard/payouts/${theirs.id}/confirmation.pdf`)).statusCode).toBe(404);
  });
});
