import { expect } from 'vitest';
import type { Caller, TestApp } from '../helpers/app.js';

export interface SettlementView {
  settlementId: string;
  method: 'bank_transfer' | 'crypto';
  requiredAmount: string;
  currency: string;
  reference: string;
  status: string;
  instructions: Record<string, string>;
  expiresAt: string;
  requirements: { proofOfPayment: boolean };
}

export interface OrderView {
  id: string;
  clientRef: string | null;
  status: string;
  fromCurrency: string;
  toCurrency: string;
  fromAmount: string;
  toAmount: string;
  rate: string;
  failureReason: string | null;
  uetr: string | null;
  settlement: SettlementView | null;
  fundingDeadlineAt: string;
  executionDeadlineAt: string | null;
  fundedAt: string | null;
  completedAt: string | null;
  createdAt: string;
  funding: 'balance' | 'settlement';
  beneficiaryId: string | null;
  accountId?: string;
}

/** The order fields of the spec (§Order), exactly: what every order.* event carries. */
export const ORDER_EVENT_FIELDS = [
  'clientRef', 'completedAt', 'createdAt', 'executionDeadlineAt', 'failureReason', 'fromAmount', 'fromCurrency', 'fundedAt',
  'fundingDeadlineAt', 'id', 'rate', 'settlement', 'status', 'toAmount', 'toCurrency', 'uetr',
].sort();

let refCounter = 0;
export const ref = (prefix = 'o'): string => `${prefix}-${Date.now().toString(36)}-${++refCounter}`;

export async function fund(c: Caller, currency: string, amount: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await c.request('POST', '/v1/sandbox/balances/fund', { currency, amount }, headers);
  expect(res.statusCode, res.body).toBe(201);
}

export async function balance(c: Caller, currency: string, headers: Record<string, string> = {}): Promise<{ balance: string; pendingOut: string; totalBalance: string } | undefined> {
  const res = await c.request('GET', '/v1/ledger/balances', undefined, headers);
  return res.json<{ balances: { currency: string; balance: string; pendingOut: string; totalBalance: string }[] }>().balances.find((b) => b.currency === currency);
}

export async function placeOrder(c: Caller, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<OrderView> {
  const res = await c.request('POST', '/v1/orders', { fromCurrency: 'EUR', toCurrency: 'USD', ...body }, headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<OrderView>();
}

export async function eventsOf(t: TestApp, orderId: string): Promise<{ type: string; data: Record<string, unknown>; account_id: string | null }[]> {
  return t.ctx.db.query("SELECT type, data, account_id FROM events WHERE data->>'id' = $1 ORDER BY seq", [orderId]);
}

export async function transfersOf(t: TestApp, orderId: string): Promise<{ currency: string; amount_minor: string; status: string }[]> {
  return t.ctx.db.query("SELECT currency, amount_minor::text AS amount_minor, status FROM ledger_transfers WHERE reference_type = 'order' AND reference_id = $1 ORDER BY created_at", [orderId]);
}

export const US_BENEFICIARY = {
  type: 'business',
  name: 'Globex Trading LLC',
  country: 'US',
  address: '1 Main Street',
  city: 'New York',
  postcode: '10001',
  countrySubdivision: 'NY',
  accounts: [{ type: 'bank_account', currency: 'USD', country: 'US', data: { accountNumber: '123456789', routingNumber: '021000021', bankName: 'Chase' } }],
};
