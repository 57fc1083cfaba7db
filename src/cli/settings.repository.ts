import type { Sql } from '../platform/db/db.js';
import { maybeOne } from '../platform/db/db.js';

/** All SQL of the settings table: what bootstrap keeps between starts, by key. */

export async function readSetting<T>(sql: Sql, key: string): Promise<T | undefined> {
  return (await maybeOne<{ value: T }>(sql, 'SELECT value FROM settings WHERE key = $1', [key]))?.value;
}

export async function writeSetting(sql: Sql, key: string, value: unknown): Promise<void> {
  await sql.query(
    `INSERT INTO settings (key, value) VALUES ($1, $2)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [key, JSON.stringify(value)],
  );
}
