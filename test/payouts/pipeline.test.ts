import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { CURRENCY_CODES } from '../../src/platform/lib/currencies.js';
import { LaneBatcher } from '../../src/platform/lib/lane-batcher.js';
import { payoutRails } from '../../src/domains/corridors/index.js';
import { ensureSystemAccounts, ledger, ledgerInvariantViolations } from '../../src/domains/ledger/ledger.service.js';
import { createTestApp, newWorkspace, onPostgres, operator, type Caller, type TestApp } from '../helpers/app.js';
import { ADDRESSES } from '../helpers/corridor-fixtures.js';
import { ADA, balance, fund, payingWorkspace, ref, saveBeneficiary, waitFor, type PayoutView } from './helpers.js';

/** The defects the rebuild of payout creation as one pipeline fixed, each as the client sees it. */

let t: TestApp;
let runner: JobRunner;
beforeAll(async () => {
  t = await createTestApp({ env: { SANDBOX_STEP_MS: '40', JOB_POLL_MS: '20', PAYOUT_LANES: '1' } });
  runner = createRunner(t.ctx);
  runner.start();
});
afterAll(async () => {
  await runner.stop();
  await t.close();
});

async function quote(c: Caller, body: Record<string, unknown>): Promise<{ id: string; fromAmount: string; toAmount: string }> {
  const res = await c.request('POST', '/v1/fx/quotes', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('the fee of a quote-funded payout', () => {
  async function quotedPayout(toAmount: string) {
    const c = await payingWorkspace(t, { payoutFees: { USD: '2.50', EUR: '7.00' } });
    await fund(c, 'USD', '100.00');
    const beneficiaryId = await saveBeneficiary(c);
    const q = await quote(c, { fromCurrency: 'USD', toCurrency: 'EUR', toAmount, intent: 'payout' });
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: toAmount, currency: 'EUR', beneficiary: { id: beneficiaryId }, quoteId: q.id });
    expect(res.statusCode, res.body).toBe(201);
    return { c, q, payout: res.json<PayoutView & { feeCurrency: string }>() };
  }

  it('is the fee of the funding currency, held in it with the quote amount, and posted when paid', async () => {
    const { c, q, payout } = await quotedPayout('50.00');
    expect(q.fromAmount).toBe('54.63');
    expect(payout).toMatchObject({ amount: '50.00', currency: 'EUR', fee: '2.50', feeCurrency: 'USD' });
    expect(await balance(c, 'USD')).toMatchObject({ balance: '42.87', pendingOut: '57.13', totalBalance: '100.00' });
    const paid = await waitFor(c, payout.id, (p) => p.status === 'paid');
    expect(paid).toMatchObject({ fee: '2.50', feeCurrency: 'USD' });
    expect(await balance(c, 'USD')).toMatchObject({ balance: '42.87', pendingOut: '0.00', totalBalance: '42.87' });
    expect(await balance(c, 'EUR')).toBeUndefined();
  });

  it('returns with the amount when the provider fails the payout', async () => {
    const { c, payout } = await quotedPayout('50.13');
    expect(payout).toMatchObject({ fee: '2.50', feeCurrency: 'USD' });
    await waitFor(c, payout.id, (p) => p.status === 'failed');
    expect(await balance(c, 'USD')).toMatchObject({ balance: '100.00', pendingOut: '0.00', totalBalance: '100.00' });
  });

  it('returns with the amount when a paid payout is reverted', async () => {
    const { c, payout } = await quotedPayout('50.15');
    expect(payout).toMatchObject({ fee: '2.50', feeCurrency: 'USD' });
    await waitFor(c, payout.id, (p) => p.status === 'failed' && p.completedAt !== null);
    const reverted = await t.ctx.db.query<{ reverted_at: Date | null }>('SELECT reverted_at FROM payouts WHERE id = $1', [payout.id]);
    expect(reverted[0]?.reverted_at).not.toBeNull();
    expect(await balance(c, 'USD')).toMatchObject({ balance: '100.00', pendingOut: '0.00', totalBalance: '100.00' });
  });
});

