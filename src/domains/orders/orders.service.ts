import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import { conflict, DomainError, fieldError, notFound, refusal } from '../../platform/lib/errors.js';
import type { CryptoBox } from '../../platform/lib/crypto-box.js';
import { newId } from '../../platform/lib/ids.js';
import type { Caller } from '../accounts/caller.js';
import { findBeneficiaries } from '../corridors/index.js';
import { checkPair, priceQuote } from '../fx/fx.service.js';
import { holdListedOrder, type BeneficiarySubject } from '../../controls/screening/screening.service.js';
import { ledger } from '../ledger/ledger.service.js';
import type { Storage } from '../../platform/storage/storage.js';
import { findUpload, issueUpload, type UploadContentType } from '../../platform/storage/uploads.service.js';
import { formatRate, invertRate } from '../../platform/lib/money.js';
import { recordOrderEvent, scheduleDeadline } from './orders.lifecycle.js';
import * as repo from './orders.repository.js';
import type { OrderRow } from './orders.repository.js';
import { newSettlement, settlementInstructions } from './orders.settlement.js';
import { assertWorkspaceRight } from '../users/rights.js';

/** Order creation and the settlement's proof of payment (spec §Order; DESIGN §4 Orders). */

export const PROOF_UPLOAD_PURPOSE = 'order-proofs';

export interface CreateOrderInput {
  clientRef?: string | undefined;
  fromCurrency: string;
  toCurrency: string;
  fromAmount?: string | undefined;
  toAmount?: string | undefined;
  beneficiary?: { id: string } | undefined;
  funding?: 'balance' | 'settlement' | undefined;
}

/** The 422 of an order the balance cannot cover when settlement funding is unavailable (asked for the balance, or none configured): spec §Errors. */
const insufficientBalance = (): DomainError => refusal('INSUFFICIENT_BALANCE', 'unprocessable');
const settlementUnavailable = (currency: string): DomainError =>
  new DomainError({ category: 'unprocessable', code: 'SETTLEMENT_UNAVAILABLE', message: `Settlement funding is not available for ${currency}: fund the order from the balance` });
export const duplicateClientRef = (): DomainError =>
  new DomainError({ category: 'invalid_request', code: 'DUPLICATE_CLIENT_REF', message: 'Order with this client reference already exists' });

/** A beneficiary delivery: the beneficiary as screening reads it, and the clearing rail it goes out on (its account in the bought currency decides). */
async function deliveryOf(tx: Tx, box: CryptoBox, caller: Caller, beneficiaryId: string, toCurrency: string): Promise<{ rail: string; beneficiary: BeneficiarySubject }> {
  const [found] = await findBeneficiaries(tx, box, [{ workspaceId: caller.workspaceId, subAccountId: caller.subAccountId, id: beneficiaryId }], { lock: true });
  if (!found) throw fieldError('beneficiary.id', 'beneficiary.id does not name a beneficiary of this account');
  if (found.status !== 'active') throw fieldError('beneficiary.id', `beneficiary.id names a beneficiary that is ${found.status}`);
  const account = found.accounts.find((a) => a.currency === toCurrency);
  if (!account) throw fieldError('beneficiary.id', `beneficiary.id names a beneficiary with no ${toCurrency} account`);
  const beneficiary = { id: found.id, workspaceId: caller.workspaceId, type: found.type, name: found.name, middleName: found.middleName, country: found.country, dateOfBirth: found.dateOfBirth };
  return { rail: account.type === 'crypto' ? 'crypto' : 'swift', beneficiary };
}

/**
 * Creates an order in the caller's transaction: priced from the FX rate source (all-in), checked
 * against the workspace's per-transaction limit of the sold currency (no corridor maximum: the desk
 * serves amounts above corridor caps), then funded. From the balance (asked for, or by default when
 * the available balance covers fromAmount): held now, `funds_received`, events order.created and
 * order.funds_received. Otherwise by settlement: `awaiting_funds` with instructions until the funding
 * deadline, events order.created and order.awaiting_funds. An order the balance cannot cover when
 * settlement funding is unavailable (`funding: "balance"`, or no collection details for the currency)
 * is 422 INSUFFICIENT_BALANCE and writes nothing; `funding: "settlement"` without them is 422
 * SETTLEMENT_UNAVAILABLE.
 */
