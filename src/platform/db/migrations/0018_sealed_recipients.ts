import type { CryptoBox } from '../../lib/crypto-box.js';
import type { Tx } from '../db.js';

/**
 * Recipients' personal data sealed at rest (AES-256-GCM, lib/crypto-box), as applicants' is: a
 * beneficiary's optional personal fields (all but name, country, type and status, which lists
 * show) in `beneficiaries.personal_data`, an account's details in `beneficiary_accounts.data`, and
 * a payout's copy of its recipient and its sender in `payouts.beneficiary` and `payouts.sender`,
 * each sealed JSON text. SQL cannot encrypt with the application's key, so this migration is code:
 * it adds the sealed columns, seals every existing row into them in batches, then drops the
 * plaintext columns, all in the migration's one transaction (a crash midway rolls it all back and
 * the next start runs it again).
 */

const BATCH = 500;

/** One table's rows as JSON text to seal into `target`, read in id order. */
interface SealStep {
  table: string;
  target: string;
  /** A SQL expression of the row's plaintext as JSON text (null: nothing to seal). */
  plaintext: string;
}

const PERSONAL_FIELDS = `json_strip_nulls(json_build_object(
  'address', address, 'addressLine2', address_line2, 'city', city, 'countrySubdivision', country_subdivision,
  'dateOfBirth', to_char(date_of_birth, 'YYYY-MM-DD'), 'email', email, 'middleName', middle_name, 'notes', notes,
  'postcode', postcode, 'registrationNumber', registration_number))::text`;

const STEPS: readonly SealStep[] = [
  { table: 'beneficiaries', target: 'personal_data', plaintext: PERSONAL_FIELDS },
  { table: 'beneficiary_accounts', target: 'sealed_data', plaintext: 'data::text' },
  { table: 'payouts', target: 'sealed_beneficiary', plaintext: 'beneficiary::text' },
  { table: 'payouts', target: 'sealed_sender', plaintext: 'sender::text' },
];

const ADD_COLUMNS = `
ALTER TABLE beneficiaries ADD COLUMN personal_data text;
ALTER TABLE beneficiary_accounts ADD COLUMN sealed_data text;
ALTER TABLE payouts ADD COLUMN sealed_beneficiary text, ADD COLUMN sealed_sender text;`;

const DROP_PLAINTEXT = `
ALTER TABLE beneficiaries
  DROP COLUMN address, DROP COLUMN address_line2, DROP COLUMN city, DROP COLUMN country_subdivision,
  DROP COLUMN date_of_birth, DROP COLUMN email, DROP COLUMN middle_name, DROP COLUMN notes,
  DROP COLUMN postcode, DROP COLUMN registration_number,
  ALTER COLUMN personal_data SET NOT NULL;
ALTER TABLE beneficiary_accounts DROP COLUMN data;
ALTER TABLE beneficiary_accounts RENAME COLUMN sealed_data TO data;
ALTER TABLE beneficiary_accounts ALTER COLUMN data SET NOT NULL;
ALTER TABLE payouts DROP COLUMN beneficiary, DROP COLUMN sender;
ALTER TABLE payouts RENAME COLUMN sealed_beneficiary TO beneficiary;
ALTER TABLE payouts RENAME COLUMN sealed_sender TO sender;
ALTER TABLE payouts ALTER COLUMN beneficiary SET NOT NULL;`;

/** Seals one step's rows, a batch at a time in id order. */
async function sealRows(tx: Tx, box: CryptoBox, step: SealStep): Promise<void> {
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await tx.query<{ id: string; plaintext: string | null }>(
      `SELECT id::text AS id, ${step.plaintext} AS plaintext FROM ${step.table} WHERE id > $1::uuid ORDER BY id LIMIT ${BATCH}`,
      [after],
    );
    const sealed = rows.filter((r) => r.plaintext !== null);
    if (sealed.length) {
      await tx.query(
        `UPDATE ${step.table} t SET ${step.target} = s.sealed FROM unnest($1::uuid[], $2::text[]) AS s(id, sealed) WHERE t.id = s.id`,
        [sealed.map((r) => r.id), sealed.map((r) => box.encrypt(r.plaintext as string))],
      );
    }
    if (rows.length < BATCH) return;
    after = (rows[rows.length - 1] as { id: string }).id;
  }
}

export const sealedRecipients = {
  version: '0018_sealed_recipients',
  async up(tx: Tx, box: CryptoBox): Promise<void> {
    await tx.exec(ADD_COLUMNS);
    for (const step of STEPS) await sealRows(tx, box, step);
    await tx.exec(DROP_PLAINTEXT);
  },
};
