import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { operator, OPERATOR_KEY, type TestApp } from '../helpers/app.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/sanctions/', import.meta.url));
export const fixture = (file: string): Buffer => fs.readFileSync(`${FIXTURES}${file}`);
/** OFAC's CSV set as one body: SDN.CSV, ALT.CSV and ADD.CSV concatenated. */
export const ofacCsvSet = (): Buffer => Buffer.concat([fixture('ofac/SDN.CSV'), fixture('ofac/ALT.CSV'), fixture('ofac/ADD.CSV')]);

export const LIST_FILES = {
  'ofac-sdn': { body: ofacCsvSet, type: 'text/csv' },
  un: { body: () => fixture('un/consolidated.xml'), type: 'application/xml' },
  eu: { body: () => fixture('eu/sanctions.xml'), type: 'application/xml' },
  'uk-ofsi': { body: () => fixture('uk/ConList.csv'), type: 'text/csv' },
} as const;

let keys = 0;

/** Loads a list file through the operator API (POST, raw body, Idempotency-Key). */
export async function loadList(t: TestApp, list: string, body: Buffer, type = 'application/octet-stream') {
  return t.app.inject({
    method: 'POST',
    url: `/operator/v1/screening/lists/${list}/versions`,
    headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': type, 'idempotency-key': `load-${Date.now()}-${++keys}` },
    payload: body,
  });
}

export async function loadAll(t: TestApp): Promise<void> {
  for (const [list, f] of Object.entries(LIST_FILES)) {
    const res = await loadList(t, list, f.body(), f.type);
    expect(res.statusCode, res.body).toBe(201);
  }
}

export async function operatorPost(t: TestApp, url: string, body: unknown = {}) {
  return operator(t.app, 'POST', url, body);
}
