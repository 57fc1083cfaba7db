import type { CryptoBox } from '../../lib/crypto-box.js';
import type { Tx } from '../db.js';
import { CATALOG } from '../../../domains/corridors/catalog.js';

/**
 * The payout keeps the catalog rail chosen at its creation (`sepa_credit`, `swift`, `crypto`…), in
 * `payouts.catalog_rail`, so that nothing derives it again from the catalog later (the hand-over to
 * a connector read it back from the sealed beneficiary's catalog provider). A payout on a named route
 * was paid by that route's rail; an auto-routed one (`international`) by its catalog provider's,
 * which is inside the sealed beneficiary: SQL cannot open it, so this migration is code. It runs in
 * the migration's one transaction, a batch at a time.
 */

const BATCH = 500;

async function backfillAutoRouted(tx: Tx, box: CryptoBox): Promise<void> {
  const railOf = new Map(CATALOG.map((provider) => [provider.id, provider.route as string]));
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await tx.query<{ id: string; beneficiary: string }>(
      `SELECT id::text AS id, beneficiary FROM payouts WHERE catalog_rail IS NULL AND id > $1::uuid ORDER BY id LIMIT ${BATCH}`,
      [after],
    );
    if (rows.length === 0) return;
    const rails = rows.map((r) => {
      const provider = box.openJson<{ provider?: unknown }>(r.beneficiary).provider;
      return (typeof provider === 'string' ? railOf.get(provider) : undefined) ?? 'international';
    });
    await tx.query('UPDATE payouts p SET catalog_rail = r.rail FROM unnest($1::uuid[], $2::text[]) AS r(id, rail) WHERE p.id = r.id', [rows.map((r) => r.id), rails]);
    if (rows.length < BATCH) return;
    after = (rows[rows.length - 1] as { id: string }).id;
  }
}

export const payoutCatalogRail = {
  version: '0065_payout_catalog_rail',
  async up(tx: Tx, box: CryptoBox): Promise<void> {
    await tx.exec(`ALTER TABLE payouts ADD COLUMN catalog_rail text;
UPDATE payouts SET catalog_rail = route WHERE route <> 'international';`);
    await backfillAutoRouted(tx, box);
    await tx.exec('ALTER TABLE payouts ALTER COLUMN catalog_rail SET NOT NULL;');
  },
};
