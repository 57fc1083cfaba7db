import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, DomainError, fieldError, notFound } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { assert } from '../../platform/lib/assert.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { formatAmount, minAmount, parseAmount } from '../../platform/lib/money.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { assertCapability, callerWorkspace, type ActingAccount, type Caller, type CallerWorkspace } from '../accounts/caller.js';
import { recordEvent } from '../events/events.service.js';
import { ledger } from '../ledger/ledger.service.js';
import { getAccount, getWorkspace } from '../accounts/accounts.service.js';
import { depositAccountOf, depositTarget, findVirtualAccountById } from '../virtual-accounts/virtual-accounts.service.js';
import * as repo from './deposits.repository.js';
import type { DepositRow } from './deposits.repository.js';
import { attributed } from '../../controls/audit/audit.service.js';
import {
  ACCOUNT_CREDIT_CURRENCIES,
  canMove,
  DEPOSIT_RAILS,
  MOVE_FROM,
  MOVE_TARGET,
  VIRTUAL_ACCOUNT_RAILS,
  type DepositMove,
  type DepositRail,
} from './deposits.transitions.js';

/** A deposit as read back by its owner. serviceFee and creditedAmount are null on a deposit that failed without a credit. */
export function depositData(row: DepositRow) {
  const amount = BigInt(row.amount_minor);
  const fee = BigInt(row.fee_minor);
  const nothingCredited = row.status === 'failed' && row.credited_at === null;
  return {
    id: row.id,
    clientRef: row.client_ref,
    amount: formatAmount(amount, row.currency),
    serviceFee: nothingCredited ? null : formatAmount(fee, row.currency),
    creditedAmount: nothingCredited ? null : formatAmount(amount - fee, row.currency),
    currency: row.currency,
    status: row.status,
    rail: row.rail,
    virtualAccountId: row.virtual_account_id,
    accountId: row.account_id === row.workspace_id ? null : row.account_id,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
    chain: row.chain_details?.chain ?? null,
    txHash: row.chain_details?.txHash ?? null,
    fromAddress: row.chain_details?.fromAddress ?? null,
    blockNumber: row.chain_details?.blockNumber ?? null,
  };
}

/** What deposit events carry (spec §Events: deposit data). */
function eventData(row: DepositRow) {
  const { id, clientRef, amount, serviceFee, creditedAmount, currency, status } = depositData(row);
  return { id, clientRef, amount, serviceFee, creditedAmount, currency, status };
}

export interface NewDeposit {
  virtualAccountId?: string | undefined;
  currency?: string | undefined;
  amount: string;
  rail?: DepositRail | undefined;
  clientRef?: string | undefined;
  /** An on-chain deposit's origin (the chain module's watcher), shown to the owner. */
  chainDetails?: repo.ChainDetails | undefined;
  outcome?: 'completed' | 'failed' | 'in_review' | 'pending' | 'processing' | undefined;
}

/** The rail a deposit arrives on when none is named: on-chain for crypto, a bank transfer otherwise. */
const defaultRail = (currency: string): DepositRail => (currencyInfo(currency)?.crypto ? 'crypto' : 'bank_transfer');

/**
 * An inbound payment (sandbox simulation or operator credit): lands only in a currency the workspace
 * has enabled, and on a virtual account rail only into an active account of the owner. Created
 * pending, then moved to the outcome asked for (default completed) in the same transaction.
 */
