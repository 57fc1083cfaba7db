import type { AppContext } from '../../context.js';
import type { Tx } from '../../db/db.js';
import type { AppError } from '../../http/errors.js';
import { claimKeys, keyProcessing, keyReused, storeAnswers, type KeyedRequest, type StoredAnswer } from '../../http/idempotency.js';
import { newId } from '../../lib/ids.js';
import { LaneBatcher } from '../../lib/lane-batcher.js';
import { findBeneficiaries, type BeneficiaryScope, type BeneficiaryView } from '../corridors/index.js';
import type { Checked } from './payouts.submit.js';
import { enqueueMany } from '../../jobs/queue.js';
import { payoutProviderFor } from '../../providers/index.js';
import { recordEvent } from '../events/events.service.js';
import { ledger } from '../ledger/ledger.service.js';
import { duplicateClientRef, insufficientBalanceError, type PreparedPayout } from './payouts.create.js';
import { PAYOUT_STEP_JOB, payoutEventData } from './payouts.lifecycle.js';
import { payoutData } from './payouts.read.js';
import * as repo from './payouts.repository.js';

/**
 * A payout waiting for its batch: its saved beneficiary (read with the others of the batch), the
 * checks that need it, and how to render its answer for its own request.
 */
export interface BatchedPayout {
  beneficiary: BeneficiaryScope & { id: string };
  prepare: (found: BeneficiaryView | undefined) => Checked;
  idempotency: KeyedRequest | undefined;
  renderCreated: (body: unknown) => StoredAnswer;
  renderError: (error: AppError) => StoredAnswer;
}

export interface BatchedAnswer {
  answer: StoredAnswer;
  replayed: boolean;
}

/** An answer decided about the key itself (in flight, replayed, reused), which is never stored over the original. */
interface Decided extends BatchedAnswer {
  aboutKey: boolean;
}

/**
 * Payout creation with group commit: the single-payout requests that need nothing beyond a hold
 * (a saved beneficiary, no quote, no daily limit) are checked and written in batches, one
 * transaction per batch and lane (lanes by workspace). Per batch, one statement each: take the
 * Idempotency-Keys, read the beneficiaries (then run the checks that need them), find duplicate clientRefs, lock and hold the balances, insert the payouts, their step jobs and
 * the stored answers. Each request gets exactly the answer it would get alone.
 */
export class PayoutBatcher {
  private readonly batcher: LaneBatcher<BatchedPayout, BatchedAnswer>;

  constructor(private readonly ctx: AppContext) {
    this.batcher = new LaneBatcher((items) => ctx.db.tx((tx) => this.run(tx, items)), (item) => item.beneficiary.workspaceId, {
      lanes: 4,
      batchMax: 200,
    });
  }

  submit(item: BatchedPayout): Promise<BatchedAnswer> {
    return this.batcher.submit(item);
  }

