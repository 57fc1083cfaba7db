import type { Sql } from '../platform/db/db.js';
import type { JobHandler } from '../platform/jobs/runner.js';
import { payoutBacklog } from '../domains/payouts/payouts.port.js';
import { capabilitiesOf, type Connector, type ConnectorHealth } from './connector.js';
import type { ConnectorDefinition, ConnectorJob, ConnectorWorker } from './definition.js';
import * as repo from './health.repository.js';

/** How long a success is not written again for the same connector by this process: a loop every 20 ms writes about once a second. */
const SUCCESS_WRITE_EVERY_MS = 1000;

/** An error's first line, short: what the operator reads beside the connector (never a request's parameters). */
const errorLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 500) ?? '';

/**
 * Records what a connector's jobs and loops see: each success (at most once a second per connector
 * from this process), each file delivered, and each error. Recording is best effort: a failure to
 * record is never the job's failure.
 */
export class HealthRecorder {
  private readonly lastWritten = new Map<string, number>();

  constructor(private readonly db: Sql) {}

  async success(connector: string, file = false): Promise<void> {
    const now = Date.now();
    if (!file && now - (this.lastWritten.get(connector) ?? 0) < SUCCESS_WRITE_EVERY_MS) return;
    this.lastWritten.set(connector, now);
    await repo.recordSuccess(this.db, connector, new Date(now), file).catch(() => undefined);
  }

  async error(connector: string, err: unknown): Promise<void> {
    await repo.recordError(this.db, connector, new Date(), errorLine(err)).catch(() => undefined);
  }

  /** A connector's job as the runner runs it: its outcome recorded, its result and its error passed on unchanged. */
  job(connector: string, job: ConnectorJob): JobHandler {
    return async (ctx, j) => {
      try {
        const result = await job.handler(ctx, j);
        await this.success(connector, job.delivers === 'file');
        return result;
      } catch (err) {
        await this.error(connector, err);
        throw err;
      }
    };
  }

  /** A connector's loop, its every tick recorded. */
  worker(connector: string, worker: ConnectorWorker): ConnectorWorker {
    return {
      name: worker.name,
      everyMs: worker.everyMs,
      tick: async () => {
        try {
          await worker.tick();
          await this.success(connector);
        } catch (err) {
          await this.error(connector, err);
          throw err;
        }
      },
    };
  }
}

/** The health of each connector given, with its definition's backlog statuses. */
export async function connectorHealth(sql: Sql, connectors: readonly { connector: Connector; definition: ConnectorDefinition }[]): Promise<ConnectorHealth[]> {
  const rows = new Map((await repo.findHealth(sql, connectors.map((c) => c.connector.name))).map((row) => [row.connector, row]));
  return Promise.all(
    connectors.map(async ({ connector, definition }) => {
      const row = rows.get(connector.name);
      return {
        connector: connector.name,
        capabilities: capabilitiesOf(connector),
        lastSuccessAt: row?.last_success_at ?? null,
        lastFileAt: row?.last_file_at ?? null,
        lastError: row?.last_error && row.last_error_at ? { message: row.last_error, at: row.last_error_at } : null,
        backlog: await payoutBacklog(sql, connector.name, definition.backlog),
      };
    }),
  );
}
