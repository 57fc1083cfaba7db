/**
 * The catalogue matches the server (issue 38 point 2): each scenario below makes the server answer
 * one documented error for real, and the answer's code, status and body shape are compared with the
 * catalogue's entry (GET /docs/errors.json): the status is one the entry lists, the body is the shape
 * the entry names (problem details, the legacy envelope, the validation envelope's listed fields, the
 * token endpoint's RFC 6749 body), and a message a person reads is in words, not a code or a schema path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { messageInWords } from '../../src/platform/http/error-catalogue.js';
import { createTestApp, newWorkspace, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, fund, payingWorkspace, ref, saveBeneficiary } from '../payouts/helpers.js';

type Json = Record<string, unknown>;
interface Entry {
  code: string;
  status: number[];
  shape: 'route' | 'problem' | 'validation' | 'oauth';
}

let t: TestApp;
let c: Caller;
let narrow: Caller;
let beneficiaryId: string;
let catalogue: Map<string, Entry>;

beforeAll(async () => {
  t = await createTestApp();
  c = await payingWorkspace(t);
  narrow = await newWorkspace(t.app, { scopes: ['read:payouts'] });
  await fund(c, 'EUR', '100');
  beneficiaryId = await saveBeneficiary(c, ADA);
  catalogue = new Map((await t.app.inject({ method: 'GET', url: '/docs/errors.json' })).json<{ data: Entry[] }>().data.map((e) => [e.code, e]));
}, 300_000);
afterAll(async () => {
  await t.close();
});

const PROBLEM_KEYS = ['type', 'title', 'status', 'code', 'detail', 'category', 'retryable', 'request_id'];
const LEGACY_KEYS = ['statusCode', 'message', 'error', 'timestamp', 'path'];

/** A sentence, not a bare code, an Ajv keyword phrase or a JSON pointer. */
function expectWords(text: unknown, what: string): void {
  expect(typeof text, what).toBe('string');
  const s = String(text);
  expect(s, what).toMatch(/[a-z]{2,} [a-z]{2,}/i);
  expect(s, what).not.toMatch(/must be equal to constant|must match a schema in anyOf|#\/|\/properties\//);
}

/** The answer is the entry's code, with a status it lists, in the shape it names. */
function expectAsCatalogued(res: LightMyRequestResponse, code: string): void {
  const entry = catalogue.get(code);
  expect(entry, `${code} is catalogued`).toBeDefined();
  if (!entry) return;
  expect(entry.status, `${code}: ${res.statusCode} ${res.body.slice(0, 300)}`).toContain(res.statusCode);
  const body = res.json<Json>();
  if (entry.shape === 'oauth') {
    expect(body.error).toBe(code);
    // The spec pins access_denied's description as `Unauthorized` (its words are the CLI's and the SDK's hint).
    if (code !== 'access_denied') expectWords(body.error_description, `${code} error_description`);
    expect(body.error_uri).toBe(`${t.config.publicBaseUrl}/docs/errors#${code}`);
    return;
  }
  if (res.statusCode === 401 && body.code === undefined && body.error === undefined) {
    // The catalogue's UNAUTHORIZED: a 401 without code carries only statusCode and message (the spec's bare 401).
    expect(Object.keys(body).sort()).toEqual(['message', 'statusCode']);
    expectWords(body.message, `${code} message`);
    return;
  }
  const problem = /^application\/problem\+json/.test(String(res.headers['content-type']));
  if (entry.shape === 'problem') expect(problem, `${code} comes as problem details`).toBe(true);
  if (problem) {
    for (const key of PROBLEM_KEYS) expect(body, `${code} problem details`).toHaveProperty(key);
    expect(body.status).toBe(res.statusCode);
    expectWords(body.detail, `${code} detail`);
  } else {
    for (const key of LEGACY_KEYS) expect(body, `${code} legacy envelope`).toHaveProperty(key);
    expect(body.statusCode).toBe(res.statusCode);
    // DESIGN (Pinned details): a legacy refusal carries its code in `message`; the words a person
    // reads are the catalogue's, as the dashboard and the CLI show them (messageInWords).
    if (body.message === code) expectWords(messageInWords(code, String(body.message)), `${code} in words`);
    else expectWords(body.message, `${code} message`);
  }
  const fields = (body.errors ?? body.details) as { field: string; message: string; code?: string }[] | undefined;
  if (entry.shape === 'validation') {
    expect(Array.isArray(fields) && fields.length > 0, `${code} lists its fields`).toBe(true);
    const listed = code === 'VALIDATION_ERROR' ? fields?.[0] : fields?.find((f) => f.code === code);
    expect(listed, `${code} names the field it is about`).toBeDefined();
    expectWords(listed?.message, `${code} field message`);
  } else {
    expect(body.code, `${code} in code`).toBe(code);
  }
}

const post = (who: Caller, url: string, body: unknown, key = ref('k')) => who.request('POST', url, body, { 'idempotency-key': key });

describe('each documented error, as the server sends it', () => {
  const scenarios: [string, () => Promise<LightMyRequestResponse>][] = [
    ['VALIDATION_ERROR', () => post(c, '/v1/payouts', { clientRef: ref(), amount: 'ten', currency: 'EUR', beneficiary: { id: beneficiaryId } })],
    ['UNKNOWN_FIELD', () => post(c, '/v1/payouts', { clientRef: ref(), amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId }, referense: 'x' })],
    ['UNAUTHORIZED', () => t.app.inject({ method: 'GET', url: '/v1/payouts', headers: { authorization: 'Bearer not-a-token' } })],
    ['METHOD_NOT_ENTITLED', () => narrow.request('GET', '/v1/beneficiaries')],
    ['NOT_FOUND', () => c.request('GET', '/v1/payouts/00000000-0000-4000-8000-000000000000')],
    ['UNSUPPORTED_MEDIA_TYPE', () => t.app.inject({ method: 'POST', url: '/v1/beneficiaries', headers: { authorization: `Bearer ${c.token}`, 'content-type': 'text/plain' }, payload: 'hello' })],
    ['IDEMPOTENCY_KEY_INVALID', () => post(c, '/v1/beneficiaries', ADA, 'spaces are not allowed')],
    [
      'IDEMPOTENCY_KEY_REUSED',
      async () => {
        const key = ref('reused');
        await post(c, '/v1/beneficiaries', ADA, key);
        return post(c, '/v1/beneficiaries', { ...ADA, name: 'Grace Hopper' }, key);
      },
    ],
    [
      'DUPLICATE_CLIENT_REF',
      async () => {
        const clientRef = ref('dup');
        await post(c, '/v1/payouts', { clientRef, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
        return post(c, '/v1/payouts', { clientRef, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
      },
    ],
    ['INSUFFICIENT_BALANCE', () => post(c, '/v1/payouts', { clientRef: ref(), amount: '5000.00', currency: 'EUR', beneficiary: { id: beneficiaryId } })],
    [
      'PAYOUT_NOT_CANCELLABLE',
      async () => {
        const created = await post(c, '/v1/payouts', { clientRef: ref(), amount: '2.00', currency: 'EUR', beneficiary: { id: beneficiaryId } });
        const id = created.json<{ id: string }>().id;
        await post(c, `/v1/sandbox/payouts/${id}/process`, undefined);
        expect((await post(c, `/v1/sandbox/payouts/${id}/pay`, undefined)).json()).toMatchObject({ status: 'paid' });
        return post(c, `/v1/payouts/${id}/cancel`, undefined);
      },
    ],
    ['access_denied', () => t.app.inject({ method: 'POST', url: '/oauth/token', payload: { client_id: 'nobody', client_secret: 'wrong', grant_type: 'client_credentials' } })],
    ['invalid_grant', () => t.app.inject({ method: 'POST', url: '/oauth/token', payload: { client_id: c.clientId, client_secret: c.clientSecret, grant_type: 'password' } })],
    ['invalid_audience', () => t.app.inject({ method: 'POST', url: '/oauth/token', payload: { client_id: c.clientId, client_secret: c.clientSecret, grant_type: 'client_credentials', audience: 'someone-else' } })],
  ];

  for (const [code, send] of scenarios) {
    it(`${code}: the code, status and shape the catalogue documents`, async () => {
      expectAsCatalogued(await send(), code);
    }, 120_000);
  }

  it('a code-only message reads as the catalogue\'s meaning and advice; a message in words is kept', () => {
    expect(messageInWords('INSUFFICIENT_BALANCE', 'INSUFFICIENT_BALANCE')).toMatch(/^The available balance does not cover the amount and fee\..* Fund the balance/);
    expect(messageInWords('NOT_FOUND', 'Payout not found')).toBe('Payout not found');
    expect(messageInWords(undefined, 'SOMETHING_UNKNOWN')).toBe('SOMETHING_UNKNOWN');
  });

  it('the operator key is refused on a workspace route with a catalogued code', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/payouts', headers: { authorization: `Bearer ${OPERATOR_KEY}` } });
    expect([401, 403]).toContain(res.statusCode);
    expect(catalogue.has(String(res.json<Json>().code ?? (res.statusCode === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN')))).toBe(true);
  });
});
