import type { AddressInfo } from 'node:net';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { ADA, payingWorkspace, ref } from '../payouts/helpers.js';

/** Issue 14, points 1, 5 and 7 (third item): what the API refuses before any rule of a module runs. */
let t: TestApp;
let caller: Caller;
let payer: Caller;

beforeAll(async () => {
  t = await createTestApp({
    beforeReady: (app) => {
      // A problem-details route whose array body yields one error per row.
      app.post(
        '/v2/test-rows',
        { config: { auth: 'workspace' }, schema: { body: Type.Array(Type.Object({ a: Type.String() }), { maxItems: 1000 }) } },
        async () => ({ ok: true }),
      );
    },
  });
  caller = await newWorkspace(t.app);
  payer = await payingWorkspace(t);
});
afterAll(async () => t.close());

const payout = (extra: Record<string, unknown> = {}) => ({ clientRef: ref(), amount: '10.00', currency: 'EUR', beneficiary: ADA, ...extra });

/** A POST of exact JSON text (to send escapes, duplicate keys and charsets as an attacker would). */
const postRaw = (c: Caller, url: string, payload: string | Buffer, contentType = 'application/json') =>
  t.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${c.token}`, 'content-type': contentType } });

async function payoutCount(c: Caller): Promise<number> {
  const rows = await t.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM payouts WHERE workspace_id = $1', [c.workspaceId]);
  return Number(rows[0]!.n);
}

describe('a batch body that costs a gigabyte (issue 14.1)', () => {
  it('refuses 340,000 empty rows with a small 400, and /healthz is answered meanwhile', async () => {
    const body = `[${new Array(340_000).fill('{}').join(',')}]`;
    expect(body.length).toBeLessThan(1024 * 1024);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const [batch, health] = await Promise.all([
      fetch(`${base}/v1/payouts`, { method: 'POST', body, headers: { authorization: `Bearer ${payer.token}`, 'content-type': 'application/json' } }),
      fetch(`${base}/healthz`),
    ]);
    const text = await batch.text();
    expect(batch.status).toBe(400);
    expect(text.length).toBeLessThan(4096);
    const json = JSON.parse(text) as { message: string; details: { field: string; message: string }[] };
    expect(json.details).toEqual([{ field: 'body', message: 'body must contain at most 100 items' }]);
    expect(health.status).toBe(200);
    expect(await payoutCount(payer)).toBe(0);
  });

  it('caps the details of a validation envelope and says how many more there were', async () => {
    const res = await payer.request('POST', '/v1/payouts', new Array(100).fill({}));
    expect(res.statusCode).toBe(400);
    const json = res.json<{ message: string; details: unknown[]; detailsOmitted: number }>();
    expect(json.details).toHaveLength(50);
    // 100 rows, each without clientRef, amount, currency and beneficiary.
    expect(json.detailsOmitted).toBe(350);
    expect(json.message).toMatch(/; and 350 more$/);
    expect(res.body.length).toBeLessThan(16_384);
  });

  it('caps the errors of a problem details body the same way', async () => {
    const res = await caller.request('POST', '/v2/test-rows', new Array(200).fill({ a: 1 }));
    expect(res.statusCode).toBe(400);
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    const json = res.json<{ detail: string; errors: { field: string }[]; errorsOmitted: number }>();
    expect(json.errors).toHaveLength(50);
    expect(json.errors[0]!.field).toBe('0.a');
    expect(json.errorsOmitted).toBe(150);
    expect(json.detail).toMatch(/; and 150 more$/);
  });

  it('bounds a validation answer whose rows are many and nested, below the batch limit', async () => {
    // One row, but a huge nested array inside it: validation stops early instead of listing every item.
    const accounts = new Array(50_000).fill({});
    const res = await caller.request('POST', '/v1/beneficiaries', { ...ADA, accounts });
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(16_384);
  });
});

describe('the payout body is validated against the branch the caller meant (issue 14.7)', () => {
  it('reports a single payout against the single-payout schema only', async () => {
    const res = await payer.request('POST', '/v1/payouts', payout({ amount: 10 }));
    expect(res.statusCode).toBe(400);
    const json = res.json<{ message: string; details: { field: string }[] }>();
    expect(json.details.map((d) => d.field)).toEqual(['amount']);
    expect(json.message).not.toMatch(/array/);
  });

  it('reports an over-long batch as too many items, not as "must be an object"', async () => {
    const rows = Array.from({ length: 101 }, () => payout());
    const res = await payer.request('POST', '/v1/payouts', rows);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toBe('body must contain at most 100 items');
  });

  it('reports a batch row by its index, without "must be an object"', async () => {
    const res = await payer.request('POST', '/v1/payouts', [payout(), payout({ currency: 1 })]);
    expect(res.statusCode).toBe(400);
    const json = res.json<{ message: string; details: { field: string }[] }>();
    expect(json.details.map((d) => d.field)).toEqual(['1.currency']);
    expect(json.message).not.toMatch(/object/);
  });
});

describe('strings PostgreSQL cannot store, or would change (issue 14.5)', () => {
  const NUL = '\u0000';
  const LONE = '\udfff';

  it.each([
    ['a payout clientRef', () => payout({ clientRef: `ref${NUL}` }), 'clientRef'],
    ['a payout metadata value', () => payout({ metadata: { note: `a${NUL}b` } }), 'metadata.note'],
    ['a payout metadata value with a lone surrogate', () => payout({ metadata: { note: `a${LONE}` } }), 'metadata.note'],
    ['a beneficiary name inside a payout', () => payout({ beneficiary: { ...ADA, name: `Ada${NUL} Lovelace` } }), 'beneficiary.name'],
    ['a batch row', () => [payout(), payout({ reference: `x${LONE}` })], '1.reference'],
  ])('refuses %s on POST /v1/payouts (legacy validation envelope)', async (_what, body, field) => {
    const before = await payoutCount(payer);
    const res = await postRaw(payer, '/v1/payouts', JSON.stringify(body()));
    expect(res.statusCode, res.body).toBe(400);
    const json = res.json<{ statusCode: number; details: { field: string; message: string }[] }>();
    expect(json.statusCode).toBe(400);
    expect(json.details).toHaveLength(1);
    expect(json.details[0]!.field).toBe(field);
    expect(json.details[0]!.message.startsWith(field)).toBe(true);
    expect(await payoutCount(payer)).toBe(before);
  });

  it('refuses a NUL or a lone surrogate in a beneficiary name and an account name', async () => {
    for (const bad of [NUL, LONE]) {
      const ben = await postRaw(caller, '/v1/beneficiaries', JSON.stringify({ ...ADA, name: `Ada ${bad}Lovelace` }));
      expect(ben.statusCode, ben.body).toBe(400);
      expect(ben.json<{ details: { field: string }[] }>().details[0]!.field).toBe('name');
      const acc = await postRaw(caller, '/v1/accounts', JSON.stringify({ name: `Shop${bad}`, country: 'DE' }));
      expect(acc.statusCode, acc.body).toBe(400);
      expect(acc.json<{ details: { field: string }[] }>().details[0]!.field).toBe('name');
    }
    const accounts = (await caller.request('GET', '/v1/accounts?limit=100')).json<{ data: { name: string }[] }>().data;
    expect(accounts.filter((a) => a.name.startsWith('Shop'))).toEqual([]);
  });

  it('refuses a NUL in a webhook description with problem details naming the field', async () => {
    const res = await postRaw(caller, '/v1/webhooks', JSON.stringify({ url: 'https://example.com/hook', description: `note${NUL}` }));
    expect(res.statusCode, res.body).toBe(400);
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    expect(res.json<{ errors: { field: string }[] }>().errors[0]!.field).toBe('description');
  });

  it('refuses a NUL or a lone surrogate in a query string filter', async () => {
    for (const q of ['clientRef=a%00b', `clientRef=${encodeURIComponent('a')}%ED%BF%BF`, 'clientRef=%F0%9F']) {
      const res = await payer.request('GET', `/v1/payouts?${q}`);
      expect(res.statusCode, `${q}: ${res.body}`).toBe(400);
      expect(res.json<{ details: { field: string }[] }>().details[0]!.field).toBe('clientRef');
    }
    const events = await caller.request('GET', '/v1/events?type=a%00');
    expect(events.statusCode).toBe(400);
    expect(String(events.headers['content-type'])).toMatch(/^application\/problem\+json/);
  });

  it('refuses a NUL in an operator call with problem details, and still records the call in the audit log', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/operator/v1/workspaces',
      headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: `Evil${NUL}${LONE} Ltd`, country: 'GB' }),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ errors: { field: string }[] }>().errors[0]!.field).toBe('name');
    const audit = await operator(t.app, 'GET', '/operator/v1/audit-log?limit=5');
    const entry = audit.json<{ data: { requestId: string; statusCode: number; body: { name: string } }[] }>().data.find((e) => e.requestId === res.headers['x-request-id']);
    expect(entry).toMatchObject({ statusCode: 400, body: { name: 'Evil\ufffd\ufffd Ltd' } });
  });

  it('refuses a NUL in a key', async () => {
    const res = await postRaw(payer, '/v1/payouts', JSON.stringify(payout({ metadata: { [`k${NUL}`]: 'v' } })));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ details: { field: string }[] }>().details[0]!.field).toMatch(/^metadata\./);
  });

  it('keeps well-formed text: accents, emoji (surrogate pairs) and escaped characters', async () => {
    const name = 'Zoë 🚀 \u00e9\\"';
    const res = await postRaw(caller, '/v1/accounts', JSON.stringify({ name, country: 'DE' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ name: string }>().name).toBe(name);
  });

  it('refuses a body that is not UTF-8', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('","country":"FR"}')]);
    const res = await postRaw(caller, '/v1/accounts', latin1);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: { field: string }[] }>().details[0]!.field).toBe('body');
  });

  it('refuses a JSON charset other than UTF-8, and accepts utf-8 in any case', async () => {
    const body = JSON.stringify({ name: 'Charset Ltd', country: 'DE' });
    const latin = await postRaw(caller, '/v1/accounts', body, 'application/json; charset=latin1');
    expect(latin.statusCode).toBe(415);
    expect(latin.json<{ message: string }>().message).toMatch(/charset/i);
    const problem = await postRaw(caller, '/v1/webhooks', JSON.stringify({ url: 'https://example.com/h' }), 'application/json; charset=iso-8859-1');
    expect(problem.statusCode).toBe(415);
    expect(String(problem.headers['content-type'])).toMatch(/^application\/problem\+json/);
    for (const ct of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=utf8']) {
      const ok = await postRaw(caller, '/v1/accounts', body, ct);
      expect(ok.statusCode, `${ct}: ${ok.body}`).toBe(201);
    }
  });
});

describe('duplicate JSON keys (issue 14.5)', () => {
  it('refuses a payout whose amount is given twice, and creates nothing', async () => {
    const before = await payoutCount(payer);
    const text = JSON.stringify(payout()).replace('"amount":"10.00"', '"amount":"10.00","amount":"900.00"');
    expect(text).toContain('"amount":"900.00"');
    const res = await postRaw(payer, '/v1/payouts', text);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ details: { field: string; message: string }[] }>().details).toEqual([
      { field: 'amount', message: 'amount is given more than once' },
    ]);
    expect(await payoutCount(payer)).toBe(before);
  });

  it('finds a duplicate at any depth, also when one spelling is escaped', async () => {
    const nested = JSON.stringify(payout()).replace('"iban":"', '"\\u0069ban":"DE00","iban":"');
    const res = await postRaw(payer, '/v1/payouts', nested);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ details: { field: string }[] }>().details[0]!.field).toBe('beneficiary.accounts.0.data.iban');
    const inRow = `[${JSON.stringify(payout())},${JSON.stringify(payout()).replace('"currency":"EUR"', '"currency":"EUR","currency":"USD"')}]`;
    const batch = await postRaw(payer, '/v1/payouts', inRow);
    expect(batch.statusCode, batch.body).toBe(400);
    expect(batch.json<{ details: { field: string }[] }>().details[0]!.field).toBe('1.currency');
    const webhook = await postRaw(caller, '/v1/webhooks', '{"url":"https://example.com/a","url":"https://example.com/b"}');
    expect(webhook.statusCode).toBe(400);
    expect(String(webhook.headers['content-type'])).toMatch(/^application\/problem\+json/);
  });

  it('refuses a body nested deeper than 32 levels, and one of 500,000 levels, with a 400', async () => {
    const deep = JSON.stringify(payout({ metadata: { a: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) as unknown } }));
    const res = await postRaw(payer, '/v1/payouts', deep);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ details: { field: string; message: string }[] }>().details[0]!.message).toMatch(/^metadata\.a(\.0)+ is nested deeper than 32 levels$/);
    const abyss = await postRaw(payer, '/v1/payouts', `${'['.repeat(500_000)}${']'.repeat(500_000)}`);
    expect(abyss.statusCode).toBe(400);
    expect(abyss.body.length).toBeLessThan(4096);
  });

  it('enforces the depth while reading the text, before parsing: an over-deep body that is not even valid JSON is refused for its depth', async () => {
    const res = await postRaw(payer, '/v1/payouts', `${'['.repeat(40)} this is not JSON`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json<{ details: { field: string; message: string }[] }>().details[0]!.message).toMatch(/is nested deeper than 32 levels$/);
    // Strings are skipped: brackets inside them are not nesting.
    const quoted = await postRaw(caller, '/v1/accounts', JSON.stringify({ name: `Brackets ${'['.repeat(40)} Ltd`, country: 'DE', clientRef: ref() }));
    expect(quoted.statusCode, quoted.body).toBe(201);
  });

  it('accepts the same key in different objects and keys that only look alike', async () => {
    const text = JSON.stringify({ name: 'Twins Ltd', country: 'DE', clientRef: 'name:"name"' });
    const res = await postRaw(caller, '/v1/accounts', text);
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('unauthenticated endpoints take small bodies (issue 19.5)', () => {
  /** 1 MB of nesting: refused for its size, by the body limit, before any of it is parsed. */
  const nested = `{"a":${'['.repeat(500_000)}${']'.repeat(499_990)}`;
  const signInForm = async (area: 'dashboard' | 'console') => {
    const page = await t.app.inject({ method: 'GET', url: `/${area}/sign-in` });
    const cookie = (page.cookies as { name: string; value: string }[]).map((c) => `${c.name}=${c.value}`).join('; ');
    return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string };
  };

  it('refuses a 1 MB nested JSON body to /oauth/token with 413 PAYLOAD_TOO_LARGE naming the 8 KiB limit', async () => {
    expect(nested.length).toBeGreaterThan(999_000);
    const res = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: nested, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode, res.body).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than 8 KiB' });
    const form = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: `grant_type=client_credentials&client_id=${'a'.repeat(9000)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.statusCode).toBe(413);
    // A token request is far below the limit.
    const ok = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { client_id: caller.clientId, client_secret: caller.clientSecret, grant_type: 'client_credentials', audience: 'corridor-api' } });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses a 1 MB body to the sign-in, operator key and invitation pages with 413', async () => {
    for (const [area, url] of [
      ['dashboard', '/dashboard/sign-in'],
      ['console', '/console/sign-in'],
      ['console', '/console/sign-in/key'],
      ['dashboard', '/dashboard/invitation'],
    ] as const) {
      const { cookie, csrf } = await signInForm(area);
      const json = await t.app.inject({ method: 'POST', url, payload: nested, headers: { cookie, 'content-type': 'application/json', origin: 'http://127.0.0.1:8080' } });
      expect(json.statusCode, `${url} ${json.body.slice(0, 200)}`).toBe(413);
      const form = await t.app.inject({
        method: 'POST',
        url,
        payload: new URLSearchParams({ _csrf: csrf, email: 'a@example.com', password: 'x'.repeat(9000) }).toString(),
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:8080' },
      });
      expect(form.statusCode, url).toBe(413);
    }
    // A sign-in form is far below the limit (a wrong password: 401, not 413).
    const { cookie, csrf } = await signInForm('dashboard');
    const small = await t.app.inject({
      method: 'POST',
      url: '/dashboard/sign-in',
      payload: new URLSearchParams({ _csrf: csrf, email: 'nobody@example.com', password: 'a wrong password' }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://127.0.0.1:8080' },
    });
    expect(small.statusCode).toBe(401);
  });

  it('keeps the 1 MiB limit for authenticated API routes', async () => {
    const res = await postRaw(caller, '/v1/accounts', JSON.stringify({ name: 'Big', country: 'DE', clientRef: 'x'.repeat(100_000) }));
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: { field: string }[] }>().details.map((d) => d.field)).toEqual(['clientRef']);
  });
});