async function receiveDeposit(tx: Tx, owner: ActingAccount, workspace: Pick<CallerWorkspace, 'enabledCurrencies' | 'terms'>, input: NewDeposit): Promise<DepositRow> {
  if (!input.virtualAccountId && !input.currency) throw fieldError('virtualAccountId', 'virtualAccountId or currency is required');
  const account = await depositTarget(tx, owner, input);
  const currency = account?.currency ?? (input.currency as string);
  if (input.currency && input.currency !== currency) throw fieldError('currency', `currency must be the virtual account's currency, ${currency}`);
  if (!currencyInfo(currency)) throw fieldError('currency', `currency ${currency} is not supported`, 'UNSUPPORTED_CURRENCY');
  if (!workspace.enabledCurrencies.includes(currency)) throw fieldError('currency', `currency ${currency} is not enabled for this workspace`, 'CURRENCY_NOT_ENABLED');
  const rail = input.rail ?? defaultRail(currency);
  const crypto = currencyInfo(currency)?.crypto === true;
  if ((rail === 'crypto') !== crypto) throw fieldError('rail', rail === 'crypto' ? 'the crypto rail takes crypto currencies only' : `a ${currency} deposit arrives on the crypto rail`);
  if (rail === 'account_credit' && !ACCOUNT_CREDIT_CURRENCIES.includes(currency)) throw fieldError('rail', 'account_credit takes USD, EUR or GBP');
  const needsAccount = VIRTUAL_ACCOUNT_RAILS.includes(rail);
  if (needsAccount && !account) {
    throw conflict('VIRTUAL_ACCOUNT_REQUIRED', `A ${rail} deposit lands in an active virtual account: the account has none in ${currency}`);
  }
  const amountMinor = parseAmount(input.amount, currency, 'amount');
  const inserted = await repo.insertDeposit(tx, {
    id: newId(),
    workspaceId: owner.workspaceId,
    accountId: owner.accountId,
    // An on-chain deposit to an owner's deposit address (its USDC or USDT account) lands on that account.
    virtualAccountId: account && (needsAccount || (rail === 'crypto' && input.virtualAccountId)) ? account.id : null,
    clientRef: input.clientRef ?? `dep_${randomBytes(9).toString('base64url')}`,
    rail,
    currency,
    amountMinor,
    feeMinor: minAmount(workspace.terms.depositFeeMinor(currency), amountMinor),
    chainDetails: rail === 'crypto' ? input.chainDetails : undefined,
  });
  const row = await expectCredit(tx, inserted);
  const outcome = input.outcome ?? 'completed';
  if (outcome === 'pending') return row;
  if (outcome === 'processing') return (await repo.moveStatus(tx, row.id, 'pending', 'processing', {})) as DepositRow;
  const move: DepositMove = outcome === 'completed' ? 'complete' : outcome === 'failed' ? 'fail' : 'review';
  return applyMove(tx, row, move, outcome === 'failed' ? 'payer_declined' : undefined);
}

const customerOf = (row: DepositRow) => ({ customer: row.account_id, workspaceId: row.workspace_id });

/**
 * Money on its way in: pending transfers from the deposit suspense, creditedAmount to the balance
 * (its pendingIn) and serviceFee to fee revenue. Posted when the deposit completes, voided when it fails first.
 */
async function expectCredit(tx: Tx, row: DepositRow): Promise<DepositRow> {
  const fee = BigInt(row.fee_minor);
  const credited = BigInt(row.amount_minor) - fee;
  const reference = { type: 'deposit', id: row.id };
  const creditId = credited > 0n
    ? await ledger.pendingFromSystem(tx, { debit: { system: 'deposit_suspense' }, credit: customerOf(row), currency: row.currency, amountMinor: credited, reference, description: 'Deposit' })
    : null;
  const feeId = fee > 0n
    ? await ledger.pendingFromSystem(tx, { debit: { system: 'deposit_suspense' }, credit: { system: 'fee_revenue' }, currency: row.currency, amountMinor: fee, reference, description: 'Deposit service fee' })
    : null;
  return repo.setTransfers(tx, row.id, creditId, feeId);
}

const pendingTransfers = (row: DepositRow) => [row.credit_transfer_id, row.fee_transfer_id].filter((id): id is string => id !== null);

/** The credit lands: the pending transfers are posted. */
async function credit(tx: Tx, row: DepositRow): Promise<void> {
  for (const id of pendingTransfers(row)) await ledger.post(tx, id);
}

/** A deposit that fails before its credit landed: the pending transfers are voided. */
async function voidCredit(tx: Tx, row: DepositRow): Promise<void> {
  for (const id of pendingTransfers(row)) await ledger.void(tx, id);
}

/** A landed credit taken back to the deposit suspense (review rejection, reversal, refund): posted transfers; INSUFFICIENT_BALANCE if it was spent. */
async function takeBack(tx: Tx, row: DepositRow): Promise<void> {
  const fee = BigInt(row.fee_minor);
  const credited = BigInt(row.amount_minor) - fee;
  const reference = { type: 'deposit', id: row.id };
  if (credited > 0n) await ledger.transfer(tx, { debit: customerOf(row), credit: { system: 'deposit_suspense' }, currency: row.currency, amountMinor: credited, reference, description: 'Deposit credit taken back' });
  if (fee > 0n) await ledger.transfer(tx, { debit: { system: 'fee_revenue' }, credit: { system: 'deposit_suspense' }, currency: row.currency, amountMinor: fee, reference, description: 'Deposit service fee returned' });
}

/**
 * Applies a move as one compare-and-set with its ledger postings and its event. The credit lands
 * once (credited_at), so deposit.completed fires once whatever is retried; deposit.failed fires
 * only on a failure before or in review (a reversal of a completed deposit emits none); the
 * refund lifecycle emits nothing. A move to the status the deposit already has answers it unchanged.
 */
