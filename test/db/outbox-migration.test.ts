import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/db.js';
import { listMigrations, migrate } from '../../src/platform/db/migrate.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { dispatchEvents } from '../../src/domains/webhooks/webhooks.repository.js';
import { blankDatabase } from '../helpers/app.js';

describe('migration 0030 moves the events not yet dispatched into the webhook outbox', () => {
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ db, close } = await blankDatabase());
  });
  afterAll(async () => {
    await close?.();
  });

  it('each deliverable one, in seq order, and the dispatcher then takes it; a dispatched or undeliverable one stays out', async () => {
    const box = CryptoBox.fromKey(randomBytes(32));
    const all = listMigrations();
    await migrate(db, box, all.filter((m) => m.version < '0030'));
    const workspace = randomUUID();
    await db.query(`INSERT INTO workspaces (id, name, country, enabled_currencies) VALUES ($1, 'Acme', 'GB', '{EUR}')`, [workspace]);
    const event = (id: string, dispatched: boolean, deliverable: boolean) =>
      db.query(
        `INSERT INTO events (id, workspace_id, type, data, deliverable, dispatched_at)
         VALUES ($1, $2, 'payout.paid', '{}', $3, CASE WHEN $4::boolean THEN now() END)`,
        [id, workspace, deliverable, dispatched],
      );
    await event('evt_waiting_1', false, true);
    await event('evt_sent', true, true);
    await event('evt_reverted', false, false);
    await event('evt_waiting_2', false, true);
    await migrate(db, box, all);
    expect(await db.query('SELECT workspace_id, event_id FROM event_outbox ORDER BY seq')).toEqual([
      { workspace_id: workspace, event_id: 'evt_waiting_1' },
      { workspace_id: workspace, event_id: 'evt_waiting_2' },
    ]);
    // No endpoint: the dispatcher takes them out of the outbox, creating no delivery.
    expect(await dispatchEvents(db, 10)).toEqual({ events: 2, endpointIds: [], leased: [], leaseId: null });
    expect(await db.query('SELECT 1 FROM event_outbox')).toEqual([]);
  });
});
