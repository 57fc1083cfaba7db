import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/db.js';
import { listMigrations, migrate } from '../../src/platform/db/migrate.js';
import { CryptoBox } from '../../src/platform/lib/crypto-box.js';
import { getBeneficiary } from '../../src/domains/beneficiaries/beneficiaries.service.js';
import { blankDatabase, createTestApp, type Caller, type TestApp } from '../helpers/app.js';
import { fund, payingWorkspace, ref } from '../payouts/helpers.js';

/**
 * Recipients' personal data is sealed at rest like applicants' (lib/crypto-box): a beneficiary's
 * optional personal fields, its accounts' details, and a payout's copy of the recipient and its
 * sender. Only what lists need (name, country, type, status) stays readable in the database.
 */

const SECRETS = {
  iban: 'DE44500105175407324931',
  dateOfBirth: '1961-07-13',
  address: '17 Sealed Lane',
  addressLine2: 'Flat Nine',
  city: 'Quietville',
  postcode: 'QV-4242',
  email: 'hidden.recipient@example.test',
  notes: 'prefers mornings',
  middleName: 'Zephyrine',
};
const SENDER = { type: 'individual', firstName: 'Grace', lastName: 'Hopperly', dateOfBirth: '1906-12-09', address: '5 Sender Road', city: 'Sendertown', country: 'DE' };
const BUSINESS_REG = 'HRB-SEALED-778899';

const INDIVIDUAL = {
  type: 'individual',
  name: 'Ada Lovelace',
  country: 'DE',
  address: SECRETS.address,
  addressLine2: SECRETS.addressLine2,
  city: SECRETS.city,
  postcode: SECRETS.postcode,
  email: SECRETS.email,
  notes: SECRETS.notes,
  middleName: SECRETS.middleName,
  dateOfBirth: SECRETS.dateOfBirth,
  accounts: [{ type: 'iban', currency: 'EUR', data: { iban: SECRETS.iban } }],
};

/** Every row of the table as JSON text, for a search of plaintext anywhere in it. */
async function rowsAsText(db: Db, table: 'beneficiaries' | 'beneficiary_accounts' | 'payouts', where: string, id: string): Promise<string> {
  const rows = await db.query<{ t: string }>(`SELECT row_to_json(x)::text AS t FROM ${table} x WHERE ${where} = $1`, [id]);
  expect(rows.length).toBeGreaterThan(0);
  return rows.map((r) => r.t).join('\n');
}

function expectNone(text: string, values: readonly string[]): void {
  for (const value of values) expect(text).not.toContain(value);
}