export async function applyMove(tx: Tx, row: DepositRow, move: DepositMove, failureReason?: string): Promise<DepositRow> {
  const to = MOVE_TARGET[move];
  if (row.status === to && move !== 'reverse') return row;
  if (!MOVE_FROM[move].includes(row.status)) {
    throw conflict('INVALID_DEPOSIT_STATE', `A deposit in status ${row.status} cannot be moved to ${to} this way`);
  }
  assert(canMove(row.status, to), `deposit transition ${row.status} → ${to} is in the table`);
  const landed = row.credited_at !== null && row.credit_reversed_at === null;
  const credits = move === 'complete' && row.credited_at === null;
  const takesBack = landed && (move === 'fail' || move === 'reverse' || move === 'refund');
  const voids = move === 'fail' && row.credited_at === null;
  const moved = await repo.moveStatus(tx, row.id, row.status, to, {
    credited: credits,
    creditReversed: takesBack,
    failureReason: to === 'failed' ? (failureReason ?? (move === 'reverse' ? 'reversed' : 'failed')) : null,
  });
  if (!moved) throw conflict('INVALID_DEPOSIT_STATE', 'The deposit was moved by another request; read it again');
  if (credits) await credit(tx, moved);
  if (takesBack) await takeBack(tx, moved);
  if (voids) await voidCredit(tx, moved);
  const event = credits ? 'deposit.completed' : move === 'fail' ? 'deposit.failed' : undefined;
  if (event) {
    await recordEvent(tx, {
      workspaceId: moved.workspace_id,
      accountId: moved.account_id === moved.workspace_id ? undefined : moved.account_id,
      type: event,
      data: eventData(moved),
    });
  }
  return moved;
}

/** A move asked for through the API (sandbox, operator): 404 unknown. */
export async function requestMove(tx: Tx, find: () => Promise<DepositRow | undefined>, move: DepositMove, failureReason?: string): Promise<DepositRow> {
  const row = await find();
  if (!row) throw notFound('Deposit');
  return applyMove(tx, row, move, failureReason);
}

/** The desk (operator API and console): a move on any workspace's deposit. */
export function moveAnyDeposit(tx: Tx, id: string, move: DepositMove, failureReason?: string): Promise<DepositRow> {
  return requestMove(tx, async () => attributed(await repo.findDepositById(tx, id, true)), move, failureReason);
}

/** A sandbox deposit (API and dashboard) to the account the caller acts on: refused while the deposits capability is off. */
export function simulateDeposit(tx: Tx, caller: ActingAccount & Pick<Caller, 'workspace'>, input: NewDeposit): Promise<DepositRow> {
  assertCapability(caller.workspace, 'deposits');
  return receiveDeposit(tx, caller, caller.workspace, input);
}

/**
 * A deposit a rail asks the payer for (a mobile-money collection): recorded pending for the account
 * the caller acts on, in the caller's transaction, under its clientRef, until the rail's outcome
 * moves it (moveAnyDeposit). Refused while the deposits capability is off or the currency is not enabled.
 */
export function requestRailDeposit(tx: Tx, caller: ActingAccount & Pick<Caller, 'workspace'>, input: { currency: string; amount: string; clientRef: string; rail: DepositRail }): Promise<DepositRow> {
  assertCapability(caller.workspace, 'deposits');
  return receiveDeposit(tx, caller, caller.workspace, { ...input, outcome: 'pending' });
}

/** The account a virtual account belongs to, as the one acting on it. */
const ownerOf = (account: { workspace_id: string; account_id: string }): ActingAccount => ({
  workspaceId: account.workspace_id,
  accountId: account.account_id,
  subAccountId: account.account_id === account.workspace_id ? undefined : account.account_id,
});

/** Where an operator credit lands: a virtual account, or a workspace (and sub-account) named directly. */
export interface OperatorDepositTarget {
  virtualAccountId?: string | undefined;
  workspaceId?: string | undefined;
  accountId?: string | undefined;
}

/** The account an operator credit lands on: the virtual account's owner, or the named workspace (and sub-account). */
async function operatorOwner(tx: Sql, target: OperatorDepositTarget): Promise<ActingAccount> {
  for (const name of ['virtualAccountId', 'workspaceId', 'accountId'] as const) {
    const id = target[name];
    if (id !== undefined && !isUuid(id)) throw fieldError(name, `${name} must be an id (a UUID)`);
  }
  if (target.virtualAccountId) {
    const account = await findVirtualAccountById(tx, target.virtualAccountId);
    if (!account) throw notFound('Virtual account');
    return ownerOf(account);
  }
  if (!target.workspaceId) throw fieldError('workspaceId', 'virtualAccountId or workspaceId is required');
  const workspace = await getWorkspace(tx, target.workspaceId);
  if (!target.accountId || target.accountId === workspace.id) return { workspaceId: workspace.id, accountId: workspace.id, subAccountId: undefined };
  const account = await getAccount(tx, workspace.id, target.accountId);
  return { workspaceId: workspace.id, accountId: account.id, subAccountId: account.id };
}

