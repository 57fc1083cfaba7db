import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { IBANS, mobileNumber } from '../helpers/corridor-fixtures.js';

let t: TestApp;
let acme: Caller;
let globex: Caller;

beforeAll(async () => {
  t = await createTestApp();
  acme = await newWorkspace(t.app, { name: 'Acme Ltd', country: 'GB' });
  globex = await newWorkspace(t.app, { name: 'Globex Inc', country: 'US' });
});
afterAll(async () => t.close());

interface Beneficiary {
  id: string;
  accountId?: string;
  type: string;
  status: string;
  name: string;
  country: string;
  accounts: { id: string; type: string; currency: string; country?: string; data: Record<string, string> }[];
  dateOfBirth?: string;
  city?: string;
  notes?: string;
  email?: string;
  createdAt: string;
  updatedAt: string;
}
interface Details {
  statusCode: number;
  message: string;
  error: string;
  details: { field: string; message: string; code?: string }[];
}

const EUR_IBAN = { type: 'iban', currency: 'EUR', data: { iban: IBANS.DE } };
const ADA = { name: 'Ada Lovelace', country: 'DE', accounts: [EUR_IBAN] };

async function create(body: Record<string, unknown>, c: Caller = acme, headers: Record<string, string> = {}): Promise<Beneficiary> {
  const res = await c.request('POST', '/v1/beneficiaries', body, headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Beneficiary>();
}

/** A 400 validation envelope: its entries as [field, code]. */
function refused(res: LightMyRequestResponse): Details {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json<Details>();
  expect(body).toMatchObject({ statusCode: 400, error: 'BAD_REQUEST', details: expect.any(Array) });
  expect(body.message).toBe(body.details.map((d) => d.message).join('; '));
  return body;
}
const entries = (body: Details) => body.details.map((d) => [d.field, d.code ?? null]);

/** The embedded database's clock ticks in milliseconds: space rows whose order a test observes. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3));

describe('POST /v1/beneficiaries', () => {
  it('creates an individual by default, with server-assigned account ids and every field it was given', async () => {
    const res = await acme.request('POST', '/v1/beneficiaries', {
      ...ADA,
      address: '12 Unter den Linden',
      addressLine2: 'Hinterhaus',
      city: 'Berlin',
      countrySubdivision: 'BE',
      dateOfBirth: '1985-12-10',
      email: 'ada@example.com',
      middleName: 'King',
      notes: 'Our engineer',
      postcode: '10117',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json<Beneficiary>();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'individual',
      status: 'active',
      name: 'Ada Lovelace',
      country: 'DE',
      accounts: [{ id: expect.stringMatching(/^[0-9a-f-]{36}$/), type: 'iban', currency: 'EUR', data: { iban: IBANS.DE } }],
      address: '12 Unter den Linden',
      addressLine2: 'Hinterhaus',
      city: 'Berlin',
      countrySubdivision: 'BE',
      dateOfBirth: '1985-12-10',
      email: 'ada@example.com',
      middleName: 'King',
      notes: 'Our engineer',
      postcode: '10117',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(body.accounts[0]?.id).not.toBe(body.id);
    const read = await acme.request('GET', `/v1/beneficiaries/${body.id}`);
    expect(read.json()).toEqual(body);
  });

  it('creates a business with its registration number, omitting unset fields', async () => {
    const body = await create({
      type: 'business',
      name: 'Analytical Engines Ltd',
      country: 'GB',
      registrationNumber: '01234567',
      accounts: [{ type: 'bank_account', currency: 'GBP', data: { accountNumber: '31926819', sortCode: '601613', bankName: 'NatWest' } }],
    });
    expect(Object.keys(body).sort()).toEqual(['accounts', 'country', 'createdAt', 'id', 'name', 'registrationNumber', 'status', 'type', 'updatedAt']);
    expect(body).toMatchObject({ type: 'business', registrationNumber: '01234567' });
  });

  it('stores an IBAN without spaces, upper-cased', async () => {
    const body = await create({ ...ADA, accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx' } }] });
    expect(body.accounts[0]?.data).toEqual({ iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' });
  });

  it('accepts every field at its maximum length', async () => {
    const body = await create({
      ...ADA,
      name: `Ada ${'L'.repeat(96)}`,
      address: 'a'.repeat(200),
      addressLine2: 'b'.repeat(200),
      city: 'c'.repeat(100),
      countrySubdivision: 'd'.repeat(50),
      middleName: 'e'.repeat(100),
      notes: 'f'.repeat(500),
      postcode: 'g'.repeat(20),
    });
    expect(body.name).toHaveLength(100);
  });

  it('refuses each field beyond its bounds, naming it', async () => {
    for (const [field, value] of [
      ['name', 'A'],
      ['name', 'A'.repeat(101)],
      ['address', 'a'.repeat(201)],
      ['addressLine2', 'b'.repeat(201)],
      ['city', 'c'.repeat(101)],
      ['countrySubdivision', 'd'.repeat(51)],
      ['middleName', 'e'.repeat(101)],
      ['notes', 'f'.repeat(501)],
      ['postcode', 'g'.repeat(21)],
      ['registrationNumber', 'h'.repeat(101)],
      ['country', 'DEU'],
      ['country', 'de'],
      ['email', 'not-an-email'],
      ['dateOfBirth', '1990-02-30'],
      ['dateOfBirth', '10/12/1985'],
      ['type', 'trust'],
    ] as const) {
      const body = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, [field]: value }));
      expect(body.details.map((d) => d.field), `${field}=${value}`).toEqual([field]);
      expect(body.details[0]?.code).toBeUndefined();
    }
  });

  it('requires accounts, country and name, and bounds the accounts', async () => {
    const body = refused(await acme.request('POST', '/v1/beneficiaries', { type: 'individual' }));
    expect(body.details.map((d) => d.message)).toEqual(['accounts is required', 'country is required', 'name is required']);
    refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: [] }));
    refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: Array.from({ length: 11 }, () => EUR_IBAN) }));
    const badType = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: [{ ...EUR_IBAN, type: 'cheque' }] }));
    expect(badType.details[0]?.field).toBe('accounts.0.type');
  });

  it('never takes a dateOfBirth for a business, nor a registrationNumber for an individual', async () => {
    const business = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, type: 'business', name: 'Acme GmbH', dateOfBirth: '1990-01-01' }));
    expect(business.details).toEqual([{ field: 'dateOfBirth', message: 'dateOfBirth is not accepted for a business beneficiary' }]);
    const person = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, registrationNumber: 'HRB 1234' }));
    expect(person.details).toEqual([{ field: 'registrationNumber', message: 'registrationNumber is accepted for a business beneficiary only' }]);
    const future = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, dateOfBirth: '2999-01-01' }));
    expect(future.details[0]?.field).toBe('dateOfBirth');
  });

  it("runs recipient validation for each account's corridor, with the spec's codes", async () => {
    const iban = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: [{ ...EUR_IBAN, data: { iban: 'DE89370400440532013001' } }] }));
    expect(iban).toMatchObject({
      message: 'accounts.0.data.iban is not a valid IBAN: its country code or check digits are wrong',
      details: [{ field: 'accounts.0.data.iban', code: 'INVALID_IBAN' }],
    });
    expect(entries(refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, name: 'Madonna' })))).toEqual([['name', 'MISSING_BENEFICIARY_NAME']]);
    const usdAbroad = { type: 'bank_account', currency: 'USD', data: { accountNumber: 'DE1234567', swiftCode: 'COBADEFF' } };
    expect(entries(refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: [usdAbroad] })))).toEqual([
      ['address', 'BENEFICIARY_INCOMPLETE'],
      ['city', 'BENEFICIARY_INCOMPLETE'],
    ]);
    const us = { type: 'bank_account', currency: 'USD', data: { accountNumber: '12', routingNumber: '021000022' } };
    expect(entries(refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, country: 'US', accounts: [us] })))).toEqual([
      ['accounts.0.data.accountNumber', 'INVALID_ACCOUNT_NUMBER'],
      ['accounts.0.data.routingNumber', 'INVALID_ROUTING_NUMBER'],
    ]);
    expect(entries(refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, country: 'US', accounts: [{ type: 'bank_account', currency: 'USD', data: {} }] })))).toEqual([
      ['accounts.0.data.accountNumber', 'MISSING_BANK_ACCOUNT_DETAILS'],
      ['accounts.0.data.routingNumber', 'MISSING_BANK_ACCOUNT_DETAILS'],
    ]);
    const xofInGhana = { type: 'mobile_money', currency: 'XOF', data: { phoneNumber: mobileNumber('GH'), network: 'mtn' } };
    expect(entries(refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, country: 'GH', accounts: [xofInGhana] })))).toEqual([
      ['accounts.0.country', 'UNSUPPORTED_CORRIDOR'],
    ]);
    const momo = { type: 'mobile_money', currency: 'XOF', data: { phoneNumber: mobileNumber('SN'), network: 'orange' } };
    expect(entries(refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, country: 'CI', accounts: [momo] })))).toEqual([
      ['accounts.0.data.phoneNumber', 'INVALID_ACCOUNT_NUMBER'],
    ]);
    const wallet = { type: 'crypto', currency: 'USDT', data: { network: 'tron', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } };
    expect(entries(refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: [wallet] })))).toEqual([['accounts.0.data.address', 'INVALID_ACCOUNT_NUMBER']]);
  });

  it('refuses Nigerian account details with one uncoded entry on accounts.N.data naming each failing field', async () => {
    const ng = { type: 'bank_account', currency: 'NGN', data: { bankCode: '4', crAccount: '0690000031' } };
    const body = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, country: 'NG', accounts: [EUR_IBAN, ng] }));
    expect(body.details).toEqual([
      { field: 'accounts.1.data', message: 'accounts.1.data: bankCode must be a CBN bank code of 3, 5 or 6 digits' },
    ]);
    const digit = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, country: 'NG', accounts: [{ ...ng, data: { bankCode: '044', crAccount: '0690000031' } }] }));
    expect(digit.details).toEqual([{ field: 'accounts.0.data', message: 'accounts.0.data: crAccount fails the NUBAN check digit for bankCode' }]);
    const ok = await create({ ...ADA, country: 'NG', accounts: [{ ...ng, data: { bankCode: '044', crAccount: '0690000032' } }] });
    expect(ok.accounts[0]?.data).toEqual({ bankCode: '044', crAccount: '0690000032' });
  });

  it('reports corridor-required fields of every account before the structure of any', async () => {
    const badIban = { ...EUR_IBAN, data: { iban: 'DE89370400440532013001' } };
    const usdAbroad = { type: 'bank_account', currency: 'USD', data: { accountNumber: 'DE1234567', swiftCode: 'COBADEFF' } };
    const first = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: [badIban, usdAbroad] }));
    expect(entries(first)).toEqual([
      ['address', 'BENEFICIARY_INCOMPLETE'],
      ['city', 'BENEFICIARY_INCOMPLETE'],
    ]);
    const second = refused(await acme.request('POST', '/v1/beneficiaries', { ...ADA, address: 'Unter den Linden 1', city: 'Berlin', accounts: [badIban, usdAbroad] }));
    expect(entries(second)).toEqual([['accounts.0.data.iban', 'INVALID_IBAN']]);
  });

  it('accepts mobile money and crypto accounts with E.164 numbers and valid addresses', async () => {
    const body = await create({
      name: 'Aminata Diallo',
      country: 'SN',
      accounts: [
        { type: 'mobile_money', currency: 'XOF', data: { phoneNumber: mobileNumber('SN'), network: 'wave' } },
        { type: 'crypto', currency: 'USDC', data: { network: 'solana', address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' } },
      ],
    });
    expect(body.accounts.map((a) => a.type)).toEqual(['mobile_money', 'crypto']);
  });

  it('refuses data keys it does not know, naming them, and saves nothing', async () => {
    const before = (await acme.request('GET', '/v1/beneficiaries')).json<{ data: unknown[] }>().data.length;
    const res = await acme.request('POST', '/v1/beneficiaries', { ...ADA, accounts: [{ ...EUR_IBAN, data: { iban: IBANS.DE, pin: '1234' } }] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain('UNKNOWN_FIELD');
    expect(res.body).toContain('accounts.0.data.pin');
    expect((await acme.request('GET', '/v1/beneficiaries')).json<{ data: unknown[] }>().data.length).toBe(before);
  });

  it('references an existing beneficiary by id (200), ignoring the other fields', async () => {
    const ada = await create(ADA);
    const res = await acme.request('POST', '/v1/beneficiaries', { id: ada.id, name: 'Someone Else' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(ada);
    expect((await acme.request('POST', '/v1/beneficiaries', { id: randomUUID() })).statusCode).toBe(404);
    expect((await globex.request('POST', '/v1/beneficiaries', { id: ada.id })).statusCode).toBe(404);
  });

  it('replays the first answer for a repeated Idempotency-Key and creates one beneficiary', async () => {
    const headers = { 'idempotency-key': `ben-${randomUUID()}` };
    const first = await acme.request('POST', '/v1/beneficiaries', ADA, headers);
    const again = await acme.request('POST', '/v1/beneficiaries', ADA, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const reused = await acme.request('POST', '/v1/beneficiaries', { ...ADA, name: 'Grace Hopper' }, headers);
    expect(reused.statusCode).toBe(422);
  });

  it('needs write:beneficiaries', async () => {
    const reader = await newWorkspace(t.app, { name: 'Reader Ltd', scopes: ['read:beneficiaries'] });
    const res = await reader.request('POST', '/v1/beneficiaries', ADA);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'METHOD_NOT_ENTITLED' });
    expect((await reader.request('GET', '/v1/beneficiaries')).statusCode).toBe(200);
  });
});

describe('sub-accounts and the roll-up', () => {
  let world: Caller;
  let subA: string;
  let subB: string;
  let own: Beneficiary;
  let ofA: Beneficiary;
  let ofB: Beneficiary;

  beforeAll(async () => {
    world = await newWorkspace(t.app, { name: 'World Ltd' });
    subA = (await world.request('POST', '/v1/accounts', { name: 'Shop A', country: 'DE' })).json<{ id: string }>().id;
    subB = (await world.request('POST', '/v1/accounts', { name: 'Shop B', country: 'FR' })).json<{ id: string }>().id;
    own = await create({ ...ADA, name: 'Own Person' }, world);
    await tick();
    ofA = await create({ ...ADA, name: 'Alice Shopper' }, world, { 'service-account-id': subA });
    await tick();
    ofB = await create({ ...ADA, name: 'Bob Shopper' }, world, { 'service-account-id': subB });
  });

  it("marks a sub-account's beneficiary with its accountId, and the workspace's own without", () => {
    expect(ofA.accountId).toBe(subA);
    expect(ofB.accountId).toBe(subB);
    expect(own.accountId).toBeUndefined();
  });

  it('lists the workspace and every sub-account without Service-Account-Id, newest first', async () => {
    const res = await world.request('GET', '/v1/beneficiaries');
    expect(res.statusCode).toBe(200);
    const page = res.json<{ object: string; data: Beneficiary[]; hasMore: boolean; nextCursor: string | null }>();
    expect(page).toMatchObject({ object: 'beneficiary.list', hasMore: false, nextCursor: null });
    expect(page.data.map((b) => [b.name, b.accountId ?? null])).toEqual([
      ['Bob Shopper', subB],
      ['Alice Shopper', subA],
      ['Own Person', null],
    ]);
  });

  it("lists only that sub-account's with Service-Account-Id", async () => {
    const page = (await world.request('GET', '/v1/beneficiaries', undefined, { 'service-account-id': subA })).json<{ data: Beneficiary[] }>();
    expect(page.data.map((b) => b.id)).toEqual([ofA.id]);
  });

  it('pages with a cursor', async () => {
    const first = (await world.request('GET', '/v1/beneficiaries?limit=2')).json<{ data: Beneficiary[]; hasMore: boolean; nextCursor: string }>();
    expect(first.data.map((b) => b.id)).toEqual([ofB.id, ofA.id]);
    expect(first.hasMore).toBe(true);
    const second = (await world.request('GET', `/v1/beneficiaries?limit=2&cursor=${first.nextCursor}`)).json<{ data: Beneficiary[]; hasMore: boolean }>();
    expect(second.data.map((b) => b.id)).toEqual([own.id]);
    expect(second.hasMore).toBe(false);
    expect((await world.request('GET', '/v1/beneficiaries?limit=101')).statusCode).toBe(400);
  });

  it("reads one beneficiary within the caller's scope only", async () => {
    expect((await world.request('GET', `/v1/beneficiaries/${ofA.id}`)).statusCode).toBe(200);
    expect((await world.request('GET', `/v1/beneficiaries/${ofA.id}`, undefined, { 'service-account-id': subA })).statusCode).toBe(200);
    expect((await world.request('GET', `/v1/beneficiaries/${ofA.id}`, undefined, { 'service-account-id': subB })).statusCode).toBe(404);
    expect((await world.request('PUT', `/v1/beneficiaries/${own.id}`, { notes: 'x' }, { 'service-account-id': subB })).statusCode).toBe(404);
    expect((await acme.request('GET', `/v1/beneficiaries/${own.id}`)).statusCode).toBe(404);
    expect((await acme.request('GET', '/v1/beneficiaries')).json<{ data: Beneficiary[] }>().data.some((b) => b.id === own.id)).toBe(false);
  });

  it('refuses a Service-Account-Id the credential does not own with not_account_owner', async () => {
    for (const [method, url, body] of [
      ['POST', '/v1/beneficiaries', ADA],
      ['GET', '/v1/beneficiaries', undefined],
      ['GET', `/v1/beneficiaries/${ofA.id}`, undefined],
    ] as const) {
      const res = await acme.request(method, url, body, { 'service-account-id': subA });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ statusCode: 403, code: 'not_account_owner', message: 'not_account_owner' });
    }
  });
});

describe('PUT /v1/beneficiaries/{id}', () => {
  it('adds dateOfBirth, keeping every other field', async () => {
    const ada = await create({ ...ADA, city: 'Berlin', notes: 'n' });
    const res = await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { dateOfBirth: '1985-12-10' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<Beneficiary>();
    expect(body).toEqual({ ...ada, dateOfBirth: '1985-12-10', updatedAt: expect.any(String) });
    expect((await acme.request('GET', `/v1/beneficiaries/${ada.id}`)).json()).toEqual(body);
  });

  it('clears an optional field with null', async () => {
    const ada = await create({ ...ADA, city: 'Berlin', email: 'ada@example.com' });
    const body = (await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { city: null })).json<Beneficiary>();
    expect(body.city).toBeUndefined();
    expect(body.email).toBe('ada@example.com');
    refused(await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { name: null }));
  });

  it('validates the beneficiary as it stands after the update', async () => {
    const ada = await create(ADA);
    expect(entries(refused(await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { name: 'Madonna' })))).toEqual([['name', 'MISSING_BENEFICIARY_NAME']]);
    const toBusiness = refused(await acme.request('PUT', `/v1/beneficiaries/${(await create({ ...ADA, dateOfBirth: '1985-12-10' })).id}`, { type: 'business' }));
    expect(toBusiness.details[0]?.field).toBe('dateOfBirth');
    const withDob = await create({ ...ADA, dateOfBirth: '1985-12-10' });
    const ok = (await acme.request('PUT', `/v1/beneficiaries/${withDob.id}`, { type: 'business', name: 'Lovelace GmbH', dateOfBirth: null })).json<Beneficiary>();
    expect(ok).toMatchObject({ type: 'business', name: 'Lovelace GmbH' });
    expect(ok.dateOfBirth).toBeUndefined();
    expect((await acme.request('GET', `/v1/beneficiaries/${ada.id}`)).json<Beneficiary>().name).toBe('Ada Lovelace');
  });

  it('replaces accounts: an item with an existing id keeps it, new items get new ids, the rest are removed', async () => {
    const ada = await create({ ...ADA, accounts: [EUR_IBAN, { type: 'crypto', currency: 'USDC', data: { network: 'ethereum', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } }] });
    const [iban, wallet] = ada.accounts;
    const res = await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, {
      accounts: [
        { id: wallet!.id, type: 'crypto', currency: 'USDC', data: { network: 'polygon', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' } },
        { type: 'iban', currency: 'EUR', data: { iban: IBANS.FR } },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<Beneficiary>();
    expect(body.accounts[0]).toEqual({ id: wallet!.id, type: 'crypto', currency: 'USDC', data: { network: 'polygon', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' } });
    expect(body.accounts[1]?.id).not.toBe(iban!.id);
    expect((await acme.request('GET', `/v1/payouts/available-rails?accountId=${iban!.id}`)).statusCode).toBe(404);
    const unknown = refused(await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { accounts: [{ id: iban!.id, ...EUR_IBAN }] }));
    expect(unknown.details).toEqual([{ field: 'accounts.0.id', message: 'accounts.0.id does not name an account of this beneficiary' }]);
  });

  it('answers 404 for an unknown beneficiary', async () => {
    expect((await acme.request('PUT', `/v1/beneficiaries/${randomUUID()}`, { notes: 'x' })).statusCode).toBe(404);
  });
});

describe('statuses', () => {
  it('deactivates on DELETE (idempotent), keeps it readable and reactivates with PUT', async () => {
    const ada = await create(ADA);
    const del = await acme.request('DELETE', `/v1/beneficiaries/${ada.id}`);
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({ id: ada.id, status: 'inactive' });
    expect((await acme.request('DELETE', `/v1/beneficiaries/${ada.id}`)).json()).toMatchObject({ status: 'inactive' });
    expect((await acme.request('GET', `/v1/beneficiaries/${ada.id}`)).json()).toMatchObject({ status: 'inactive' });
    const inactive = (await acme.request('GET', '/v1/beneficiaries?status=inactive&limit=100')).json<{ data: Beneficiary[] }>();
    expect(inactive.data.some((b) => b.id === ada.id)).toBe(true);
    expect(inactive.data.every((b) => b.status === 'inactive')).toBe(true);
    expect((await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { status: 'active' })).json()).toMatchObject({ status: 'active' });
    expect((await acme.request('DELETE', `/v1/beneficiaries/${randomUUID()}`)).statusCode).toBe(404);
  });

  it('leaves a suspended beneficiary to the operator', async () => {
    const ada = await create(ADA);
    const suspended = await operator(t.app, 'PUT', `/operator/v1/beneficiaries/${ada.id}/status`, { status: 'suspended' });
    expect(suspended.statusCode).toBe(200);
    expect(suspended.json()).toMatchObject({ status: 'suspended' });
    for (const res of [
      await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { status: 'active' }),
      await acme.request('DELETE', `/v1/beneficiaries/${ada.id}`),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'BENEFICIARY_SUSPENDED' });
    }
    expect((await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { notes: 'under review' })).json()).toMatchObject({ status: 'suspended', notes: 'under review' });
    refused(await acme.request('PUT', `/v1/beneficiaries/${ada.id}`, { status: 'suspended' }));
    expect((await operator(t.app, 'PUT', `/operator/v1/beneficiaries/${ada.id}/status`, { status: 'active' })).json()).toMatchObject({ status: 'active' });
    expect((await operator(t.app, 'PUT', `/operator/v1/beneficiaries/${randomUUID()}/status`, { status: 'active' })).statusCode).toBe(404);
  });
});
