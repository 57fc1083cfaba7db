import { createHash } from 'node:crypto';

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

interface Lane<I, R> {
  queue: Waiting<I, R>[];
  busy: boolean;
}

export interface LaneBatcherOptions<I> {
  lanes: number;
  /** The most weight one batch takes (an item weighs 1 unless `weightOf` says otherwise). */
  batchWeightMax: number;
  /** The most items waiting in all lanes together; past it `submit` refuses with `onFull()`. */
  queueMax: number;
  weightOf?: (item: I) => number;
  /** The error a refused submit rejects with (for example a 503 with Retry-After). */
  onFull: () => Error;
}

/**
 * Group commit. Items queue while their lane's batch is in flight; the next batch takes all that
 * waited (up to `batchWeightMax`) and `run` handles them together, in one transaction. Under no
 * load a batch is one item and nothing waits; under load batches grow and share one commit. An
 * item always goes to the lane of its key, so two lanes never touch the same rows. Grouping is all
 * this does: a batch that throws is run again one item at a time, so one item's failure reaches
 * only its own caller.
 */
export class LaneBatcher<I, R> {
  private readonly lanes: Lane<I, R>[];
  private waiting = 0;

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly keyOf: (item: I) => string,
    private readonly options: LaneBatcherOptions<I>,
  ) {
    this.lanes = Array.from({ length: options.lanes }, () => ({ queue: [], busy: false }));
  }

  /** Items waiting for a batch, in all lanes. */
  get queued(): number {
    return this.waiting;
  }

  submit(item: I): Promise<R> {
    if (this.waiting >= this.options.queueMax) return Promise.reject(this.options.onFull());
    const index = createHash('sha1').update(this.keyOf(item)).digest().readUInt32BE(0) % this.lanes.length;
    const lane = this.lanes[index] as Lane<I, R>;
    this.waiting++;
    return new Promise<R>((resolve, reject) => {
      lane.queue.push({ item, resolve, reject });
      if (!lane.busy) void this.drain(lane);
    });
  }

  private take(lane: Lane<I, R>): Waiting<I, R>[] {
    const weightOf = this.options.weightOf ?? (() => 1);
    let weight = 0;
    let n = 0;
    while (n < lane.queue.length) {
      weight += weightOf((lane.queue[n] as Waiting<I, R>).item);
      if (n > 0 && weight > this.options.batchWeightMax) break;
      n++;
    }
    this.waiting -= n;
    return lane.queue.splice(0, n);
  }

  private async drain(lane: Lane<I, R>): Promise<void> {
    lane.busy = true;
    try {
      while (lane.queue.length > 0) {
        const batch = this.take(lane);
        try {
          const results = await this.run(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results[i] as R));
        } catch (error) {
          if (batch.length === 1) (batch[0] as Waiting<I, R>).reject(error);
          else await this.oneByOne(batch);
        }
      }
    } finally {
      lane.busy = false;
    }
  }

  private async oneByOne(batch: Waiting<I, R>[]): Promise<void> {
    for (const w of batch) {
      try {
        const [result] = await this.run([w.item]);
        w.resolve(result as R);
      } catch (error) {
        w.reject(error);
      }
    }
  }
}
