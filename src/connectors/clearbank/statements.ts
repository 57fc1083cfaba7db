import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/db.js';
import { enqueue, LIFECYCLE_JOB_ATTEMPTS_MAX } from '../../platform/jobs/queue.js';
import { pollInbound, type InboundAccount, type InboundOptions } from '../bank/inbound/inbound.service.js';
import type { InboundSource, WaitingFile } from '../bank/inbound/inbound.source.js';
import { BankUnreachable, getStatementPage, postSigned } from './client.js';
import * as repo from './clearbank.repository.js';
import type { ClearBankRuntime } from './service.js';

/*
 * ClearBank's end-of-day statements into Corridor's reconciliation, through the same path as the
 * bank connector's camt.053 files (src/connectors/bank/inbound): one parser, one way to record a
 * statement and match its lines against the book.
 *
 * 1. `clearbank.statements` (scheduled) asks, once per UTC day that has ended, for that day's
 *    statement: `POST /v1/statementrequests` with the day's start and end, recorded with its
 *    X-Request-Id before it is sent, so a retry asks the same (ClearBank answers 202).
 * 2. ClearBank says the statement is ready by its signed `Statements.ReadyForDownload` webhook
 *    (MessageId, TotalPages): recorded once by its MessageId, a fetch job queued (webhooks.ts).
 * 3. `clearbank.statement` fetches each page (`GET /v1/statements/{messageId}?pageNumber=n`) as an
 *    inbound file: recorded by its hash (a page fetched twice applies once), read by the camt.053
 *    reader, recorded as the statement of the configured bank account (`statements.bankAccount`)
 *    and matched line by line against the movements ClearBank's webhooks booked. A line nothing
 *    booked (a credit Corridor does not know) is an exception with its reason for the operator.
 */

export const CLEARBANK_STATEMENTS_JOB = 'clearbank.statements';
export const CLEARBANK_STATEMENT_JOB = 'clearbank.statement';
export const STATEMENT_REQUEST_PATH = '/v1/statementrequests';
/** At most this many past days asked for in one run (a connector that was down catches up a week at a time). */
export const STATEMENT_DAYS_PER_RUN_MAX = 7;
/** The MsgId of a ClearBank statement, as its Customer Statements API describes it. */
export const STATEMENT_MESSAGE_ID = /^CAMT053_[0-9]{8}_[0-9]{8}_\w{8}$/;
/** At most this many pages of one statement (the webhook's TotalPages). */
export const STATEMENT_PAGES_MAX = 1000;

const DAY_MS = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const utc = (day: string) => new Date(`${day}T00:00:00Z`);
/** The API's date-time format, yyyy-MM-ddTHH:mm:ssZ (no fraction). */
const apiTime = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/** The ClearBank account as reconciliation knows it: the configured bank account name, the debtor IBAN, GBP. */
export function reconciledAccount(rt: ClearBankRuntime): InboundAccount {
  return { id: rt.config.statements.bankAccount, iban: rt.config.debtor.iban, currency: 'GBP' };
}

/**
 * Asks ClearBank for the statement of one UTC day, [day 00:00:00Z, next day 00:00:00Z): recorded
 * first, sent with the recorded X-Request-Id until the bank accepts it (202). A day asked for before
 * is not asked again. Throws when the bank does not accept it (the job retries the same request).
 */
