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

/**
 * Group commit. Items queue while their lane's batch is in flight; the next batch takes all that
 * waited (up to `batchMax`) and `run` handles them together, in one transaction. Under no load a
 * batch is one item and nothing waits; under load batches grow and share one commit. An item
 * always goes to the lane of its key, so two lanes never touch the same rows.
 */
export class LaneBatcher<I, R> {
  private readonly lanes: Lane<I, R>[];

  constructor(
    private readonly run: (items: I[]) => Promise<R[]>,
    private readonly keyOf: (item: I) => string,
    private readonly options: { lanes: number; batchMax: number },
  ) {
    this.lanes = Array.from({ length: options.lanes }, () => ({ queue: [], busy: false }));
  }

  submit(item: I): Promise<R> {
    const index = createHash('sha1').update(this.keyOf(item)).digest().readUInt32BE(0) % this.lanes.length;
    const lane = this.lanes[index] as Lane<I, R>;
    return new Promise<R>((resolve, reject) => {
      lane.queue.push({ item, resolve, reject });
      if (!lane.busy) void this.drain(lane);
    });
  }

  private async drain(lane: Lane<I, R>): Promise<void> {
    lane.busy = true;
    try {
      while (lane.queue.length > 0) {
        const batch = lane.queue.splice(0, this.options.batchMax);
        try {
          const results = await this.run(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results[i] as R));
        } catch (error) {
          for (const w of batch) w.reject(error);
        }
      }
    } finally {
      lane.busy = false;
    }
  }
}
