import { checkE164 } from '../../domains/corridors/corridors.port.js';
import { requestRailDeposit, type DepositRow } from '../../domains/deposits/deposits.port.js';
import type { Tx } from '../../platform/db/db.js';
import { enqueueMany, LIFECYCLE_JOB_ATTEMPTS_MAX } from '../../platform/jobs/queue.js';
import { conflict, DomainError, fieldError } from '../../platform/lib/errors.js';
import { formatAmount } from '../../platform/lib/money.js';
import * as repo from './mobile-money.repository.js';
import { CALLBACK_PATH, MOMO_COLLECT_JOB, type MomoRuntime, type RecordedRequest } from './service.js';

/** A collection as the workspace asks for it (`POST /v1/collections`). */
export interface NewCollection {
  clientRef: string;
  amount: string;
  currency: string;
  /** The payer's wallet, E.164. */
  phoneNumber: string;
  description?: string | undefined;
}

/**
 * The body of `POST /transactions/type/merchantpay` for a collection: a merchant payment initiated by
 * the payee (requestTransactionType of the GSMA definition), the payer's wallet the debit party, the
 * operator account Corridor holds (the connector's `debitParty` setting, the account payouts leave
 * from) the credit party; the payer approves it on the phone.
 */
export function requestToPayBody(mm: MomoRuntime, c: NewCollection, amount: string, requestDate: Date): Record<string, unknown> {
  return {
    amount,
    currency: c.currency,
    debitParty: [{ key: 'msisdn', value: c.phoneNumber }],
    ...(mm.config.debitParty ? { creditParty: [mm.config.debitParty] } : {}),
    requestingOrganisationTransactionReference: c.clientRef.slice(0, 256),
    ...(c.description ? { descriptionText: c.description.slice(0, 160) } : {}),
    requestDate: requestDate.toISOString(),
  };
}

/**
 * Asks a payer's phone for money, in the request's transaction: the deposit is recorded pending for
 * the account the caller acts on (deposits capability on, currency enabled), the request to pay is
 * recorded (sealed, its correlation id the deposit's id) with its send job, before anything leaves.
 * The same clientRef twice in a workspace answers DUPLICATE_CLIENT_REF (a retry reuses its
 * Idempotency-Key instead). Its outcome moves the deposit once (service.ts applyState).
 */
export async function requestCollection(mm: MomoRuntime, tx: Tx, caller: Parameters<typeof requestRailDeposit>[1], c: NewCollection): Promise<DepositRow> {
  if (!checkE164(c.phoneNumber).valid) throw fieldError('phoneNumber', 'phoneNumber must be a valid mobile number in E.164 form, such as +233241230000');
  if (await repo.collectionRefTaken(tx, caller.workspaceId, c.clientRef)) throw duplicate();
  const deposit = await requestRailDeposit(tx, caller, { currency: c.currency, amount: c.amount, clientRef: c.clientRef, rail: 'mobile_money_collection' });
  const request: RecordedRequest = {
    body: JSON.stringify(requestToPayBody(mm, c, formatAmount(BigInt(deposit.amount_minor), deposit.currency), new Date())),
    callbackUrl: `${mm.config.callbackBaseUrl}${CALLBACK_PATH}/${deposit.id}`,
  };
  if (!(await repo.insertMomoCollection(tx, { depositId: deposit.id, workspaceId: caller.workspaceId, clientRef: c.clientRef, request: mm.box.sealJson(request) }))) throw duplicate();
  await enqueueMany(tx, [{ kind: MOMO_COLLECT_JOB, payload: { depositId: deposit.id }, uniqueKey: `${MOMO_COLLECT_JOB}:${deposit.id}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX }]);
  return deposit;
}

const duplicate = (): DomainError => conflict('DUPLICATE_CLIENT_REF', 'A collection with this clientRef already exists in this workspace');
