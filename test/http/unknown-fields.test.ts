/**
 * Unknown body fields are refused (issue 38 point 2), as Stripe's `parameter_unknown`: a typo such as
 * `referense` was dropped with a 201; now it is a 400 naming the field (its path, `field` and `param`),
 * with the field code UNKNOWN_FIELD and the known field it is likely a typo of, in the route family's
 * error shape. Every operation of the document that takes a JSON object body refuses one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';

type Json = Record<string, unknown>;

let t: TestApp;
let c: Caller;

beforeAll(async () => {
  t = await createTestApp();
  c = await newWorkspace(t.app);
}, 300_000);
afterAll(async () => {
  await t.close();
});

interface FieldEntry {
  field: string;
  message: string;
  code?: string;
}

/** The failing fields of a 400, from either shape (problem details' `errors`, the legacy envelope's `details`). */
const fieldsOf = (body: Json): FieldEntry[] => ((body.errors ?? body.details ?? []) as FieldEntry[]);

describe('unknown body fields', () => {
  it('a typo in a beneficiary is refused naming the field and the field it is likely a typo of; nothing is created', async () => {
    const body = {
      name: 'Ada Lovelace',
      type: 'individual',
      country: 'GB',
      currency: 'GBP',
      referense: 'inv-1',
      accounts: [{ type: 'gb_sort_code', data: { sortCode: '040004', accountNumber: '12345678' } }],
    };
    const res = await c.request('POST', '/v1/beneficiaries', body, { 'idempotency-key': 'uf-1' });
    expect(res.statusCode, res.body).toBe(400);
    const unknown = fieldsOf(res.json()).find((f) => f.field === 'referense');
    expect(unknown, res.body).toMatchObject({ code: 'UNKNOWN_FIELD' });
    expect(unknown?.message).toMatch(/^referense is an unknown field/);
    const list = await c.request('GET', '/v1/beneficiaries');
    expect(JSON.stringify(list.json())).not.toContain('Ada Lovelace');
  });

  it('on a problem-details route the field is the param, its path dotted when nested, and the message suggests the field meant', async () => {
    const res = await c.request('POST', '/v1/webhooks', { url: 'https://example.com/hook', evnets: ['payout.paid'] }, { 'idempotency-key': 'uf-2' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json<Json>();
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', param: 'evnets', doc_url: `${t.config.publicBaseUrl}/docs/errors#VALIDATION_ERROR` });
    expect(fieldsOf(body)).toContainEqual({ field: 'evnets', code: 'UNKNOWN_FIELD', message: 'evnets is an unknown field: did you mean events?' });

    const nested = await c.request(
      'POST',
      '/v1/payouts',
      { amount: '10.00', currency: 'GBP', clientRef: `uf-${Date.now()}`, beneficiary: { name: 'A', type: 'individual', country: 'GB', nickname: 'x', accounts: [] } },
      { 'idempotency-key': 'uf-3' },
    );
    expect(nested.statusCode, nested.body).toBe(400);
    expect(fieldsOf(nested.json()).map((f) => [f.field, f.code])).toContainEqual(['beneficiary.nickname', 'UNKNOWN_FIELD']);
  });

  it('the code is catalogued with its status', async () => {
    const catalogue = (await t.app.inject({ method: 'GET', url: '/docs/errors.json' })).json<{ data: { code: string; status: number[] }[] }>().data;
    expect(catalogue.find((e) => e.code === 'UNKNOWN_FIELD')?.status).toEqual([400]);
  });

  it('every operation with a JSON object body refuses an unknown field, naming it', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<Json>();
    const schemas = (doc.components as Json).schemas as Record<string, Json>;
    const resolve = (s: Json | undefined): Json | undefined => (s && typeof s.$ref === 'string' ? schemas[s.$ref.split('/').pop() as string] : s);
    const uuid = '00000000-0000-4000-8000-000000000000';
    const refused: string[] = [];
    const accepted: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(item)) {
        const content = ((op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>;
        const schema = resolve(content['application/json']?.schema as Json | undefined);
        if (!schema || path === '/oauth/token') continue;
        const objectBody = schema.type === 'object' || (Array.isArray(schema.anyOf) && (schema.anyOf as Json[]).some((b) => resolve(b)?.type === 'object'));
        if (!objectBody) continue;
        const params = new Map(((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path').map((p) => [String(p.name), resolve(p.schema as Json) ?? {}]));
        // A path parameter that fits its schema (a const or an enum's first value, a currency code, else an id).
        const fit = (s: Json): string => {
          if (s.const !== undefined) return String(s.const);
          if (Array.isArray(s.enum)) return String(s.enum[0]);
          if (Array.isArray(s.anyOf)) return fit(s.anyOf[0] as Json);
          if (typeof s.pattern === 'string' && /A-Z/.test(s.pattern)) return 'USD';
          return uuid;
        };
        const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => fit(params.get(name) ?? {}));
        const authorization = `Bearer ${path.startsWith('/operator/') ? OPERATOR_KEY : c.token}`;
        const res = await t.app.inject({
          method: method.toUpperCase() as 'POST',
          url,
          headers: { authorization, 'idempotency-key': `uf-all-${method}-${path}` },
          payload: { zzUnknownField: 1 },
        });
        const named = res.statusCode === 400 && fieldsOf(res.json()).some((f) => f.field === 'zzUnknownField' && f.code === 'UNKNOWN_FIELD');
        (named ? refused : accepted).push(`${method.toUpperCase()} ${path} ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    expect(accepted).toEqual([]);
    expect(refused.length).toBeGreaterThan(40);
  }, 300_000);
});
