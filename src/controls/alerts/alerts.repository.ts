import type { Sql } from '../../platform/db/db.js';
import { listFilters, paginate, type PageRequest } from '../../platform/db/pagination.js';

export interface ConditionRow {
  id: string;
  source: string;
  threshold: number;
  filter: Record<string, string>;
  enabled: boolean;
  updated_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface AlertRow {
  id: string;
  condition_id: string;
  source: string;
  subject: string;
  summary: string;
  details: Record<string, unknown>;
  opened_at: Date;
  closed_at: Date | null;
}

const CONDITION_COLUMNS = 'id, source, threshold::float8 AS threshold, filter, enabled, updated_by, created_at, updated_at';
const ALERT_COLUMNS = 'id, condition_id, source, subject, summary, details, opened_at, closed_at';

/** Creates the conditions named in `defaults` that do not exist yet (an operator's changes are kept). */
export async function ensureConditions(sql: Sql, defaults: readonly { id: string; source: string; threshold: number }[]): Promise<void> {
  await sql.query(
    `INSERT INTO alert_conditions (id, source, threshold, updated_by)
     SELECT d.id, d.source, d.threshold, 'default' FROM jsonb_to_recordset($1::jsonb) AS d(id text, source text, threshold numeric)
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(defaults)],
  );
}

export async function listConditions(sql: Sql): Promise<ConditionRow[]> {
  return sql.query<ConditionRow>(`SELECT ${CONDITION_COLUMNS} FROM alert_conditions ORDER BY id`);
}

export async function upsertCondition(sql: Sql, c: Pick<ConditionRow, 'id' | 'source' | 'threshold' | 'filter' | 'enabled' | 'updated_by'>): Promise<ConditionRow> {
  const [row] = await sql.query<ConditionRow>(
    `INSERT INTO alert_conditions (id, source, threshold, filter, enabled, updated_by) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET source = EXCLUDED.source, threshold = EXCLUDED.threshold, filter = EXCLUDED.filter,
       enabled = EXCLUDED.enabled, updated_by = EXCLUDED.updated_by, updated_at = now()
     RETURNING ${CONDITION_COLUMNS}`,
    [c.id, c.source, c.threshold, JSON.stringify(c.filter), c.enabled, c.updated_by],
  );
  return row as ConditionRow;
}

/** The open alerts of a condition, locked: one evaluation of a condition at a time decides what opens and closes. */
export async function lockOpenAlerts(sql: Sql, conditionId: string): Promise<AlertRow[]> {
  await sql.query('SELECT id FROM alert_conditions WHERE id = $1 FOR UPDATE', [conditionId]);
  return sql.query<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE condition_id = $1 AND closed_at IS NULL`, [conditionId]);
}

/** Opens alerts; a subject already open for the condition is left as it is (not returned). */
export async function openAlerts(sql: Sql, rows: readonly Pick<AlertRow, 'id' | 'condition_id' | 'source' | 'subject' | 'summary' | 'details'>[]): Promise<AlertRow[]> {
  if (rows.length === 0) return [];
  return sql.query<AlertRow>(
    `INSERT INTO alerts (id, condition_id, source, subject, summary, details)
     SELECT a.id, a.condition_id, a.source, a.subject, a.summary, a.details FROM jsonb_to_recordset($1::jsonb)
         AS a(id uuid, condition_id text, source text, subject text, summary text, details jsonb)
     ON CONFLICT (condition_id, subject) WHERE closed_at IS NULL DO NOTHING
     RETURNING ${ALERT_COLUMNS}`,
    [JSON.stringify(rows)],
  );
}

/** Brings an open alert's summary and figures up to date (no notification: it is the same alert). */
export async function refreshAlerts(sql: Sql, rows: readonly Pick<AlertRow, 'id' | 'summary' | 'details'>[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `UPDATE alerts SET summary = r.summary, details = r.details
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, summary text, details jsonb)
      WHERE alerts.id = r.id AND alerts.closed_at IS NULL`,
    [JSON.stringify(rows)],
  );
}

export async function closeAlerts(sql: Sql, ids: readonly string[]): Promise<AlertRow[]> {
  if (ids.length === 0) return [];
  return sql.query<AlertRow>(`UPDATE alerts SET closed_at = now() WHERE id = ANY($1::uuid[]) AND closed_at IS NULL RETURNING ${ALERT_COLUMNS}`, [ids]);
}

export function listAlerts<Item>(sql: Sql, f: PageRequest & { status?: 'open' | 'closed' | undefined; source?: string | undefined }, map: (row: AlertRow) => Item) {
  const { where, params, add } = listFilters();
  if (f.status === 'open') add('closed_at IS NULL');
  if (f.status === 'closed') add('closed_at IS NOT NULL');
  if (f.source) add('source = ?', f.source);
  return paginate(sql, f, { object: 'alert.list', from: `SELECT ${ALERT_COLUMNS} FROM alerts`, where, params, createdColumn: 'opened_at', map });
}

export async function findAlert(sql: Sql, id: string): Promise<AlertRow | undefined> {
  const [row] = await sql.query<AlertRow>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE id = $1`, [id]);
  return row;
}

/** Open alerts per source, for the metrics endpoint. */
export async function openAlertCounts(sql: Sql): Promise<{ source: string; count: number }[]> {
  return sql.query(`SELECT source, count(*)::int AS count FROM alerts WHERE closed_at IS NULL GROUP BY source`);
}