describe('recipient personal data at rest', () => {
  let t: TestApp;
  let c: Caller;
  beforeAll(async () => {
    t = await createTestApp();
    c = await payingWorkspace(t);
    await fund(c, 'EUR', '100');
  });
  afterAll(async () => t.close());

  it('seals a beneficiary\'s personal fields and its IBAN, and reads them back unchanged', async () => {
    const res = await c.request('POST', '/v1/beneficiaries', INDIVIDUAL);
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<Record<string, unknown> & { id: string; accounts: { id: string }[] }>();
    expect(created).toMatchObject({ ...INDIVIDUAL, accounts: [{ type: 'iban', currency: 'EUR', data: { iban: SECRETS.iban } }] });

    expectNone(await rowsAsText(t.ctx.db, 'beneficiaries', 'id', created.id), Object.values(SECRETS));
    expectNone(await rowsAsText(t.ctx.db, 'beneficiary_accounts', 'beneficiary_id', created.id), Object.values(SECRETS));
    // The name stays readable: lists show it.
    expect(await rowsAsText(t.ctx.db, 'beneficiaries', 'id', created.id)).toContain('Ada Lovelace');

    const read = await c.request('GET', `/v1/beneficiaries/${created.id}`);
    expect(read.json()).toEqual(created);
    const list = await c.request('GET', '/v1/beneficiaries');
    expect(list.json<{ data: unknown[] }>().data).toContainEqual(created);
    // Looking up by the account id still finds it.
    const rails = await c.request('GET', `/v1/payouts/available-rails?accountId=${created.accounts[0]!.id}`);
    expect(rails.statusCode, rails.body).toBe(200);
  });

  it('seals a business beneficiary\'s registration number', async () => {
    const res = await c.request('POST', '/v1/beneficiaries', { type: 'business', name: 'Sealed GmbH', country: 'DE', registrationNumber: BUSINESS_REG, accounts: INDIVIDUAL.accounts });
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json<{ id: string }>();
    expectNone(await rowsAsText(t.ctx.db, 'beneficiaries', 'id', id), [BUSINESS_REG]);
    expect((await c.request('GET', `/v1/beneficiaries/${id}`)).json()).toMatchObject({ registrationNumber: BUSINESS_REG });
  });

  it('seals a payout\'s sender and its copy of the recipient, to a saved and to a full beneficiary', async () => {
    const saved = (await c.request('POST', '/v1/beneficiaries', INDIVIDUAL)).json<{ id: string }>();
    for (const beneficiary of [{ id: saved.id }, INDIVIDUAL]) {
      const res = await c.request('POST', '/v1/payouts', { clientRef: ref(), amount: '1.00', currency: 'EUR', beneficiary, senderInfo: SENDER });
      expect(res.statusCode, res.body).toBe(201);
      const payout = res.json<{ id: string; beneficiaryId: string }>();
      expectNone(await rowsAsText(t.ctx.db, 'payouts', 'id', payout.id), [...Object.values(SECRETS), SENDER.lastName, SENDER.dateOfBirth, SENDER.address, SENDER.city]);
      expectNone(await rowsAsText(t.ctx.db, 'beneficiary_accounts', 'beneficiary_id', payout.beneficiaryId), [SECRETS.iban]);
      const read = await c.request('GET', `/v1/payouts/${payout.id}`);
      expect(read.json()).toEqual(payout);
      // What was stored opens to the sender and the recipient as validated.
      const [row] = await t.ctx.db.query<{ sender: string; beneficiary: string }>('SELECT sender, beneficiary FROM payouts WHERE id = $1', [payout.id]);
      expect(JSON.parse(t.ctx.box.decrypt(row!.sender))).toEqual(SENDER);
      expect(JSON.parse(t.ctx.box.decrypt(row!.beneficiary))).toMatchObject({ name: 'Ada Lovelace', dateOfBirth: SECRETS.dateOfBirth, accounts: [{ data: { iban: SECRETS.iban } }] });
    }
  });
});

