import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { renderError, toAppError } from '../../src/platform/http/errors.js';
import { DomainError, fieldError, type ErrorCategory } from '../../src/platform/lib/errors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';

const PROBLEM_MEMBERS = ['type', 'title', 'status', 'code', 'detail', 'category', 'retryable', 'request_id'];

const NestedBody = Type.Object({
  beneficiary: Type.Object({
    accounts: Type.Array(Type.Object({ data: Type.Object({ iban: Type.String() }) })),
  }),
});

let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp({
    beforeReady: (app, ctx) => {
      app.post('/v1/test-nested', { config: { auth: 'workspace' }, schema: { body: NestedBody } }, async () => ({ ok: true }));
      app.post('/v1/test-throw', { config: { auth: 'workspace' } }, async () => {
        throw new Error('SELECT secret FROM internal_table');
      });
      app.get('/v1/test-throw', { config: { auth: 'workspace' } }, async () => {
        throw new Error('SELECT secret FROM internal_table');
      });
      app.post('/v1/test-bad-sql', { config: { auth: 'workspace' } }, async () => {
        await ctx.db.query('SELECT secret FROM internal_table WHERE id = $1', ['x']);
        return { ok: true };
      });
    },
  });
  caller = await newWorkspace(t.app);
});
afterAll(async () => t.close());

/** Asserts the RFC 9457 shape and that `request_id` is the `x-request-id` header. */
function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: () => unknown }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  for (const member of PROBLEM_MEMBERS) expect(body, `member ${member}`).toHaveProperty(member);
  expect(body.status).toBe(status);
  expect(body.code).toBe(code);
  expect(typeof body.type).toBe('string');
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(typeof body.retryable).toBe('boolean');
  expect(body.request_id).toBe(res.headers['x-request-id']);
  // Flat: no nested error object.
  expect(body).not.toHaveProperty('error');
  return body;
}

