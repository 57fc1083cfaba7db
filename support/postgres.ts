import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A fresh PostgreSQL database beside the one `adminUrl` names, for one test file or one benchmark
 * run: empty, or a copy of `template` (a database no one is connected to); dropped by the returned
 * function.
 */
export async function freshPostgresDatabase(adminUrl: string | undefined, prefix: string, template?: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  if (!adminUrl) throw new Error('no PostgreSQL configured');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : ''}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
