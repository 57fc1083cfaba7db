/**
 * What outside tools need from /openapi.json (issue 25, point 1): operation ids, the headers the
 * server reads, request bodies as the server takes them, named schemas, the OAuth2 flow and the
 * error-code catalogue. All of it is derived centrally (src/faces/docs/openapi.ts), so these hold for any
 * route added later.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/platform/http/error-catalogue.js';
import { operationIdLines, operationIdOf, operationsOf } from '../../src/faces/docs/openapi.js';
import { createTestApp, newWorkspace, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';

type Json = Record<string, unknown>;
const here = path.dirname(fileURLToPath(import.meta.url));
const OPERATION_IDS_FILE = path.join(here, 'operation-ids.txt');

let t: TestApp;
let doc: Json;
let ops: { path: string; method: string; op: Json }[];

beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<Json>();
  ops = operationsOf(doc);
});
afterAll(async () => t.close());

const name = (o: { method: string; path: string }) => `${o.method.toUpperCase()} ${o.path}`;
const schemes = (op: Json) => ((op.security ?? doc.security ?? []) as Json[]).flatMap((r) => Object.keys(r));
const headerParams = (op: Json) => ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'header').map((p) => String(p.name));

describe('operation ids', () => {
  it('every operation has one, unique', () => {
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(ids.length - new Set(ids).size).toBe(0);
  });

  it('are the committed list: none changes or disappears silently (after adding a route: npm run openapi:ids)', () => {
    const committed = fs.readFileSync(OPERATION_IDS_FILE, 'utf8');
    const served = operationIdLines(doc);
    const before = new Set(committed.trim().split('\n'));
    const now = new Set(served.trim().split('\n'));
    expect({ gone: [...before].filter((l) => !now.has(l)), added: [...now].filter((l) => !before.has(l)) }).toEqual({ gone: [], added: [] });
  });

  it('a route without an explicit id gets one from its method and path, the same every time', () => {
    expect(operationIdOf('post', '/v1/bank/transfers/{id}/approve')).toBe('approveBankTransfer');
    expect(operationIdOf('get', '/v1/screening/matches')).toBe('listScreeningMatches');
    expect(operationIdOf('get', '/v1/screening/matches/{matchId}')).toBe('getScreeningMatch');
    expect(operationIdOf('post', '/v1/chain/addresses')).toBe('createChainAddress');
    expect(operationIdOf('patch', '/operator/v1/approvals/{id}')).toBe('operatorUpdateApproval');
    expect(operationIdOf('post', '/v1/webhooks/{id}/deliveries/{deliveryId}/resend')).toBe('resendWebhookDelivery');
    expect(operationIdOf('get', '/fx/rates', true)).toBe('legacyListFxRates');
    expect(operationIdOf('post', '/v1/sandbox/payouts/{id}/pay')).toBe('sandboxPayPayout');
  });

  it('a route registered late, with no name, appears with a derived id and the headers', async () => {
    const late = await createTestApp({
      beforeReady: (app) => {
        app.post('/v1/probe/widgets/:id/activate', { config: { auth: 'workspace' }, schema: { response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, async () => ({ ok: true }));
      },
    });
    try {
      const d = (await late.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, Json>> }>();
      const op = d.paths['/v1/probe/widgets/{id}/activate']?.post as Json;
      expect(op.operationId).toBe('activateProbeWidget');
      expect(headerParams(op)).toEqual(expect.arrayContaining(['Idempotency-Key', 'Service-Account-Id']));
    } finally {
      await late.close();
    }
  });
});

describe('headers', () => {
  it('every authenticated POST declares Idempotency-Key', () => {
    const missing = ops.filter((o) => o.method === 'post' && schemes(o.op).length > 0 && !headerParams(o.op).includes('Idempotency-Key'));
    expect(missing.map(name)).toEqual([]);
    const token = ops.find((o) => o.path === '/oauth/token');
    expect(headerParams(token!.op)).not.toContain('Idempotency-Key');
  });

  it('every workspace-credential operation declares Service-Account-Id; operator and public ones do not', () => {
    for (const o of ops) {
      const s = schemes(o.op);
      if (s.includes('bearerAuth')) expect(headerParams(o.op), name(o)).toContain('Service-Account-Id');
      else expect(headerParams(o.op), name(o)).not.toContain('Service-Account-Id');
    }
  });
});

describe('request bodies', () => {
  it('PUT /v2/uploads/{key} declares the file types it takes', () => {
    const body = (doc.paths as Record<string, Record<string, Json>>)['/v2/uploads/{key}']!.put!.requestBody as Json;
    expect(body.required).toBe(true);
    expect(Object.keys(body.content as Json)).toEqual(expect.arrayContaining(['application/pdf', 'image/jpeg', 'image/png']));
  });

  it('a body marked optional may be left out: the server answers no body-validation error', async () => {
    const caller: Caller = await newWorkspace(t.app);
    const optional = ops.filter((o) => (o.op.requestBody as Json | undefined)?.required === false);
    expect(optional.length).toBeGreaterThan(20);
    const refused: string[] = [];
    for (const o of optional) {
      const url = o.path.replace(/\{[^}]+\}/g, '3f2b8c1e-7a4d-4e5f-9b6a-1c2d3e4f5a6b');
      const operatorRoute = schemes(o.op).includes('operatorKey');
      const res = await t.app.inject({ method: o.method.toUpperCase() as 'POST', url, headers: { authorization: `Bearer ${operatorRoute ? OPERATOR_KEY : caller.token}` } });
      const text = res.body;
      if (res.statusCode === 400 && /"body"|body must|VALIDATION_ERROR/.test(text)) refused.push(`${name(o)}: ${text.slice(0, 200)}`);
      if (res.statusCode === 415) refused.push(`${name(o)}: 415`);
    }
    expect(refused).toEqual([]);
  });
});

describe('named schemas', () => {
  const schemas = () => (doc.components as { schemas: Record<string, Json> }).schemas;

  it('every resource, page and error shape is a named schema', () => {
    for (const n of ['Payout', 'Beneficiary', 'Order', 'Deposit', 'Event', 'VirtualAccount', 'Application', 'WebhookEndpoint', 'WebhookDelivery', 'FxQuote', 'PayoutList', 'Problem', 'LegacyError', 'ValidationError', 'Unauthorized', 'ErrorCode']) {
      expect(schemas()[n], n).toBeDefined();
    }
    expect(doc['x-schema-name-collisions']).toBeUndefined();
  });

  it('every JSON body and 2xx answer is a reference to a named schema', () => {
    const inline: string[] = [];
    for (const o of ops) {
      for (const media of Object.values(((o.op.requestBody as Json | undefined)?.content ?? {}) as Record<string, Json>)) {
        const s = media.schema as Json;
        if (s && s.format !== 'binary' && !('$ref' in s)) inline.push(`${name(o)} body`);
      }
      for (const [status, r] of Object.entries(o.op.responses as Record<string, Json>)) {
        if (!/^2/.test(status)) continue;
        for (const [type, media] of Object.entries((r.content ?? {}) as Record<string, Json>)) {
          const s = media.schema as Json;
          if (type.includes('json') && s && (s.type === 'object' || s.properties) && !('$ref' in s)) inline.push(`${name(o)} ${status}`);
        }
      }
    }
    expect(inline).toEqual([]);
  });

  it('openapi-typescript gives named operations and schemas', async () => {
    const text = astToString(await openapiTS(structuredClone(doc) as unknown as OpenAPI3));
    expect(text).toMatch(/export interface operations \{\n\s+getHealthz: \{/);
    expect(text).toMatch(/createPayout: \{/);
    expect(text).toMatch(/\n\s+Payout: \{/);
    expect(text).not.toMatch(/export type operations = Record<string, never>/);
  });
});

describe('security schemes', () => {
  it('declare the OAuth2 client-credentials flow beside the bearer token, wherever a token is taken', () => {
    const s = (doc.components as { securitySchemes: Record<string, Json> }).securitySchemes;
    expect(s.oauth2).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${t.config.publicBaseUrl}/oauth/token` } } });
    expect(Object.keys((s.oauth2!.flows as { clientCredentials: { scopes: Json } }).clientCredentials.scopes)).toContain('write:payouts');
    for (const o of ops) if (schemes(o.op).includes('bearerAuth')) expect(schemes(o.op), name(o)).toContain('oauth2');
  });
});

describe('error codes', () => {
  it('are the `code` enum of every error shape (the token endpoint\'s OAuth errors, answered as `error`, apart)', () => {
    const schemas = (doc.components as { schemas: Record<string, { enum?: string[]; properties?: Record<string, Json> }> }).schemas;
    expect(schemas.ErrorCode!.enum).toEqual(ERROR_CODES.filter((e) => e.shape !== 'oauth').map((e) => e.code));
    for (const shape of ['Problem', 'LegacyError', 'ValidationError']) expect(schemas[shape]!.properties!.code).toEqual({ $ref: '#/components/schemas/ErrorCode' });
  });

  it('are served at /docs/errors (HTML, strict CSP) and /docs/errors.json', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/errors' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    for (const entry of ERROR_CODES) expect(page.body).toContain(`id="${entry.code}"`);
    const json = await t.app.inject({ method: 'GET', url: '/docs/errors.json' });
    expect(json.json<{ data: { code: string; retryable: boolean }[] }>().data.map((d) => d.code)).toEqual(ERROR_CODES.map((e) => e.code));
  });

  it('the tags follow the getting-started path, the operator API last', () => {
    const tags = (doc.tags as { name: string }[]).map((tag) => tag.name);
    // The getting-started path of the description: a token, a beneficiary, a payout, a webhook and its events.
    expect(tags.slice(0, 5)).toEqual(['Authentication', 'Beneficiaries', 'Payouts', 'Webhooks', 'Events']);
    expect(tags[tags.length - 1]).toBe('Operator');
    // Every tag with an operation of the operator API only comes after every tag an integrator uses.
    const operatorOnly = (tag: string) =>
      Object.entries(doc.paths as Record<string, Record<string, { tags?: string[] }>>).every(([p, item]) => Object.values(item).every((op) => !op.tags?.includes(tag) || p.startsWith('/operator/')));
    const firstOperatorTag = tags.findIndex(operatorOnly);
    expect(tags.slice(firstOperatorTag).every(operatorOnly)).toBe(true);
    expect(tags.slice(firstOperatorTag)).toEqual(expect.arrayContaining(['Screening', 'Operator']));
  });
});