/** The operator credits an inbound payment (operator API and console), as a sandbox deposit would land. */
export async function creditDeposit(tx: Tx, input: NewDeposit & OperatorDepositTarget): Promise<DepositRow> {
  if (input.rail !== undefined && !DEPOSIT_RAILS.includes(input.rail)) throw fieldError('rail', `rail must be one of ${DEPOSIT_RAILS.join(', ')}`);
  const owner = await operatorOwner(tx, input);
  attributed({ workspace_id: owner.workspaceId });
  const workspace = await getWorkspace(tx, owner.workspaceId);
  return receiveDeposit(tx, owner, callerWorkspace(workspace), input);
}

/** What a connector's rail brought in (a bank's credit entry, a chain's transfer) and where the rail says it goes. */
export interface RailDeposit {
  currency: string;
  amount: string;
  rail: DepositRail;
  /** Its identity on the rail (`bank:<entry reference>`, `<chain>:<tx hash>:<log index>`), kept as its clientRef. */
  railRef: string;
  /** What the rail names: the creditor IBAN, the payer's reference (a virtual account id), or the owner of a deposit address. */
  to: { iban?: string | undefined; reference?: string | undefined; owner?: ActingAccount | undefined };
  /** An on-chain deposit's origin, shown to the owner. */
  chainDetails?: repo.ChainDetails | undefined;
}

export type RailDepositResult =
  | { landed: true; deposit: DepositRow }
  | { landed: false; reason: 'unknown_virtual_account'; message: string }
  | { landed: false; reason: 'refused'; virtualAccountId: string; code: string | undefined; message: string };

/**
 * The deposits port for connectors: money a rail brought in lands in the virtual account the rail
 * names (depositAccountOf, the one lookup), as a sandbox deposit or an operator credit would, in the
 * caller's transaction. What lands nowhere, or is refused (currency not enabled, account not
 * active…), is answered, not thrown: the connector puts it on its exceptions list with the reason.
 */
export async function receiveRailDeposit(ctx: Pick<AppContext, 'box'>, tx: Tx, d: RailDeposit): Promise<RailDepositResult> {
  const account = await depositAccountOf(ctx, tx, d.currency, d.to);
  if (!account) return { landed: false, reason: 'unknown_virtual_account', message: `No active ${d.currency} virtual account has the IBAN ${d.to.iban ?? '(none)'} or the reference ${d.to.reference ?? '(none)'}` };
  try {
    const owner = ownerOf(account);
    const workspace = callerWorkspace(await getWorkspace(tx, owner.workspaceId));
    const deposit = await receiveDeposit(tx, owner, workspace, { virtualAccountId: account.id, amount: d.amount, currency: d.currency, rail: d.rail, clientRef: d.railRef.slice(0, 100), chainDetails: d.chainDetails });
    return { landed: true, deposit };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { landed: false, reason: 'refused', virtualAccountId: account.id, code: err.code, message: err.message };
  }
}

/** Every workspace's deposits (the operator's queue), newest first. */
export function listAnyDeposits(sql: Sql, f: PageRequest & { status?: string | undefined; workspaceId?: string | undefined }) {
  return repo.listDeposits(sql, { workspaceId: f.workspaceId }, f, (row) => ({ ...depositData(row), workspaceId: row.workspace_id }));
}

export async function getDeposit(sql: Sql, owner: ActingAccount, id: string): Promise<DepositRow> {
  const row = await repo.findDeposit(sql, owner.workspaceId, id, { accountId: owner.subAccountId });
  if (!row) throw notFound('Deposit');
  return row;
}

/** Deposits newest first: without Service-Account-Id the workspace's whole roll-up, with it that sub-account's. */
export function listDeposits(sql: Sql, owner: ActingAccount, f: PageRequest & { status?: string | undefined; virtualAccountId?: string | undefined }) {
  return repo.listDeposits(sql, { workspaceId: owner.workspaceId, subAccountId: owner.subAccountId }, f, depositData);
}

export const findDeposit = repo.findDeposit;
export const findDepositById = repo.findDepositById;
