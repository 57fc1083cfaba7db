import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { connect, PgliteDb } from '../src/platform/db/db.js';
import { migrate } from '../src/platform/db/migrate.js';
import { CryptoBox } from '../src/platform/lib/crypto-box.js';
import { freshPostgresDatabase } from '../support/postgres.js';
import { generateTestPki } from './helpers/test-pki.js';
import { buildPrebuiltBin } from './helpers/prebuilt-bin.js';

/**
 * Runs once before the test workers start: makes a throwaway CA for the HTTPS webhook receiver and
 * has every worker trust it through NODE_EXTRA_CA_CERTS (read by node only at process start, which
 * is why it is set here, in the parent, before the workers are forked).
 */
export default async function setup(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-test-pki-'));
  const pki = generateTestPki(dir);
  const bundle = path.join(dir, 'trusted.pem');
  const existing = process.env.NODE_EXTRA_CA_CERTS;
  fs.writeFileSync(bundle, (existing && fs.existsSync(existing) ? fs.readFileSync(existing, 'utf8') + '\n' : '') + fs.readFileSync(pki.caFile, 'utf8'));
  process.env.NODE_EXTRA_CA_CERTS = bundle;
  process.env.CORRIDOR_TEST_PKI_DIR = dir;
  // One migrated embedded database, copied by every test app on PGlite (initdb once, not per app).
  const template = await PGlite.create();
  // The template holds no rows to seal: any key migrates it.
  await migrate(new PgliteDb(template), CryptoBox.fromKey(randomBytes(32)));
  const templateFile = path.join(dir, 'pglite-template.tar');
  fs.writeFileSync(templateFile, Buffer.from(await (await template.dumpDataDir('none')).arrayBuffer()));
  await template.close();
  process.env.CORRIDOR_TEST_PGLITE_TEMPLATE = templateFile;
  // On PostgreSQL, the same: one migrated database, which each test app's database is created from.
  const postgresUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined;
  const pgTemplate = postgresUrl ? await freshPostgresDatabase(postgresUrl, 'corridor_tpl') : undefined;
  if (pgTemplate) {
    const db = await connect({ databaseUrl: pgTemplate.url, dataDir: 'memory://', poolMax: 4 });
    try {
      await migrate(db, CryptoBox.fromKey(randomBytes(32)));
    } finally {
      await db.close();
    }
    process.env.CORRIDOR_TEST_PG_TEMPLATE = pgTemplate.name;
  }
  // The `corridor` command the tests start in child processes, transpiled once here rather than by
  // tsx's loader hooks in every process (test/helpers/prebuilt-bin.ts); support/processes.ts reads it.
  const prebuilt = await buildPrebuiltBin(path.resolve(import.meta.dirname, '..'));
  process.env.CORRIDOR_TEST_BIN = prebuilt.bin;
  process.once('exit', () => fs.rmSync(prebuilt.dir, { recursive: true, force: true }));
  // Workers may read the CA file lazily until they exit, so it is removed when this process exits.
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return async () => {
    await pgTemplate?.drop();
    if (existing === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = existing;
  };
}
