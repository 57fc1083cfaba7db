import type { Db } from '../../platform/db/db.js';
import { LaneBatcher } from '../../platform/lib/lane-batcher.js';
import { insufficientBalance, ledger, type BatchHold } from './ledger.service.js';

export type HoldResult = { ok: true; transferId: string } | { ok: false; error: unknown };

/**
 * Holds with group commit, each in a transaction of its own batch: every payout of a workspace
 * debits the same balance row, and locking it once per request would serialise them behind each
 * commit's fsync. Requests for accounts of one lane that arrive while its batch is in flight go
 * together in the next one (see LaneBatcher and ledger.holdBatch).
 */
export class HoldBatcher {
  private readonly batcher: LaneBatcher<BatchHold, HoldResult>;

  constructor(db: Db, options: { lanes?: number; batchMax?: number; queueMax?: number } = {}) {
    this.batcher = new LaneBatcher<BatchHold, HoldResult>(
      (holds) =>
        db.tx(async (tx) =>
          (await ledger.holdBatch(tx, holds)).map((r) => (r.ok ? { ok: true as const, transferId: r.transferIds[0] as string } : { ok: false as const, error: insufficientBalance() })),
        ),
      (hold) => hold.accountId,
      {
        lanes: options.lanes ?? 4,
        batchWeightMax: options.batchMax ?? 500,
        queueMax: options.queueMax ?? 100_000,
        onFull: () => new Error('hold queue is full'),
      },
    );
  }

  submit(hold: BatchHold): Promise<HoldResult> {
    return this.batcher.submit(hold);
  }
}