export async function requestStatementOfDay(ctx: AppContext, rt: ClearBankRuntime, day: string): Promise<void> {
  const request = await repo.recordStatementRequest(ctx.db, day, randomUUID());
  if (request.status === 'requested') return;
  const start = utc(day);
  const body = JSON.stringify({ startDateTimeUtc: apiTime(start), endDateTimeUtc: apiTime(new Date(start.getTime() + DAY_MS)) });
  let error: string | null = null;
  try {
    const answer = await postSigned(rt.config, rt.config.statementsBaseUrl, STATEMENT_REQUEST_PATH, body, request.request_id);
    if (answer.status !== 202) error = `ClearBank answered ${answer.status} to the statement request of ${day}: ${JSON.stringify(answer.body ?? '').slice(0, 500)}`;
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  await repo.statementRequested(ctx.db, day, error);
  if (error !== null) throw new BankUnreachable(error);
}

/** The scheduled run: asks for each day that has ended since the last one asked for (yesterday on the first run), then looks again `statements.everySeconds` later. */
export async function runStatementRequests(ctx: AppContext, rt: ClearBankRuntime): Promise<Date> {
  const yesterday = dayOf(new Date(Date.now() - DAY_MS));
  const last = await repo.lastStatementDay(ctx.db);
  let day = last ? dayOf(new Date(utc(last).getTime() + DAY_MS)) : yesterday;
  for (let n = 0; n < STATEMENT_DAYS_PER_RUN_MAX && day <= yesterday; n++) {
    await requestStatementOfDay(ctx, rt, day);
    day = dayOf(new Date(utc(day).getTime() + DAY_MS));
  }
  return new Date(Date.now() + rt.config.statements.everySeconds * 1000);
}

/** A statement the bank says is ready, in the webhook's transaction: recorded once, its fetch queued. False when it was recorded before. */
export async function statementReady(tx: Tx, messageId: string, totalPages: number): Promise<boolean> {
  if (!(await repo.insertStatement(tx, messageId, totalPages))) return false;
  await enqueue(tx, { kind: CLEARBANK_STATEMENT_JOB, payload: { messageId }, uniqueKey: `${CLEARBANK_STATEMENT_JOB}:${messageId}`, maxAttempts: LIFECYCLE_JOB_ATTEMPTS_MAX });
  return true;
}

/** The pages of one statement as an outbox of files: each page fetched from ClearBank when it is taken in. */
export class StatementPages implements InboundSource {
  constructor(
    private readonly rt: ClearBankRuntime,
    private readonly messageId: string,
    private readonly totalPages: number,
  ) {}

  list(): Promise<WaitingFile[]> {
    // The size is known once fetched; takeInFile holds the fetched page to the size limit.
    return Promise.resolve(Array.from({ length: this.totalPages }, (_, i) => ({ name: `${this.messageId}-page-${i + 1}.xml`, size: 0 })));
  }

  async download(name: string, to: string): Promise<void> {
    const page = Number(/-page-(\d+)\.xml$/.exec(name)?.[1]);
    if ((await getStatementPage(this.rt.config, this.messageId, page, to)) === 'not_found') throw new BankUnreachable(`ClearBank has no page ${page} of statement ${this.messageId} (404)`);
  }
}

/** How a ClearBank statement is taken in: the one account, and a line nothing booked is an exception. */
export function statementOptions(rt: ClearBankRuntime): InboundOptions {
  return { accounts: [reconciledAccount(rt)], connector: 'clearbank', unmatchedLinesAreExceptions: true };
}

/**
 * Fetches a ready statement's pages and takes each in as the bank connector takes in its camt.053
 * files; a statement fetched again (the job run twice, the webhook redelivered) is known by each
 * page's hash and changes nothing. A page that could not be fetched or applied fails the job, which
 * retries it; the pages already taken in are not applied again.
 */
export async function runStatementFetch(ctx: AppContext, rt: ClearBankRuntime, messageId: string): Promise<void> {
  const statement = await repo.findStatement(ctx.db, messageId);
  if (!statement) return;
  const results = await pollInbound(ctx, new StatementPages(rt, messageId, statement.total_pages), statementOptions(rt));
  const failed = results.find((r) => r.outcome === 'failed');
  await repo.statementTaken(ctx.db, messageId, failed && 'error' in failed ? failed.error : null);
  if (failed && 'error' in failed) throw new Error(`statement ${messageId}: ${failed.name} could not be taken in: ${failed.error}`);
  ctx.log.info({ messageId, pages: results.map((r) => ({ name: r.name, outcome: r.outcome })) }, 'clearbank: statement taken in');
}