describe('migration 0018 of plaintext recipients', () => {
  const before = listMigrations().filter((m) => m.version < '0018');
  let db: Db;
  let close: (() => Promise<void>) | undefined;
  const box = CryptoBox.fromKey(randomBytes(32));

  beforeAll(async () => {
    ({ db, close } = await blankDatabase());
    await migrate(db, box, before);
  });
  afterAll(async () => {
    await close?.();
  });

  /** Rows as an earlier release wrote them: every personal field in plain columns. */
  async function plaintextRows(): Promise<{ workspaceId: string; beneficiaryId: string; businessId: string; payoutId: string; accountRowId: string }> {
    const workspaceId = randomUUID();
    await db.query("INSERT INTO workspaces (id, name, country, enabled_currencies) VALUES ($1, 'Legacy', 'GB', '{EUR}')", [workspaceId]);
    await db.query("INSERT INTO accounts (id, workspace_id, account_type, name, country, status) VALUES ($1, $1, 'master', 'Legacy', 'GB', 'active')", [workspaceId]);
    const beneficiaryId = randomUUID();
    await db.query(
      `INSERT INTO beneficiaries (id, workspace_id, type, name, country, address, address_line2, city, postcode, email, notes, middle_name, date_of_birth, created_at)
       VALUES ($1, $2, 'individual', 'Ada Lovelace', 'DE', $3, $4, $5, $6, $7, $8, $9, $10::date, now() - interval '1 hour')`,
      [beneficiaryId, workspaceId, SECRETS.address, SECRETS.addressLine2, SECRETS.city, SECRETS.postcode, SECRETS.email, SECRETS.notes, SECRETS.middleName, SECRETS.dateOfBirth],
    );
    const businessId = randomUUID();
    await db.query("INSERT INTO beneficiaries (id, workspace_id, type, name, country, registration_number) VALUES ($1, $2, 'business', 'Sealed GmbH', 'DE', $3)", [businessId, workspaceId, BUSINESS_REG]);
    const accountRowId = randomUUID();
    await db.query(
      "INSERT INTO beneficiary_accounts (id, beneficiary_id, workspace_id, position, type, currency, data) VALUES ($1, $2, $3, 0, 'iban', 'EUR', $4::jsonb)",
      [accountRowId, beneficiaryId, workspaceId, JSON.stringify({ iban: SECRETS.iban })],
    );
    const payoutId = randomUUID();
    await db.query(
      `INSERT INTO payouts (id, workspace_id, account_id, client_ref, status, currency, amount_minor, route, provider, beneficiary_id, beneficiary, sender, funding_currency, funding_minor)
       VALUES ($1, $2, $2, 'legacy-1', 'failed', 'EUR', 100, 'sepa', 'simulated', $3, $4::jsonb, $5::jsonb, 'EUR', 100)`,
      [payoutId, workspaceId, beneficiaryId, JSON.stringify({ ...INDIVIDUAL, provider: 'sepa' }), JSON.stringify(SENDER)],
    );
    return { workspaceId, beneficiaryId, businessId, payoutId, accountRowId };
  }

  it('seals the rows an earlier release left in plaintext, and they read back unchanged', async () => {
    const legacy = await plaintextRows();
    expect(await rowsAsText(db, 'beneficiaries', 'id', legacy.beneficiaryId)).toContain(SECRETS.dateOfBirth);

    // Past one batch of the migration (500 rows): the walk in id order reaches every row.
    await db.query(
      `INSERT INTO beneficiaries (id, workspace_id, type, name, country, city)
       SELECT gen_random_uuid(), $1, 'individual', 'Many ' || n, 'DE', 'Batchtown-' || n FROM generate_series(1, 1100) AS n`,
      [legacy.workspaceId],
    );

    // A failure midway (here the third seal) rolls the whole migration back: nothing half-sealed, nothing recorded.
    let seals = 0;
    const failing = Object.create(box) as CryptoBox;
    failing.encrypt = (plaintext: string) => {
      if (++seals === 3) throw new Error('crashed while sealing');
      return box.encrypt(plaintext);
    };
    await expect(migrate(db, failing)).rejects.toThrow(/crashed while sealing/);
    expect(await rowsAsText(db, 'beneficiaries', 'id', legacy.beneficiaryId)).toContain(SECRETS.dateOfBirth);
    expect(await db.query("SELECT 1 FROM schema_migrations WHERE version = '0018_sealed_recipients'")).toHaveLength(0);

    expect(await migrate(db, box)).toContain('0018_sealed_recipients');
    expectNone(await rowsAsText(db, 'beneficiaries', 'workspace_id', legacy.workspaceId), ['Batchtown-']);
    const many = await db.query<{ personal_data: string }>("SELECT personal_data FROM beneficiaries WHERE name LIKE 'Many %'");
    expect(many).toHaveLength(1100);
    expect(new Set(many.map((r) => box.openJson<{ city: string }>(r.personal_data).city)).size).toBe(1100);

    expectNone(await rowsAsText(db, 'beneficiaries', 'workspace_id', legacy.workspaceId), [...Object.values(SECRETS), BUSINESS_REG]);
    expectNone(await rowsAsText(db, 'beneficiary_accounts', 'workspace_id', legacy.workspaceId), [SECRETS.iban]);
    expectNone(await rowsAsText(db, 'payouts', 'workspace_id', legacy.workspaceId), [...Object.values(SECRETS), SENDER.lastName, SENDER.dateOfBirth]);

    const ada = await getBeneficiary(db, box, legacy.workspaceId, legacy.beneficiaryId);
    const { accounts: _accounts, ...personal } = INDIVIDUAL;
    expect(ada).toMatchObject({ ...personal, accounts: [{ id: legacy.accountRowId, type: 'iban', currency: 'EUR', data: { iban: SECRETS.iban } }] });
    expect(await getBeneficiary(db, box, legacy.workspaceId, legacy.businessId)).toMatchObject({ type: 'business', registrationNumber: BUSINESS_REG });
    expect(Object.keys(await getBeneficiary(db, box, legacy.workspaceId, legacy.businessId))).not.toContain('dateOfBirth');
    const [payout] = await db.query<{ sender: string; beneficiary: string }>('SELECT sender, beneficiary FROM payouts WHERE id = $1', [legacy.payoutId]);
    expect(JSON.parse(box.decrypt(payout!.sender))).toEqual(SENDER);
    expect(JSON.parse(box.decrypt(payout!.beneficiary))).toEqual({ ...INDIVIDUAL, provider: 'sepa' });
    expect(await migrate(db, box)).toEqual([]);
  });
});
