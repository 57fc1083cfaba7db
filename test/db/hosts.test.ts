import { describe, expect, it } from 'vitest';
import { connect } from '../../src/platform/db/db.js';
import { parseDatabaseUrl } from '../../src/platform/db/hosts.js';
import { freshPostgresDatabase, onPostgres } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';

describe('a multi-host DATABASE_URL (libpq syntax)', () => {
  it('reads each host and port, the default port, and target_session_attrs, leaving pg a URL of the first host', () => {
    expect(parseDatabaseUrl('postgres://app:s%40cret@db1:5433,db2,[::1]:5434/corridor?target_session_attrs=read-write&sslmode=disable')).toEqual({
      hosts: [
        { host: 'db1', port: 5433 },
        { host: 'db2', port: 5432 },
        { host: '::1', port: 5434 },
      ],
      targetSessionAttrs: 'read-write',
      connectionString: 'postgres://app:s%40cret@db1:5433/corridor?sslmode=disable',
    });
  });

  it('leaves a URL of one host and no target_session_attrs as it is', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/test';
    expect(parseDatabaseUrl(url)).toEqual({ hosts: [{ host: '127.0.0.1', port: 5432 }], targetSessionAttrs: 'any', connectionString: url });
    const socket = 'postgres://postgres@/corridor?host=/var/run/postgresql';
    expect(parseDatabaseUrl(socket).connectionString).toBe(socket);
  });

  it('refuses a target_session_attrs Corridor cannot work with', () => {
    expect(() => parseDatabaseUrl('postgres://a:1,b:2/db?target_session_attrs=read-only')).toThrow(/not supported/);
  });

  it.skipIf(!onPostgres)('connects past a host that refuses to the next one that takes writes (PostgreSQL)', async () => {
    const pgdb = await freshPostgresDatabase();
    try {
      const real = new URL(pgdb.url);
      const dead = await freePort();
      const url = `postgres://${real.username}@127.0.0.1:${dead},${real.hostname}:${real.port || 5432}${real.pathname}?target_session_attrs=read-write`;
      const db = await connect({ databaseUrl: url, dataDir: 'memory://', poolMax: 2 });
      try {
        const [row] = await db.query<{ port: number; db: string }>('SELECT inet_server_port() AS port, current_database() AS db');
        expect(row).toEqual({ port: Number(real.port || 5432), db: real.pathname.slice(1) });
        expect(await db.tx(async (tx) => (await tx.query<{ n: number }>('SELECT 1 AS n'))[0]?.n)).toBe(1);
      } finally {
        await db.close();
      }
    } finally {
      await pgdb.drop();
    }
  });
});
