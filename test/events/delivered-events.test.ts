/**
 * Events typed as delivered (issue 38, point 1): every event a webhook endpoint receives and every
 * event `corridor listen` forwards is one the OpenAPI document's event union describes exactly (no
 * field it does not declare, none it requires missing), and one the SDK's `CorridorEvent` type
 * accepts as it is (the TypeScript compiler checks the received bodies against the generated types).
 * Against the real delivery workers, a real HTTPS receiver and the real event stream.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { strictDiagnostics } from '../helpers/strict-typecheck.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Corridor, type PayoutRequest } from '../../packages/sdk/src/index.js';
import { listen } from '../../src/cli/listen.js';
import { TRIGGERS, trigger } from '../../src/cli/trigger.js';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { eventSchemaName } from '../../src/domains/events/event-union.js';
import { DELIVERED_EVENT_TYPES, EVENT_TYPES } from '../../src/domains/webhooks/event-types.js';
import { listeningTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { closed } from '../helpers/closed-schema.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';
import { ADA, DE_IBAN } from '../payouts/helpers.js';
import type { Connector, RecipientCheck } from '../../src/connectors/connector.js';
import { defineConnector } from '../../src/connectors/definition.js';
import { correctBeneficiaryAccount } from '../../src/domains/beneficiaries/beneficiaries.port.js';

/** A connector of the test's own on sepa_credit (the triggers' EUR payouts go by sepa_inst) whose rail knows the account under another name. */
const naming: Connector = {
  name: 'naming',
  firstStepMs: () => 0,
  nextStep: () => ({ move: 'none', nextInMs: null }),
  canCancelProcessing: () => false,
  verifyRecipient: async (): Promise<RecipientCheck> => ({ kind: 'account_name', accountName: 'Charles Babbage' }),
};

type Json = Record<string, unknown>;
const SDK_INDEX = fileURLToPath(new URL('../../packages/sdk/src/index.js', import.meta.url));
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let t: TestApp;
let runner: JobRunner;
let receiver: HttpsReceiver;
let local: http.Server;
const forwarded: string[] = [];
let c: Caller;
let corridor: Corridor;
let doc: { components: { schemas: Record<string, Json> }; webhooks: Record<string, { post: WebhookEntry }> };

interface WebhookEntry {
  parameters: { name: string; in: string; required: boolean; schema: Json }[];
  requestBody: { content: { 'application/json': { schema: { $ref: string } } } };
}

beforeAll(async () => {
  const connectorsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-connectors-')), 'connectors.json');
  fs.writeFileSync(connectorsFile, JSON.stringify({ routes: { sepa_credit: 'naming' }, naming: {} }));
  t = await listeningTestApp(
    { WEBHOOK_RETRY_DELAYS_MS: '20,20,20,20,20', JOB_POLL_MS: '20', EVENT_STREAM_POLL_MS: '50', CORRIDOR_CONNECTORS_FILE: connectorsFile },
    { connectors: [defineConnector({ name: 'naming', section: 'naming', build: () => naming, reasons: [], backlog: ['queued'] })] },
  );
  receiver = await HttpsReceiver.start();
  runner = createRunner(t.ctx);
  runner.start();
  c = await newWorkspace(t.app);
  corridor = new Corridor({ baseUrl: t.config.publicBaseUrl, clientId: c.clientId, clientSecret: c.clientSecret, retryBaseDelayMs: 20 });
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  local = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      forwarded.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
}, 180_000);
afterAll(async () => {
  await runner?.stop();
  await receiver?.close();
  await new Promise((resolve) => local?.close(resolve));
  await t?.close();
});

