import type { Logger } from 'pino';
import type { Sql } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { notFound } from '../../platform/lib/errors.js';
import { isUuid, newId } from '../../platform/lib/ids.js';
import { redactUrl } from '../../platform/lib/log-safety.js';
import { redactBody } from './request-logs.redact.js';
import * as repo from './request-logs.repository.js';

/** The most characters of a body kept (after redaction); a longer one is noted by its size. */
const BODY_CHARS_MAX = 16_384;
const PATH_CHARS_MAX = 2048;

/** One answered request as the HTTP layer saw it, before redaction (which is done off the request's path). */
export interface AnsweredRequest {
  workspaceId: string;
  accountId: string;
  requestId: string;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  idempotencyKey: string | undefined;
  caller: string;
  /** The parsed JSON body, if any. */
  requestBody: unknown;
  /** The answer's JSON text, if it was JSON. */
  responseText: string | undefined;
  startedAt: Date;
}

function keptBody(body: unknown): unknown {
  if (body === undefined || body === null || Buffer.isBuffer(body) || typeof body !== 'object') return null;
  const redacted = redactBody(body);
  const text = JSON.stringify(redacted);
  return text.length > BODY_CHARS_MAX ? { omitted: `${text.length} characters` } : redacted;
}

function keptResponse(text: string | undefined): unknown {
  if (text === undefined || text === '') return null;
  if (text.length > BODY_CHARS_MAX) return { omitted: `${text.length} characters` };
  try {
    return keptBody(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The stored form of an answered request: redacted path and bodies. */
export function toRecord(r: AnsweredRequest): repo.RequestLogRecord {
  return {
    id: newId(),
    workspace_id: r.workspaceId,
    account_id: r.accountId,
    request_id: r.requestId,
    method: r.method,
    path: redactUrl(r.url).slice(0, PATH_CHARS_MAX),
    status: r.status,
    duration_ms: Math.max(0, Math.round(r.durationMs)),
    idempotency_key: r.idempotencyKey?.slice(0, 255) ?? null,
    caller: r.caller,
    request_body: keptBody(r.requestBody),
    response_body: keptResponse(r.responseText),
    created_at: r.startedAt.toISOString(),
  };
}

export interface RecorderOptions {
  /** How often what waits is written. */
  flushMs: number;
  /** Rows per INSERT; a buffer this full is written at once. */
  batchMax: number;
  /** The most requests waiting; past it new ones are counted as dropped, not kept (the API never waits for its log). */
  bufferMax: number;
}

/**
 * Request logs are written in batches, off the requests' path: `record` only appends to a buffer,
 * which a timer (or a full batch) writes with one INSERT per `batchMax` rows. Redaction happens at
 * write time too. A failed write is logged and its rows dropped: the log is for looking, the
 * requests themselves are recorded where they act (audit, idempotency).
 */
export class RequestLogRecorder {
  private buffer: AnsweredRequest[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Requests not kept because the buffer was full, since the start. */
  dropped = 0;

  constructor(
    private readonly db: Sql,
    private readonly log: Pick<Logger, 'error' | 'warn'>,
    private readonly options: RecorderOptions,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref();
  }

  record(request: AnsweredRequest): void {
    if (this.buffer.length >= this.options.bufferMax) {
      if (this.dropped++ === 0) this.log.warn({ bufferMax: this.options.bufferMax }, 'request log buffer full: requests are not logged until it drains');
      return;
    }
    this.buffer.push(request);
    if (this.buffer.length >= this.options.batchMax) void this.flush();
  }

  /** Writes everything recorded so far (after any write under way); resolves when written. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeAll());
    return this.writing;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.options.batchMax);
      try {
        await repo.insertRequestLogs(this.db, batch.map(toRecord));
      } catch (err) {
        this.log.error({ err, rows: batch.length }, 'request log write failed; these requests are not logged');
      }
    }
  }
}

export function requestLogView(row: repo.RequestLogRow) {
  return {
    object: 'request_log' as const,
    id: row.id,
    requestId: row.request_id,
    method: row.method,
    path: row.path,
    status: Number(row.status),
    durationMs: Number(row.duration_ms),
    idempotencyKey: row.idempotency_key,
    caller: row.caller,
    accountId: row.account_id,
    requestBody: row.request_body ?? null,
    responseBody: row.response_body ?? null,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export type RequestLogView = ReturnType<typeof requestLogView>;

export function listRequestLogs(sql: Sql, workspaceId: string, query: PageRequest & repo.RequestLogFilter) {
  return repo.listRequestLogs(sql, workspaceId, query, requestLogView);
}

export async function getRequestLog(sql: Sql, workspaceId: string, id: string): Promise<RequestLogView> {
  const row = isUuid(id) ? await repo.findRequestLog(sql, workspaceId, id) : undefined;
  if (!row) throw notFound('Request log');
  return requestLogView(row);
}

export const deleteRequestLogsBefore = repo.deleteRequestLogsBefore;
