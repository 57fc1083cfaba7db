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
  findBeneficiaries,
  hasBusinessIdentity,
  isFieldFormatError,
  reportedRoute,
  validateSender,
  withinBounds,
  type BeneficiaryInput,
  type BeneficiaryView,
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
export type Checked =
  | { ok: true; prepared: PreparedPayout; newBeneficiary: BeneficiaryInput | undefined; dailyLimitMinor: bigint | undefined }
  | { ok: false; error: AppError; fieldFormat: boolean };

const prefixed = (errors: FieldError[], prefix: string): FieldError[] =>
  prefix ? errors.map((e) => ({ ...e, field: `${prefix}${e.field}`, message: `${prefix}${e.message}` })) : errors;

type Failed = Extract<Checked, { ok: false }>;
const failed = (error: AppError, fieldFormat = false): Failed => ({ ok: false, error, fieldFormat });

/** The first checks: the workspace may pay out and has the corridor's currency, the amount is well formed. */
function checkBasics(ctx: AppContext, req: FastifyRequest, body: Body): Failed | { ok: true; amountMinor: bigint } {
  const { workspace } = req.auth;
  const settings = workspace.settings as PayoutSettings;
  if (settings.payoutsPermitted === false) return failed(refusal('PAYOUT_NOT_PERMITTED'));
  const info = currencyInfo(body.currency);
  if (!info) return failed(fieldError('currency', `currency ${body.currency} is not a supported currency`), true);
  const sandboxOnlyInProduction = info.availability === 'sandbox_only' && ctx.config.env === 'production';
  if (!workspace.enabledCurrencies.includes(body.currency) || sandboxOnlyInProduction) return failed(refusal('CORRIDOR_NOT_ENABLED'));
  try {
    return { ok: true, amountMinor: parseAmount(body.amount, body.currency, 'amount') };
  } catch (err) {
    return failed(err as AppError, true);
  }
}

/** A saved beneficiary named by `beneficiary.id`, as looked up (undefined: none visible to the caller). */
function savedRecipient(found: BeneficiaryView | undefined): Failed | { ok: true; recipient: BeneficiaryView } {
  if (!found) return failed(fieldError('beneficiary.id', 'beneficiary.id does not name a beneficiary of this account'));
  if (found.status !== 'active') return failed(fieldError('beneficiary.id', `beneficiary.id names a beneficiary that is ${found.status}`));
  return { ok: true, recipient: found };
}

/** A beneficiary sent in full: every account must be valid for its own corridor, as on POST /v1/beneficiaries. */
function fullRecipient(b: Record<string, unknown>): Failed | { ok: true; recipient: BeneficiaryInput } {
  const { id: _id, ...full } = b;
  const input = full as unknown as BeneficiaryInput;
  try {
    assertValidBeneficiary(input, { fieldPrefix: 'beneficiary.' });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return failed(err, (err.details ?? []).some(isFieldFormatError));
  }
  return { ok: true, recipient: input };
}

/**
 * The checks that need the recipient, in the spec's order: its corridor-required fields, then its
 * structure, then the sender; then the corridor's amount bounds and the workspace's limits.
 */
