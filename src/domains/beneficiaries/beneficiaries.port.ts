/*
 * The beneficiaries module's port for connectors: a rail's correction of a beneficiary's account
 * details (an ACH notification of change), applied to the saved beneficiary a payout was made to,
 * audited, in the connector's transaction.
 */
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { appendAudit } from '../../controls/audit/audit.service.js';
import { savedBeneficiaryOfPayout } from '../payouts/payouts.port.js';
import { recordEvents } from '../events/events.service.js';
import { accountsOf, findBeneficiaryById, updateAccount } from './beneficiaries.repository.js';

export interface AccountCorrection {
  workspaceId: string;
  payoutId: string;
  /** The account as the payout used it: the saved account that matches is corrected. */
  match: Record<string, string>;
  /** The account data fields the rail corrects, with their new values. */
  changes: Record<string, string>;
  /** The rail's code and its words (C01, "incorrect account number"). */
  code: string;
  words: string;
}

const masked = (value: string): string => (value.length <= 4 ? '****' : `****${value.slice(-4)}`);

/**
 * Corrects the saved beneficiary's account a payout used: the account whose data matches `match`
 * gets `changes`. Audited with the fields changed (values masked), and the workspace told with a
 * `beneficiary.updated` event (delivered as a webhook) naming the account and the fields, never
 * their values. Answers the beneficiary and
 * account ids, or undefined when the payout names no saved beneficiary or none of its accounts matches.
 */
export async function correctBeneficiaryAccount(ctx: AppContext, tx: Tx, c: AccountCorrection): Promise<{ beneficiaryId: string; accountId: string } | undefined> {
  const beneficiaryId = await savedBeneficiaryOfPayout(tx, c.workspaceId, c.payoutId);
  if (!beneficiaryId) return undefined;
  for (const account of await accountsOf(tx, [beneficiaryId])) {
    const data = ctx.box.openJson<Record<string, unknown>>(account.data);
    if (!Object.entries(c.match).every(([k, v]) => data[k] === v)) continue;
    await updateAccount(tx, { ...account, data: ctx.box.sealJson({ ...data, ...c.changes }) });
    await appendAudit(tx, {
      operatorKeyId: null,
      actor: 'system',
      method: 'PATCH',
      path: `/v1/beneficiaries/${beneficiaryId}`,
      statusCode: 200,
      requestId: `rail.correction:${c.payoutId}`,
      workspaceId: c.workspaceId,
      body: {
        change: 'beneficiary.account_corrected',
        railCode: c.code,
        reason: c.words,
        accountId: account.id,
        payoutId: c.payoutId,
        fields: Object.fromEntries(Object.entries(c.changes).map(([k, v]) => [k, { from: masked(String(data[k] ?? '')), to: masked(v) }])),
      },
    });
    const beneficiary = await findBeneficiaryById(tx, beneficiaryId);
    await recordEvents(tx, [
      {
        workspaceId: c.workspaceId,
        accountId: beneficiary?.account_id ?? undefined,
        type: 'beneficiary.updated',
        data: {
          id: beneficiaryId,
          ...(beneficiary?.account_id ? { accountId: beneficiary.account_id } : {}),
          status: beneficiary?.status ?? 'active',
          correction: { code: c.code, description: c.words, beneficiaryAccountId: account.id, payoutId: c.payoutId, fields: Object.keys(c.changes) },
        },
      },
    ]);
    return { beneficiaryId, accountId: account.id };
  }
  return undefined;
}