  private async run(tx: Tx, items: BatchedPayout[]): Promise<BatchedAnswer[]> {
    const answers: (Decided | undefined)[] = items.map(() => undefined);

    // 1. Idempotency-Keys: in flight elsewhere (or twice in this batch), replayed, reused, or new.
    const keyed = items.flatMap((item, i) => (item.idempotency ? [{ i, request: item.idempotency }] : []));
    const claims = await claimKeys(this.ctx, tx, keyed.map((k) => k.request));
    const seenKeys = new Set<string>();
    keyed.forEach(({ i, request }, n) => {
      const item = items[i] as BatchedPayout;
      const claim = claims[n];
      const id = `${request.workspaceId}:${request.key}`;
      if (claim === 'processing' || seenKeys.has(id)) answers[i] = { answer: item.renderError(keyProcessing()), replayed: false, aboutKey: true };
      else if (claim !== 'new' && claim !== undefined) {
        answers[i] =
          claim.fingerprint === request.fingerprint
            ? { answer: { status: claim.status_code, contentType: claim.content_type, text: claim.response_body }, replayed: true, aboutKey: true }
            : { answer: item.renderError(keyReused()), replayed: false, aboutKey: true };
      }
      seenKeys.add(id);
    });

    // 2. The saved beneficiaries, all in one statement, and the checks that need them.
    const unanswered = items.flatMap((item, i) => (answers[i] ? [] : [i]));
    const found = await findBeneficiaries(tx, unanswered.map((i) => (items[i] as BatchedPayout).beneficiary));
    const prepared = new Map<number, PreparedPayout>();
    unanswered.forEach((i, n) => {
      const item = items[i] as BatchedPayout;
      const checked = item.prepare(found[n]);
      if (checked.ok) prepared.set(i, checked.prepared);
      else answers[i] = { answer: item.renderError(checked.error), replayed: false, aboutKey: false };
    });
    const p = (i: number) => prepared.get(i) as PreparedPayout;

    // 3. Duplicate clientRefs: stored already, or earlier in this batch.
    const live = [...prepared.keys()];
    await repo.lockClientRefs(tx, live.map(p));
    const existing = await repo.existingClientRefs(tx, live.map(p));
    const fresh: number[] = [];
    for (const i of live) {
      const ref = `${p(i).workspaceId}:${p(i).clientRef}`;
      if (existing.has(ref)) answers[i] = { answer: (items[i] as BatchedPayout).renderError(duplicateClientRef()), replayed: false, aboutKey: false };
      else fresh.push(i);
      existing.add(ref);
    }

    // 4. Holds, all balances of the batch locked once.
    const ids = fresh.map(() => newId());
    const holds = await ledger.holdBatch(
      tx,
      fresh.map((i, n) => {
        const payout = p(i);
        return {
          accountId: payout.accountId,
          currency: payout.currency,
          legs: [
            { amountMinor: payout.amountMinor, credit: { system: 'provider_clearing' as const, code: payout.route } },
            ...(payout.feeMinor > 0n ? [{ amountMinor: payout.feeMinor, credit: { system: 'fee_revenue' as const }, description: 'Payout fee' }] : []),
          ],
          reference: { type: 'payout', id: ids[n] },
        };
      }),
    );

    // 5. The payouts: queued with their holds, or failed for balance (fiat) or refused (crypto).
    const provider = payoutProviderFor(this.ctx.config);
    const rows: repo.NewPayout[] = [];
    fresh.forEach((i, n) => {
      const item = items[i] as BatchedPayout;
      const payout = p(i);
      const hold = holds[n];
      const base = { ...payout, id: ids[n] as string, provider: provider.name, fundingCurrency: payout.currency, fundingMinor: payout.amountMinor };
      if (hold?.ok) rows.push({ ...base, status: 'queued', holdTransferId: hold.transferIds[0] ?? null, feeTransferId: hold.transferIds[1] ?? null, failureReason: null });
      else if (payout.crypto) answers[i] = { answer: item.renderError(insufficientBalanceError()), replayed: false, aboutKey: false };
      else rows.push({ ...base, status: 'failed', holdTransferId: null, feeTransferId: null, failureReason: 'insufficient_balance' });
    });
    const stored = new Map((await repo.insertPayouts(tx, rows)).map((r) => [r.id, r]));
    const firstStepAt = new Date(Date.now() + provider.firstStepMs());
    await enqueueMany(
      tx,
      rows.filter((r) => r.status === 'queued').map((r) => ({ kind: PAYOUT_STEP_JOB, payload: { payoutId: r.id }, runAt: firstStepAt, maxAttempts: 20 })),
    );
    for (const [n, i] of fresh.entries()) {
      const item = items[i] as BatchedPayout;
      const row = stored.get(ids[n] as string);
      if (!row) continue;
      if (row.status === 'failed') {
        await recordEvent(tx, { workspaceId: row.workspace_id, accountId: row.account_id === row.workspace_id ? undefined : row.account_id, type: 'payout.failed', data: payoutEventData(row) });
        answers[i] = { answer: item.renderError(insufficientBalanceError()), replayed: false, aboutKey: false };
      } else {
        answers[i] = { answer: item.renderCreated(payoutData(row)), replayed: false, aboutKey: false };
      }
    }

    // 6. The answers of keyed requests, stored with the effects they describe.
    await storeAnswers(
      this.ctx,
      tx,
      keyed.flatMap(({ i, request }) => {
        const a = answers[i];
        return a && !a.aboutKey ? [{ request, answer: a.answer }] : [];
      }),
    );
    return answers.map((a) => ({ answer: (a as Decided).answer, replayed: (a as Decided).replayed }));
  }
}
