import type { Sql } from './db.js';
import { fieldError } from '../lib/errors.js';

export interface PageResult<T> {
  object: string;
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
  /** How many rows the list's filters match over all its pages, when the request asked (`withTotal`). */
  total?: number;
}

export interface PageRequest {
  cursor?: string | undefined;
  limit?: number | undefined;
  /** Count the rows the filters match over all pages too (a page's "21–40 of 1,043"); the API's lists do not. */
  withTotal?: boolean | undefined;
}

export interface PageSpec<Row, Item> {
  object: string;
  /** `SELECT ... FROM ...` without WHERE or ORDER BY. */
  from: string;
  /** Conditions joined with AND; parameters numbered from $1 in `params` order. */
  where: string[];
  params: unknown[];
  /** Columns that order the list, newest first: a timestamp and a unique id. */
  createdColumn?: string;
  idColumn?: string;
  map: (row: Row) => Item;
}

interface Cursor {
  t: string;
  id: string;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.t, cursor.id])).toString('base64url');
}

function decodeCursor(value: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string' &&
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/.test(parsed[0]) &&
      parsed[1].length <= 64
    ) {
      return { t: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through to the refusal
  }
  throw fieldError('cursor', 'cursor is not a cursor this API issued');
}

/**
 * The one builder of a list's WHERE: `add('status = ?', value)` for each filter the caller gave, each
 * `?` numbered as it is added (`add('deactivated_at IS NULL')` takes none); `where` and `params` then
 * go to `paginate`.
 */
export function listFilters(): { where: string[]; params: unknown[]; add: (condition: string, ...values: unknown[]) => void } {
  const where: string[] = [];
  const params: unknown[] = [];
  return {
    where,
    params,
    add: (condition, ...values) => {
      let next = 0;
      where.push(condition.replace(/\?/g, () => `$${params.push(values[next++])}`));
    },
  };
}

/**
 * The one pagination of every list: keyset on (created, id) newest first, so a page boundary
 * never moves when rows are inserted meanwhile. The cursor keeps the timestamp to the microsecond.
 */
export async function paginate<Row, Item>(
  sql: Sql,
  page: PageRequest,
  spec: PageSpec<Row, Item>,
  limitDefault = 20,
): Promise<PageResult<Item>> {
  const created = spec.createdColumn ?? 'created_at';
  const id = spec.idColumn ?? 'id';
  const limit = page.limit ?? limitDefault;
  const params = [...spec.params];
  const where = [...spec.where];
  if (page.cursor) {
    const cursor = decodeCursor(page.cursor);
    params.push(cursor.t, cursor.id);
    where.push(`(${created}, ${id}) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  params.push(limit + 1);
  const text = `${spec.from}
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY ${created} DESC, ${id} DESC
    LIMIT $${params.length}`;
  const withCursor = text.replace(
    /^\s*SELECT\s/i,
    `SELECT to_char(${created} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS __cursor_t, ${id}::text AS __cursor_id, `,
  );
  const rows = await sql.query<Row & { __cursor_t: string; __cursor_id: string }>(withCursor, params).catch((err: unknown) => {
    // A cursor of the right shape can still hold an impossible time or an id the column's type refuses.
    if (page.cursor && /^22/.test(String((err as { code?: unknown }).code ?? ''))) throw fieldError('cursor', 'cursor is not a cursor this API issued');
    throw err;
  });
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    object: spec.object,
    data: pageRows.map(spec.map),
    hasMore,
    nextCursor: hasMore && last ? encodeCursor({ t: last.__cursor_t, id: last.__cursor_id }) : null,
    ...(page.withTotal === true ? { total: await countRows(sql, spec) } : {}),
  };
}

/** How many rows a list's filters match (its cursor aside): the same FROM and WHERE as its pages. */
async function countRows<Row, Item>(sql: Sql, spec: PageSpec<Row, Item>): Promise<number> {
  const rows = await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM (${spec.from} ${spec.where.length ? `WHERE ${spec.where.join(' AND ')}` : ''}) AS counted`, spec.params);
  return Number(rows[0]?.n ?? 0);
}
