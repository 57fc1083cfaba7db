import type { Sql } from '../../platform/db/db.js';
import { notFound } from '../../platform/lib/errors.js';
import { formatAmount } from '../../platform/lib/money.js';
import * as repo from './payouts.repository.js';
import { hitEvidence, type PayoutScreening } from '../../controls/screening/screening.service.js';
import type { PayoutCoreRow, PayoutFilters, PayoutRow } from './payouts.repository.js';
import { findSealedParties } from './payouts.steps.repository.js';
import { recipientCheckView } from '../../controls/recipient-checks/recipient-checks.view.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';

/** What the connector reported beyond the status (additive): the rail's reason and references. */
export function railFields(row: Pick<PayoutRow, 'return_reason' | 'rail'>) {
  return {
    ...(row.return_reason ? { returnReason: row.return_reason } : {}),
    ...(row.rail?.uetr ? { uetr: row.rail.uetr } : {}),
    ...(row.rail?.txHash ? { txHash: row.rail.txHash } : {}),
    ...(row.rail?.chain ? { chain: row.rail.chain } : {}),
    ...(row.rail?.deliveredAmount ? { deliveredAmount: row.rail.deliveredAmount } : {}),
  };
}

/** The payout as read back by its owner, but its screening: what a payout's events carry is a subset of it. */
function payoutCoreData(row: PayoutCoreRow) {
  return {
    id: row.id,
    clientRef: row.client_ref,
    amount: formatAmount(BigInt(row.amount_minor), row.currency),
    currency: row.currency,
    status: row.status,
    route: row.route,
    fee: formatAmount(BigInt(row.fee_minor), row.funding_currency),
    feeCurrency: row.funding_currency,
    beneficiaryId: row.beneficiary_id,
    ...(row.account_id !== row.workspace_id ? { accountId: row.account_id } : {}),
    ...(row.quote_id ? { quoteId: row.quote_id } : {}),
    ...(row.purpose ? { purpose: row.purpose } : {}),
    ...(row.reference ? { reference: row.reference } : {}),
    ...(row.metadata ? { metadata: row.metadata } : {}),
    failureReason: row.failure_reason,
    ...railFields(row),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
  };
}

/** The payout as read back by its owner. */
export function payoutData(row: PayoutRow) {
  return { ...payoutCoreData(row), screening: screeningOf(row), ...(row.recipient_check ? { recipientCheck: recipientCheckView(row.recipient_check) } : {}) };
}

/** The recipient of a payout as validated at submit, opened (a recipient check asks the rail about it), or undefined for an unknown payout. */
export async function openedRecipient(sql: Sql, box: CryptoBox, id: string): Promise<Record<string, unknown> | undefined> {
  const [sealed] = await findSealedParties(sql, [id]);
  return sealed && box.openJson<Record<string, unknown>>(sealed.beneficiary);
}

/** The payout fields every payout event carries (spec §Events: payout data): a subset of the payout as read. */
export function payoutEventData(row: PayoutCoreRow) {
  const { id, clientRef, amount, currency, status, completedAt } = payoutCoreData(row);
  return { id, clientRef, amount, currency, status, completedAt, ...railFields(row) };
}

/** Sanctions screening at submit: `clear`, or held (then released or rejected) with the evidence. */
function screeningOf(row: PayoutRow): PayoutScreening {
  return row.screening ? { status: row.screening.status, hits: row.screening.hits.map(hitEvidence) } : { status: 'clear', hits: [] };
}

export async function getPayout(sql: Sql, workspaceId: string, id: string): Promise<PayoutRow> {
  const row = await repo.findPayout(sql, workspaceId, id);
  if (!row) throw notFound('Payout');
  return row;
}

export type { PayoutFilters, PayoutSearch } from './payouts.repository.js';

/**
 * Payouts newest first. Without Service-Account-Id, the workspace's whole roll-up; with it, only
 * that sub-account's; without a workspace (the operator), every workspace's.
 */
export function listPayouts(sql: Sql, scope: { workspaceId?: string | undefined; subAccountId?: string | undefined }, f: PayoutFilters) {
  return repo.listPayouts(sql, scope, f, (row) => (scope.workspaceId ? payoutData(row) : { ...payoutData(row), workspaceId: row.workspace_id }));
}

/** A workspace's payouts by id, in one statement (ids of another workspace, or none, are absent). */
export async function payoutsByIds(sql: Sql, workspaceId: string, ids: readonly string[]): Promise<ReturnType<typeof payoutData>[]> {
  if (ids.length === 0) return [];
  const rows = await repo.findPayoutsByIds(sql, [...new Set(ids)]);
  return rows.filter((row) => row.workspace_id === workspaceId).map(payoutData);
}

/** The saved beneficiary a payout of the workspace was made to, if any (a rail's correction of its account lands on it). */
export async function savedBeneficiaryOfPayout(sql: Sql, workspaceId: string, payoutId: string): Promise<string | undefined> {
  return (await repo.findPayout(sql, workspaceId, payoutId))?.beneficiary_id ?? undefined;
}

/** Any workspace's payout by id (a bank's answer names the payout by its EndToEndId), or undefined. */
export function findAnyPayout(sql: Sql, id: string): Promise<PayoutRow | undefined> {
  return repo.findPayoutById(sql, id);
}

/** Payouts of any workspace by id, in one statement (a connector reading a bank file's chunk); the unknown ones are absent. */
export function findAnyPayouts(sql: Sql, ids: readonly string[]): Promise<PayoutRow[]> {
  return ids.length === 0 ? Promise.resolve([]) : repo.findPayoutsByIds(sql, ids);
}

/** How many payouts the filters match, as listPayouts scopes them. */
export function countPayouts(sql: Sql, scope: { workspaceId?: string | undefined; subAccountId?: string | undefined }, f: PayoutFilters): Promise<number> {
  return repo.countPayouts(sql, scope, f);
}

/** Payouts per UTC day and currency over the last `days` days, every day present (zero when none), oldest first. */
export async function payoutDays(sql: Sql, scope: { workspaceId: string; subAccountId?: string | undefined }, days: number, now = new Date()) {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)));
  const rows = await repo.payoutsPerDay(sql, scope, first.toISOString());
  const dayList = Array.from({ length: days }, (_, i) => new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10));
  const currencies = [...new Set(rows.map((r) => r.currency))].sort();
  return currencies.map((currency) => ({
    currency,
    days: dayList.map((day) => {
      const row = rows.find((r) => r.day === day && r.currency === currency);
      return { day, count: row?.count ?? 0, amount: formatAmount(BigInt(row?.amountMinor ?? '0'), currency) };
    }),
  }));
}
