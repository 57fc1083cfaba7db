import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A connectors file (CORRIDOR_CONNECTORS_FILE) with this content, in a temporary directory. */
export function connectorsFile(content: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-connectors-')), 'connectors.json');
  fs.writeFileSync(file, JSON.stringify(content));
  return file;
}

export const BANK_ROUTES = { sepa_credit: 'bank', sepa_inst: 'bank', swift: 'bank' };

/** A SWIFT beneficiary in Switzerland paid in USD, with a structured address. */
export const GRACE = {
  type: 'individual',
  name: 'Grace Hopper',
  country: 'CH',
  address: 'Bahnhofstrasse 1',
  city: 'Zurich',
  postcode: '8001',
  accounts: [{ type: 'iban', currency: 'USD', data: { iban: 'CH9300762011623852957', bic: 'UBSWCHZH80A' } }],
};