function checkWithRecipient(
  ctx: AppContext,
  req: FastifyRequest,
  body: Body,
  amountMinor: bigint,
  recipient: Recipient,
  saved: { beneficiaryId: string } | { newBeneficiary: BeneficiaryInput },
): Checked {
  const { workspace } = req.auth;
  const settings = workspace.settings as PayoutSettings;
  const travelRule = settings.travelRuleScreening !== false && ctx.config.env !== 'sandbox';
  const check = checkRecipient(recipient, { currency: body.currency, route: body.route as Route | undefined, amountMinor, travelRule });
  if (check.errors.length || !check.provider) {
    const fieldFormat = check.errors.some(isFieldFormatError);
    return failed(validationError(check.errors.length ? check.errors : [{ field: 'beneficiary.accounts', message: 'beneficiary.accounts has no account this corridor can pay', code: 'UNSUPPORTED_CORRIDOR' }]), fieldFormat);
  }
  const provider = check.provider;
  if (provider.route === 'crypto' && workspace.disabledCapabilities.includes('crypto_payouts')) {
    return failed(new AppError({ status: 403, code: 'CAPABILITY_DISABLED', message: 'The crypto_payouts capability is not enabled for this workspace' }));
  }
  const sender = validateSender(body.senderInfo, provider, hasBusinessIdentity(workspace.settings));
  if (sender.errors.length) return failed(validationError(sender.errors));
  if (!withinBounds(provider, body.currency, amountMinor)) return failed(refusal('AMOUNT_OUT_OF_BOUNDS'));

  const limits = settings.payoutLimits?.[body.currency];
  if (limits?.perTransaction !== undefined && amountMinor > parseAmount(limits.perTransaction, body.currency, 'perTransaction')) {
    return failed(refusal('LIMIT_EXCEEDED'));
  }
  const fee = settings.payoutFees?.[body.currency];
  return {
    ok: true,
    newBeneficiary: 'newBeneficiary' in saved ? saved.newBeneficiary : undefined,
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
      beneficiaryId: 'beneficiaryId' in saved ? saved.beneficiaryId : null,
      beneficiary: { ...recipient, provider: provider.id } as unknown as Record<string, unknown>,
      sender: sender.senderInfo ? { ...sender.senderInfo } : null,
      quoteId: body.quoteId ?? null,
      purpose: body.purpose ?? null,
      reference: body.reference ?? null,
      metadata: body.metadata ?? null,
    },
  };
}

/** Every submit-time check of one payout, reading its saved beneficiary itself. */
async function checkRow(ctx: AppContext, sql: Sql, req: FastifyRequest, body: Body): Promise<Checked> {
  const basics = checkBasics(ctx, req, body);
  if (!basics.ok) return basics;
  const b = body.beneficiary as { id?: string } & Record<string, unknown>;
  if (b.id === undefined) {
    const full = fullRecipient(b);
    return full.ok ? checkWithRecipient(ctx, req, body, basics.amountMinor, full.recipient, { newBeneficiary: full.recipient }) : full;
  }
  const [found] = await findBeneficiaries(sql, [{ workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId, id: b.id }]);
  const saved = savedRecipient(found);
  return saved.ok ? checkWithRecipient(ctx, req, body, basics.amountMinor, saved.recipient, { beneficiaryId: saved.recipient.id }) : saved;
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
  if (!batch) {
    const body = bodies[0] as Body;
    const b = body.beneficiary as { id?: string };
    const settings = req.auth.workspace.settings as PayoutSettings;
    if (batcher && b.id !== undefined && !body.quoteId && settings.payoutLimits?.[body.currency]?.daily === undefined) {
      // The common case needs a saved beneficiary and a hold: it is checked and written with group
      // commit, the beneficiary read with the others of its batch (see PayoutBatcher).
      const basics = checkBasics(ctx, req, body);
      if (!basics.ok) throw basics.error;
      const { answer, replayed } = await batcher.submit({
        beneficiary: { workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId, id: b.id },
        prepare: (found) => {
          const saved = savedRecipient(found);
          return saved.ok ? checkWithRecipient(ctx, req, body, basics.amountMinor, saved.recipient, { beneficiaryId: saved.recipient.id }) : saved;
        },
        idempotency: idempotencyOf(req),
        // payoutData is exactly the documented Payout; the route's 201 schema is a union (one payout or a
        // batch), which its serializer would resolve by validating each answer.
        renderCreated: (payout) => ({ status: 201, contentType: 'application/json; charset=utf-8', text: JSON.stringify(payout) }),
        renderError: (error) => {
          const rendered = renderError(error, req);
          return { status: rendered.status, contentType: rendered.contentType, text: JSON.stringify(rendered.body) };
        },
      });
      return sendAnswer(reply, answer, replayed);
    }
    const only = await checkRow(ctx, ctx.db, req, body);
    if (!only.ok) throw only.error;
    return runIdempotent(ctx, req, reply, async (tx) => {
      const result = await storeRow(ctx, tx, req, only);
      if ('failedForBalance' in result) {
        // Recorded as failed under its clientRef, with its only event; the answer is still the refusal.
        return { status: 400, body: renderError(refusal('INSUFFICIENT_BALANCE'), req).body };
      }
      return { status: 201, body: payoutData(result.created) };
    });
  }

  const checked: Checked[] = [];
  for (const body of bodies) checked.push(await checkRow(ctx, ctx.db, req, body));
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
