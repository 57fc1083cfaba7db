import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/platform/db/db.js';
import { claimJobs, completeJob, completeJobs, enqueue, failJob, rescheduleJob, takeJobs, type Job } from '../../src/platform/jobs/queue.js';
import { JobRunner, type AnyJobHandler, type JobBatchHandler, type JobHandler, type JobTxHandler } from '../../src/platform/jobs/runner.js';
import { createTestApp, onPostgres, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { JOB_POLL_MS: '20', JOB_LEASE_MS: '60000' } });
});
afterAll(async () => t.close());

/** A job kind no other test claims, so tests sharing the database stay apart. */
const kind = () => `test.${randomBytes(4).toString('hex')}`;

interface JobRow {
  id: string;
  status: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  run_at: Date;
  locked_by: string | null;
  locked_until: Date | null;
}

const jobsOf = (k: string) =>
  t.ctx.db.query<JobRow>(
    `SELECT id::text AS id, status, attempts, max_attempts, last_error, run_at, locked_by, locked_until FROM jobs WHERE kind = $1 ORDER BY id`,
    [k],
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(20);
  }
}

describe('enqueue', () => {
  it('a job enqueued inside a rolled-back transaction does not exist', async () => {
    const k = kind();
    await expect(
      t.ctx.db.tx(async (tx) => {
        await enqueue(tx, { kind: k, payload: { n: 1 } });
        throw new Error('the change that needed the job failed');
      }),
    ).rejects.toThrow();
    expect(await jobsOf(k)).toHaveLength(0);
  });

  it('a job enqueued inside a committed transaction exists, queued, with its payload and default attempts', async () => {
    const k = kind();
    await t.ctx.db.tx((tx) => enqueue(tx, { kind: k, payload: { n: 2 } }));
    const rows = await jobsOf(k);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'queued', attempts: 0, max_attempts: 10 });
    const [job] = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
    expect(job?.payload).toEqual({ n: 2 });
  });

  it('a unique key keeps one queued or running job; another may be enqueued once it failed', async () => {
    const k = kind();
    const uniqueKey = `unique:${k}`;
    await enqueue(t.ctx.db, { kind: k, uniqueKey, payload: { n: 1 }, maxAttempts: 1 });
    await enqueue(t.ctx.db, { kind: k, uniqueKey, payload: { n: 2 } });
    expect(await jobsOf(k)).toHaveLength(1);

    const [job] = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
    expect(job?.payload).toEqual({ n: 1 });
    await enqueue(t.ctx.db, { kind: k, uniqueKey, payload: { n: 3 } }); // still running: deduped
    expect(await jobsOf(k)).toHaveLength(1);

    await failJob(t.ctx.db, job!, 'boom', 0); // its only attempt: failed
    await enqueue(t.ctx.db, { kind: k, uniqueKey, payload: { n: 4 } });
    const rows = await jobsOf(k);
    expect(rows.map((r) => r.status)).toEqual(['failed', 'queued']);
  });

  it('jobs without a unique key are never deduplicated', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k });
    await enqueue(t.ctx.db, { kind: k });
    expect(await jobsOf(k)).toHaveLength(2);
  });
});

