import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { conflict, DomainError } from '../../platform/lib/errors.js';
import { formatAmount } from '../../platform/lib/money.js';
import { receiveRailDeposit } from '../../domains/deposits/deposits.port.js';
import { issuingOwner, recordIssuedVirtualAccount, type VirtualAccountRow } from '../../domains/virtual-accounts/virtual-accounts.port.js';
import type { BankDetails } from '../issuer.js';
import type { Answer, PaystackClient, PaystackDedicatedAccount } from './client.js';
import * as repo from './paystack.repository.js';

/**
 * NGN virtual accounts issued by the operator through Paystack's dedicated virtual accounts (the spec
 * keeps NGN out of self-serve in production), and the credits Paystack reports on them
 * (`charge.success` on a dedicated account) taken in as deposits through the deposits port.
 */

export interface IssueDedicatedAccount {
  workspaceId: string;
  /** A sub-account of the workspace; the master account when absent. */
  accountId?: string | undefined;
  /** The customer's email at Paystack (required by Paystack; a known email answers the same customer). */
  email: string;
  phone?: string | undefined;
  /** The bank slug of the account (GET /dedicated_account/available_providers), `wema-bank` when absent. */
  preferredBank?: string | undefined;
}

const unavailable = (what: string, answer: Exclude<Answer<unknown>, { kind: 'ok' }>) =>
  new DomainError({ category: answer.kind === 'refused' && answer.status < 500 ? 'unprocessable' : 'unavailable', code: answer.kind === 'refused' ? 'PROVIDER_REFUSED' : 'PROVIDER_UNAVAILABLE', message: `Paystack ${what}: ${answer.message}` });

/** The holder's name as Paystack's customer takes it: the first word, and the rest (or the first again). */
function nameParts(holder: string): { firstName: string; lastName: string } {
  const words = holder.trim().split(/\s+/);
  const first = words[0] ?? holder;
  return { firstName: first, lastName: words.length > 1 ? words.slice(1).join(' ') : first };
}

/**
 * Asks Paystack for the owner's dedicated account, without a transaction (these are calls out), and
 * so that a repeat after a crash makes nothing twice: the customer is created by its email (Paystack
 * answers the existing one), and its active NGN account is looked up before one is created.
 */
async function dedicatedAccountAtPaystack(client: PaystackClient, input: IssueDedicatedAccount, holderName: string): Promise<{ account: PaystackDedicatedAccount; customerCode: string }> {
  const customer = await client.createCustomer({ email: input.email, ...nameParts(holderName), phone: input.phone });
  if (customer.kind !== 'ok') throw unavailable('refused the customer', customer);
  const existing = await client.dedicatedAccountsOf(customer.data.id);
  if (existing.kind !== 'ok') throw unavailable('did not list the customer\'s dedicated accounts', existing);
  const active = existing.data.find((a) => a.active && a.currency === 'NGN');
  if (active) return { account: active, customerCode: customer.data.customer_code };
  const created = await client.createDedicatedAccount(customer.data.customer_code, input.preferredBank ?? 'wema-bank');
  if (created.kind !== 'ok') throw unavailable('refused the dedicated account', created);
  return { account: created.data, customerCode: customer.data.customer_code };
}

/**
 * The operator issues an owner's NGN virtual account through Paystack: the dedicated account is
 * obtained first (dedicatedAccountAtPaystack, calls out, no transaction), and the step answered
 * records it, in the caller's transaction, as the owner's active NGN virtual account (through the
 * virtual-accounts port) with its account number kept for matching credits. Idempotent per owner: a
 * repeat answers the same account.
 */
export async function dedicatedAccountIssuance(ctx: AppContext, client: PaystackClient, input: IssueDedicatedAccount): Promise<(tx: Tx) => Promise<IssuedDedicatedAccount>> {
  const { holderName } = await issuingOwner(ctx.db, input.workspaceId, input.accountId);
  const { account, customerCode } = await dedicatedAccountAtPaystack(client, input, holderName);
  const details: BankDetails = { accountNumber: account.account_number, bankName: account.bank.name, bankCode: account.bank.slug, accountHolderName: account.account_name };
  return async (tx) => {
    const { owner } = await issuingOwner(tx, input.workspaceId, input.accountId);
    const { row, created } = await recordIssuedVirtualAccount(ctx, tx, owner, 'NGN', 'paystack', details);
    await repo.insertDedicatedAccount(tx, { virtualAccountId: row.id, workspaceId: row.workspace_id, accountNumber: account.account_number, dedicatedAccountId: account.id, customerCode, bankSlug: account.bank.slug });
    const owning = await repo.findDedicatedAccount(tx, account.account_number);
    if (created && owning?.virtual_account_id !== row.id) {
      // The email is another owner's customer at Paystack, whose account this is: nothing recorded.
      throw conflict('DEDICATED_ACCOUNT_TAKEN', `Paystack answered the dedicated account ${account.account_number} of the customer ${customerCode}, which is another owner's virtual account: give this owner its own email`);
    }
    return { row, created };
  };
}

