import { createHash } from 'node:crypto';
import type { Sql, Tx } from '../../platform/db/db.js';
import { DomainError, refusal } from '../../platform/lib/errors.js';
import { assert } from '../../platform/lib/assert.js';
import { CURRENCY_CODES, currencyInfo } from '../../platform/lib/currencies.js';
import { newId } from '../../platform/lib/ids.js';
import * as repo from './ledger.repository.js';

export type SystemKind = 'provider_clearing' | 'fee_revenue' | 'fx_desk' | 'deposit_suspense' | 'operator_adjustments' | 'sandbox_funding' | 'bank_fees' | 'rail_float';

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

/**
 * Locks the customer balances of these accounts and currencies until the transaction ends, in
 * ledger account id order (the order holds lock them in), so batches never deadlock.
 */
export async function lockCustomerBalances(tx: Tx, keys: { accountId: string; currency: string }[]): Promise<void> {
  await repo.lockCustomersAvailable(tx, keys);
}

export const insufficientBalance = (): DomainError =>
  refusal('INSUFFICIENT_BALANCE');

/** systemAccountId's answers by name: a pure function of its arguments, asked once per payout leg. */
const systemAccountIds = new Map<string, string>();

/** System accounts have ids derived from what they are, so every process agrees without a lookup. */
export function systemAccountId(kind: SystemKind, code: string, currency: string): string {
  const name = `corridor:system:${kind}:${code}:${currency}`;
  const known = systemAccountIds.get(name);
  if (known !== undefined) return known;
  const h = createHash('sha256').update(name).digest('hex');
  const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  // Every payout asks for its rail's accounts: remember the few there are (bounded all the same).
  if (systemAccountIds.size >= 10_000) systemAccountIds.clear();
  systemAccountIds.set(name, id);
  return id;
}

const SYSTEM_KINDS_BY_CURRENCY = ['fee_revenue', 'fx_desk', 'deposit_suspense', 'operator_adjustments', 'sandbox_funding', 'bank_fees'] as const;

/**
 * Every system account the ledger may touch, from one source: the rails of the corridor catalog
 * (passed in by the caller, so the ledger knows nothing of corridors) for each currency, and the
 * per-currency system accounts. Ensured at every start (idempotent), so a rail or currency added to
 * the catalog needs no migration.
 */
export async function ensureSystemAccounts(sql: Sql, rails: readonly string[]): Promise<void> {
  const rows = CURRENCY_CODES.flatMap((currency) => [
    ...[...new Set(rails)].map((rail) => ({ kind: 'provider_clearing', code: rail, currency })),
    ...SYSTEM_KINDS_BY_CURRENCY.map((kind) => ({ kind, code: '', currency })),
  ]);
  await repo.ensureSystemAccounts(
    sql,
    rows.map((r) => ({ id: systemAccountId(r.kind as SystemKind, r.code, r.currency), ...r })),
  );
}

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
  /** System accounts exist from the start (ensureSystemAccounts), so their ids are derived, never looked up. */
  private systemId(kind: SystemKind, code: string, currency: string): string {
    return systemAccountId(kind, code, currency);
  }

  private async debitSide(tx: Tx, party: LedgerParty, input: TransferInput, phase: 'posted' | 'pending'): Promise<string> {
    if ('system' in party) return this.systemId(party.system, party.code ?? '', input.currency);
    const row = await repo.moveCustomer(tx, 'debit', party.customer, input.currency, input.amountMinor.toString(), phase);
    if (!row) throw insufficientBalance();
    return row.id;
  }

  private async creditSide(tx: Tx, party: LedgerParty, input: TransferInput, phase: 'posted' | 'pending'): Promise<string> {
    if ('system' in party) return this.systemId(party.system, party.code ?? '', input.currency);
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

  /**
   * A pending transfer from a system account, later posted or voided exactly once: money on its way in
   * (a customer's `pendingIn` until posted). Holds on a customer balance go through `hold`.
   */
  pendingFromSystem(tx: Tx, input: TransferInput): Promise<string> {
    assert('system' in input.debit, 'a pending transfer from a system account debits a system account');
    return this.move(tx, input, 'pending');
  }

  /**
   * Posts or voids many pending transfers, each exactly once, with one statement: a compare-and-set
   * from pending (a transfer resolved before, or twice in the list, is a bug and rolls back), and
   * their amounts moved out of the pending columns of the customer accounts they touch, those rows
   * locked in id order. A single post or void is a list of one. Called last in a transaction where
   * it can be, it holds those balances only until the commit.
   */
  async resolveMany(tx: Tx, resolutions: readonly { transferId: string; to: 'posted' | 'voided' }[]): Promise<repo.TransferRow[]> {
    if (resolutions.length === 0) return [];
    assert(new Set(resolutions.map((r) => r.transferId)).size === resolutions.length, 'a transfer is resolved once per call');
    const rows = await repo.resolvePendingMany(tx, resolutions);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const r of resolutions) assert(byId.has(r.transferId), `pending transfer ${r.transferId} resolves exactly once`);
    return resolutions.map((r) => byId.get(r.transferId) as repo.TransferRow);
  }

  /** Posts a pending transfer; a second resolution of the same transfer is a bug and rolls back. */
  async post(tx: Tx, transferId: string): Promise<repo.TransferRow> {
    return (await this.resolveMany(tx, [{ transferId, to: 'posted' }]))[0] as repo.TransferRow;
  }

  /** Voids a pending transfer: the held amount returns to the available balance. */
  async void(tx: Tx, transferId: string): Promise<repo.TransferRow> {
    return (await this.resolveMany(tx, [{ transferId, to: 'voided' }]))[0] as repo.TransferRow;
  }

  /**
   * Locks the customer balances a set of holds will draw on (in id order, so concurrent batches never
   * deadlock) and reads what is available: the holds are then decided in memory, in order, and
   * written together by HoldSet.commit. The one way to place a hold; a single hold is a set of one.
   */
  async openHolds(tx: Tx, balances: readonly { accountId: string; currency: string }[]): Promise<HoldSet> {
    const unique = new Map(balances.map((b) => [balanceKey(b.accountId, b.currency), b]));
    const locked = unique.size ? await repo.lockCustomersAvailable(tx, [...unique.values()]) : [];
    return HoldSet.of(locked.map((a) => ({ accountId: a.account_id, currency: a.currency, id: a.id, available: BigInt(a.available) })));
  }

  /**
   * One hold from a customer balance to a system account: a set of one (openHolds). A hold beyond
   * the available balance throws INSUFFICIENT_BALANCE and writes nothing.
   */
  async hold(tx: Tx, input: TransferInput): Promise<string> {
    const { debit, credit } = input;
    assert('customer' in debit && 'system' in credit, 'a hold moves from a customer balance to a system account');
    const [result] = await this.holdBatch(tx, [
      { accountId: debit.customer, currency: input.currency, legs: [{ amountMinor: input.amountMinor, credit, description: input.description }], reference: input.reference },
    ]);
    if (!result?.ok) throw insufficientBalance();
    return result.transferIds[0] as string;
  }

  /** Many holds at once, each accepted in order while its balance still covers all its legs (all or none). */
  async holdBatch(tx: Tx, holds: readonly BatchHold[]): Promise<BatchHoldResult[]> {
    const set = await this.openHolds(tx, holds);
    const results = holds.map((h) => set.tryHold(h));
    await set.commit(tx);
    return results;
  }
}

