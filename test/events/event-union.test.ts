/**
 * The event union of the OpenAPI document (issue 25, point 3): one schema per event type, and every
 * event the sandbox can cause validates against it as GET /v1/events gives it (so the documented
 * `data` of each type is what its module writes).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor, type CorridorEvent } from '../../packages/sdk/src/index.js';
import { TRIGGERS, trigger } from '../../src/cli/trigger.js';
import { EVENT_TYPES } from '../../src/domains/webhooks/event-types.js';
import { listeningTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';

type Json = Record<string, unknown>;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let t: TestApp;
let c: Caller;
let doc: { components: { schemas: Record<string, Json> } };
let base: string;

beforeAll(async () => {
  t = await listeningTestApp();
  base = t.config.publicBaseUrl;
  c = await newWorkspace(t.app);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => t.close());

describe('the event union', () => {
  it('has one member per event type, told apart by `type`', () => {
    const event = doc.components.schemas.Event as { anyOf: { $ref: string }[]; discriminator: { propertyName: string; mapping: Record<string, string> } };
    expect(event.discriminator.propertyName).toBe('type');
    expect(Object.keys(event.discriminator.mapping).sort()).toEqual([...EVENT_TYPES].sort());
    for (const [type, ref] of Object.entries(event.discriminator.mapping)) {
      // A one-value enum is written as `const` in the document (issue 38: tools read it as the literal).
      const member = doc.components.schemas[ref.replace('#/components/schemas/', '')] as { properties: { type: { const: string } } };
      expect(member.properties.type.const).toBe(type);
    }
    expect(event.anyOf).toHaveLength(EVENT_TYPES.length);
  });

  it('describes every event the sandbox causes, as GET /v1/events answers it', async () => {
    const corridor = new Corridor({ baseUrl: base, clientId: c.clientId, clientSecret: c.clientSecret, retryBaseDelayMs: 20 });
    for (const type of Object.keys(TRIGGERS)) await trigger(corridor, type, () => undefined);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const compiled = ajv.compile({ ...doc.components.schemas.Event, components: doc.components });
    const validate = Object.assign((data: unknown): boolean => compiled(data), { get errors() { return compiled.errors; } });
    const seen = new Set<string>();
    const invalid: string[] = [];
    for await (const event of corridor.events.list({ limit: 100 })) {
      seen.add(event.type);
      if (!validate(event)) invalid.push(`${event.type}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      // The SDK's type: narrowing by `type` types `data`.
      const typed: CorridorEvent = event;
      if (typed.type === 'payout.paid') expect(typeof typed.data.amount).toBe('string');
    }
    expect(invalid).toEqual([]);
    // payout.reverted is recorded but not delivered (spec §Events), so not listed.
    expect([...seen].sort()).toEqual(expect.arrayContaining(Object.keys(TRIGGERS).filter((type) => type !== 'payout.reverted')));
  });

  it('refuses an unknown type in GET /v1/events (a typo is not an empty list)', async () => {
    const res = await c.request('GET', '/v1/events?type=payout.paidd');
    expect(res.statusCode).toBe(400);
  });
});
