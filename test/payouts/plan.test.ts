import { describe, expect, it } from 'vitest';
import type { QuoteRow } from '../../src/domains/fx/fx.repository.js';
import { HoldSet } from '../../src/domains/ledger/ledger.service.js';
import { clientRefKey, dailyKey, planPayouts, quoteKey, type Decision, type PlanRow, type PlanSnapshot } from '../../src/domains/payouts/payouts.plan.js';

/** planPayouts is pure: these tests build its rows and snapshot in memory, no database. */

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const QUOTE = '00000000-0000-4000-8000-0000000000a1';

function row(over: Partial<PlanRow['prepared']> = {}, extra: Partial<Omit<PlanRow, 'prepared'>> = {}): PlanRow {
  return {
    prepared: {
      workspaceId: WORKSPACE,
      accountId: WORKSPACE,
      clientRef: `ref-${Math.random()}`,
      currency: 'EUR',
      amountMinor: 6000n,
      route: 'sepa',
      rail: 'sepa_credit',
      crypto: false,
      beneficiaryId: null,
      beneficiary: {},
      sender: null,
      quoteId: null,
      purpose: null,
      reference: null,
      metadata: null,
      ...over,
    },
    newBeneficiary: undefined,
    dailyLimitMinor: undefined,
    terms: { payoutFeeMinor: () => 0n },
    ...extra,
  };
}

function quote(over: Partial<QuoteRow> = {}): QuoteRow {
  return {
    id: QUOTE,
    workspace_id: WORKSPACE,
    account_id: WORKSPACE,
    intent: 'payout',
    from_currency: 'USD',
    to_currency: 'EUR',
    from_amount_minor: '7000',
    to_amount_minor: '6000',
    fee_minor: '0',
    fixed_side: 'to',
    rate: '0.857142',
    mid_rate: '0.86',
    spread_bps: 30,
    status: 'open',
    expired: false,
    expires_at: new Date(Date.now() + 60_000),
    created_at: new Date(),
    ...over,
  };
}

function snapshot(over: Partial<PlanSnapshot> & { balances?: { currency: string; available: bigint }[] } = {}): PlanSnapshot {
  const balances = over.balances ?? [{ currency: 'EUR', available: 100_000n }];
  return {
    paidToday: over.paidToday ?? new Map(),
    clientRefsTaken: over.clientRefsTaken ?? new Set(),
    quotes: over.quotes ?? new Map(),
    holds: HoldSet.of(balances.map((b, n) => ({ accountId: WORKSPACE, currency: b.currency, id: `00000000-0000-4000-8000-00000000010${n}`, available: b.available }))),
  };
}

const outcome = (d: Decision) => (d.ok ? `${d.insert.status}:${d.insert.fundingCurrency}:${d.insert.fundingMinor}` : `refused:${d.error.code ?? d.error.message}`);