const balanceKey = (accountId: string, currency: string) => `${accountId}:${currency}`;

/** Locked balances and the holds decided on them, not yet written. */
export class HoldSet {
  private readonly accounts: Map<string, { id: string; available: bigint; held: bigint }>;
  private readonly transfers: repo.NewTransfer[] = [];

  constructor(locked: { key: string; id: string; available: bigint }[]) {
    this.accounts = new Map(locked.map((a) => [a.key, { id: a.id, available: a.available, held: 0n }]));
  }

  /** A set over balances as read and locked (openHolds), or as given to a pure decision's test. */
  static of(balances: readonly { accountId: string; currency: string; id: string; available: bigint }[]): HoldSet {
    return new HoldSet(balances.map((b) => ({ key: balanceKey(b.accountId, b.currency), id: b.id, available: b.available })));
  }

  /** Whether the balance covers this much more now (false when the account holds no balance in the currency). */
  covers(accountId: string, currency: string, amountMinor: bigint): boolean {
    const account = this.accounts.get(balanceKey(accountId, currency));
    return account !== undefined && amountMinor <= account.available;
  }

  /** Takes a hold if its balance covers the sum of its legs; nothing is taken otherwise. */
  tryHold(h: BatchHold): BatchHoldResult {
    assert(h.legs.length > 0 && h.legs.every((leg) => leg.amountMinor > 0n), 'a hold has legs, each > 0');
    assert(currencyInfo(h.currency) !== undefined, `a hold currency is known: ${h.currency}`);
    const total = h.legs.reduce((sum, leg) => sum + leg.amountMinor, 0n);
    if (!this.covers(h.accountId, h.currency, total)) return { ok: false };
    const account = this.accounts.get(balanceKey(h.accountId, h.currency)) as { id: string; available: bigint; held: bigint };
    account.available -= total;
    account.held += total;
    const transferIds = h.legs.map((leg) => {
      const id = newId();
      this.transfers.push({
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
  }

  /** Writes every hold taken: one statement for the balances and the pending transfers. */
  async commit(tx: Tx): Promise<void> {
    if (this.transfers.length === 0) return;
    const totals = [...this.accounts.values()].filter((a) => a.held > 0n).map((a) => ({ id: a.id, amountMinor: a.held.toString() }));
    await repo.insertHolds(tx, totals, this.transfers);
    this.transfers.length = 0;
    for (const a of this.accounts.values()) a.held = 0n;
  }
}

/** One hold of a batch: one or more legs from one customer balance, accepted all together or not at all. */
export interface BatchHold {
  accountId: string;
  currency: string;
  legs: { amountMinor: bigint; credit: { system: SystemKind; code?: string | undefined }; description?: string | undefined }[];
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
