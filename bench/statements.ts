import type { Sql } from '../src/platform/db/db.js';

/**
 * Where PostgreSQL's work goes, counted rather than timed (counts do not move with the machine's
 * load; times do): per statement from `pg_stat_statements` (calls, rows, time, WAL bytes), and per
 * table from the statistics views (rows inserted, updated, HOT-updated, deleted, and so the index
 * entries written), all in the benchmark's own database, divided by a unit of work (a paid payout).
 *
 * `pg_stat_statements` needs the server to preload its library (`shared_preload_libraries`); where it
 * does not, the per-statement table is left out (and the run says so), the rest still counts.
 *
 * The benchmark's own queries (backlog, CPU, these) start with the comment BENCH_QUERY and are left
 * out of the table.
 */
export const BENCH_QUERY = '/* bench */';

export interface StatementRow {
  query: string;
  calls: number;
  rows: number;
  ms: number;
  walRecords: number;
  walBytes: number;
  /** WAL full-page images: they follow checkpoints, so they vary from run to run. */
  walFpi: number;
}

interface TableRow {
  table: string;
  ins: number;
  upd: number;
  hot: number;
  del: number;
  indexes: number;
}

export interface Counters {
  commits: number;
  rollbacks: number;
  tables: Map<string, TableRow>;
}

/** Turns `pg_stat_statements` on in this database: false (with the reason) when the server does not preload it. */
export async function enableStatements(sql: Sql): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    await sql.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await sql.query(`${BENCH_QUERY} SELECT 1 FROM pg_stat_statements LIMIT 1`);
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/** Forgets the statements counted so far in this database only (other databases on the server keep theirs). */
export async function resetStatements(sql: Sql): Promise<void> {
  await sql.query(`${BENCH_QUERY} SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = current_database()), 0)`);
}

/** The statements of this database since the last reset, most time first. */
export async function readStatements(sql: Sql): Promise<StatementRow[]> {
  const rows = await sql.query<{ query: string; calls: string; rows: string; ms: number; wal_records: string; wal_bytes: string; wal_fpi: string }>(
    `${BENCH_QUERY} SELECT query, calls::text AS calls, rows::text AS rows, total_exec_time AS ms,
            wal_records::text AS wal_records, wal_bytes::text AS wal_bytes, wal_fpi::text AS wal_fpi
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '/* bench */%'
      ORDER BY total_exec_time DESC`,
  );
  return rows.map((r) => ({
    query: r.query,
    calls: Number(r.calls),
    rows: Number(r.rows),
    ms: Number(r.ms),
    walRecords: Number(r.wal_records),
    walBytes: Number(r.wal_bytes),
    walFpi: Number(r.wal_fpi),
  }));
}

/**
 * The cumulative counters of this database now: transactions, and per table its row writes and its
 * index count. The statistics system publishes a backend's counts within a second or so of its
 * transactions, so a window read this way should be several seconds long.
 */
export async function readCounters(sql: Sql): Promise<Counters> {
  const [db] = await sql.query<{ commits: string; rollbacks: string }>(
    `${BENCH_QUERY} SELECT xact_commit::text AS commits, xact_rollback::text AS rollbacks FROM pg_stat_database WHERE datname = current_database()`,
  );
  const tables = await sql.query<{ table: string; ins: string; upd: string; hot: string; del: string; indexes: number }>(
    `${BENCH_QUERY} SELECT t.relname AS table, n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot, n_tup_del::text AS del,
            (SELECT count(*)::int FROM pg_index i WHERE i.indrelid = t.relid) AS indexes
       FROM pg_stat_user_tables t WHERE t.schemaname = 'public'`,
  );
  return {
    commits: Number(db?.commits ?? 0),
    rollbacks: Number(db?.rollbacks ?? 0),
    tables: new Map(tables.map((t) => [t.table, { table: t.table, ins: Number(t.ins), upd: Number(t.upd), hot: Number(t.hot), del: Number(t.del), indexes: t.indexes }])),
  };
}

/**
 * One line per statement (normalized text, shortened), per unit: calls, rows, time (which includes
 * waiting for locks and for the WAL flush at commit, so it moves with the load; the counts do not),
 * WAL records and bytes. The `top` statements by time, the rest summed, then the total.
 */
export function statementTable(rows: StatementRow[], units: number, top = 30): string[] {
  const sum = (list: StatementRow[]) =>
    list.reduce((s, r) => ({ calls: s.calls + r.calls, rows: s.rows + r.rows, ms: s.ms + r.ms, walRecords: s.walRecords + r.walRecords, walBytes: s.walBytes + r.walBytes, walFpi: s.walFpi + r.walFpi }), {
      calls: 0,
      rows: 0,
      ms: 0,
      walRecords: 0,
      walBytes: 0,
      walFpi: 0,
    });
  const line = (r: Omit<StatementRow, 'query'>, text: string) =>
    `| ${(r.calls / units).toFixed(3)} | ${(r.rows / units).toFixed(2)} | ${(r.ms / units).toFixed(4)} | ${(r.walRecords / units).toFixed(1)} | ${Math.round(r.walBytes / units)} | ${text} |`;
  const out = ['| calls | rows | ms | WAL records | WAL bytes | statement |', '|---:|---:|---:|---:|---:|---|'];
  for (const r of rows.slice(0, top)) out.push(line(r, `\`${shorten(r.query)}\``));
  const rest = rows.slice(top);
  if (rest.length) out.push(line(sum(rest), `(${rest.length} other statements)`));
  const total = sum(rows);
  out.push(line(total, `**all statements** (WAL full-page images: ${(total.walFpi / units).toFixed(2)}, with ${Math.round((total.walFpi * 8192) / units)} of the bytes at most)`));
  return out;
}

/** Transactions and per-table row writes between two readings, per unit; index entries are an upper bound (a partial index may take none). */
export function writesTable(before: Counters, after: Counters, units: number): string[] {
  const per = (n: number) => (n / units).toFixed(2);
  const out = [
    `transactions per unit: ${per(after.commits - before.commits)} committed, ${per(after.rollbacks - before.rollbacks)} rolled back`,
    '| table | inserted | updated | of which HOT | deleted | index entries (at most) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  let entries = 0;
  const rows = [...after.tables.values()]
    .map((a) => {
      const b = before.tables.get(a.table);
      const d = { table: a.table, ins: a.ins - (b?.ins ?? 0), upd: a.upd - (b?.upd ?? 0), hot: a.hot - (b?.hot ?? 0), del: a.del - (b?.del ?? 0), indexes: a.indexes };
      return { ...d, entries: (d.ins + d.upd - d.hot) * d.indexes };
    })
    .filter((d) => d.ins + d.upd + d.del > 0)
    .sort((x, y) => y.entries - x.entries);
  for (const d of rows) {
    entries += d.entries;
    out.push(`| ${d.table} | ${per(d.ins)} | ${per(d.upd)} | ${per(d.hot)} | ${per(d.del)} | ${per(d.entries)} |`);
  }
  out.push(`| **all tables** | ${per(rows.reduce((s, d) => s + d.ins, 0))} | ${per(rows.reduce((s, d) => s + d.upd, 0))} | ${per(rows.reduce((s, d) => s + d.hot, 0))} | ${per(rows.reduce((s, d) => s + d.del, 0))} | ${per(entries)} |`);
  return out;
}

function shorten(query: string, max = 110): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  // A pipe would end the markdown table's cell, a backtick its code span.
  return (flat.length > max ? `${flat.slice(0, max - 1)}…` : flat).replace(/\|/g, '\\|').replace(/`/g, "'");
}