export async function createOrder(ctx: AppContext, tx: Tx, caller: Caller, input: CreateOrderInput): Promise<OrderRow> {
  assertWorkspaceRight(caller, 'pay');
  const pair = checkPair({ rates: ctx.rates, spreadBps: ctx.config.fxSpreadBps }, { enabledCurrencies: caller.workspace.enabledCurrencies, fromCurrency: input.fromCurrency, toCurrency: input.toCurrency });
  const amounts = priceQuote(pair, input);
  const limit = caller.workspace.terms.perTransactionMinor(input.fromCurrency);
  if (limit !== undefined && amounts.fromAmountMinor > limit) throw refusal('LIMIT_EXCEEDED');
  const delivery = input.beneficiary ? await deliveryOf(tx, ctx.box, caller, input.beneficiary.id, input.toCurrency) : null;
  if (input.clientRef !== undefined && (await repo.lockAndFindClientRef(tx, caller.workspaceId, input.clientRef))) throw duplicateClientRef();

  const id = newId();
  const instructions = settlementInstructions(ctx.config, input.fromCurrency);
  if (input.funding === 'settlement' && !instructions) throw settlementUnavailable(input.fromCurrency);
  let holdTransferId: string | null = null;
  if (input.funding !== 'settlement') {
    const holds = await ledger.openHolds(tx, [{ accountId: caller.accountId, currency: input.fromCurrency }]);
    const held = holds.tryHold({
      accountId: caller.accountId,
      currency: input.fromCurrency,
      legs: [{ amountMinor: amounts.fromAmountMinor, credit: { system: 'fx_desk' }, description: 'Order funds held for the desk' }],
      reference: { type: 'order', id },
    });
    if (held.ok) {
      await holds.commit(tx);
      holdTransferId = held.transferIds[0] as string;
    } else if (input.funding === 'balance' || !instructions) throw insufficientBalance();
  }
  const funding = holdTransferId ? 'balance' : 'settlement';
  const row = await repo.insertOrder(tx, {
    id,
    workspaceId: caller.workspaceId,
    accountId: caller.accountId,
    clientRef: input.clientRef ?? null,
    status: funding === 'balance' ? 'funds_received' : 'awaiting_funds',
    funding,
    fromCurrency: input.fromCurrency,
    toCurrency: input.toCurrency,
    fromAmountMinor: amounts.fromAmountMinor,
    toAmountMinor: amounts.toAmountMinor,
    // The order's rate is fromCurrency per 1 toCurrency (the FX rate source prices toCurrency per 1 fromCurrency).
    rate: formatRate(invertRate(pair.rate)),
    beneficiaryId: input.beneficiary?.id ?? null,
    deliveryRail: delivery?.rail ?? null,
    holdTransferId,
    settlement: funding === 'settlement' && instructions ? newSettlement(newId(), input.fromCurrency, instructions) : null,
    fundingWindowMs: ctx.config.orderFundingWindowMs,
    executionWindowMs: funding === 'balance' ? ctx.config.orderExecutionWindowMs : null,
  });
  // Its beneficiary screened as a payout's is: a match holds the order from the desk until an operator decides.
  if (delivery) await holdListedOrder(ctx, tx, { id: row.id, beneficiary: delivery.beneficiary });
  await recordOrderEvent(tx, row, 'order.created');
  await recordOrderEvent(tx, row, funding === 'balance' ? 'order.funds_received' : 'order.awaiting_funds');
  if (funding === 'balance' && row.execution_deadline_at) await scheduleDeadline(tx, row.id, 'execution', row.execution_deadline_at);
  else await scheduleDeadline(tx, row.id, 'funding', row.funding_deadline_at);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Proof of payment of a bank-transfer settlement

/** The order a proof is for: the caller's, awaiting funds by a settlement that asks for a proof. */
async function proofTarget(sql: Sql, workspaceId: string, orderId: string): Promise<OrderRow> {
  const row = await repo.findOrder(sql, workspaceId, orderId);
  if (!row) throw notFound('Order');
  if (row.settlement_method !== 'bank_transfer') {
    throw conflict('PROOF_NOT_REQUIRED', row.settlement_method ? 'A crypto settlement takes no proof of payment (requirements.proofOfPayment is false)' : 'The order is funded from the balance: it has no settlement to prove');
  }
  if (row.status !== 'awaiting_funds') throw conflict('ORDER_NOT_AWAITING_FUNDS', `The order is ${row.status}: a proof of payment is taken only while it awaits funds`);
  return row;
}

/** POST /v1/orders/{id}/settlement/proof-upload-url: a single-use signed URL for one PDF, JPEG or PNG. */
export async function issueProofUpload(
  ctx: AppContext,
  tx: Tx,
  storage: Storage,
  workspaceId: string,
  orderId: string,
  body: { contentType: UploadContentType; contentLength: number },
): Promise<{ proofKey: string; uploadUrl: string; expiresAt: string }> {
  const row = await proofTarget(tx, workspaceId, orderId);
  const issued = await issueUpload(tx, storage, ctx.config, { workspaceId, purpose: PROOF_UPLOAD_PURPOSE, ownerId: row.id, contentType: body.contentType, contentLength: body.contentLength });
  return { proofKey: issued.key, uploadUrl: issued.uploadUrl, expiresAt: issued.expiresAt };
}

/** POST /v1/orders/{id}/settlement/proof: the uploaded file becomes the settlement's proof of payment. */
export async function submitProof(tx: Tx, workspaceId: string, orderId: string, proofKey: string): Promise<OrderRow> {
  const row = await proofTarget(tx, workspaceId, orderId);
  const upload = await findUpload(tx, workspaceId, proofKey);
  if (!upload || upload.purpose !== PROOF_UPLOAD_PURPOSE || upload.owner_id !== row.id) {
    throw fieldError('proofKey', 'proofKey does not name a proof upload of this order (POST /v1/orders/{id}/settlement/proof-upload-url)');
  }
  if (!upload.uploaded_at) throw conflict('PROOF_NOT_UPLOADED', 'Nothing was uploaded to this proofKey yet: PUT the file to its uploadUrl first');
  const updated = await repo.setProof(tx, row.id, upload.key);
  if (!updated) throw conflict('ORDER_NOT_AWAITING_FUNDS', 'The order no longer awaits funds');
  return updated;
}

/** The proof of payment of any order, for the operator: its bytes and type. */
export async function readProof(sql: Sql, storage: Storage, orderId: string): Promise<{ contentType: string; bytes: Buffer }> {
  const row = await repo.findOrderById(sql, orderId);
  if (!row) throw notFound('Order');
  if (!row.proof_upload_key) throw notFound('Proof of payment');
  const upload = await findUpload(sql, row.workspace_id, row.proof_upload_key);
  const bytes = upload && (await storage.get(upload.storage_key));
  if (!upload || !bytes) throw notFound('Proof of payment');
  return { contentType: upload.content_type, bytes };
}
