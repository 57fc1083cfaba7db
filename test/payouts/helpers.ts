import { expect } from 'vitest';
import { newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';

export const DE_IBAN = 'DE89370400440532013000';

/** A full beneficiary that any EUR rail pays. */
export const ADA = {
  type: 'individual',
  name: 'Ada Lovelace',
  country: 'DE',
  address: '1 Hauptstrasse',
  city: 'Berlin',
  postcode: '10115',
  accounts: [{ type: 'iban', currency: 'EUR', data: { iban: DE_IBAN } }],
};

export interface PayoutView {
  id: string;
  clientRef: string;
  amount: string;
  currency: string;
  status: string;
  route: string;
  fee: string;
  beneficiaryId: string | null;
  failureReason: string | null;
  completedAt: string | null;
}

let refCounter = 0;
export const ref = (prefix = 'p'): string => `${prefix}-${Date.now().toString(36)}-${++refCounter}`;

export async function saveBeneficiary(c: Caller, body: Record<string, unknown> = ADA): Promise<string> {
  const res = await c.request('POST', '/v1/beneficiaries', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

export async function fund(c: Caller, currency: string, amount: string): Promise<void> {
  const res = await c.request('POST', '/v1/sandbox/balances/fund', { currency, amount });
  expect(res.statusCode, res.body).toBe(201);
}

export async function balance(c: Caller, currency: string): Promise<{ balance: string; pendingOut: string; totalBalance: string } | undefined> {
  const res = await c.request('GET', '/v1/ledger/balances');
  return res.json<{ balances: { currency: string; balance: string; pendingOut: string; totalBalance: string }[] }>().balances.find((b) => b.currency === currency);
}

/** Polls a payout until `until` holds (the worker moves it in the background). */
export async function waitFor(c: Caller, id: string, until: (p: PayoutView) => boolean, timeoutMs = 15_000): Promise<PayoutView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const p = (await c.request('GET', `/v1/payouts/${id}`)).json<PayoutView>();
    if (until(p)) return p;
    if (Date.now() > deadline) throw new Error(`payout ${id} still ${p.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function eventTypesOf(t: TestApp, payoutId: string): Promise<string[]> {
  const rows = await t.ctx.db.query<{ type: string }>("SELECT type FROM events WHERE data->>'id' = $1 ORDER BY seq", [payoutId]);
  return rows.map((r) => r.type);
}

/** A workspace that can pay out: a business identity on record (the originator when senderInfo is omitted). */
export async function payingWorkspace(t: TestApp, settings: Record<string, unknown> = {}): Promise<Caller> {
  const c = await newWorkspace(t.app);
  const res = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/settings`, {
    businessIdentity: { companyName: 'Acme Payments Ltd', registrationNumber: '12345678', country: 'GB', address: '1 King Street', city: 'London', postalCode: 'EC2V 8AU' },
    ...settings,
  });
  expect(res.statusCode, res.body).toBe(200);
  return c;
}

/** How many payouts the workspace has (any status). */
export async function payoutCount(t: TestApp, workspaceId: string): Promise<number> {
  const [row] = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payouts WHERE workspace_id = $1', [workspaceId]);
  return row?.n ?? 0;
}