describe('claimJobs', () => {
  it('claims due jobs, marking them running and leased to the worker with one attempt counted', async () => {
    const k = kind();
    for (let i = 0; i < 3; i++) await enqueue(t.ctx.db, { kind: k, payload: { i } });
    const claimed = await claimJobs(t.ctx.db, 'worker-1', 2, 60_000, [k]);
    expect(claimed).toHaveLength(2); // bounded by the batch size
    for (const job of claimed) expect(job).toMatchObject({ kind: k, attempts: 1, max_attempts: 10 });
    const rows = await jobsOf(k);
    const running = rows.filter((r) => r.status === 'running');
    expect(running).toHaveLength(2);
    for (const r of running) {
      expect(r.locked_by).toBe('worker-1');
      expect(r.locked_until!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    }
    // The running ones are not claimed again while their lease holds; the third is.
    const next = await claimJobs(t.ctx.db, 'worker-2', 10, 60_000, [k]);
    expect(next).toHaveLength(1);
    expect(claimed.map((j) => j.id)).not.toContain(next[0]!.id);
    expect(await claimJobs(t.ctx.db, 'worker-3', 10, 60_000, [k])).toHaveLength(0);
  });

  it('claims only the kinds asked for', async () => {
    const a = kind();
    const b = kind();
    await enqueue(t.ctx.db, { kind: a });
    await enqueue(t.ctx.db, { kind: b });
    const claimed = await claimJobs(t.ctx.db, 'w', 10, 60_000, [a]);
    expect(claimed.map((j) => j.kind)).toEqual([a]);
  });

  it('does not claim a job whose run_at is in the future', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k, runAt: new Date(Date.now() + 3600_000) });
    expect(await claimJobs(t.ctx.db, 'w', 10, 60_000, [k])).toHaveLength(0);
    await enqueue(t.ctx.db, { kind: k, runAt: new Date(Date.now() - 1000) });
    const claimed = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
    expect(claimed).toHaveLength(1);
    expect((await jobsOf(k)).filter((r) => r.status === 'queued')).toHaveLength(1);
  });

  it('claims again a running job whose lease expired (its worker died), counting another attempt', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k });
    const [first] = await claimJobs(t.ctx.db, 'dead-worker', 10, 1, [k]);
    expect(first?.attempts).toBe(1);
    await sleep(50);
    const [again] = await claimJobs(t.ctx.db, 'live-worker', 10, 60_000, [k]);
    expect(again?.id).toBe(first!.id);
    expect(again?.attempts).toBe(2);
    expect((await jobsOf(k))[0]).toMatchObject({ status: 'running', locked_by: 'live-worker' });
  });

  it('completeJob deletes the job', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k });
    const [job] = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
    await completeJob(t.ctx.db, job!.id);
    expect(await jobsOf(k)).toHaveLength(0);
  });
});

describe('failJob and rescheduleJob', () => {
  it('reschedules a failed attempt with its error, then marks the job failed once max_attempts are spent', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k, maxAttempts: 3 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [job] = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
      expect(job?.attempts).toBe(attempt);
      await failJob(t.ctx.db, job!, `boom ${attempt}`, 0);
      const [row] = await jobsOf(k);
      expect(row).toMatchObject({ attempts: attempt, last_error: `boom ${attempt}`, locked_by: null, locked_until: null });
      expect(row?.status).toBe(attempt < 3 ? 'queued' : 'failed');
    }
    // Bounded: a failed job is never claimed again.
    expect(await claimJobs(t.ctx.db, 'w', 10, 60_000, [k])).toHaveLength(0);
  });

  it('a retry waits for its delay', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k });
    const [job] = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
    await failJob(t.ctx.db, job!, 'later', 60_000);
    const [row] = await jobsOf(k);
    expect(row?.status).toBe('queued');
    expect(row!.run_at.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(await claimJobs(t.ctx.db, 'w', 10, 60_000, [k])).toHaveLength(0);
  });

  it('keeps long error messages bounded', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k });
    const [job] = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
    await failJob(t.ctx.db, job!, 'x'.repeat(100_000), 0);
    expect((await jobsOf(k))[0]!.last_error!.length).toBeLessThanOrEqual(2000);
  });

  it('rescheduleJob puts a job back for later without counting the attempt', async () => {
    const k = kind();
    await enqueue(t.ctx.db, { kind: k });
    const [job] = await claimJobs(t.ctx.db, 'w', 10, 60_000, [k]);
    const later = new Date(Date.now() + 3600_000);
    await rescheduleJob(t.ctx.db, job!.id, later);
    const [row] = await jobsOf(k);
    expect(row).toMatchObject({ status: 'queued', attempts: 0, locked_by: null });
    expect(row!.run_at.getTime()).toBe(later.getTime());
  });
});

describe.runIf(onPostgres)('concurrent claimers on PostgreSQL', () => {
  let second: Db;
  beforeAll(async () => {
    second = await connect({ databaseUrl: t.config.databaseUrl, dataDir: 'memory://', poolMax: 8 });
  });
  afterAll(async () => second.close());

  it('two pools claiming in parallel never get the same job, and together get every job', async () => {
    const k = kind();
    const total = 200;
    await t.ctx.db.tx(async (tx) => {
      for (let i = 0; i < total; i++) await enqueue(tx, { kind: k, payload: { i } });
    });
    const drain = async (db: Db, worker: string): Promise<string[]> => {
      const got: string[] = [];
      for (let round = 0; round < total; round++) {
        const jobs = await claimJobs(db, worker, 7, 60_000, [k]);
        if (jobs.length === 0) break;
        got.push(...jobs.map((j) => j.id));
      }
      return got;
    };
    const results = await Promise.all([
      ...[0, 1, 2, 3].map((i) => drain(t.ctx.db, `a${i}`)),
      ...[0, 1, 2, 3].map((i) => drain(second, `b${i}`)),
    ]);
    const all = results.flat();
    expect(new Set(all).size).toBe(all.length); // disjoint
    expect(all).toHaveLength(total); // complete
    expect(results.slice(0, 4).flat().length).toBeGreaterThan(0);
    expect(results.slice(4).flat().length).toBeGreaterThan(0);
    const rows = await jobsOf(k);
    expect(rows.every((r) => r.status === 'running' && r.attempts === 1)).toBe(true);
  });
});