describe('operator settings are validated when written', () => {
  it('refuses fees and limits that do not fit their currency, naming the field, and stores nothing', async () => {
    const c = await newWorkspace(t.app);
    const cases: [Record<string, unknown>, string][] = [
      [{ payoutFees: { EUR: '1.005' } }, 'payoutFees.EUR'],
      [{ payoutFees: { XOF: '1.5' } }, 'payoutFees.XOF'],
      [{ payoutFees: { ABC: '1.00' } }, 'payoutFees.ABC'],
      [{ payoutLimits: { EUR: { perTransaction: '10.001' } } }, 'payoutLimits.EUR.perTransaction'],
      [{ payoutLimits: { USD: { daily: '0' } } }, 'payoutLimits.USD.daily'],
    ];
    for (const [settings, field] of cases) {
      const res = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/settings`, settings);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const [row] = await t.ctx.db.query<{ settings: Record<string, unknown> }>('SELECT settings FROM workspaces WHERE id = $1', [c.workspaceId]);
    expect(row?.settings.payoutFees).toBeUndefined();
    expect(row?.settings.payoutLimits).toBeUndefined();
  });

  it('names every failing field at once, payout and deposit amounts alike', async () => {
    const c = await newWorkspace(t.app);
    const res = await operator(t.app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/settings`, { payoutFees: { EUR: '1.005' }, depositFees: { GBP: '0.001' } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['payoutFees.EUR', 'depositFees.GBP']);
  });

  it('a workspace whose stored settings do not parse fails only its own requests, not the others of its batch', async () => {
    const callers = await Promise.all([0, 1, 2].map(() => payingWorkspace(t)));
    const beneficiaries: string[] = [];
    for (const c of callers) {
      await fund(c, 'EUR', '100.00');
      beneficiaries.push(await saveBeneficiary(c));
    }
    // Settings stored before they were validated on write.
    await t.ctx.db.query(`UPDATE workspaces SET settings = settings || '{"payoutFees":{"EUR":"1.005"}}'::jsonb WHERE id = $1`, [callers[0]?.workspaceId]);
    const answers = await Promise.all(
      callers.flatMap((c, i) => [0, 1, 2].map(() => c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaries[i] } }))),
    );
    expect(answers.slice(0, 3).map((r) => r.statusCode)).toEqual([500, 500, 500]);
    expect(answers.slice(3).map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
  });
});

