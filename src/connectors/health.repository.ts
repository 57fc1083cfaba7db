import type { Sql } from '../platform/db/db.js';

export interface HealthRow {
  connector: string;
  last_success_at: Date | null;
  last_file_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

/** A call, poll or loop that ended well (and delivered a file, when `file`). */
export async function recordSuccess(sql: Sql, connector: string, at: Date, file: boolean): Promise<void> {
  await sql.query(
    `INSERT INTO connector_health (connector, last_success_at, last_file_at) VALUES ($1, $2, CASE WHEN $3::boolean THEN $2::timestamptz END)
     ON CONFLICT (connector) DO UPDATE SET last_success_at = greatest(connector_health.last_success_at, excluded.last_success_at),
       last_file_at = greatest(connector_health.last_file_at, excluded.last_file_at)`,
    [connector, at, file],
  );
}

export async function recordError(sql: Sql, connector: string, at: Date, message: string): Promise<void> {
  await sql.query(
    `INSERT INTO connector_health (connector, last_error, last_error_at) VALUES ($1, $2, $3)
     ON CONFLICT (connector) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
    [connector, message, at],
  );
}

export async function findHealth(sql: Sql, connectors: readonly string[]): Promise<HealthRow[]> {
  return sql.query<HealthRow>('SELECT connector, last_success_at, last_file_at, last_error, last_error_at FROM connector_health WHERE connector = ANY($1::text[])', [connectors]);
}