describe('JobRunner', () => {
  const runners: JobRunner[] = [];
  afterAll(async () => {
    await Promise.all(runners.map((r) => r.stop()));
  });
  const runner = (handlers: Map<string, AnyJobHandler>) => {
    const r = new JobRunner(t.ctx, handlers);
    runners.push(r);
    return r;
  };

  it('runs a due job with its handler and deletes it', async () => {
    const k = kind();
    const seen: Job[] = [];
    const r = runner(new Map([[k, async (_ctx, job) => void seen.push(job)]]));
    await enqueue(t.ctx.db, { kind: k, payload: { hello: 'world' } });
    r.start();
    await waitFor(async () => seen.length === 1 && (await jobsOf(k)).length === 0);
    expect(seen[0]).toMatchObject({ kind: k, payload: { hello: 'world' }, attempts: 1 });
    await r.stop();
  });

  it('picks up jobs enqueued after it started', async () => {
    const k = kind();
    let runs = 0;
    const r = runner(new Map([[k, async () => void runs++]]));
    r.start();
    await sleep(60);
    await enqueue(t.ctx.db, { kind: k });
    await enqueue(t.ctx.db, { kind: k });
    await waitFor(async () => runs === 2 && (await jobsOf(k)).length === 0);
    await r.stop();
  });

  it('retries a throwing handler and deletes the job once it succeeds', async () => {
    const k = kind();
    let calls = 0;
    const r = runner(
      new Map([
        [
          k,
          async () => {
            calls++;
            if (calls === 1) throw new Error('provider unavailable');
          },
        ],
      ]),
    );
    await enqueue(t.ctx.db, { kind: k });
    r.start();
    await waitFor(async () => (await jobsOf(k))[0]?.last_error === 'provider unavailable');
    const [afterFailure] = await jobsOf(k);
    expect(afterFailure).toMatchObject({ status: 'queued', attempts: 1 });
    await waitFor(async () => calls === 2 && (await jobsOf(k)).length === 0, 15_000); // backoff of the first retry: 1 s
    await r.stop();
  });

  it('marks a job failed once its handler has thrown max_attempts times', async () => {
    const k = kind();
    let calls = 0;
    const r = runner(
      new Map([
        [
          k,
          async () => {
            calls++;
            throw new Error('always broken');
          },
        ],
      ]),
    );
    await enqueue(t.ctx.db, { kind: k, maxAttempts: 1 });
    r.start();
    await waitFor(async () => (await jobsOf(k))[0]?.status === 'failed');
    expect((await jobsOf(k))[0]).toMatchObject({ attempts: 1, last_error: 'always broken' });
    await sleep(100);
    expect(calls).toBe(1);
    await r.stop();
  });

  it('a handler returning a Date reschedules the job without spending an attempt', async () => {
    const k = kind();
    const later = new Date(Date.now() + 3600_000);
    let calls = 0;
    const r = runner(new Map([[k, async () => (calls++, later)]]));
    await enqueue(t.ctx.db, { kind: k, maxAttempts: 1 });
    r.start();
    await waitFor(async () => calls === 1 && (await jobsOf(k))[0]?.status === 'queued');
    await r.stop();
    const [row] = await jobsOf(k);
    expect(row).toMatchObject({ status: 'queued', attempts: 0 });
    expect(row!.run_at.getTime()).toBe(later.getTime());
  });

  it('stop() waits for the jobs in flight to finish, then claims nothing more', async () => {
    const k = kind();
    let started = 0;
    let finished = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const r = runner(
      new Map([
        [
          k,
          async () => {
            started++;
            await gate;
            finished++;
          },
        ],
      ]),
    );
    await enqueue(t.ctx.db, { kind: k });
    r.start();
    await waitFor(() => started === 1);
    let stopped = false;
    const stopping = r.stop().then(() => (stopped = true));
    await sleep(150);
    expect(stopped).toBe(false); // still waiting for the handler
    release();
    await stopping;
    expect(finished).toBe(1);
    expect(await jobsOf(k)).toHaveLength(0); // completed before stop() resolved

    await enqueue(t.ctx.db, { kind: k });
    await sleep(150);
    expect(started).toBe(1); // a stopped runner claims nothing
    expect((await jobsOf(k))[0]?.status).toBe('queued');
  });

  it('enqueues its recurring jobs on start, once per unique key', async () => {
    const k = kind();
    let runs = 0;
    const r = new JobRunner(t.ctx, new Map([[k, async () => void runs++]]), [{ kind: k, everyMs: 3600_000 }]);
    runners.push(r);
    r.start();
    await waitFor(async () => runs === 1 && (await jobsOf(k)).length === 0);
    await sleep(100);
    await r.stop();
    expect(runs).toBe(1); // the next one is due in an hour
  });

  it('two runners sharing the database run each job exactly once', async () => {
    const k = kind();
    const counts = new Map<string, number>();
    const handler: JobHandler = async (_ctx, job) => {
      counts.set(job.id, (counts.get(job.id) ?? 0) + 1);
      await sleep(5);
    };
    await t.ctx.db.tx(async (tx) => {
      for (let i = 0; i < 60; i++) await enqueue(tx, { kind: k, payload: { i } });
    });
    const a = runner(new Map([[k, handler]]));
    const b = runner(new Map([[k, handler]]));
    a.start();
    b.start();
    await waitFor(async () => (await jobsOf(k)).length === 0, 20_000);
    await Promise.all([a.stop(), b.stop()]);
    expect(counts.size).toBe(60);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  });

  it('hands the jobs of a batch kind to its handler together and retries only those it reports failed', async () => {
    const k = kind();
    const batches: number[][] = [];
    const handler: JobBatchHandler = {
      batch: async (ctx, jobs) => {
        batches.push(jobs.map((job) => Number(job.payload.i)));
        const bad = jobs.filter((job) => job.payload.i === 2);
        await completeJobs(
          ctx.db,
          jobs.filter((job) => !bad.includes(job)).map((job) => job.id),
        );
        return new Map(bad.map((job) => [job.id, new Error('payout 2 is broken')]));
      },
    };
    await t.ctx.db.tx(async (tx) => {
      for (let i = 0; i < 5; i++) await enqueue(tx, { kind: k, payload: { i } });
    });
    const r = runner(new Map([[k, handler]]));
    r.start();
    await waitFor(async () => (await jobsOf(k)).length === 1 && (await jobsOf(k))[0]?.last_error === 'payout 2 is broken');
    await r.stop();
    expect(batches[0]?.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await jobsOf(k)).toMatchObject([{ status: 'queued', attempts: 1 }]);
  });

  it('runs the jobs of a kind taken in the transaction of their work: they end with its commit, and a failing batch is retried job by job', async () => {
    const k = kind();
    const done = `${k}.done`;
    const batches: number[][] = [];
    const handler: JobTxHandler = {
      inTx: async (_ctx, tx, jobs) => {
        batches.push(jobs.map((job) => Number(job.payload.i)).sort());
        // The work, in the transaction that took the jobs: a row per job.
        for (const job of jobs) await enqueue(tx, { kind: done, payload: { i: job.payload.i }, runAt: new Date(Date.now() + 3600_000) });
        if (jobs.some((job) => job.payload.i === 2)) throw new Error('payout 2 is broken');
      },
    };
    await t.ctx.db.tx(async (tx) => {
      for (let i = 0; i < 5; i++) await enqueue(tx, { kind: k, payload: { i } });
    });
    const r = runner(new Map([[k, handler]]));
    r.start();
    await waitFor(async () => (await jobsOf(k)).length === 1 && (await jobsOf(k))[0]?.last_error === 'payout 2 is broken');
    await r.stop();
    // The whole batch first (rolled back, its work and the jobs' deletion with it), then the bad job alone.
    expect(batches[0]).toEqual([0, 1, 2, 3, 4]);
    expect(batches).toContainEqual([2]);
    // The bad job is back, its attempt counted; the others' work was done once each, and they are gone.
    const [bad] = await jobsOf(k);
    expect(bad).toMatchObject({ status: 'queued', locked_by: null });
    expect(bad?.attempts).toBeGreaterThanOrEqual(1);
    const work = await t.ctx.db.query<{ i: number }>(`SELECT (payload->>'i')::int AS i FROM jobs WHERE kind = $1 ORDER BY 1`, [done]);
    expect(work.map((w) => w.i)).toEqual([0, 1, 3, 4]);
  });

  it('takes about jobHandlerBatchMax items in one transaction, and splits a job of several items whose transaction failed into a job per item, so the bad item fails alone', async () => {
    const k = kind();
    const done = `${k}.done`;
    const batches: number[][] = [];
    const handler: JobTxHandler = {
      itemsKey: 'ids',
      inTx: async (_ctx, tx, jobs) => {
        const ids = jobs.flatMap((job) => job.payload.ids as number[]).sort((a, b) => a - b);
        batches.push(ids);
        for (const i of ids) await enqueue(tx, { kind: done, payload: { i }, runAt: new Date(Date.now() + 3600_000) });
        if (ids.includes(2)) throw new Error('item 2 is broken');
      },
    };
    await enqueue(t.ctx.db, { kind: k, payload: { ids: [0, 1, 2, 3, 4] }, maxAttempts: 7 });
    const r = runner(new Map([[k, handler]]));
    r.start();
    await waitFor(async () => (await jobsOf(k)).length === 1 && (await jobsOf(k))[0]?.last_error === 'item 2 is broken');
    await r.stop();
    expect(batches[0]).toEqual([0, 1, 2, 3, 4]);
    expect(batches).toContainEqual([2]);
    const left = await t.ctx.db.query<{ payload: unknown; max_attempts: number }>('SELECT payload, max_attempts FROM jobs WHERE kind = $1', [k]);
    expect(left).toEqual([{ payload: { ids: [2] }, max_attempts: 7 }]);
    const work = await t.ctx.db.query<{ i: number }>(`SELECT (payload->>'i')::int AS i FROM jobs WHERE kind = $1 ORDER BY 1`, [done]);
    expect(work.map((w) => w.i)).toEqual([0, 1, 3, 4]);

    // A take counts items, not jobs: with room for 4, two jobs of 3 items each are taken (the last one whole), not a third.
    const many = kind();
    await t.ctx.db.tx(async (tx) => {
      for (let j = 0; j < 3; j++) await enqueue(tx, { kind: many, payload: { ids: [j * 3, j * 3 + 1, j * 3 + 2] }, runAt: new Date(Date.now() - 1000 * (3 - j)) });
    });
    const taken = await t.ctx.db.tx((tx) => takeJobs(tx, [many], 4, 'ids'));
    expect(taken.map((job) => job.payload.ids as number[]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))).toEqual([[0, 1, 2], [3, 4, 5]]);
    expect(await jobsOf(many)).toHaveLength(1);
  });

  it.runIf(onPostgres)('a take locks no more jobs than it keeps, so a second transaction beside it takes the next ones', async () => {
    const k = kind();
    await t.ctx.db.tx(async (tx) => {
      for (let j = 0; j < 4; j++) await enqueue(tx, { kind: k, payload: { ids: [j * 3, j * 3 + 1, j * 3 + 2] }, runAt: new Date(Date.now() - 1000 * (4 - j)) });
    });
    let second: Job[] = [];
    await t.ctx.db.tx(async (tx) => {
      expect(await takeJobs(tx, [k], 4, 'ids')).toHaveLength(2);
      // Another connection, while the first transaction holds the jobs it took.
      second = await t.ctx.db.tx((other) => takeJobs(other, [k], 4, 'ids'));
    });
    expect(second.map((job) => job.payload.ids as number[]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))).toEqual([[6, 7, 8], [9, 10, 11]]);
  });

  it('a job taken in a transaction that never commits (its worker died) is due again as it was, and two takers never take the same job', async () => {
    const k = kind();
    await t.ctx.db.tx(async (tx) => {
      for (let i = 0; i < 6; i++) await enqueue(tx, { kind: k, payload: { i } });
    });
    await expect(
      t.ctx.db.tx(async (tx) => {
        expect(await takeJobs(tx, [k], 10)).toHaveLength(6);
        throw new Error('killed before the commit');
      }),
    ).rejects.toThrow();
    expect((await jobsOf(k)).map((j) => [j.status, j.attempts])).toEqual(Array.from({ length: 6 }, () => ['queued', 0]));
    const [a, b] = await Promise.all([
      t.ctx.db.tx((tx) => takeJobs(tx, [k], 4)),
      t.ctx.db.tx((tx) => takeJobs(tx, [k], 4)),
    ]);
    const taken = [...(a ?? []), ...(b ?? [])].map((job) => job.id);
    expect(new Set(taken).size).toBe(6);
    expect(taken).toHaveLength(6);
    expect([...(a ?? []), ...(b ?? [])].every((job) => job.attempts === 1)).toBe(true);
    expect(await jobsOf(k)).toHaveLength(0);
  });
});
