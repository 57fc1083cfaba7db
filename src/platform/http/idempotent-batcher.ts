import type { AppContext } from '../context.js';
import type { Tx } from '../db/db.js';
import { LaneBatcher } from '../lib/lane-batcher.js';
import { answerGroup, type GroupAnswer, type GroupEntry } from './idempotency.js';

export interface IdempotentBatcherOptions<I> {
  lanes: number;
  /** The most weight one group takes (see LaneBatcher). */
  batchWeightMax: number;
  /** The most requests waiting in all lanes together; past it `submit` refuses with `onFull()`. */
  queueMax: number;
  /** The lane of a request: requests of one lane never run in two groups at once. */
  laneOf: (item: I) => string;
  weightOf: (item: I) => number;
  onFull: () => Error;
}

/**
 * Group commit of keyed requests: requests that arrive together are grouped (LaneBatcher) and each
 * group is one transaction in which answerGroup claims the Idempotency-Keys, `run` does the work of
 * the requests not answered already, and their answers are rendered and stored with the effects.
 */
export class IdempotentBatcher<I, R> {
  private readonly batcher: LaneBatcher<GroupEntry<I, R>, GroupAnswer>;

  constructor(ctx: AppContext, run: (tx: Tx, items: I[]) => Promise<R[]>, options: IdempotentBatcherOptions<I>) {
    this.batcher = new LaneBatcher((entries) => ctx.db.tx((tx) => answerGroup(ctx, tx, entries, run)), (e) => options.laneOf(e.item), {
      lanes: options.lanes,
      batchWeightMax: options.batchWeightMax,
      queueMax: options.queueMax,
      weightOf: (e) => options.weightOf(e.item),
      onFull: options.onFull,
    });
  }

  /** The answer to one request, once its group has committed. */
  submit(entry: GroupEntry<I, R>): Promise<GroupAnswer> {
    return this.batcher.submit(entry);
  }
}
