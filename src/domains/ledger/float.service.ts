import type { Sql, Tx } from '../../platform/db/db.js';
import { ledger, systemAccountId, type LedgerParty } from './ledger.service.js';
import * as repo from './ledger.repository.js';

/**
 * A rail float: money the operator holds itself on a rail (a chain's hot wallet), per rail and
 * currency, as a system account of kind `rail_float` whose code names the rail (the chain). It is an
 * asset: its balance is its posted debits less its posted credits, what the wallet should hold by the
 * ledger. Every movement is one balanced, posted transfer in the caller's transaction:
 *  - `paid_out`: a payout left the wallet: the rail's clearing (credited by the payout's hold) is
 *    settled against the float (debit provider_clearing, credit rail_float);
 *  - `swept_in`: a deposit address was swept into the wallet: the money deposits were credited from
 *    arrives in the float (debit rail_float, credit deposit_suspense);
 *  - `funded` / `withdrawn`: the operator put its own money in, or took it out (against
 *    operator_adjustments). Gas is not in token terms and never posts here.
 */
export type FloatMovement = 'paid_out' | 'swept_in' | 'funded' | 'withdrawn';

export interface FloatMove {
  /** The rail the float is on (the chain's name). */
  rail: string;
  currency: string;
  /** Minor units of `currency`, > 0. */
  amountMinor: bigint;
  movement: FloatMovement;
  /** For `paid_out`: the provider clearing code the payout's hold credited (its route). */
  clearing?: string | undefined;
  reference: { type: string; id?: string | undefined };
  description?: string | undefined;
}

/** The ledger account of a rail's float in a currency (derived, like every system account's id). */
export function floatAccountId(rail: string, currency: string): string {
  return systemAccountId('rail_float', rail, currency);
}

/** Posts one movement of a rail's float (the account opened on its first movement). Answers the transfer's id. */
export async function moveFloat(tx: Tx, m: FloatMove): Promise<string> {
  const float: LedgerParty = { system: 'rail_float', code: m.rail };
  await repo.ensureSystemAccounts(tx, [{ id: floatAccountId(m.rail, m.currency), kind: 'rail_float', code: m.rail, currency: m.currency }]);
  const other: LedgerParty =
    m.movement === 'paid_out'
      ? { system: 'provider_clearing', code: m.clearing ?? '' }
      : m.movement === 'swept_in'
        ? { system: 'deposit_suspense' }
        : { system: 'operator_adjustments' };
  const into = m.movement === 'swept_in' || m.movement === 'funded';
  return ledger.transfer(tx, {
    debit: into ? float : other,
    credit: into ? other : float,
    currency: m.currency,
    amountMinor: m.amountMinor,
    reference: m.reference,
    description: m.description,
  });
}

/** What the rail's wallet should hold of the currency by the ledger (minor units; negative when more left than came in). */
export function floatBalance(sql: Sql, rail: string, currency: string): Promise<bigint> {
  return repo.systemDebitBalance(sql, floatAccountId(rail, currency));
}
