import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { DomainError, conflict, fieldError, notFound } from '../../platform/lib/errors.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { assert } from '../../platform/lib/assert.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import type { BankDetails, IssueRequest } from '../../connectors/issuer.js';
import { issuersFor, VIRTUAL_ACCOUNT_APPROVAL, VIRTUAL_ACCOUNT_CURRENCIES } from '../../connectors/issuers.js';
import { getAccount } from '../accounts/accounts.service.js';
import { onboardingStanding } from '../applications/applications.service.js';
import { recordEvent } from '../events/events.service.js';
import { depositAddressIssuerFor, type DepositAddressIssuer } from './deposit-addresses.js';
import type { Config } from '../../platform/config.js';
import * as repo from './virtual-accounts.repository.js';
import type { VirtualAccountRow } from './virtual-accounts.repository.js';
import { normaliseIban } from '../../platform/lib/bank-account.js';
import { canMove, type VirtualAccountMove, type VirtualAccountStatus } from './virtual-accounts.transitions.js';
import type { ActingAccount } from '../accounts/caller.js';
import { attributed } from '../../controls/audit/audit.service.js';
import { assertWorkspaceRight } from '../users/rights.js';

/** A virtual account as its owner reads it, without bank details. */
export function virtualAccountData(row: VirtualAccountRow) {
  return {
    id: row.id,
    accountId: row.account_id === row.workspace_id ? null : row.account_id,
    currency: row.currency,
    status: row.status,
    deactivated: row.deactivated_at !== null,
    failureReason: row.failure_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The list item: the account with its bank details (GET /v1/virtual-accounts is the only place they are read). */
export function virtualAccountWithDetails(ctx: AppContext, row: VirtualAccountRow) {
  assert(row.bank_details !== null, 'an active virtual account has bank details');
  const details = JSON.parse(ctx.box.decrypt(row.bank_details)) as BankDetails;
  return { ...virtualAccountData(row), ...details };
}

/** What a virtual account event carries: the account, never its bank details (spec §Events). */
function eventData(row: VirtualAccountRow) {
  const { id, accountId, currency, status } = virtualAccountData(row);
  return { id, accountId, currency, status };
}

async function emit(tx: Tx, row: VirtualAccountRow, type: 'virtual_account.active' | 'virtual_account.failed'): Promise<void> {
  await recordEvent(tx, { workspaceId: row.workspace_id, accountId: row.account_id === row.workspace_id ? undefined : row.account_id, type, data: eventData(row) });
}

export const kybIncomplete = (): DomainError =>
  conflict('KYB_INCOMPLETE', 'The account has no approved application with its documents and a terms acceptance at the current version (see GET /v1/virtual-accounts/requirements)');
export const deactivatedError = (): DomainError =>
  conflict('VIRTUAL_ACCOUNT_DEACTIVATED', 'The virtual account in this currency was deactivated; only support can issue it again');

/** The currencies of deposit addresses on a configured chain (USDC, USDT when a chain receives them). */
function chainCurrencies(config: Config): string[] {
  return ['USDC', 'USDT'].filter((c) => depositAddressIssuerFor(config, c) !== undefined);
}

/** The currency must be one virtual accounts are offered in (a chain's token when a chain receives it), and enabled for the workspace. */
export function assertVirtualAccountCurrency(config: Config, currency: string, enabledCurrencies: readonly string[]): void {
  const offered = [...VIRTUAL_ACCOUNT_CURRENCIES, ...chainCurrencies(config)];
  if (!offered.includes(currency)) {
    throw fieldError('currency', `virtual accounts are offered in ${offered.join(', ')}`, 'UNSUPPORTED_CURRENCY');
  }
  if (!enabledCurrencies.includes(currency)) throw fieldError('currency', `currency ${currency} is not enabled for this workspace`, 'CURRENCY_NOT_ENABLED');
}

async function issueRequest(sql: Sql, workspaceId: string, accountId: string, currency: string, documents: readonly string[] = []): Promise<IssueRequest> {
  const account = await getAccount(sql, workspaceId, accountId);
  return { accountId, currency, holderName: account.name, country: account.country, documents };
}

/** The documents and terms the owner must still provide before asking (GET /v1/virtual-accounts/requirements). */
export async function requirements(ctx: AppContext, sql: Sql, owner: ActingAccount, currency: string) {
  const standing = await onboardingStanding(sql, owner, ctx.config.termsVersion);
  const outstanding = [
    ...standing.missingDocuments.map((name) => ({ type: 'document' as const, name })),
    ...(standing.termsAccepted ? [] : [{ type: 'terms' as const, name: 'terms_of_service' }]),
  ];
  return { currency, termsVersion: ctx.config.termsVersion, applicationApproved: standing.approved, outstanding };
}

export type RequestResult = { kind: 'account'; row: VirtualAccountRow; created: boolean } | { kind: 'refused'; error: DomainError };

/**
 * POST /v1/virtual-accounts: idempotent per owner and currency. Answers the owner's account in the
 * currency when there is one; otherwise checks onboarding (nothing reaches the issuer without it),
 * answers a refusal younger than the memo from it, and else asks the issuer. A refusal by the issuer
 * is remembered (so it is a result to commit, not a throw).
 */
export async function requestVirtualAccount(ctx: AppContext, tx: Tx, owner: ActingAccount, currency: string): Promise<RequestResult> {
  assertWorkspaceRight(owner, 'receive');
  if (currency === 'NGN' && ctx.config.env === 'production') {
    throw new DomainError({ category: 'unprocessable', code: 'VIRTUAL_ACCOUNT_SELF_SERVE_UNSUPPORTED', message: 'NGN virtual accounts are issued by support, not self-serve' });
  }
  await repo.lockOwnerCurrency(tx, owner.accountId, currency);
  const existing = await repo.findForOwner(tx, owner.accountId, currency);
  if (existing?.deactivated_at) throw deactivatedError();
  if (existing) return { kind: 'account', row: existing, created: false };

  const standing = await onboardingStanding(tx, owner, ctx.config.termsVersion);
  if (!standing.approved || standing.missingDocuments.length > 0 || !standing.termsAccepted) throw kybIncomplete();

  const memo = await repo.recentRefusal(tx, owner.accountId, currency, ctx.config.limits.virtualAccountRefusalMemoMs);
  if (memo) return { kind: 'refused', error: refusalError(memo.code, memo.detail) };

  const addressIssuer = depositAddressIssuerFor(ctx.config, currency);
  if (addressIssuer) return { kind: 'account', row: await depositAddressAccount(ctx, tx, addressIssuer, owner, currency), created: true };
  const issuer = issuersFor(ctx.config).forCurrency(currency);
  const input = await issueRequest(tx, owner.workspaceId, owner.accountId, currency, standing.documentTypes);
  const answer = await issuer.request(input);
  if (answer.kind === 'refused') {
    await repo.recordRefusal(tx, { accountId: owner.accountId, currency, workspaceId: owner.workspaceId, code: answer.code, detail: answer.detail });
    return { kind: 'refused', error: refusalError(answer.code, answer.detail) };
  }
  await repo.clearRefusal(tx, owner.accountId, currency);
  const row = await repo.insertVirtualAccount(tx, {
    id: newId(),
    workspaceId: owner.workspaceId,
    accountId: owner.accountId,
    currency,
    status: answer.kind === 'issued' ? 'active' : 'pending',
    issuer: issuer.name,
    bankDetails: answer.kind === 'issued' ? ctx.box.encrypt(JSON.stringify(answer.details)) : null,
  });
  // EUR and GBP are approved before creation: pending, then active at once. NGN emits no event.
  if (row.status === 'active' && VIRTUAL_ACCOUNT_APPROVAL[currency] !== 'silent') await emit(tx, row, 'virtual_account.active');
  return { kind: 'account', row, created: true };
}

/**
 * A USDC or USDT account on a configured chain: the owner's deposit address on each chain that takes
 * the token (chain connector, HD-derived), active at once. Transfers to it are credited by the chain
 * watcher after their confirmations.
 */
async function depositAddressAccount(ctx: AppContext, tx: Tx, issuer: DepositAddressIssuer, owner: ActingAccount, currency: string): Promise<VirtualAccountRow> {
  const account = await getAccount(tx, owner.workspaceId, owner.accountId);
  const addresses = await issuer.issue(tx, owner, currency);
  const details: BankDetails = { accountHolderName: account.name, addresses };
  const row = await repo.insertVirtualAccount(tx, {
    id: newId(),
    workspaceId: owner.workspaceId,
    accountId: owner.accountId,
    currency,
    status: 'active',
    issuer: 'chain',
    bankDetails: ctx.box.encrypt(JSON.stringify(details)),
  });
  await emit(tx, row, 'virtual_account.active');
  return row;
}

function refusalError(code: string, detail: string): DomainError {
  return code === 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED'
    ? conflict(code, detail)
    : new DomainError({ category: 'unprocessable', code, message: detail });
}

/** The owner a connector issues an account for (the workspace's master account, or a sub-account of it), with its name as the holder's; 404 when there is none. */
export async function issuingOwner(sql: Sql, workspaceId: string, accountId: string | undefined): Promise<{ owner: ActingAccount; holderName: string }> {
  const id = accountId ?? workspaceId;
  const account = await getAccount(sql, workspaceId, id);
  return { owner: { workspaceId, accountId: id, subAccountId: id === workspaceId ? undefined : id }, holderName: account.name };
}

/**
 * An account a connector issued at the operator's request (NGN through Paystack's dedicated
 * accounts: not self-serve in production), in the caller's transaction: the owner's pending account
 * in the currency becomes active with the details, or a new active one is recorded. Idempotent per
 * owner and currency: the owner's active account from this issuer is answered as it is (`created:
 * false`; one from another issuer is refused); a deactivated one is refused (only support re-issues). Events as an approval's (NGN: none).
 */
export async function recordIssuedVirtualAccount(ctx: AppContext, tx: Tx, owner: ActingAccount, currency: string, issuer: string, details: BankDetails): Promise<{ row: VirtualAccountRow; created: boolean }> {
  await repo.lockOwnerCurrency(tx, owner.accountId, currency);
  const existing = await repo.findForOwner(tx, owner.accountId, currency);
  if (existing?.deactivated_at) throw deactivatedError();
  if (existing?.status === 'active' && existing.issuer !== issuer) throw conflict('INVALID_VIRTUAL_ACCOUNT_STATE', `The owner's ${currency} virtual account is active, issued by ${existing.issuer}: deactivate it before issuing one through ${issuer}`);
  if (existing?.status === 'active') return { row: existing, created: false };
  const bankDetails = ctx.box.encrypt(JSON.stringify(details));
  const row = existing
    ? await repo.moveStatus(tx, existing.id, existing.status, 'active', { bankDetails, failureReason: null })
    : await repo.insertVirtualAccount(tx, { id: newId(), workspaceId: owner.workspaceId, accountId: owner.accountId, currency, status: 'active', issuer, bankDetails });
  if (!row) throw conflict('INVALID_VIRTUAL_ACCOUNT_STATE', `The ${currency} virtual account of this owner cannot be made active`);
  if (VIRTUAL_ACCOUNT_APPROVAL[currency] !== 'silent') await emit(tx, row, 'virtual_account.active');
  return { row, created: true };
}

/** The owner's active accounts (not deactivated), newest first, with their bank details. */
export function listVirtualAccounts(ctx: AppContext, sql: Sql, owner: ActingAccount, page: PageRequest & { currency?: string | undefined }) {
  return repo.listActiveOfOwner(sql, owner, page, (row) => virtualAccountWithDetails(ctx, row));
}

/** Every workspace's virtual accounts (the operator's queue: `pending` ones await approval), newest first, without bank details. */
export function listAnyVirtualAccounts(sql: Sql, f: PageRequest & { status?: VirtualAccountStatus | undefined; workspaceId?: string | undefined }) {
  return repo.listAny(sql, f, (row) => ({ ...virtualAccountData(row), workspaceId: row.workspace_id }));
}

/** The issuer (operator API and console): a move on any workspace's virtual account. */
export function moveAnyVirtualAccount(ctx: AppContext, tx: Tx, id: string, move: VirtualAccountMove, input: { reason?: string | undefined; details?: BankDetails | undefined } = {}) {
  return moveVirtualAccount(ctx, tx, async () => attributed(await repo.findById(tx, id, true)), move, input);
}

/**
 * An out-of-band move (sandbox simulation or operator): approve (pending → active, with the issued
 * details), fail (pending → failed) or deactivate (pending or active, out of the list for good).
 * Events as the spec: `virtual_account.active` except NGN; `virtual_account.failed` for XOF, XAF,
 * GHS and USD only.
 */
export async function moveVirtualAccount(
  ctx: AppContext,
  tx: Tx,
  find: () => Promise<VirtualAccountRow | undefined>,
  move: VirtualAccountMove,
  input: { reason?: string | undefined; details?: BankDetails | undefined } = {},
): Promise<VirtualAccountRow> {
  const row = await find();
  if (!row) throw notFound('Virtual account');
  const invalid = () => conflict('INVALID_VIRTUAL_ACCOUNT_STATE', `A virtual account in status ${row.status}${row.deactivated_at ? ' (deactivated)' : ''} cannot be moved this way`);
  if (move === 'deactivate') {
    const deactivated = await repo.deactivate(tx, row.id);
    if (!deactivated) throw invalid();
    return deactivated;
  }
  const to = move === 'approve' ? 'active' : 'failed';
  if (row.deactivated_at || !canMove(row.status, to)) throw invalid();
  const mode = VIRTUAL_ACCOUNT_APPROVAL[row.currency];
  let bankDetails: string | null = null;
  if (to === 'active') {
    const issuer = issuersFor(ctx.config).forCurrency(row.currency);
    const details = issuer.detailsOnApproval(await issueRequest(tx, row.workspace_id, row.account_id, row.currency), input.details);
    bankDetails = ctx.box.encrypt(JSON.stringify(details));
  }
  const moved = await repo.moveStatus(tx, row.id, row.status, to, { bankDetails, failureReason: to === 'failed' ? (input.reason ?? 'refused_by_issuer') : null });
  if (!moved) throw invalid();
  if (to === 'active' && mode !== 'silent') await emit(tx, moved, 'virtual_account.active');
  if (to === 'failed' && mode === 'after_creation') await emit(tx, moved, 'virtual_account.failed');
  return moved;
}

/** Where a deposit lands: the owner's active account by id (404 when not the owner's, 409 when not active) or by currency. */
export async function depositTarget(sql: Sql, owner: ActingAccount, by: { virtualAccountId?: string | undefined; currency?: string | undefined }): Promise<VirtualAccountRow | undefined> {
  if (by.virtualAccountId) {
    const row = await repo.findInWorkspace(sql, owner.workspaceId, by.virtualAccountId);
    if (!row || row.account_id !== owner.accountId) throw notFound('Virtual account');
    if (row.deactivated_at) throw deactivatedError();
    if (row.status !== 'active') throw conflict('VIRTUAL_ACCOUNT_NOT_ACTIVE', `The virtual account is ${row.status}; deposits land only in an active account`);
    return row;
  }
  return by.currency ? repo.findActiveForOwner(sql, owner.accountId, by.currency) : undefined;
}

export const findVirtualAccountInWorkspace = repo.findInWorkspace;
export const findVirtualAccountById = repo.findById;

/**
 * The active virtual account whose IBAN this is (a bank's credit notification names the account it
 * credited), or undefined. Bank details are sealed, so the accounts of the currency are opened one by
 * one: enough for the account counts a bank connection carries today.
 */
export async function findVirtualAccountByIban(ctx: Pick<AppContext, 'box'>, sql: Sql, iban: string, currency: string): Promise<VirtualAccountRow | undefined> {
  const wanted = normaliseIban(iban);
  for (const row of await repo.listActiveInCurrency(sql, currency)) {
    if (row.bank_details === null) continue;
    const details = JSON.parse(ctx.box.decrypt(row.bank_details)) as BankDetails;
    if (details.iban && normaliseIban(details.iban) === wanted) return row;
  }
  return undefined;
}

/**
 * Where money a rail brought in lands, the one lookup every connector's inbound side uses: the active
 * virtual account in the currency whose IBAN the rail names (a bank's creditor account), else the one
 * whose id the payer's reference is, else the owner's active account in the currency (a deposit
 * address's owner on a chain). Undefined when none is active in the currency.
 */
export async function depositAccountOf(
  ctx: Pick<AppContext, 'box'>,
  sql: Sql,
  currency: string,
  by: { iban?: string | undefined; reference?: string | undefined; owner?: ActingAccount | undefined },
): Promise<VirtualAccountRow | undefined> {
  const byIban = by.iban ? await findVirtualAccountByIban(ctx, sql, by.iban, currency) : undefined;
  if (byIban) return byIban;
  const reference = by.reference?.trim();
  const byRef = reference && isUuid(reference) ? await repo.findById(sql, reference) : undefined;
  if (byRef?.status === 'active' && byRef.currency === currency && byRef.deactivated_at === null) return byRef;
  return by.owner ? depositTarget(sql, by.owner, { currency }) : undefined;
}