/** The bodies that the SDK's CorridorEvent does not accept, with the compiler's words (empty: every one is accepted). */
function typeErrors(bodies: readonly string[]): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-delivered-'));
  try {
    const file = path.join(dir, 'delivered.ts');
    fs.writeFileSync(file, `import type { CorridorEvent } from ${JSON.stringify(SDK_INDEX)};\n${bodies.map((b, i) => `export const e${i} = ${b} satisfies CorridorEvent;`).join('\n')}\n`);
    return strictDiagnostics([file])
      .filter((d) => d.file?.fileName === file)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n').slice(0, 3).join(' / '));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A payout that an approval rule holds: payout.approval_required, whose data carries the approval. */
async function heldForApproval(): Promise<void> {
  const rule = await c.request('POST', '/v1/approval-rules', { type: 'amount_over', currency: 'EUR', amount: '500' }, { 'idempotency-key': 'rule-1' });
  expect(rule.statusCode, rule.body).toBe(201);
  await corridor.sandbox.fundBalance({ currency: 'EUR', amount: '1000.00' });
  const beneficiary = (await corridor.beneficiaries.create(ADA as never)) as { id: string };
  await corridor.payouts.create({ clientRef: 'held-for-approval', amount: '600.00', currency: 'EUR', beneficiary: { id: beneficiary.id }, senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' } } as PayoutRequest);
}

/** A payout whose recipient check the rail answers with another name: payout.recipient_check_required, whose data carries the check. */
async function heldForRecipientCheck(): Promise<void> {
  await corridor.sandbox.fundBalance({ currency: 'EUR', amount: '100.00' });
  await corridor.payouts.create({ clientRef: 'held-for-recipient-check', amount: '10.00', currency: 'EUR', route: 'sepa_credit', beneficiary: ADA, senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' } } as PayoutRequest);
}

/** A saved beneficiary's account corrected by a rail (what an ACH notification of change does, through the beneficiaries port): beneficiary.updated. */
async function correctedByRail(): Promise<void> {
  await corridor.sandbox.fundBalance({ currency: 'EUR', amount: '100.00' });
  const beneficiary = (await corridor.beneficiaries.create(ADA as never)) as { id: string };
  const payout = (await corridor.payouts.create({ clientRef: 'corrected-by-rail', amount: '10.00', currency: 'EUR', beneficiary: { id: beneficiary.id }, senderInfo: { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' } } as PayoutRequest)) as { id: string };
  const corrected = await t.ctx.db.tx((tx) =>
    correctBeneficiaryAccount(t.ctx, tx, { workspaceId: c.workspaceId, payoutId: payout.id, match: { iban: DE_IBAN }, changes: { iban: 'DE44500105175407324931' }, code: 'C01', words: 'incorrect account number' }),
  );
  expect(corrected?.beneficiaryId).toBe(beneficiary.id);
}

const typeOf = (body: string): string => (JSON.parse(body) as { type: string }).type;

describe('events as delivered', () => {
  it('every delivered and every forwarded event of every type matches its schema exactly and satisfies the SDK type', { timeout: 600_000 }, async () => {
    const endpoint = await c.request('POST', '/v1/webhooks', { url: receiver.url('/all') }, { 'idempotency-key': 'ep-all' });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const endpointId = endpoint.json<{ id: string }>().id;
    const controller = new AbortController();
    const lines: string[] = [];
    const following = listen({ corridor, forwardTo: `http://127.0.0.1:${(local.address() as AddressInfo).port}/hooks`, signal: controller.signal, write: (l) => lines.push(l) });

    for (const type of Object.keys(TRIGGERS)) await trigger(corridor, type, () => undefined);
    await heldForApproval();
    await heldForRecipientCheck();
    await correctedByRail();
    expect((await c.request('POST', `/v1/webhooks/${endpointId}/test`, {}, { 'idempotency-key': 'test-1' })).statusCode).toBe(201);

    // Every type but payout.reverted (recorded, not delivered: spec §Events) reaches the endpoint; the stream carries all but webhook.test.
    const delivered = EVENT_TYPES.filter((type) => type !== 'payout.reverted');
    expect(DELIVERED_EVENT_TYPES).toEqual(delivered);
    const got = await receiver.waitUntil('/all', (r) => delivered.every((type) => r.some((x) => typeOf(x.body) === type)), 300_000, 'every event type');
    const streamed = delivered.filter((type) => type !== 'webhook.test');
    for (const deadline = Date.now() + 300_000; !streamed.every((type) => forwarded.some((b) => typeOf(b) === type)); ) {
      if (Date.now() > deadline) throw new Error(`forwarded: ${[...new Set(forwarded.map(typeOf))].join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    controller.abort();
    await following;

    const bodies = [...got.map((r) => r.body), ...forwarded];
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(closed({ $id: 'doc', components: doc.components }) as Json);
    const invalid: string[] = [];
    for (const body of bodies) {
      const event = JSON.parse(body) as { type: string };
      const validate = ajv.getSchema(`doc#/components/schemas/${eventSchemaName(event.type)}`);
      if (!validate) invalid.push(`${event.type}: no schema`);
      else if (!validate(event)) invalid.push(`${event.type}: ${ajv.errorsText(validate.errors)}`);
    }
    expect([...new Set(invalid)]).toEqual([]);

    // Payout event data carries what the payout read carries: the approval that held it.
    const approval = got.find((r) => typeOf(r.body) === 'payout.approval_required');
    expect((JSON.parse(approval?.body ?? '{}') as { data: { approval?: { status: string } } }).data.approval?.status).toBe('pending');

    expect(typeErrors(bodies)).toEqual([]);

    // The document's `webhooks`: an entry per delivered type (no other), whose body schema each real delivery of the type
    // matches exactly and whose headers (the spec's X-Service-* and the Standard Webhooks ones) each real delivery carries.
    expect(Object.keys(doc.webhooks).sort()).toEqual([...delivered].sort());
    const unmatched: string[] = [];
    for (const received of got) {
      const type = typeOf(received.body);
      const entry = doc.webhooks[type]?.post;
      if (!entry) {
        unmatched.push(`${type}: no webhooks entry`);
        continue;
      }
      const validate = ajv.getSchema(`doc${entry.requestBody.content['application/json'].schema.$ref}`);
      if (!validate) unmatched.push(`${type}: ${entry.requestBody.content['application/json'].schema.$ref} not found`);
      else if (!validate(JSON.parse(received.body))) unmatched.push(`${type}: ${ajv.errorsText(validate.errors)}`);
      for (const header of entry.parameters.filter((p) => p.in === 'header' && p.required)) {
        const value = received.headers[header.name.toLowerCase()];
        if (typeof value !== 'string') unmatched.push(`${type}: no ${header.name}`);
        else if (!ajv.validate(header.schema, value)) unmatched.push(`${type}: ${header.name} ${value}: ${ajv.errorsText()}`);
      }
    }
    expect([...new Set(unmatched)]).toEqual([]);
    expect(Object.values(doc.webhooks).flatMap((w) => w.post.parameters.map((p) => p.name))).toEqual(
      expect.arrayContaining(['x-service-signature', 'x-service-timestamp', 'webhook-id', 'webhook-timestamp', 'webhook-signature']),
    );
  });
});
