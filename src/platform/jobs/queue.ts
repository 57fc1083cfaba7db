import type { Sql } from '../db/db.js';

export interface NewJob {
  kind: string;
  payload?: Record<string, unknown>;
  runAt?: Date;
  /** At most one queued or running job per unique key. */
  uniqueKey?: string;
  maxAttempts?: number;
}

export interface Job {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

/** Enqueues a job inside the caller's transaction, so it exists exactly when the change that needs it does. */
/** Attempts of a job that does not say (a recurring job says 3). */
const JOB_ATTEMPTS_MAX = 10;
/** Attempts of a job that moves an object through its lifecycle (a payout step, an order deadline): retried longer. */
export const LIFECYCLE_JOB_ATTEMPTS_MAX = 20;

export async function enqueue(sql: Sql, job: NewJob, attemptsMaxDefault = JOB_ATTEMPTS_MAX): Promise<void> {
  await sql.query(
    `INSERT INTO jobs (kind, payload, run_at, unique_key, max_attempts)
     VALUES ($1, $2, COALESCE($3::timestamptz, now()), $4, $5)
     ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND status <> 'failed' DO NOTHING`,
    [job.kind, JSON.stringify(job.payload ?? {}), job.runAt ?? null, job.uniqueKey ?? null, job.maxAttempts ?? attemptsMaxDefault],
  );
}

/**
 * Claims due jobs with FOR UPDATE SKIP LOCKED, so workers never take the same job. A running job
 * whose lease ran out (its worker died) is due again.
 */
export async function claimJobs(sql: Sql, workerId: string, batchMax: number, leaseMs: number, kinds: string[]): Promise<Job[]> {
  return sql.query<Job>(
    `UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1,
            locked_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000), updated_at = now()
      WHERE id IN (
        SELECT id FROM jobs
         WHERE kind = ANY($4::text[])
           AND ((status = 'queued' AND run_at <= now()) OR (status = 'running' AND locked_until < now()))
         ORDER BY run_at
         LIMIT $2
         FOR UPDATE SKIP LOCKED)
      RETURNING id::text AS id, kind, payload, attempts, max_attempts`,
    [workerId, batchMax, leaseMs, kinds],
  );
}

const TAKE_RETURNING = 'RETURNING id::text AS id, kind, payload, attempts + 1 AS attempts, max_attempts';
/** A job due now: queued and its time come, or running with its lease ended. */
const DUE = "(status = 'queued' AND run_at <= now()) OR (status = 'running' AND locked_until < now())";

/**
 * Takes due jobs of these kinds in the caller's transaction and deletes them there, with FOR UPDATE
 * SKIP LOCKED, so that concurrent takers never take the same job: the jobs end exactly when the
 * transaction doing their work commits, and a rollback, or a crash before the commit, leaves them
 * due as they were. No claim is written and no lease is needed: for work done in one transaction
 * (payout steps). Each job is answered with the attempt this is (`attempts + 1`). A running job
 * whose lease ran out (claimed by a runner of an earlier version) is due too.
 *
 * A job may carry several items (the payload's array under `itemsKey`: a step job's payout ids):
 * then the jobs taken carry about `max` items in all (oldest first, the last one taken whole, at
 * least one job); a job without the array counts as one item.
 */
export async function takeJobs(sql: Sql, kinds: string[], max: number, itemsKey?: string): Promise<Job[]> {
  // How many jobs carry `max` items, counted on the due jobs as they are (those other transactions
  // hold included), so that the locking scan locks about as many jobs as it keeps: a row locked and
  // not kept would stay out of every other taker's reach until this transaction ends.
  return sql.query<Job>(
    `WITH due AS (
       SELECT id, run_at, COALESCE(jsonb_array_length(payload -> $3::text), 1) AS n FROM jobs
        WHERE kind = ANY($1::text[]) AND (${DUE})
        ORDER BY run_at
        LIMIT (SELECT count(*) FROM (
                 SELECT n, sum(n) OVER (ORDER BY run_at, id) AS upto FROM (
                   SELECT id, run_at, COALESCE(jsonb_array_length(payload -> $3::text), 1) AS n FROM jobs
                    WHERE kind = ANY($1::text[]) AND (${DUE})
                    ORDER BY run_at
                    LIMIT $2) head) counted
                WHERE upto - n < $2)
        FOR UPDATE SKIP LOCKED
     ), picked AS (
       SELECT id FROM (SELECT id, n, sum(n) OVER (ORDER BY run_at, id) AS upto FROM due) d WHERE upto - n < $2
     )
     DELETE FROM jobs WHERE id = ANY(ARRAY(SELECT id FROM picked))
     ${TAKE_RETURNING}`, // by the primary key (an IN over the CTE would join by scanning jobs)
    [kinds, max, itemsKey ?? null],
  );
}

/** `takeJobs` for these jobs only (those still due and not taken by another transaction meanwhile). */
export async function takeJobsById(sql: Sql, ids: string[]): Promise<Job[]> {
  return sql.query<Job>(
    `DELETE FROM jobs WHERE id = ANY(ARRAY(
       SELECT id FROM jobs
        WHERE id = ANY($1::bigint[]) AND (${DUE})
        FOR UPDATE SKIP LOCKED))
     ${TAKE_RETURNING}`,
    [ids],
  );
}

export async function completeJob(sql: Sql, id: string): Promise<void> {
  await completeJobs(sql, [id]);
}

/** Retires many jobs with one statement. */
export async function completeJobs(sql: Sql, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql.query('DELETE FROM jobs WHERE id = ANY($1::bigint[])', [ids]);
}

/**
 * Reschedules with exponential backoff, or marks failed once its attempts are spent. Counts the
 * attempt (`job.attempts`) where its claim did not (a job taken in a transaction that rolled back).
 */
export async function failJob(sql: Sql, job: Job, error: string, retryDelayMs: number): Promise<void> {
  const spent = job.attempts >= job.max_attempts;
  await sql.query(
    `UPDATE jobs SET status = $2, last_error = $3, locked_by = NULL, locked_until = NULL, updated_at = now(),
            run_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000),
            attempts = GREATEST(attempts, $5::int)
      WHERE id = $1::bigint`,
    [job.id, spent ? 'failed' : 'queued', error.slice(0, 2000), retryDelayMs, job.attempts],
  );
}

/** Puts a job back to run later without counting an attempt (work not ready yet). */
export async function rescheduleJob(sql: Sql, id: string, runAt: Date): Promise<void> {
  await sql.query(
    `UPDATE jobs SET status = 'queued', attempts = GREATEST(attempts - 1, 0), locked_by = NULL, locked_until = NULL,
            run_at = $2, updated_at = now() WHERE id = $1::bigint`,
    [id, runAt],
  );
}

/** Enqueues many jobs with one statement, in the caller's transaction. */
export async function enqueueMany(sql: Sql, jobs: NewJob[], attemptsMaxDefault = JOB_ATTEMPTS_MAX): Promise<void> {
  if (jobs.length === 0) return;
  await sql.query(
    `INSERT INTO jobs (kind, payload, run_at, unique_key, max_attempts)
     SELECT kind, payload::jsonb, COALESCE(run_at, now()), unique_key, max_attempts
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::int[]) AS j(kind, payload, run_at, unique_key, max_attempts)
     ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND status <> 'failed' DO NOTHING`,
    [
      jobs.map((j) => j.kind),
      jobs.map((j) => JSON.stringify(j.payload ?? {})),
      jobs.map((j) => j.runAt ?? null),
      jobs.map((j) => j.uniqueKey ?? null),
      jobs.map((j) => j.maxAttempts ?? attemptsMaxDefault),
    ],
  );
}

/** Retention: deletes at most `limit` jobs that failed for good before `before` (finished jobs are deleted at once). */
export async function deleteFailedJobsBefore(sql: Sql, before: Date, limit: number): Promise<number> {
  const rows = await sql.query(
    `DELETE FROM jobs WHERE id = ANY(ARRAY(
       SELECT id FROM jobs WHERE status = 'failed' AND updated_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED))
     RETURNING 1`,
    [before, limit],
  );
  return rows.length;
}

/** Jobs per kind: queued or running, failed for good, and how long the oldest due one has been due (database clock). */
export async function jobQueueStats(sql: Sql): Promise<{ kind: string; queued: number; failed: number; oldestDueSeconds: number }[]> {
  return sql.query(
    `SELECT kind, count(*) FILTER (WHERE status <> 'failed')::int AS queued, count(*) FILTER (WHERE status = 'failed')::int AS failed,
            COALESCE(EXTRACT(EPOCH FROM now() - min(run_at) FILTER (WHERE status = 'queued' AND run_at <= now())), 0)::float8 AS "oldestDueSeconds"
       FROM jobs GROUP BY kind ORDER BY kind`,
  );
}
