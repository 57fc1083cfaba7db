import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/db.js';
import { listMigrations, migrate } from '../../src/platform/db/migrate.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { CATALOG } from '../../src/domains/corridors/catalog.js';
import { blankDatabase } from '../helpers/app.js';

describe('migration 0065 gives every payout the catalog rail chosen at its creation', () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await blankDatabase());
  });
  afterAll(async () => {
    await close?.();
  });

  it("a payout on a named route keeps its route; an auto-routed one gets its catalog provider's rail, read from its sealed beneficiary", async () => {
    const box = CryptoBox.fromKey(randomBytes(32));
    const all = listMigrations();
    await migrate(db, box, all.filter((m) => m.version < '0065'));
    const workspace = randomUUID();
    await db.query(`INSERT INTO workspaces (id, name, country, enabled_currencies) VALUES ($1, 'Acme', 'GB', '{EUR}')`, [workspace]);
    await db.query(`INSERT INTO accounts (id, workspace_id, account_type, name, country, status) VALUES ($1, $1, 'master', 'Acme', 'GB', 'active')`, [workspace]);
    const provider = CATALOG.find((p) => p.route !== 'sepa_credit') ?? CATALOG[0];
    const payout = async (route: string, beneficiary: Record<string, unknown>) => {
      const id = randomUUID();
      await db.query(
        `INSERT INTO payouts (id, workspace_id, account_id, client_ref, status, currency, amount_minor, route, provider, beneficiary, funding_currency, funding_minor)
         VALUES ($1, $2, $2, $3, 'queued', 'EUR', 100, $4, 'simulated', $5, 'EUR', 100)`,
        [id, workspace, `ref-${id}`, route, box.sealJson(beneficiary)],
      );
      return id;
    };
    const named = await payout('sepa_credit', { name: 'Ada Lovelace' });
    const auto = await payout('international', { name: 'Grace Hopper', provider: provider?.id });
    const unknown = await payout('international', { name: 'No Provider' });
    await migrate(db, box, all);
    const rails = new Map((await db.query<{ id: string; catalog_rail: string }>('SELECT id, catalog_rail FROM payouts')).map((r) => [r.id, r.catalog_rail]));
    expect(rails.get(named)).toBe('sepa_credit');
    expect(rails.get(auto)).toBe(provider?.route);
    expect(rails.get(unknown)).toBe('international');
  });
});