describe('LaneBatcher isolates failures', () => {
  it('runs a batch that throws again one item at a time: only the failing item is rejected', async () => {
    const batches: number[][] = [];
    const batcher = new LaneBatcher<number, number>(
      async (items) => {
        batches.push(items);
        if (items.includes(13)) throw new Error('thirteen');
        return items.map((i) => i * 2);
      },
      () => 'one lane',
      { lanes: 1, batchWeightMax: 10, queueMax: 100, onFull: () => new Error('full') },
    );
    const results = await Promise.allSettled([1, 2, 13, 4].map((i) => batcher.submit(i)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([2, 4, 'thirteen', 8]);
    expect(batches.some((b) => b.length > 1)).toBe(true);
  });

  it('refuses past queueMax without queueing, and takes at most batchWeightMax per batch', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const sizes: number[] = [];
    const batcher = new LaneBatcher<number, number>(
      async (items) => {
        sizes.push(items.reduce((a, b) => a + b, 0));
        await gate;
        return items;
      },
      () => 'one lane',
      { lanes: 1, batchWeightMax: 5, queueMax: 4, weightOf: (i) => i, onFull: () => new Error('full') },
    );
    const first = batcher.submit(1);
    const queued = [3, 2, 4, 1].map((i) => batcher.submit(i));
    await expect(batcher.submit(1)).rejects.toThrow('full');
    release();
    await Promise.all([first, ...queued]);
    expect(sizes).toEqual([1, 5, 5]);
  });
});

describe('one request at a time, in arrival order', () => {
  it('reports a fedwire full beneficiary without city as BENEFICIARY_INCOMPLETE before its invalid routing number (corridor fields, then structure)', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'USD', '100.00');
    const beneficiary = {
      type: 'individual',
      name: 'John Smith',
      country: 'US',
      address: '1 Main Street',
      postcode: '10001',
      countrySubdivision: 'NY',
      accounts: [{ type: 'bank_account', currency: 'USD', data: { accountNumber: '123456789', routingNumber: '021000022', bankName: 'Chase' } }],
    };
    const res = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'USD', route: 'fedwire', beneficiary });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details[0]).toMatchObject({ field: 'beneficiary.city', code: 'BENEFICIARY_INCOMPLETE' });
    const withCity = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'USD', route: 'fedwire', beneficiary: { ...beneficiary, city: 'New York' } });
    expect(withCity.statusCode).toBe(400);
    expect(withCity.json().details[0].code).toBe('INVALID_ROUTING_NUMBER');
  });

  it('a batch row refused without being stored does not make a later row with its clientRef a duplicate', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100.00');
    const beneficiaryId = await saveBeneficiary(c);
    const wallet = { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: ADDRESSES.ethereum.valid } }] };
    const clientRef = ref('twice');
    const res = await c.request('POST', '/v1/payouts', [
      { clientRef, amount: '10.00', currency: 'USDC', route: 'crypto', beneficiary: wallet },
      { clientRef, amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } },
      { clientRef, amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const rows = res.json<({ error: string } | PayoutView)[]>();
    expect(rows[0]).toEqual({ error: 'INSUFFICIENT_BALANCE', clientRef });
    expect(rows[1]).toMatchObject({ clientRef, status: 'queued' });
    expect(rows[2]).toEqual({ error: 'Payout with this client reference already exists', clientRef });
  });

  it('every rail × currency of the catalog can be held and settled, with system accounts made from the catalog at start', async () => {
    // As if a rail had been added to the catalog after the migrations ran.
    await t.ctx.db.query(`DELETE FROM ledger_accounts WHERE kind = 'provider_clearing' AND code = 'fedwire' AND NOT EXISTS (
      SELECT 1 FROM ledger_transfers x WHERE x.debit_account_id = ledger_accounts.id OR x.credit_account_id = ledger_accounts.id)`);
    await ensureSystemAccounts(t.ctx.db, payoutRails());
    const c = await newWorkspace(t.app);
    for (const currency of CURRENCY_CODES) {
      const adjust = await t.ctx.db.tx((tx) =>
        ledger.transfer(tx, { debit: { system: 'operator_adjustments' }, credit: { customer: c.workspaceId, workspaceId: c.workspaceId }, currency, amountMinor: 1000n, reference: { type: 'test' } }),
      );
      expect(adjust).toBeTruthy();
      for (const rail of payoutRails()) {
        await t.ctx.db.tx(async (tx) => {
          const id = await ledger.hold(tx, { debit: { customer: c.workspaceId, workspaceId: c.workspaceId }, credit: { system: 'provider_clearing', code: rail }, currency, amountMinor: 1n, reference: { type: 'test' } });
          await ledger.post(tx, id);
        });
      }
    }
    expect(await ledgerInvariantViolations(t.ctx.db)).toEqual([]);
  });
});

