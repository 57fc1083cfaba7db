import type { AppContext } from '../../platform/context.js';
import { receiveRailDeposit } from '../../domains/deposits/deposits.port.js';
import * as repo from './mobile-money.repository.js';
import { authenticated, type CallbackAnswer, type CallbackInput, type MomoRuntime } from './service.js';

/** Where the operator pushes the payments made to Corridor's merchant or paybill number: `<callbackBaseUrl>` + this + `/<transaction reference>`. */
export const CREDITS_PATH = '/callbacks/mobile-money/credits';

interface Party {
  key?: unknown;
  value?: unknown;
}

const partyValue = (parties: unknown, key: string): string | undefined => {
  if (!Array.isArray(parties)) return undefined;
  const found = (parties as Party[]).find((p) => p?.key === key && typeof p.value === 'string' && p.value.trim() !== '');
  return found ? String(found.value).trim() : undefined;
};

/** A pushed credit as Corridor reads it: the operator's transaction (GSMA responseTransactionType). */
interface PushedCredit {
  transactionReference: string;
  status: string;
  amount: string | undefined;
  currency: string | undefined;
  /** The payer's reference: the creditParty's `consumerno` (the account number a payer types at a paybill). */
  reference: string | undefined;
  /** The merchant account paid: the creditParty's identifier of the configured `debitParty` type. */
  account: string | undefined;
}

function readCredit(mm: MomoRuntime, body: unknown): PushedCredit | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.transactionReference !== 'string' || typeof b.transactionStatus !== 'string') return undefined;
  return {
    transactionReference: b.transactionReference,
    status: b.transactionStatus.toLowerCase(),
    amount: typeof b.amount === 'string' ? b.amount : undefined,
    currency: typeof b.currency === 'string' ? b.currency : undefined,
    reference: partyValue(b.creditParty, 'consumerno'),
    account: mm.config.debitParty ? partyValue(b.creditParty, mm.config.debitParty.key) : undefined,
  };
}

/** Why a pushed credit cannot land before its account is looked up, or undefined. */
function notCreditable(mm: MomoRuntime, c: PushedCredit): string | undefined {
  if (!['completed', 'success', 'successful'].includes(c.status)) return `the operator reports the payment ${c.status}, not completed: nothing credited`;
  if (!c.amount || !c.currency) return 'the payment names no amount or currency: nothing credited';
  if (mm.config.debitParty && c.account !== mm.config.debitParty.value) {
    return `the payment was made to the ${mm.config.debitParty.key} ${c.account ?? '(none named)'}, not to ${mm.config.debitParty.value}, the account Corridor holds: nothing credited`;
  }
  if (!c.reference) return 'the payer gave no reference (creditParty consumerno): no virtual account to credit';
  return undefined;
}

class AlreadyTaken extends Error {}

/**
 * Takes in a payment a payer made to Corridor's merchant or paybill number, pushed by the operator
 * (`PUT <callbackBaseUrl>/callbacks/mobile-money/credits/<transaction reference>`, the transaction as
 * its body, authenticated as every callback is). Recorded once by the operator's transaction
 * reference, in one transaction with its effect: the payer's reference names the workspace's
 * mobile-money virtual account (its id), and the payment becomes a deposit there on the `paybill`
 * rail (deposit.completed, credited by creditedAmount) through the deposits port. One that names no
 * such account, another merchant account, or that is not completed or is refused by the account
 * (currency not enabled, account deactivated…) goes to the operator's exceptions list with its
 * reason; nothing is guessed. The same transaction again changes nothing.
 */
export async function takeCredit(ctx: AppContext, mm: MomoRuntime, input: CallbackInput): Promise<CallbackAnswer & { depositId?: string }> {
  const taken = await authenticated(ctx, mm, input, `credit:${input.correlationId}`);
  if ('refused' in taken) return taken.refused;
  const { sha, body } = taken;
  const credit = readCredit(mm, body);
  if (!credit) return { status: 400, outcome: 'unchanged', reason: 'the body is not a transaction' };
  if (credit.transactionReference !== input.correlationId) return { status: 400, outcome: 'unchanged', reason: 'the transactionReference of the body is not the one of the URL' };
  try {
    return await ctx.db.tx(async (tx) => {
      if (await repo.creditTaken(tx, credit.transactionReference)) return { status: 204 as const, outcome: 'seen' as const };
      const record = { transactionReference: credit.transactionReference, contentSha256: sha, amount: credit.amount ?? null, currency: credit.currency ?? null, payerReference: credit.reference ?? null, body: mm.box.encrypt(input.rawBody) };
      const claim = async (c: Omit<repo.NewMomoCredit, keyof typeof record>) => {
        if (!(await repo.claimCredit(tx, { ...record, ...c }))) throw new AlreadyTaken();
      };
      const early = notCreditable(mm, credit);
      if (early) {
        await claim({ outcome: 'exception', workspaceId: null, depositId: null, reason: early });
        ctx.log.warn({ transactionReference: credit.transactionReference }, 'mobile money: a pushed credit put on the exceptions list');
        return { status: 204 as const, outcome: 'unchanged' as const, reason: early };
      }
      const landed = await receiveRailDeposit(ctx, tx, { currency: credit.currency as string, amount: credit.amount as string, rail: 'paybill', railRef: `momo:${credit.transactionReference}`, to: { reference: credit.reference } });
      if (!landed.landed) {
        const reason = `payment ${credit.transactionReference} of ${credit.amount} ${credit.currency} with the reference ${credit.reference}: ${landed.message}; nothing credited`;
        await claim({ outcome: 'exception', workspaceId: null, depositId: null, reason });
        ctx.log.warn({ transactionReference: credit.transactionReference }, 'mobile money: a pushed credit put on the exceptions list');
        return { status: 204 as const, outcome: 'unchanged' as const, reason };
      }
      await claim({ outcome: 'credited', workspaceId: landed.deposit.workspace_id, depositId: landed.deposit.id, reason: null });
      return { status: 204 as const, outcome: 'applied' as const, depositId: landed.deposit.id };
    });
  } catch (err) {
    // Taken in by a concurrent delivery of the same transaction: its credit (or exception) stands.
    if (err instanceof AlreadyTaken) return { status: 204, outcome: 'seen' };
    throw err;
  }
}

/** The operator's exceptions list: pushed credits that landed nowhere, newest first, with their reasons. */
export function creditExceptionsOf(ctx: Pick<AppContext, 'db'>, limit = 100) {
  return repo.creditExceptions(ctx.db, limit);
}