export interface IssuedDedicatedAccount {
  row: VirtualAccountRow;
  created: boolean;
}

/** What a `charge.success` on a dedicated account carries that the connector reads. */
export interface DedicatedCharge {
  reference: string;
  amountMinor: bigint;
  currency: string;
  /** The NUBAN credited (authorization.receiver_bank_account_number, else metadata.receiver_account_number). */
  accountNumber: string | null;
  customerCode: string | null;
}

/** A `charge.success` body's charge when it is a transfer to a dedicated account (channel `dedicated_nuban`); undefined for any other charge. */
export function dedicatedChargeOf(data: Record<string, unknown>): DedicatedCharge | undefined {
  const authorization = (data.authorization ?? {}) as Record<string, unknown>;
  const metadata = (data.metadata ?? {}) as Record<string, unknown>;
  const customer = (data.customer ?? {}) as Record<string, unknown>;
  if (data.channel !== 'dedicated_nuban' && authorization.channel !== 'dedicated_nuban') return undefined;
  const amount = data.amount;
  if (typeof data.reference !== 'string' || typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) return undefined;
  const account = authorization.receiver_bank_account_number ?? metadata.receiver_account_number;
  return {
    reference: data.reference,
    amountMinor: BigInt(amount),
    currency: typeof data.currency === 'string' ? data.currency : 'NGN',
    accountNumber: typeof account === 'string' ? account : null,
    customerCode: typeof customer.customer_code === 'string' ? customer.customer_code : null,
  };
}

export type ChargeOutcome = 'applied' | 'unchanged' | 'exception';

/**
 * Takes a credit to a dedicated account in, in the webhook's transaction, once by its reference: it
 * lands as a `bank_transfer` deposit in the virtual account its account number was issued for
 * (receiveRailDeposit, the deposits port). A charge to an account number Corridor did not issue, for
 * another customer than the one it was issued to, or refused by the deposits port (currency not
 * enabled, account deactivated…) is put on the exceptions list with its reason; nothing is guessed.
 */
export async function takeDedicatedCharge(ctx: AppContext, tx: Tx, charge: DedicatedCharge): Promise<ChargeOutcome> {
  // Claimed first by its reference: a repeat (even with another body) finds it and changes nothing.
  if (!(await repo.insertCharge(tx, { reference: charge.reference, accountNumber: charge.accountNumber, amountMinor: charge.amountMinor }))) return 'unchanged';
  const account = charge.accountNumber ? await repo.findDedicatedAccount(tx, charge.accountNumber) : undefined;
  const exception = async (reason: string): Promise<ChargeOutcome> => {
    await repo.settleCharge(tx, charge.reference, { outcome: 'exception', workspaceId: account?.workspace_id ?? null, depositId: null });
    await repo.insertException(tx, { id: randomUUID(), source: 'webhook charge.success', reference: charge.reference, payoutId: null, reason });
    return 'exception';
  };
  if (!account) return exception(`charge.success of ${charge.amountMinor} kobo to the account ${charge.accountNumber ?? '(none named)'}, which is no dedicated account Corridor issued: nothing credited`);
  if (charge.customerCode && charge.customerCode !== account.customer_code) {
    return exception(`charge.success to the account ${account.account_number} names the customer ${charge.customerCode}, the account was issued to ${account.customer_code}: nothing credited`);
  }
  const landed = await receiveRailDeposit(ctx, tx, {
    currency: charge.currency,
    amount: formatAmount(charge.amountMinor, charge.currency),
    rail: 'bank_transfer',
    railRef: `paystack:${charge.reference}`,
    to: { reference: account.virtual_account_id },
  });
  if (!landed.landed) return exception(`charge.success to the account ${account.account_number} (virtual account ${account.virtual_account_id}) not credited: ${landed.message}`);
  await repo.settleCharge(tx, charge.reference, { outcome: 'credited', workspaceId: account.workspace_id, depositId: landed.deposit.id });
  return 'applied';
}
