import type { Db, Tx } from '../../db/db.js';
import { assert } from '../../lib/assert.js';
import { newId } from '../../lib/ids.js';
import * as repo from './ledger.repository.js';
import { insufficientBalance, systemAccountId, type SystemKind } from './ledger.service.js';

export interface HoldRequest<T> {
  /** The customer account (master or sub) whose balance is debited. */
  accountId: string;
  currency: string;
  amountMinor: bigint;
  credit: { system: SystemKind; code?: string };
  reference: { type: string; id?: string | undefined };
  /** Writes that must commit with the hold (the object it funds, its job, its event). */
  then?: (tx: Tx, transferId: string) => Promise<T>;
}

export type HoldResult<T> = { ok: true; transferId: string; value: T | undefined } | { ok: false; error: unknown };

interface Waiting<T> {
  request: HoldRequest<T>;
  resolve: (result: HoldResult<T>) => void;
}

/**
 * Group commit for holds on one balance. Every payout of a workspace debits the same row; taking
 * that row lock once per request serialises them behind each commit's fsync. Instead, requests for
 * one account queue while a batch is in flight, and the next batch takes them all in one
 * transaction: lock the row once, accept in arrival order each hold the available balance still
 * covers, write every transfer, update the row once, commit once. Under no load a batch is one
 * request and nothing waits; under load the batch grows and the lock is held once per batch.
 */
export class HoldBatcher {
  private readonly queues = new Map<string, Waiting<unknown>[]>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly batchMax = 500,
  ) {}

  submit<T>(request: HoldRequest<T>): Promise<HoldResult<T>> {
    assert(request.amountMinor > 0n, 'a hold amount is > 0');
    const key = `${request.accountId}:${request.currency}`;
    return new Promise((resolve) => {
      let queue = this.queues.get(key);
      if (!queue) this.queues.set(key, (queue = []));
      queue.push({ request, resolve } as Waiting<unknown>);
      if (!this.busy.has(key)) void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    this.busy.add(key);
    try {
      for (;;) {
        const queue = this.queues.get(key);
        if (!queue || queue.length === 0) {
          this.queues.delete(key);
          return;
        }
        const batch = queue.splice(0, this.batchMax);
        await this.runBatch(batch);
      }
    } finally {
      this.busy.delete(key);
    }
  }

  private async runBatch(batch: Waiting<unknown>[]): Promise<void> {
    const first = batch[0]?.request;
    assert(first, 'a batch is not empty');
    let results: HoldResult<unknown>[];
    try {
      results = await this.db.tx(async (tx) => {
        const out: HoldResult<unknown>[] = [];
        const account = await repo.lockCustomerAvailable(tx, first.accountId, first.currency);
        let available = account ? BigInt(account.available) : 0n;
        const transfers: Parameters<typeof repo.insertTransfers>[1] = [];
        let total = 0n;
        for (const { request } of batch) {
          if (!account || request.amountMinor > available) {
            out.push({ ok: false, error: insufficientBalance() });
            continue;
          }
          const transferId = newId();
          let value: unknown;
          if (request.then) {
            try {
              const then = request.then;
              value = await tx.savepoint((sp) => then(sp, transferId));
            } catch (error) {
              out.push({ ok: false, error });
              continue;
            }
          }
          available -= request.amountMinor;
          total += request.amountMinor;
          transfers.push({
            id: transferId,
            currency: request.currency,
            debitId: account.id,
            creditId: systemAccountId(request.credit.system, request.credit.code ?? '', request.currency),
            amountMinor: request.amountMinor.toString(),
            status: 'pending',
            referenceType: request.reference.type,
            referenceId: request.reference.id ?? null,
            description: null,
          });
          out.push({ ok: true, transferId, value });
        }
        if (account && transfers.length > 0) {
          await repo.addPendingDebit(tx, account.id, total.toString());
          await repo.insertTransfers(tx, transfers);
        }
        return out;
      });
    } catch (error) {
      results = batch.map(() => ({ ok: false as const, error }));
    }
    batch.forEach((w, i) => w.resolve(results[i] as HoldResult<unknown>));
  }
}
