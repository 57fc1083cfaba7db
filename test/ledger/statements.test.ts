import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { pdfText } from '../helpers/pdf-text.js';
import { dashboardUser } from '../helpers/web-client.js';
import { fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

const OPERATOR_NAME = 'Example Payments B.V.';

let t: TestApp;
let c: Caller;
const today = new Date().toISOString().slice(0, 10);
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/** A CSV of the statement's shape (no quoted commas in these fields but the description, which is compared apart). */
function parseCsv(text: string): Record<string, string>[] {
  const [header, ...rows] = text.trim().split('\r\n').map((line) => line.split(','));
  return rows.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i] ?? ''])));
}

async function statement(query: string, headers: Record<string, string> = {}) {
  const res = await c.request('GET', `/v1/statements?${query}`, undefined, headers);
  return res;
}

beforeAll(async () => {
  t = await createTestApp({ env: { CORRIDOR_OPERATOR_NAME: OPERATOR_NAME } });
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000.00');
  await fund(c, 'EUR', '250.50');
  const beneficiaryId = await saveBeneficiary(c);
  for (const amount of ['25.00', '40.10']) {
    const created = await c.request('POST', '/v1/payouts', { clientRef: ref('stmt'), amount, currency: 'EUR', beneficiary: { id: beneficiaryId }, reference: 'Invoice 7' });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    for (const move of ['process', 'pay']) {
      const moved = await c.request('POST', `/v1/sandbox/payouts/${id}/${move}`);
      expect(moved.statusCode, moved.body).toBe(200);
    }
  }
  // A payout still held: its hold is pending, so not a movement of the statement.
  const held = await c.request('POST', '/v1/payouts', { clientRef: ref('held'), amount: '5.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
  expect(held.statusCode, held.body).toBe(201);
}, 120_000);
afterAll(async () => t?.close());

describe('GET /v1/statements', () => {
  it('answers the CSV by default: opening balance, each posted movement with the running balance, closing balance', async () => {
    const res = await statement(`currency=EUR&from=${today}&to=${today}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-EUR-${today}-${today}.csv"`);
    const rows = parseCsv(res.body);
    expect(rows[0]).toMatchObject({ kind: 'opening', balance: '0.00' });
    const movements = rows.filter((r) => r.kind === 'movement');
    expect(movements.filter((m) => m.direction === 'credit').map((m) => m.amount)).toEqual(['1000.00', '250.50']);
    expect(movements.filter((m) => m.direction === 'debit' && m.objectType === 'payout').map((m) => m.amount)).toEqual(expect.arrayContaining(['25.00', '40.10']));
    const balances = (await c.request('GET', '/v1/ledger/balances')).json<{ balances: { currency: string; totalBalance: string }[] }>();
    expect(rows[rows.length - 1]).toMatchObject({ kind: 'closing', balance: balances.balances.find((b) => b.currency === 'EUR')!.totalBalance });
  });

  it('answers the same statement as a PDF whose opening and closing balances and every movement are the CSV\'s', async () => {
    const csv = parseCsv((await statement(`currency=EUR&from=${today}&to=${today}`)).body);
    const res = await statement(`currency=EUR&from=${today}&to=${today}&format=pdf`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="statement-EUR-${today}-${today}.pdf"`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const pdf = pdfText(res.rawPayload);
    const opening = pdf.rows.find((r) => r.includes('Opening balance'));
    const closing = pdf.rows.find((r) => r.includes('Closing balance'));
    expect(opening?.at(-1)).toBe(csv[0]!.balance);
    expect(closing?.at(-1)).toBe(csv[csv.length - 1]!.balance);
    const movements = csv.filter((r) => r.kind === 'movement');
    expect(movements.length).toBeGreaterThanOrEqual(4);
    for (const m of movements) {
      const row = pdf.rows.find((r) => r.includes(m.transferId!));
      expect(row, `transfer ${m.transferId}`).toBeDefined();
      // Money in or out, then the balance after it: the last two cells.
      expect(row!.slice(-2)).toEqual([m.amount, m.balance]);
      expect(row![0]).toBe(m.at!.replace('T', ' ').replace(/\.\d+Z$/, ''));
    }
    // In the CSV's order.
    const order = movements.map((m) => pdf.rows.findIndex((r) => r.includes(m.transferId!)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("names the workspace (the account holder), the account and the operator that issues it", async () => {
    const pdf = pdfText((await statement(`currency=EUR&from=${today}&to=${today}&format=pdf`)).rawPayload);
    expect(pdf.rows).toContainEqual(['Account holder', 'Acme Ltd']);
    expect(pdf.rows).toContainEqual(['Account', `master account (${c.workspaceId})`]);
    expect(pdf.rows).toContainEqual(['Issued by', OPERATOR_NAME]);
    expect(pdf.lines[0]).toBe('Statement of account: EUR');
    expect(pdf.lines[1]).toContain(`${today} to ${today}`);
  });

  it("opens a later period with the earlier one's closing balance", async () => {
    const todays = parseCsv((await statement(`currency=EUR&from=${today}&to=${today}`)).body);
    const later = parseCsv((await statement(`currency=EUR&from=${tomorrow}&to=${tomorrow}`)).body);
    expect(later.map((r) => r.kind)).toEqual(['opening', 'closing']);
    expect(later[0]!.balance).toBe(todays[todays.length - 1]!.balance);
    const pdf = pdfText((await statement(`currency=EUR&from=${tomorrow}&to=${tomorrow}&format=pdf`)).rawPayload);
    expect(pdf.rows.find((r) => r.includes('Opening balance'))?.at(-1)).toBe(later[0]!.balance);
    expect(pdf.lines.join(' ')).toContain('0 posted movements (0 in, 0 out), amounts in EUR, each with the balance after it. Holds not yet posted (pending payouts) are not movements until they post. The closing balance is at the start of the day after the last day.');
  });

  it('chooses the PDF by Accept when no format is given, and the format over Accept', async () => {
    expect((await statement(`currency=EUR&from=${today}&to=${today}`, { accept: 'application/pdf' })).headers['content-type']).toBe('application/pdf');
    expect((await statement(`currency=EUR&from=${today}&to=${today}`, { accept: 'text/csv, application/pdf' })).headers['content-type']).toMatch(/^text\/csv/);
    expect((await statement(`currency=EUR&from=${today}&to=${today}&format=csv`, { accept: 'application/pdf' })).headers['content-type']).toMatch(/^text\/csv/);
  });

  it('refuses a period that ends before it starts, a day that is not one and a currency the workspace does not hold, naming the field', async () => {
    const cases: [string, string][] = [
      [`currency=EUR&from=${tomorrow}&to=${today}`, 'to'],
      [`currency=EUR&from=2026-02-30&to=${today}`, 'from'],
      [`currency=EUR&from=${today}&to=tomorrow`, 'to'],
      [`currency=ZZZ&from=${today}&to=${today}&format=pdf`, 'currency'],
    ];
    for (const [query, field] of cases) {
      const res = await statement(query);
      expect(res.statusCode, query).toBe(400);
      const body = res.json<{ details?: { field: string }[] }>();
      expect((body.details ?? []).map((d) => d.field.replace(/^querystring\.|^\//, '')), `${query}: ${res.body}`).toContain(field);
    }
  });

  it("keeps to the workspace: another workspace's statement of the same day has none of these movements", async () => {
    const other = await newWorkspace(t.app, { name: 'Other Co' });
    const res = await other.request('GET', `/v1/statements?currency=EUR&from=${today}&to=${today}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(parseCsv(res.body).map((r) => [r.kind, r.balance])).toEqual([
      ['opening', '0.00'],
      ['closing', '0.00'],
    ]);
  });
});

describe('a statement longer than a page', () => {
  it('carries every movement over the pages, each page headed with the columns, the figures still the CSV\'s', async () => {
    const busy = await newWorkspace(t.app, { name: 'Busy Traders GmbH' });
    for (let i = 1; i <= 90; i++) await fund(busy, 'EUR', `${i}.${String(i % 100).padStart(2, '0')}`);
    const query = `/v1/statements?currency=EUR&from=${today}&to=${today}`;
    const csv = parseCsv((await busy.request('GET', query)).body).filter((r) => r.kind === 'movement');
    expect(csv).toHaveLength(90);
    const pdf = pdfText((await busy.request('GET', `${query}&format=pdf`)).rawPayload);
    expect(pdf.pages).toBeGreaterThanOrEqual(2);
    expect(pdf.rows.filter((r) => r[0] === 'Date (UTC)')).toHaveLength(pdf.pages);
    const rows = pdf.rows.filter((r) => /^[0-9a-f-]{36}$/.test(r[1] ?? ''));
    expect(rows.map((r) => [r[1], ...r.slice(-2)])).toEqual(csv.map((m) => [m.transferId, m.amount, m.balance]));
    expect(pdf.rows).toContainEqual(['Account holder', 'Busy Traders GmbH']);
  });
});

describe('the dashboard statement', () => {
  it('offers the PDF beside the CSV on the overview and answers it with the same figures', async () => {
    const web = await dashboardUser(t.app, c.workspaceId, `finance-${ref()}@example.test`);
    const overview = await web.get('/dashboard');
    expect(overview.body).toContain('formaction="/dashboard/statement.pdf"');
    const res = await web.get(`/dashboard/statement.pdf?currency=EUR&from=${today}&to=${today}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const csv = parseCsv((await web.get(`/dashboard/statement.csv?currency=EUR&from=${today}&to=${today}`)).body);
    const pdf = pdfText(res.rawPayload);
    expect(pdf.rows.find((r) => r.includes('Closing balance'))?.at(-1)).toBe(csv[csv.length - 1]!.balance);
    expect(pdf.rows).toContainEqual(['Issued by', OPERATOR_NAME]);
  });
});
