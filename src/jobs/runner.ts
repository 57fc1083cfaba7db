import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.js';
import { claimJobs, completeJob, enqueue, failJob, rescheduleJob, type Job } from './queue.js';

/** A job handler returns nothing when done, or a Date to run again then (not an attempt). */
export type JobHandler = (ctx: AppContext, job: Job) => Promise<void | Date>;

export interface Recurring {
  kind: string;
  everyMs: number;
}

/**
 * Polls the job table and runs due jobs with bounded concurrency. Any number of runners may share
 * one database. `stop()` stops claiming and waits for the jobs in hand.
 */
export class JobRunner {
  readonly workerId = `w_${randomBytes(6).toString('hex')}`;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private recurringTimers: NodeJS.Timeout[] = [];
  private inFlight = new Set<Promise<void>>();
  private log: FastifyBaseLogger;

  constructor(
    private readonly ctx: AppContext,
    private readonly handlers: ReadonlyMap<string, JobHandler>,
    private readonly recurring: readonly Recurring[] = [],
  ) {
    this.log = ctx.log.child({ worker: this.workerId });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const r of this.recurring) {
      const schedule = () => {
        enqueue(this.ctx.db, { kind: r.kind, uniqueKey: `recurring:${r.kind}`, maxAttempts: 3 }).catch((err: unknown) =>
          this.log.warn({ err }, 'could not schedule recurring job'),
        );
      };
      schedule();
      this.recurringTimers.push(setInterval(schedule, r.everyMs).unref());
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  /** Claims and runs one batch; polls again at once when the batch was full. */
  async tick(): Promise<number> {
    const limits = this.ctx.config.limits;
    let claimed = 0;
    try {
      const free = limits.jobBatchMax - this.inFlight.size;
      if (free > 0) {
        const jobs = await claimJobs(this.ctx.db, this.workerId, free, limits.jobLeaseMs, [...this.handlers.keys()]);
        claimed = jobs.length;
        for (const job of jobs) {
          const p = this.run(job).finally(() => this.inFlight.delete(p));
          this.inFlight.add(p);
        }
      }
    } catch (err) {
      this.log.error({ err }, 'job claim failed');
    }
    this.schedule(claimed >= limits.jobBatchMax ? 0 : limits.jobPollMs);
    return claimed;
  }

  private async run(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const again = await handler(this.ctx, job);
      if (again instanceof Date) await rescheduleJob(this.ctx.db, job.id, again);
      else await completeJob(this.ctx.db, job.id);
    } catch (err) {
      const delayMs = Math.min(1000 * 2 ** (job.attempts - 1), 5 * 60_000);
      this.log.warn({ err, jobId: job.id, kind: job.kind, attempt: job.attempts }, 'job failed');
      await failJob(this.ctx.db, job, err instanceof Error ? err.message : String(err), delayMs).catch((e: unknown) =>
        this.log.error({ err: e, jobId: job.id }, 'could not record job failure'),
      );
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    for (const t of this.recurringTimers) clearInterval(t);
    this.recurringTimers = [];
    await Promise.allSettled([...this.inFlight]);
  }
}
