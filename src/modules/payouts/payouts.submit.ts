import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import type { Sql, Tx } from '../../db/db.js';
import { advisoryKey } from '../../db/db.js';
import { AppError, fieldError, renderError, validationError, type FieldError } from '../../http/errors.js';
import { idempotencyOf, runIdempotent, sendAnswer } from '../../http/idempotency.js';
import type { PayoutBatcher } from './payout-batcher.js';
import { currencyInfo } from '../../lib/currencies.js';
import { parseAmount } from '../../lib/money.js';
import {
  assertValidBeneficiary,
  checkRecipient,
  createBeneficiary,
  getBeneficiary,
  hasBusinessIdentity,
  isFieldFormatError,
  reportedRoute,
  validateSender,
  withinBounds,
  type BeneficiaryInput,
  type Recipient,
  type Route,
} from '../corridors/index.js';
import { fundAndStore, type PreparedPayout } from './payouts.create.js';
import { payoutData } from './payouts.read.js';
import { paidTodayMinor } from './payouts.repository.js';
import type { PayoutBody } from './payouts.schemas.js';

type Body = Static<typeof PayoutBody>;

const refusal = (code: string): AppError => new AppError({ status: 400, code, message: code });

/** Per-workspace payout settings the operator configures (PUT /operator/v1/workspaces/{id}/settings). */
interface PayoutSettings {
  payoutsPermitted?: boolean;
  payoutFees?: Record<string, string>;
  payoutLimits?: Record<string, { perTransaction?: string; daily?: string }>;
  travelRuleScreening?: boolean;
}

/** A row after the checks that need no write: ready to fund, or refused (per row, or for the whole request). */
type Checked =
  | { ok: true; prepared: PreparedPayout; newBeneficiary: BeneficiaryInput | undefined; dailyLimitMinor: bigint | undefined }
  | { ok: false; error: AppError; fieldFormat: boolean };

const prefixed = (errors: FieldError[], prefix: string): FieldError[] =>
  prefix ? errors.map((e) => ({ ...e, field: `${prefix}${e.field}`, message: `${prefix}${e.message}` })) : errors;

/**
 * The submit-time checks of one payout, in the spec's order: the workspace may pay out and has the
 * corridor, the amount is well formed, then the recipient's corridor-required fields, then its
 * structure, then the sender; then the corridor's amount bounds and the workspace's limits.
 */
async function checkRow(ctx: AppContext, sql: Sql, req: FastifyRequest, body: Body): Promise<Checked> {
  const { workspace } = req.auth;
  const settings = workspace.settings as PayoutSettings;
  const fail = (error: AppError, fieldFormat = false): Checked => ({ ok: false, error, fieldFormat });
  if (settings.payoutsPermitted === false) return fail(refusal('PAYOUT_NOT_PERMITTED'));
  const info = currencyInfo(body.currency);
  if (!info) return fail(fieldError('currency', `currency ${body.currency} is not a supported currency`), true);
  const sandboxOnlyInProduction = info.availability === 'sandbox_only' && ctx.config.env === 'production';
  if (!workspace.enabledCurrencies.includes(body.currency) || sandboxOnlyInProduction) return fail(refusal('CORRIDOR_NOT_ENABLED'));
  let amountMinor: bigint;
  try {
    amountMinor = parseAmount(body.amount, body.currency, 'amount');
  } catch (err) {
    return fail(err as AppError, true);
  }

  let recipient: Recipient;
  let beneficiaryId: string | null = null;
  let newBeneficiary: BeneficiaryInput | undefined;
  const b = body.beneficiary as { id?: string } & Record<string, unknown>;
  if (b.id !== undefined) {
    try {
      const found = await getBeneficiary(sql, req.auth.workspaceId, b.id, { subAccountId: req.auth.subAccountId });
      if (found.status !== 'active') return fail(fieldError('beneficiary.id', `beneficiary.id names a beneficiary that is ${found.status}`));
      recipient = found;
      beneficiaryId = found.id;
    } catch {
      return fail(fieldError('beneficiary.id', 'beneficiary.id does not name a beneficiary of this account'));
    }
  } else {
    const { id: _id, ...full } = b;
    newBeneficiary = full as unknown as BeneficiaryInput;
    try {
      // Every account of a beneficiary sent in full must be valid for its own corridor, as on POST /v1/beneficiaries.
      assertValidBeneficiary(newBeneficiary, { fieldPrefix: 'beneficiary.' });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return fail(err, (err.details ?? []).some(isFieldFormatError));
    }
    recipient = newBeneficiary;
  }

  const travelRule = settings.travelRuleScreening !== false && ctx.config.env !== 'sandbox';
  const check = checkRecipient(recipient, { currency: body.currency, route: body.route as Route | undefined, amountMinor, travelRule });
  if (check.errors.length || !check.provider) {
    const fieldFormat = check.errors.some(isFieldFormatError);
    return fail(validationError(check.errors.length ? check.errors : [{ field: 'beneficiary.accounts', message: 'beneficiary.accounts has no account this corridor can pay', code: 'UNSUPPORTED_CORRIDOR' }]), fieldFormat);
  }
  const provider = check.provider;
  if (provider.route === 'crypto' && workspace.disabledCapabilities.includes('crypto_payouts')) {
    return fail(new AppError({ status: 403, code: 'CAPABILITY_DISABLED', message: 'The crypto_payouts capability is not enabled for this workspace' }));
  }
  const sender = validateSender(body.senderInfo, provider, hasBusinessIdentity(workspace.settings));
  if (sender.errors.length) return fail(validationError(sender.errors));
  if (!withinBounds(provider, body.currency, amountMinor)) return fail(refusal('AMOUNT_OUT_OF_BOUNDS'));

  const limits = settings.payoutLimits?.[body.currency];
  if (limits?.perTransaction !== undefined && amountMinor > parseAmount(limits.perTransaction, body.currency, 'perTransaction')) {
    return fail(refusal('LIMIT_EXCEEDED'));
  }
  const fee = settings.payoutFees?.[body.currency];
  return {
    ok: true,
    newBeneficiary,
    dailyLimitMinor: limits?.daily !== undefined ? parseAmount(limits.daily, body.currency, 'daily') : undefined,
    prepared: {
      workspaceId: req.auth.workspaceId,
      accountId: req.auth.accountId,
      clientRef: body.clientRef,
      currency: body.currency,
      amountMinor,
      feeMinor: fee !== undefined ? parseAmount(fee, body.currency, 'fee', { allowZero: true }) : 0n,
      route: reportedRoute(provider, body.route as Route | undefined),
      crypto: provider.route === 'crypto',
      beneficiaryId,
      beneficiary: { ...recipient, provider: provider.id } as unknown as Record<string, unknown>,
      sender: sender.senderInfo ? { ...sender.senderInfo } : null,
      quoteId: body.quoteId ?? null,
      purpose: body.purpose ?? null,
      reference: body.reference ?? null,
      metadata: body.metadata ?? null,
    },
  };
}