function expectNoLeak(text: string) {
  expect(text).not.toContain('SELECT');
  expect(text).not.toContain('internal_table');
  expect(text).not.toContain('secret');
  expect(text).not.toMatch(/\bat [\w.<>[\]]+ \(/);
  expect(text).not.toContain('at ');
  expect(text).not.toContain('stack');
  expect(text).not.toMatch(/\.ts:\d+/);
}

describe('validation envelope (legacy routes)', () => {
  it('POST /v1/accounts with several bad fields: one details entry per field, message joined with "; "', async () => {
    const res = await caller.request('POST', '/v1/accounts', { name: 'A', country: 'gbr', clientRef: '' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<{ statusCode: number; message: string; error: string; timestamp: string; path: string; details: { field: string; message: string }[] }>();
    expect(body.statusCode).toBe(400);
    expect(body.error).toBe('BAD_REQUEST');
    expect(body.path).toBe('/v1/accounts');
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    const fields = body.details.map((d) => d.field).sort();
    expect(fields).toEqual(['clientRef', 'country', 'name']);
    // One entry per failing field even when a field breaks several rules (country: pattern and maxLength).
    expect(new Set(body.details.map((d) => d.field)).size).toBe(body.details.length);
    expect(body.message).toBe(body.details.map((d) => d.message).join('; '));
    for (const d of body.details) expect(d.message.startsWith(d.field)).toBe(true);
    // Generic DTO validation carries no code.
    expect(body).not.toHaveProperty('code');
    for (const d of body.details) expect(d).not.toHaveProperty('code');
    expect(body).not.toHaveProperty('type');
  });

  it('names missing required fields', async () => {
    const res = await caller.request('POST', '/v1/accounts', {});
    expect(res.statusCode).toBe(400);
    const body = res.json<{ message: string; details: { field: string; message: string }[] }>();
    expect(body.details.map((d) => d.field).sort()).toEqual(['country', 'name']);
    expect(body.message).toBe(body.details.map((d) => d.message).join('; '));
  });

  it('refuses a JSON number where a string is required (bodies are not coerced)', async () => {
    const res = await caller.request('POST', '/v1/accounts', { name: 12345, country: 'GB' });
    expect(res.statusCode).toBe(400);
    const body = res.json<{ details: { field: string; message: string }[] }>();
    expect(body.details).toEqual([{ field: 'name', message: 'name must be a string' }]);
    const list = await caller.request('GET', '/v1/accounts');
    expect(list.json<{ data: unknown[] }>().data).toHaveLength(0);
  });

  it('gives dotted paths for nested fields', async () => {
    const res = await caller.request('POST', '/v1/test-nested', {
      beneficiary: { accounts: [{ data: {} }, { data: { iban: 42 } }, { data: { iban: 'GB33BUKB20201555555555' } }] },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json<{ message: string; error: string; path: string; details: { field: string; message: string }[] }>();
    expect(body.error).toBe('BAD_REQUEST');
    expect(body.path).toBe('/v1/test-nested');
    expect(body.details).toEqual([
      { field: 'beneficiary.accounts.0.data.iban', message: 'beneficiary.accounts.0.data.iban is required' },
      { field: 'beneficiary.accounts.1.data.iban', message: 'beneficiary.accounts.1.data.iban must be a string' },
    ]);
    expect(body.message).toBe('beneficiary.accounts.0.data.iban is required; beneficiary.accounts.1.data.iban must be a string');

    const missing = await caller.request('POST', '/v1/test-nested', { beneficiary: { accounts: [{}] } });
    expect(missing.json<{ details: { field: string }[] }>().details.map((d) => d.field)).toEqual(['beneficiary.accounts.0.data']);

    const ok = await caller.request('POST', '/v1/test-nested', { beneficiary: { accounts: [{ data: { iban: 'GB33BUKB20201555555555' } }] } });
    expect(ok.statusCode).toBe(200);
  });

  it('an unknown route is 404 with the legacy envelope', async () => {
    const res = await caller.request('GET', '/v1/no-such-thing');
    expect(res.statusCode).toBe(404);
    const body = res.json<Record<string, unknown>>();
    expect(body).toMatchObject({ statusCode: 404, error: 'NOT_FOUND', path: '/v1/no-such-thing' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('an unknown account id is 404', async () => {
    const res = await caller.request('GET', '/v1/accounts/6f1c2f0e-9d51-4c55-8f1a-1f2d3c4b5a69');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
  });
});

describe('problem details (migrated routes)', () => {
  it('PUT /v1/api-keys/{id}/scopes with a bad body answers problem+json with errors[]', async () => {
    const res = await caller.request('PUT', `/v1/api-keys/${caller.clientId}/scopes`, { scopes: ['read:accounts', 'bogus', 42] });
    const body = expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(body.category).toBe('invalid_request');
    expect(body.retryable).toBe(false);
    const errors = body.errors as { field: string; message: string }[];
    expect(errors.map((e) => e.field).sort()).toEqual(['scopes.1', 'scopes.2']);
    expect(body.detail).toBe(errors.map((e) => e.message).join('; '));
    expect(body).not.toHaveProperty('details');
    expect(body).not.toHaveProperty('statusCode');
  });

  it('PUT /v1/api-keys/{id}/scopes with a well-formed but unknown scope names it', async () => {
    const res = await caller.request('PUT', `/v1/api-keys/${caller.clientId}/scopes`, { scopes: ['read:accounts', 'read:nothing'] });
    const body = expectProblem(res, 400, 'VALIDATION_ERROR');
    expect((body.errors as { field: string }[]).map((e) => e.field)).toEqual(['scopes.1']);
  });

  it('a missing body member is problem+json too', async () => {
    const res = await caller.request('PUT', `/v1/api-keys/${caller.clientId}/scopes`, {});
    const body = expectProblem(res, 400, 'VALIDATION_ERROR');
    expect(body.errors).toEqual([{ field: 'scopes', message: 'scopes is required' }]);
  });

  it('an unknown api key is a 404 problem', async () => {
    const res = await caller.request('PUT', '/v1/api-keys/6f1c2f0e-9d51-4c55-8f1a-1f2d3c4b5a69/scopes', { scopes: ['read:accounts'] });
    const body = expectProblem(res, 404, 'NOT_FOUND');
    expect(body.category).toBe('not_found');
  });

  it('operator routes answer problem details', async () => {
    const res = await operator(t.app, 'POST', '/operator/v1/workspaces', { name: 'X', country: 'gb' });
    const body = expectProblem(res, 400, 'VALIDATION_ERROR');
    expect((body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(['country', 'name']);
  });

  it('a 401 carries only statusCode and message, even on a problem route', async () => {
    for (const url of ['/v1/accounts', '/v1/api-keys']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(401);
      expect(Object.keys(res.json()).sort()).toEqual(['message', 'statusCode']);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });
});

describe('x-request-id', () => {
  it('is on every response: 200, 201, 400, 401, 404, 413, 415', async () => {
    const responses = [
      await t.app.inject({ method: 'GET', url: '/healthz' }),
      await caller.request('GET', '/v1/account'),
      await caller.request('POST', '/v1/accounts', { name: 'Request Id Ltd', country: 'GB' }),
      await caller.request('POST', '/v1/accounts', { name: 'A' }),
      await t.app.inject({ method: 'GET', url: '/v1/account' }),
      await t.app.inject({ method: 'GET', url: '/nope' }),
      await caller.request('POST', '/v1/accounts', 'x', { 'content-type': 'text/plain' }),
    ];
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 201, 400, 401, 404, 415]);
    const ids = responses.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('echoes a sane caller-supplied x-request-id, in the header and in request_id', async () => {
    const ok = await caller.request('GET', '/v1/account', undefined, { 'x-request-id': 'client-trace.42:abc_DEF' });
    expect(ok.headers['x-request-id']).toBe('client-trace.42:abc_DEF');

    const problem = await caller.request('PUT', `/v1/api-keys/${caller.clientId}/scopes`, {}, { 'x-request-id': 'trace-123' });
    expect(problem.headers['x-request-id']).toBe('trace-123');
    expect(problem.json<{ request_id: string }>().request_id).toBe('trace-123');
  });

  it('replaces an x-request-id that is not short and plain', async () => {
    for (const bad of ['has space', 'x'.repeat(129), '<script>', 'a\u00e9b']) {
      const res = await caller.request('GET', '/v1/account', undefined, { 'x-request-id': bad });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    }
  });
});

describe('500s', () => {
  it('a thrown Error becomes an opaque INTERNAL_ERROR problem with no internals', async () => {
    const res = await caller.request('POST', '/v1/test-throw', { a: 1 });
    const body = expectProblem(res, 500, 'INTERNAL_ERROR');
    expect(body.category).toBe('internal');
    expectNoLeak(res.body);
  });

  it('a database error becomes an opaque INTERNAL_ERROR problem with no SQL', async () => {
    const res = await caller.request('POST', '/v1/test-bad-sql', { a: 1 });
    expectProblem(res, 500, 'INTERNAL_ERROR');
    expectNoLeak(res.body);
    expect(res.body).not.toContain('relation');
    expect(res.body).not.toContain('42P01');
  });

  it('retryable is false on a POST without Idempotency-Key and true with one', async () => {
    const without = await caller.request('POST', '/v1/test-throw', { a: 1 });
    expect(expectProblem(without, 500, 'INTERNAL_ERROR').retryable).toBe(false);
    const withKey = await caller.request('POST', '/v1/test-throw', { a: 1 }, { 'idempotency-key': 'k-500-retry' });
    expect(expectProblem(withKey, 500, 'INTERNAL_ERROR').retryable).toBe(true);
  });

  it('a 500 on a GET is retryable', async () => {
    const res = await caller.request('GET', '/v1/test-throw');
    expect(expectProblem(res, 500, 'INTERNAL_ERROR').retryable).toBe(true);
    expectNoLeak(res.body);
  });
});

describe('request bodies', () => {
  it('invalid JSON is a 400 naming the body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
      payload: '{"name": "Acme", "country": ',
    });
    expect(res.statusCode).toBe(400);
    const body = res.json<{ statusCode: number; error: string; details: { field: string }[]; path: string }>();
    expect(body).toMatchObject({ statusCode: 400, error: 'BAD_REQUEST', path: '/v1/accounts' });
    expect(body.details.map((d) => d.field)).toEqual(['body']);
    expect(res.body).not.toContain('Unexpected');
  });

  it('invalid JSON on a problem route is a 400 problem', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/api-keys/${caller.clientId}/scopes`,
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
      payload: '{nope',
    });
    expectProblem(res, 400, 'VALIDATION_ERROR');
  });

  it('an empty JSON body is a 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: { field: string }[] }>().details.map((d) => d.field)).toEqual(['body']);
  });

  it('a body over 1 MiB is 413', async () => {
    const payload = JSON.stringify({ name: 'Big Ltd', country: 'GB', clientRef: 'x'.repeat(1024 * 1024) });
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('a body just under 1 MiB is read (and then validated)', async () => {
    const payload = JSON.stringify({ name: 'Big Ltd', country: 'GB', clientRef: 'x'.repeat(1024 * 1024 - 100) });
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(1024 * 1024);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: { field: string }[] }>().details.map((d) => d.field)).toEqual(['clientRef']);
  });

  it('a non-JSON content type on POST is 415', async () => {
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/accounts',
        headers: { authorization: `Bearer ${caller.token}`, 'content-type': type },
        payload: 'name=Acme',
      });
      expect(res.statusCode, type).toBe(415);
      expect(res.json()).toMatchObject({ statusCode: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('a form-encoded body is 415 outside the token endpoint', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/accounts',
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=Form+Ltd&country=GB',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ statusCode: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const list = await caller.request('GET', '/v1/accounts?limit=100');
    expect(list.json<{ data: { name: string }[] }>().data.map((a) => a.name)).not.toContain('Form Ltd');
  });

  it('a JSON body that is not an object is a 400 naming the body', async () => {
    const res = await caller.request('POST', '/v1/accounts', ['name', 'country']);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ details: unknown[] }>().details).toEqual([{ field: 'body', message: 'body must be an object' }]);
  });

  it('a 415 on a problem route is problem+json', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/v1/api-keys/${caller.clientId}/scopes`,
      headers: { authorization: `Bearer ${caller.token}`, 'content-type': 'text/plain' },
      payload: 'scopes',
    });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('domain errors as HTTP answers them (src/platform/http/errors.ts is the one mapping)', () => {
  const cases: [ErrorCategory, number, string][] = [
    ['invalid_request', 400, 'invalid_request'],
    ['unprocessable', 422, 'invalid_request'],
    ['too_large', 413, 'invalid_request'],
    ['unsupported_type', 415, 'invalid_request'],
    ['authentication', 401, 'authentication'],
    ['permission', 403, 'permission'],
    ['not_found', 404, 'not_found'],
    ['conflict', 409, 'conflict'],
    ['rate_limit', 429, 'rate_limit'],
    ['unavailable', 503, 'provider'],
    ['provider', 502, 'provider'],
    ['internal', 500, 'internal'],
  ];
  it.each(cases)('a %s refusal is answered %i, with category %s in problem details', (category, status, wire) => {
    const err = toAppError(new DomainError({ category, code: 'SOME_CODE', message: 'why', retryAfterSec: category === 'unavailable' ? 2 : undefined }));
    expect(err.status).toBe(status);
    const rendered = renderError(err, { url: '/v2/x', method: 'GET', headers: {}, id: 'req-1' } as unknown as FastifyRequest);
    expect(rendered.status).toBe(status);
    expect(rendered.body).toMatchObject({ status, code: 'SOME_CODE', detail: 'why', category: wire });
    if (category === 'unavailable') expect(rendered.headers['retry-after']).toBe('2');
  });

  it('keeps the field errors of a validation error', () => {
    const err = toAppError(fieldError('amount', 'amount must be positive', 'AMOUNT_INVALID'));
    expect(err.status).toBe(400);
    expect(err.details).toEqual([{ field: 'amount', message: 'amount must be positive', code: 'AMOUNT_INVALID' }]);
  });
});
