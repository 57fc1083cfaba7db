import { createHash } from 'node:crypto';
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

interface Waiting {
  request: HoldRequest<unknown>;
  resolve: (result: HoldResult<unknown>) => void;
}

export interface HoldBatcherOptions {
  /** Independent batch streams; an account always uses the same lane, so lanes never contend for a row. */
  lanes?: number;
  batchMax?: number;
}

/**
 * Group commit for holds. Every payout of a workspace debits the same balance row; taking that
 * row lock once per request serialises them behind each commit's fsync. Instead, requests queue
 * while their lane's batch is in flight, and the next batch takes them all in one transaction:
 * lock the rows once (in id order), accept in arrival order each hold its balance still covers,
 * write every transfer, update each row once, commit once. Under no load a batch is one request
 * and nothing waits; under load batches grow and the per-commit cost is shared.
 */
export class HoldBatcher {
  private readonly lanes: { queue: Waiting[]; busy: boolean }[];
  private readonly batchMax: number;

  constructor(
    private readonly db: Db,
    options: HoldBatcherOptions = {},
  ) {
    this.lanes = Array.from({ length: options.lanes ?? 4 }, () => ({ queue: [], busy: false }));
    this.batchMax = options.batchMax ?? 500;
  }

  submit<T>(request: HoldRequest<T>): Promise<HoldResult<T>> {
    assert(request.amountMinor > 0n, 'a hold amount is > 0');
    const lane = this.lanes[createHash('sha1').update(request.accountId).digest().readUInt32BE(0) % this.lanes.length];
    assert(lane, 'a lane exists');
    return new Promise((resolve) => {
      lane.queue.push({ request, resolve } as Waiting);
      if (!lane.busy) void this.drain(lane);
    });
  }

  private async drain(lane: { queue: Waiting[]; busy: boolean }): Promise<void> {
    lane.busy = true;
    try {
      while (lane.queue.length > 0) await this.runBatch(lane.queue.splice(0, this.batchMax));
    } finally {
      lane.busy = false;
    }
  }

  private async runBatch(batch: Waiting[]): Promise<void> {
    let results: HoldResult<unknown>[];
    try {
      results = await this.db.tx((tx) => this.apply(tx, batch));
    } catch (error) {
      results = batch.map(() => ({ ok: false as const, error }));
    }
    batch.forEach((w, i) => w.resolve(results[i] as HoldResult<unknown>));
  }

  private async apply(tx: Tx, batch: Waiting[]): Promise<HoldResult<unknown>[]> {
    const keyOf = (accountId: string, currency: string) => `${accountId}:${currency}`;
    const keys = new Map(batch.map(({ request: r }) => [keyOf(r.accountId, r.currency), { accountId: r.accountId, currency: r.currency }]));
    const locked = await repo.lockCustomersAvailable(tx, [...keys.values()]);
    const accounts = new Map(locked.map((a) => [keyOf(a.account_id, a.currency), { id: a.id, available: BigInt(a.available), held: 0n }]));
    const out: HoldResult<unknown>[] = [];
    const transfers: Parameters<typeof repo.insertTransfers>[1] = [];
    for (const { request } of batch) {
      const account = accounts.get(keyOf(request.accountId, request.currency));
      if (!account || request.amountMinor > account.available) {
        out.push({ ok: false, error: insufficientBalance() });
        continue;
      }
      const transferId = newId();
      let value: unknown;
      if (request.then) {
        const then = request.then;
        try {
          value = await tx.savepoint((sp) => then(sp, transferId));
        } catch (error) {
          out.push({ ok: false, error });
          continue;
        }
      }
      account.available -= request.amountMinor;
      account.held += request.amountMinor;
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
    if (transfers.length > 0) {
      const totals = [...accounts.values()].filter((a) => a.held > 0n).map((a) => ({ id: a.id, amountMinor: a.held.toString() }));
      await repo.addPendingDebits(tx, totals);
      await repo.insertTransfers(tx, transfers);
    }
    return out;
  }
}