describe('planPayouts', () => {
  it('counts the rows accepted earlier in the plan against the daily limit, from what was paid today', () => {
    const limited = { dailyLimitMinor: 15_000n };
    const decisions = planPayouts([row({}, limited), row({}, limited), row({}, limited)], snapshot({ paidToday: new Map([[dailyKey(WORKSPACE, 'EUR'), 2000n]]) }));
    expect(decisions.map(outcome)).toEqual(['queued:EUR:6000', 'queued:EUR:6000', 'refused:LIMIT_EXCEEDED']);
  });

  it('does not count a fiat row recorded as failed for balance against the daily limit', () => {
    const limited = { dailyLimitMinor: 10_000n };
    const decisions = planPayouts([row({ amountMinor: 8000n }, limited), row({ amountMinor: 8000n }, limited)], snapshot({ balances: [{ currency: 'EUR', available: 5000n }] }));
    expect(decisions.map(outcome)).toEqual(['failed:EUR:8000', 'failed:EUR:8000']);
  });

  it('refuses a clientRef already stored, and the second row of the plan with the same clientRef', () => {
    const decisions = planPayouts(
      [row({ clientRef: 'stored' }), row({ clientRef: 'twice' }), row({ clientRef: 'twice' })],
      snapshot({ clientRefsTaken: new Set([clientRefKey(WORKSPACE, 'stored')]) }),
    );
    expect(decisions.map(outcome)).toEqual(['refused:DUPLICATE_CLIENT_REF', 'queued:EUR:6000', 'refused:DUPLICATE_CLIENT_REF']);
  });

  it('uses a quote once: a second row of the plan naming it is refused QUOTE_ALREADY_USED', () => {
    const quotes = new Map([[quoteKey(WORKSPACE, QUOTE), quote()]]);
    const decisions = planPayouts([row({ quoteId: QUOTE }), row({ quoteId: QUOTE })], snapshot({ quotes, balances: [{ currency: 'USD', available: 100_000n }] }));
    expect(decisions.map(outcome)).toEqual(['queued:USD:7000', 'refused:QUOTE_ALREADY_USED']);
  });

  it('leaves a quote open when its row is refused, so a later row of the plan may use it', () => {
    const quotes = new Map([[quoteKey(WORKSPACE, QUOTE), quote()]]);
    const decisions = planPayouts([row({ quoteId: QUOTE, amountMinor: 5000n }), row({ quoteId: QUOTE })], snapshot({ quotes, balances: [{ currency: 'USD', available: 100_000n }] }));
    expect(decisions.map(outcome)).toEqual(['refused:QUOTE_AMOUNT_MISMATCH', 'queued:USD:7000']);
  });

  it("refuses a quote it cannot use in the quote's order: unknown or another account's (404), intent, used, expired", () => {
    const other = '00000000-0000-4000-8000-0000000000b2';
    const quotes = new Map([
      [quoteKey(WORKSPACE, QUOTE), quote({ intent: 'conversion' })],
      [quoteKey(other, other), quote({ id: other, account_id: other })],
    ]);
    const used = new Map([[quoteKey(WORKSPACE, QUOTE), quote({ status: 'used', expired: true })]]);
    const expired = new Map([[quoteKey(WORKSPACE, QUOTE), quote({ expired: true })]]);
    const funded = { balances: [{ currency: 'USD', available: 100_000n }] };
    expect(planPayouts([row({ quoteId: other }), row({ quoteId: 'not-a-uuid' }), row({ quoteId: QUOTE })], snapshot({ quotes, ...funded })).map(outcome)).toEqual([
      'refused:NOT_FOUND',
      'refused:NOT_FOUND',
      'refused:QUOTE_INTENT_MISMATCH',
    ]);
    expect(planPayouts([row({ quoteId: QUOTE })], snapshot({ quotes: used, ...funded })).map(outcome)).toEqual(['refused:QUOTE_ALREADY_USED']);
    expect(planPayouts([row({ quoteId: QUOTE })], snapshot({ quotes: expired, ...funded })).map(outcome)).toEqual(['refused:QUOTE_EXPIRED']);
  });

  it('without the balance: a fiat row is recorded as failed, a quote-funded or crypto row is refused INSUFFICIENT_BALANCE and its quote stays open', () => {
    const quotes = new Map([[quoteKey(WORKSPACE, QUOTE), quote()]]);
    const poor = [
      { currency: 'EUR', available: 100n },
      { currency: 'USD', available: 100n },
    ];
    const decisions = planPayouts([row(), row({ quoteId: QUOTE }), row({ crypto: true })], snapshot({ quotes, balances: poor }));
    expect(decisions.map(outcome)).toEqual(['failed:EUR:6000', 'refused:INSUFFICIENT_BALANCE', 'refused:INSUFFICIENT_BALANCE']);
    const failed = decisions[0] as Extract<Decision, { ok: true }>;
    expect(failed.insert).toMatchObject({ failureReason: 'insufficient_balance', holdTransferId: null, feeTransferId: null });
    // The refused row left the quote open: with the balance, the same quote is usable.
    const again = planPayouts([row({ quoteId: QUOTE })], snapshot({ quotes, balances: [{ currency: 'USD', available: 100_000n }] }));
    expect(again.map(outcome)).toEqual(['queued:USD:7000']);
  });

  it("holds the workspace's fee in the funding currency with the amount, both or neither", () => {
    const fee = { terms: { payoutFeeMinor: (currency: string) => (currency === 'EUR' ? 500n : 0n) } };
    const decisions = planPayouts([row({}, fee), row({}, fee)], snapshot({ balances: [{ currency: 'EUR', available: 12_000n }] }));
    expect(decisions.map(outcome)).toEqual(['queued:EUR:6000', 'failed:EUR:6000']);
    const first = decisions[0] as Extract<Decision, { ok: true }>;
    expect(first.insert.feeMinor).toBe(500n);
    expect(first.insert.feeTransferId).not.toBeNull();
  });
});
