import { createHash } from 'node:crypto';
import type { Sql, Tx } from '../../db/db.js';
import { AppError } from '../../http/errors.js';
import { assert } from '../../lib/assert.js';
import { CURRENCY_CODES, currencyInfo } from '../../lib/currencies.js';
import { newId } from '../../lib/ids.js';
import * as repo from './ledger.repository.js';

export type SystemKind = 'provider_clearing' | 'fee_revenue' | 'fx_desk' | 'deposit_suspense' | 'operator_adjustments' | 'sandbox_funding';

/** One side of a transfer: a customer's balance (an account of a workspace) or a system account. */
export type LedgerParty =
  | { customer: string; workspaceId: string }
  | { system: SystemKind; code?: string };

export interface TransferInput {
  debit: LedgerParty;
  credit: LedgerParty;
  currency: string;
  /** Minor units of `currency`, > 0. */
  amountMinor: bigint;
  reference: { type: string; id?: string | undefined };
  description?: string | undefined;
}

export const insufficientBalance = (): AppError =>
  new AppError({ status: 400, code: 'INSUFFICIENT_BALANCE', message: 'INSUFFICIENT_BALANCE' });

/** System accounts have ids derived from what they are, so every process agrees without a lookup. */
export function systemAccountId(kind: SystemKind, code: string, currency: string): string {
  const h = createHash('sha256').update(`corridor:system:${kind}:${code}:${currency}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const SEEDED_RAILS = ['sepa_inst', 'sepa_credit', 'bank_transfer', 'ach', 'fedwire', 'swift', 'crypto', 'mobile_money', 'international'];
const SEEDED_SYSTEM_ACCOUNTS: ReadonlySet<string> = new Set(
  CURRENCY_CODES.flatMap((currency) => [
    ...SEEDED_RAILS.map((rail) => systemAccountId('provider_clearing', rail, currency)),
    ...(['fee_revenue', 'fx_desk', 'deposit_suspense', 'operator_adjustments', 'sandbox_funding'] as const).map((kind) =>
      systemAccountId(kind, '', currency),
    ),
  ]),
);

function check(input: TransferInput): void {
  assert(input.amountMinor > 0n, 'a transfer amount is > 0');
  assert(currencyInfo(input.currency) !== undefined, `a transfer currency is known: ${input.currency}`);
  assert(!('customer' in input.debit && 'customer' in input.credit && input.debit.customer === input.credit.customer), 'a transfer moves between two accounts');
}

/**
 * The ledger: double entry, posted directly or pending and later posted or voided exactly once
 * (TigerBeetle's two-phase transfers). Every call runs inside the caller's transaction, so a
 * money movement commits with the state change and the event that go with it, or not at all.
 * Running balances live on customer accounts only, so the one row a payout locks is the payer's.
 */
class Ledger {
  private async systemId(tx: Sql, kind: SystemKind, code: string, currency: string): Promise<string> {
    const id = systemAccountId(kind, code, currency);
    // Migration 0002 seeds the system accounts of every rail and currency; anything else is made here.
    if (!SEEDED_SYSTEM_ACCOUNTS.has(id)) await repo.ensureSystemAccount(tx, id, kind, code, currency);
    return id;
  }

  private async debitSide(tx: Tx, party: LedgerParty, input: TransferInput, phase: 'posted' | 'pending'): Promise<string> {
    if ('system' in party) return this.systemId(tx, party.system, party.code ?? '', input.currency);
    const row = await repo.moveCustomer(tx, 'debit', party.customer, input.currency, input.amountMinor.toString(), phase);
    if (!row) throw insufficientBalance();
    return row.id;
  }

  private async creditSide(tx: Tx, party: LedgerParty, input: TransferInput, phase: 'posted' | 'pending'): Promise<string> {
    if ('system' in party) return this.systemId(tx, party.system, party.code ?? '', input.currency);
    const amount = input.amountMinor.toString();
    let row = await repo.moveCustomer(tx, 'credit', party.customer, input.currency, amount, phase);
    if (!row) {
      // A customer's balance in a currency opens on its first movement.
      await repo.ensureCustomerAccount(tx, newId(), party.workspaceId, party.customer, input.currency);
      row = await repo.moveCustomer(tx, 'credit', party.customer, input.currency, amount, phase);
    }
    assert(row, 'the credited customer account exists');
    return row.id;
  }

  private async move(tx: Tx, input: TransferInput, phase: 'posted' | 'pending'): Promise<string> {
    check(input);
    const debitId = await this.debitSide(tx, input.debit, input, phase);
    const creditId = await this.creditSide(tx, input.credit, input, phase);
    const id = newId();
    await repo.insertTransfers(tx, [
      {
        id,
        currency: input.currency,
        debitId,
        creditId,
        amountMinor: input.amountMinor.toString(),
        status: phase,
        referenceType: input.reference.type,
        referenceId: input.reference.id ?? null,
        description: input.description ?? null,
      },
    ]);
    return id;
  }

  /** A posted transfer. A customer debit beyond the available balance throws INSUFFICIENT_BALANCE. */
  transfer(tx: Tx, input: TransferInput): Promise<string> {
    return this.move(tx, input, 'posted');
  }

  /** A pending transfer (a hold): the debit leaves the available balance now and settles on post or void. */
  hold(tx: Tx, input: TransferInput): Promise<string> {
    return this.move(tx, input, 'pending');
  }

  private async resolve(tx: Tx, transferId: string, to: 'posted' | 'voided'): Promise<repo.TransferRow> {
    const row = await repo.resolvePending(tx, transferId, to);
    assert(row, `pending transfer ${transferId} resolves exactly once`);
    await repo.settlePendingBalances(tx, row, to);
    return row;
  }

  /** Posts a pending transfer; a second resolution of the same transfer is a bug and rolls back. */
  post(tx: Tx, transferId: string): Promise<repo.TransferRow> {
    return this.resolve(tx, transferId, 'posted');
  }

  /** Voids a pending transfer: the held amount returns to the available balance. */
  void(tx: Tx, transferId: string): Promise<repo.TransferRow> {
    return this.resolve(tx, transferId, 'voided');
  }

  /**
   * Many holds in one go, in the caller's transaction: the customer rows are locked once (in id
   * order, so concurrent batches never deadlock), each hold is accepted in order while its balance
   * still covers all its legs (all or none), then every transfer is written with one statement and
   * each row updated once. A refused hold writes nothing.
   */
  async holdBatch(tx: Tx, holds: readonly BatchHold[]): Promise<BatchHoldResult[]> {
    const keyOf = (accountId: string, currency: string) => `${accountId}:${currency}`;
    const keys = new Map(holds.map((h) => [keyOf(h.accountId, h.currency), { accountId: h.accountId, currency: h.currency }]));
    const locked = await repo.lockCustomersAvailable(tx, [...keys.values()]);
    const accounts = new Map(locked.map((a) => [keyOf(a.account_id, a.currency), { id: a.id, available: BigInt(a.available), held: 0n }]));
    const transfers: repo.NewTransfer[] = [];
    const results = holds.map((h): BatchHoldResult => {
      const account = accounts.get(keyOf(h.accountId, h.currency));
      const total = h.legs.reduce((sum, leg) => sum + leg.amountMinor, 0n);
      assert(h.legs.every((leg) => leg.amountMinor > 0n), 'a hold amount is > 0');
      if (!account || total > account.available) return { ok: false };
      account.available -= total;
      account.held += total;
      const transferIds = h.legs.map((leg) => {
        const id = newId();
        transfers.push({
          id,
          currency: h.currency,
          debitId: account.id,
          creditId: systemAccountId(leg.credit.system, leg.credit.code ?? '', h.currency),
          amountMinor: leg.amountMinor.toString(),
          status: 'pending',
          referenceType: h.reference.type,
          referenceId: h.reference.id ?? null,
          description: leg.description ?? null,
        });
        return id;
      });
      return { ok: true, transferIds };
    });
    if (transfers.length > 0) {
      const totals = [...accounts.values()].filter((a) => a.held > 0n).map((a) => ({ id: a.id, amountMinor: a.held.toString() }));
      await repo.insertHolds(tx, totals, transfers);
    }
    return results;
  }
}

/** One hold of a batch: one or more legs from one customer balance, accepted all together or not at all. */
export interface BatchHold {
  accountId: string;
  currency: string;
  legs: { amountMinor: bigint; credit: { system: SystemKind; code?: string }; description?: string }[];
  reference: { type: string; id?: string | undefined };
}

export type BatchHoldResult = { ok: true; transferIds: string[] } | { ok: false };

export interface Balance {
  currency: string;
  /** Minor units. */
  totalMinor: bigint;
  availableMinor: bigint;
  pendingInMinor: bigint;
  pendingOutMinor: bigint;
  lastTransactionAt: Date | null;
}

/** One entry per currency the account holds a ledger account in (opened on first movement). */
export async function balancesOf(sql: Sql, accountId: string): Promise<Balance[]> {
  const rows = await repo.customerBalances(sql, accountId);
  return rows.map((r) => {
    const total = BigInt(r.credits_posted) - BigInt(r.debits_posted);
    const pendingOut = BigInt(r.debits_pending);
    const balance: Balance = {
      currency: r.currency,
      totalMinor: total,
      availableMinor: total - pendingOut,
      pendingInMinor: BigInt(r.credits_pending),
      pendingOutMinor: pendingOut,
      lastTransactionAt: r.last_transfer_at,
    };
    assert(balance.availableMinor >= 0n, `available balance of ${r.id} is not negative`);
    return balance;
  });
}

export const ledgerInvariantViolations = repo.invariantViolations;

/** The ledger service other modules call, always inside their own transaction. */
export const ledger = new Ledger();
export type { Ledger };