describe.skipIf(!onPostgres)('the write transaction sees what it writes against (PostgreSQL)', () => {
  it('a beneficiary being deactivated while a payout to it is written is not paid', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100.00');
    const beneficiaryId = await saveBeneficiary(c, ADA);
    const other = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`UPDATE beneficiaries SET status = 'inactive' WHERE id = $1`, [beneficiaryId]);
      const pending = c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
      await new Promise((r) => setTimeout(r, 300));
      await other.query('COMMIT');
      const res = await pending;
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details[0]).toMatchObject({ field: 'beneficiary.id' });
      expect(await balance(c, 'EUR')).toMatchObject({ balance: '100.00', pendingOut: '0.00' });
    } finally {
      await other.end();
    }
  });

  it('answers 503 with Retry-After (retryable problem details) past the queue limit, writing nothing for those', async () => {
    const small = await createTestApp({ env: { SANDBOX_STEP_MS: '600000', PAYOUT_QUEUE_MAX: '2', PAYOUT_LANES: '1' } });
    try {
      const c = await payingWorkspace(small);
      await fund(c, 'EUR', '1000.00');
      const beneficiaryId = await saveBeneficiary(c);
      // The workspace's balance row held elsewhere: the first group waits on it and the next requests queue.
      const other = new pg.Client({ connectionString: small.env.DATABASE_URL });
      await other.connect();
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM ledger_accounts WHERE account_id = $1 FOR UPDATE', [c.workspaceId]);
      const pending = Array.from({ length: 30 }, (_, i) =>
        c.request('POST', '/v1/payouts', { clientRef: `q-${i}`, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }, { 'idempotency-key': `q-${i}` }),
      );
      await new Promise((r) => setTimeout(r, 500));
      await other.query('COMMIT');
      await other.end();
      const answers = await Promise.all(pending);
      const busy = answers.filter((r) => r.statusCode === 503);
      expect(busy.length).toBeGreaterThan(0);
      for (const r of busy) {
        expect(r.headers['retry-after']).toBe('1');
        expect(r.headers['content-type']).toMatch(/problem\+json/);
        expect(r.json()).toMatchObject({ status: 503, retryable: true });
      }
      const created = answers.filter((r) => r.statusCode === 201).length;
      expect(created + busy.length).toBe(30);
      const [n] = await small.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM payouts WHERE workspace_id = $1', [c.workspaceId]);
      expect(n?.n).toBe(created);
      // A refused request's key was never taken: the retry is answered anew.
      const retry = answers.findIndex((r) => r.statusCode === 503);
      const again = await c.request('POST', '/v1/payouts', { clientRef: `q-${retry}`, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }, { 'idempotency-key': `q-${retry}` });
      expect(again.statusCode).toBe(201);
    } finally {
      await small.close();
    }
  });

  it('requests that arrive together are answered as if they ran one after another, in arrival order', async () => {
    const c = await payingWorkspace(t);
    await fund(c, 'EUR', '100.00');
    const beneficiaryId = await saveBeneficiary(c);
    const wallet = { name: 'Satoshi Nakamoto', country: 'JP', accounts: [{ type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: ADDRESSES.ethereum.valid } }] };
    const walletId = await saveBeneficiary(c, wallet);
    const other = new pg.Client({ connectionString: t.env.DATABASE_URL });
    await other.connect();
    try {
      // Hold the workspace's balance row so the first request's group waits, and the next ones queue behind it together.
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM ledger_accounts WHERE account_id = $1 FOR UPDATE`, [c.workspaceId]);
      const first = c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
      await new Promise((r) => setTimeout(r, 200));
      const clientRef = ref('together');
      // Sent apart, so they reach the lane's queue in this order even on a loaded machine.
      const refused = c.request('POST', '/v1/payouts', { clientRef, amount: '10.00', currency: 'USDC', route: 'crypto', beneficiary: { id: walletId } });
      await new Promise((r) => setTimeout(r, 150));
      const created = c.request('POST', '/v1/payouts', { clientRef, amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
      await new Promise((r) => setTimeout(r, 150));
      const duplicate = c.request('POST', '/v1/payouts', { clientRef, amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
      await new Promise((r) => setTimeout(r, 300));
      await other.query('COMMIT');
      expect((await first).statusCode).toBe(201);
      expect((await refused).json()).toMatchObject({ message: 'INSUFFICIENT_BALANCE' });
      expect((await created).statusCode).toBe(201);
      expect((await duplicate).json()).toMatchObject({ message: 'Payout with this client reference already exists' });
    } finally {
      await other.end();
    }
  });
});