/** Writes one checked row: its beneficiary (when sent in full), its daily limit, then funding and storage. */
async function storeRow(ctx: AppContext, tx: Tx, req: FastifyRequest, row: Extract<Checked, { ok: true }>) {
  const prepared = { ...row.prepared };
  if (row.newBeneficiary) {
    const created = await createBeneficiary(tx, { workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId }, row.newBeneficiary, { fieldPrefix: 'beneficiary.' });
    prepared.beneficiaryId = created.id;
  }
  if (row.dailyLimitMinor !== undefined) {
    // One payout at a time per workspace and currency while a daily limit applies, so two cannot pass it together.
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(`payout-daily:${prepared.workspaceId}:${prepared.currency}`)]);
    if ((await paidTodayMinor(tx, prepared.workspaceId, prepared.currency)) + prepared.amountMinor > row.dailyLimitMinor) {
      throw refusal('LIMIT_EXCEEDED');
    }
  }
  return fundAndStore(ctx, tx, prepared);
}

/** The folded message of a refusal, as a batch row reports it. */
const folded = (err: AppError): string => err.message;

/**
 * POST /v1/payouts: one payout, or an array (a batch). Every check that needs no write runs first;
 * in a batch, a field-format refusal on any row refuses the whole array and creates nothing, while
 * recipient and sender refusals are reported per row and the valid rows are created.
 */
export async function submitPayouts(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, batcher?: PayoutBatcher): Promise<FastifyReply> {
  const batch = Array.isArray(req.body);
  const bodies = (batch ? req.body : [req.body]) as Body[];
  if (batch && bodies.length === 0) throw fieldError('body', 'body must contain at least one payout');
  if (bodies.length > ctx.config.limits.payoutBatchRowsMax) {
    throw fieldError('body', `body must contain at most ${ctx.config.limits.payoutBatchRowsMax} payouts`);
  }
  const checked: Checked[] = [];
  for (const body of bodies) checked.push(await checkRow(ctx, ctx.db, req, body));

  if (!batch) {
    const [only] = checked as [Checked];
    if (!only.ok) throw only.error;
    if (batcher && !only.newBeneficiary && !only.prepared.quoteId && only.dailyLimitMinor === undefined) {
      // The common case needs only a hold: it is written with group commit (see PayoutBatcher).
      const { answer, replayed } = await batcher.submit({
        prepared: only.prepared,
        idempotency: idempotencyOf(req),
        // payoutData is exactly the documented Payout; the route's 201 schema is a union (one payout or a
        // batch), which its serializer would resolve by validating each answer.
        renderCreated: (body) => ({ status: 201, contentType: 'application/json; charset=utf-8', text: JSON.stringify(body) }),
        renderError: (error) => {
          const rendered = renderError(error, req);
          return { status: rendered.status, contentType: rendered.contentType, text: JSON.stringify(rendered.body) };
        },
      });
      return sendAnswer(reply, answer, replayed);
    }
    return runIdempotent(ctx, req, reply, async (tx) => {
      const result = await storeRow(ctx, tx, req, only);
      if ('failedForBalance' in result) {
        // Recorded as failed under its clientRef, with its only event; the answer is still the refusal.
        return { status: 400, body: renderError(refusal('INSUFFICIENT_BALANCE'), req).body };
      }
      return { status: 201, body: payoutData(result.created) };
    });
  }

  const formatErrors = checked.flatMap((c, i) => (!c.ok && c.fieldFormat ? prefixed(c.error.details ?? [{ field: 'body', message: c.error.message }], `${i}.`) : []));
  if (formatErrors.length) throw validationError(formatErrors);
  return runIdempotent(ctx, req, reply, async (tx) => {
    const results: unknown[] = [];
    for (const [i, c] of checked.entries()) {
      const clientRef = (bodies[i] as Body).clientRef;
      if (!c.ok) {
        results.push({ error: folded(c.error), clientRef });
        continue;
      }
      try {
        const result = await tx.savepoint((sp) => storeRow(ctx, sp, req, c));
        results.push('created' in result ? payoutData(result.created) : { error: 'INSUFFICIENT_BALANCE', clientRef });
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        results.push({ error: folded(err), clientRef });
      }
    }
    return { status: 201, body: results };
  });
}
