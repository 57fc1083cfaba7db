import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDocument, addPerson, completeBusiness, createApplication, PNG } from '../applications/helpers.js';
import { createTestApp, getToken, newWorkspace, OPERATOR_KEY, operator, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';
import { camt053, camt054, writeAnswer } from '../helpers/bank-answers.js';
import { pollInbound } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { placeOrder, US_BENEFICIARY } from '../orders/helpers.js';
import { ADA, fund, payingWorkspace, saveBeneficiary } from '../payouts/helpers.js';
import { receivingWorkspace, requestAccount } from '../virtual-accounts/helpers.js';

/**
 * DESIGN: every POST takes an Idempotency-Key. Every POST route the app has is listed here from the
 * built app itself: each API route (/v1, /v2, /operator/v1, the legacy /fx) is sent twice with one key
 * and must answer the second time with the first answer, replayed, having done nothing again; the
 * others are on the short list of exceptions below, with the reason. A new POST route fails this test
 * until it is one or the other.
 */

const EXCEPTIONS: Record<string, string> = {
  'POST /oauth/token': 'token exchange (RFC 6749): each call answers a fresh token and changes nothing a retry could double',
  'POST /v1/payouts/:id/recipient-check/confirm': 'needs a connector that offers verifyRecipient and a payout it held (test/recipient-checks/recipient-checks.test.ts, where the dashboard form confirms twice under one key and confirms once); runIdempotent',
  'POST /v1/beneficiaries/:id/verify-recipient': 'needs a connector that offers verifyRecipient (test/recipient-checks/recipient-checks.test.ts); stores nothing, and its answer is kept under the key by runIdempotent',
  'POST /connectors/clearbank/webhooks': "the bank's webhook: authenticated by its signature and taken in once by its identity (a repeat changes nothing: test/clearbank/flow.test.ts), not by a key the bank never sends",
  'POST /connectors/paystack/webhook': "the provider's webhook: authenticated by x-paystack-signature and taken in once by its body's hash (a repeat changes nothing: test/paystack/transfers.test.ts), not by a key Paystack never sends",
  'POST /v1/collections': 'needs the mobile-money connector and its simulator behind Prism: sent twice under one key and replayed (one request to pay) in test/mobile-money/collections.test.ts; runIdempotent',
  'POST /operator/v1/paystack/dedicated-accounts': 'needs a Paystack connector and its simulator behind Prism: sent twice under one key and replayed in test/paystack/dedicated-accounts.test.ts; runIdempotent',
  'POST /operator/v1/chain/deposits/:id/release': 'needs a chain on anvil and a deposit held by the watcher (test/chain/address-screening.test.ts); runIdempotent, as resign',
  'POST /operator/v1/chain/deposits/:id/reject': 'needs a chain on anvil and a deposit held by the watcher (test/chain/address-screening.test.ts); runIdempotent, as resign',
  'POST /operator/v1/chain/payouts/:id/resign': 'needs a chain on anvil and a payout in nonce conflict: replayed under its key in test/chain/nonces.test.ts',
  'POST /operator/v1/chain/payouts/:id/cancel': 'needs a chain on anvil and a payout in nonce conflict (test/chain/nonces.test.ts); runIdempotent, as resign',
  'POST /operator/v1/chain/chains/:name/fundings': 'needs a chain on anvil: replayed under its key in test/chain/sweeps.test.ts (the second call answers the first transfer, the float moved once)',
  'POST /operator/v1/chain/chains/:name/resume': 'needs a chain on anvil (test/chain/issuer.test.ts, nonces.test.ts); runIdempotent, as resign',
};

/** Web pages: forms, not the API. Console forms carry a key per rendered form (tested below); sign-in and sessions change nothing a repeat could double. */
const WEB_PREFIXES = ['/dashboard/', '/console/'];

/** Every POST route of the app, as `POST /path/:param`, read from the router's own tree. */
function postRoutes(app: FastifyInstance): string[] {
  const tree = app.printRoutes({ method: 'POST', commonPrefix: false });
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \((POST)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(`${depth ? stack[depth - 1] : ''}${match[2]}`);
    if (match[3]) routes.push(`POST ${stack[depth]}`);
  }
  return routes;
}

interface Call {
  url: string;
  body?: unknown;
  /** A body sent as is with this Content-Type (a list file), not as JSON. */
  contentType?: string;
  /** The workspace calling; the operator key when absent. */
  caller?: Caller;
}

let t: TestApp;
/** A workspace that can pay out, with EUR and USD funded and onboarding approved. */
let c: Caller;
let beneficiaryId: string;

const ok = (res: LightMyRequestResponse, status = 200) => {
  expect(res.statusCode, res.body).toBe(status);
  return res.json<{ id: string; [k: string]: unknown }>();
};
async function op(url: string, body?: unknown) {
  const res = await operator(t.app, 'POST', url, body ?? {});
  return ok(res, res.statusCode === 201 ? 201 : 200);
}

async function payout(): Promise<string> {
  return ok(await c.request('POST', '/v1/payouts', { clientRef: `idem-${Math.random()}`, amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }), 201).id;
}
async function processing(): Promise<string> {
  const id = await payout();
  await op(`/operator/v1/payouts/${id}/process`);
  return id;
}
async function paid(): Promise<string> {
  const id = await processing();
  await op(`/operator/v1/payouts/${id}/pay`);
  return id;
}
const awaitingFunds = async () => (await placeOrder(c, { fromAmount: '10.00', funding: 'settlement' })).id;
async function fundsReceived(): Promise<string> {
  const id = await awaitingFunds();
  await op(`/operator/v1/orders/${id}/confirm-funds`);
  return id;
}
async function proofKey(orderId: string): Promise<string> {
  const issued = ok(await c.request('POST', `/v1/orders/${orderId}/settlement/proof-upload-url`, { contentType: 'image/png', contentLength: PNG.length }), 201);
  const url = new URL(issued.uploadUrl as string);
  expect((await t.app.inject({ method: 'PUT', url: `${url.pathname}${url.search}`, payload: PNG, headers: { 'content-type': 'image/png' } })).statusCode).toBe(200);
  return issued.proofKey as string;
}
/** A payout an approval rule holds, and a second credential of its workspace that may decide it (not its creator). */
async function heldPayout(): Promise<{ id: string; checker: Caller }> {
  const maker = await payingWorkspace(t);
  await fund(maker, 'EUR', '10.00');
  ok(await maker.request('POST', '/v1/approval-rules', { type: 'every_payout' }), 201);
  const id = ok(await maker.request('POST', '/v1/payouts', { clientRef: `held-${Math.random()}`, amount: '1.00', currency: 'EUR', beneficiary: ADA }), 201).id;
  const cred = (await op(`/operator/v1/workspaces/${maker.workspaceId}/credentials`, { scopes: ['write:approvals'] })) as unknown as { clientId: string; clientSecret: string };
  const token = await getToken(t.app, cred.clientId, cred.clientSecret);
  return { id, checker: { ...maker, clientId: cred.clientId, clientSecret: cred.clientSecret, token } };
}
async function submittedApplication(): Promise<{ id: string; owner: Caller }> {
  const owner = await newWorkspace(t.app, { name: 'Applicant Ltd' });
  const { application } = await completeBusiness(t.app, owner);
  ok(await owner.request('POST', `/v2/applications/${application.id}/submit`));
  return { id: application.id, owner };
}
async function pendingAccount(): Promise<{ id: string; owner: Caller }> {
  const owner = await receivingWorkspace(t.app);
  return { id: (await requestAccount(owner, 'USD')).id, owner };
}
async function activeAccount(): Promise<{ id: string; owner: Caller }> {
  const account = await pendingAccount();
  await op(`/operator/v1/virtual-accounts/${account.id}/approve`);
  return account;
}
const deposit = async (outcome: string) => ok(await c.request('POST', '/v1/sandbox/deposits', { currency: 'USDC', amount: '5.00', rail: 'crypto', outcome }), 201).id;
async function quote(path = '/v1/fx/quotes'): Promise<string> {
  return ok(await c.request('POST', path, { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1.00', intent: 'conversion' }), 201).id;
}
/** OFSI's list format with one listed name (test/fixtures/sanctions/uk/ConList.csv). */
const UK_LIST = fs.readFileSync(new URL('../fixtures/sanctions/uk/ConList.csv', import.meta.url)).toString('utf8');
/** A payout held by a sanctions hit (the UK list loaded first). */
async function screeningHeldPayout(): Promise<string> {
  const loaded = await t.app.inject({ method: 'POST', url: '/operator/v1/screening/lists/uk-ofsi/versions', headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'text/csv' }, payload: UK_LIST });
  expect(loaded.statusCode, loaded.body).toBe(201);
  const res = await c.request('POST', '/v1/payouts', { clientRef: `idem-${Math.random()}`, amount: '1.00', currency: 'EUR', beneficiary: { ...ADA, name: 'Khizri Abakarov' } });
  return ok(res, 201).id;
}
/** An order held by screening: its saved beneficiary is named as the UK-listed person. */
async function screeningHeldOrder(): Promise<string> {
  await screeningHeldPayout();
  const beneficiary = ok(await c.request('POST', '/v1/beneficiaries', { ...US_BENEFICIARY, type: 'individual', name: 'Khizri Abakarov' }), 201).id;
  return (await placeOrder(c, { fromAmount: '10.00', beneficiary: { id: beneficiary } })).id;
}
const webhook = async () => ok(await c.request('POST', '/v1/webhooks', { url: 'https://93.184.216.34/hook' }), 201).id;
/** A delivery that has finished (no worker runs here: the test event's delivery is marked failed, as after its last attempt). */
async function finishedDelivery(): Promise<{ endpointId: string; deliveryId: string }> {
  const endpointId = await webhook();
  ok(await c.request('POST', `/v1/webhooks/${endpointId}/test`), 201);
  const [delivery] = await t.ctx.db.query<{ id: string }>(
    "UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE endpoint_id = $1 RETURNING id",
    [endpointId],
  );
  return { endpointId, deliveryId: delivery?.id as string };
}
async function invitedUser(): Promise<string> {
  return ((await op(`/operator/v1/workspaces/${c.workspaceId}/users`, { email: `u${Math.random()}@corridor.test`, role: 'viewer' })).user as { id: string }).id;
}

/** For each API POST route: a request it answers with a 2xx, on objects made fresh for it. */
/**
 * What the reconciliation routes act on, taken in from bank files once: a paid payout's movement, a
 * statement line for it that names neither its reference nor its EndToEndId (unmatched, to match by
 * hand), a bank fee line (to ignore), and an entry of an unknown EndToEndId (an exception).
 */
let reconciliationFixture: Promise<{ line: string; movementId: string; feeLine: string; exceptionId: string }> | undefined;
function reconciliation() {
  reconciliationFixture ??= (async () => {
    const account = { id: 'coverage-eur', iban: 'DE02100100100006820101', currency: 'EUR' };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-coverage-bank-'));
    const take = async (name: string, xml: string) => {
      writeAnswer(dir, name, xml);
      await pollInbound(t.ctx, new LocalDirectorySource(dir), { accounts: [account] });
    };
    const id = ok(await c.request('POST', '/v1/payouts', { clientRef: `recon-${Math.random()}`, amount: '3.00', currency: 'EUR', beneficiary: { id: beneficiaryId } }), 201).id as string;
    await op(`/operator/v1/payouts/${id}/process`);
    await take('paid.xml', camt054({ account, entries: [{ direction: 'debit', amount: '3.00', endToEndId: id, ref: 'COV-3', bookingDate: '2026-05-04' }, { direction: 'debit', amount: '4.00', endToEndId: '00000000000040008000000000000000', ref: 'COV-4' }] }));
    await take('statement.xml', camt053({ account, date: '2026-05-04', opening: '100.00', entries: [{ direction: 'debit', amount: '3.00', ref: 'OTHER-REF' }, { direction: 'debit', amount: '1.50', ref: 'FEE' }] }));
    const [movement] = await t.ctx.db.query<{ id: string }>('SELECT id FROM bank_movements WHERE object_id = $1', [id]);
    const lines = await t.ctx.db.query<{ id: string }>("SELECT l.id FROM bank_statement_lines l JOIN bank_statements s ON s.id = l.statement_id WHERE s.bank_account = 'coverage-eur' ORDER BY l.seq");
    const [exception] = await t.ctx.db.query<{ id: string }>("SELECT id FROM bank_exceptions WHERE code = 'unknown_end_to_end_id' ORDER BY created_at DESC LIMIT 1");
    return { line: lines[0]?.id as string, feeLine: lines[1]?.id as string, movementId: movement?.id as string, exceptionId: exception?.id as string };
  })();
  return reconciliationFixture;
}

const CALLS: Record<string, () => Promise<Call>> = {
  'POST /v1/webhooks/:id/deliveries/:deliveryId/resend': async () => {
    const { endpointId, deliveryId } = await finishedDelivery();
    return { caller: c, url: `/v1/webhooks/${endpointId}/deliveries/${deliveryId}/resend` };
  },
  'POST /operator/v1/reconciliation/lines/:id/match': async () => {
    const r = await reconciliation();
    return { url: `/operator/v1/reconciliation/lines/${r.line}/match`, body: { movementId: r.movementId } };
  },
  'POST /operator/v1/reconciliation/lines/:id/ignore': async () => ({ url: `/operator/v1/reconciliation/lines/${(await reconciliation()).feeLine}/ignore`, body: { reason: 'Bank fee, booked to charges' } }),
  'POST /operator/v1/reconciliation/exceptions/:id/resolve': async () => ({ url: `/operator/v1/reconciliation/exceptions/${(await reconciliation()).exceptionId}/resolve`, body: { resolution: 'Asked the bank to recall it' } }),
  'POST /v1/accounts': async () => ({ caller: c, url: '/v1/accounts', body: { name: 'Shop Berlin', country: 'DE' } }),
  'POST /v1/beneficiaries': async () => ({ caller: c, url: '/v1/beneficiaries', body: ADA }),
  'POST /v1/payouts': async () => ({ caller: c, url: '/v1/payouts', body: { clientRef: 'idem-coverage', amount: '1.00', currency: 'EUR', beneficiary: { id: beneficiaryId } } }),
  'POST /v1/payouts/:id/cancel': async () => ({ caller: c, url: `/v1/payouts/${await payout()}/cancel` }),
  'POST /v1/payouts/:id/approve': async () => {
    const { id, checker } = await heldPayout();
    return { caller: checker, url: `/v1/payouts/${id}/approve`, body: { reason: 'checked' } };
  },
  'POST /v1/payouts/:id/reject': async () => {
    const { id, checker } = await heldPayout();
    return { caller: checker, url: `/v1/payouts/${id}/reject` };
  },
  'POST /v1/approval-rules': async () => ({ caller: await newWorkspace(t.app), url: '/v1/approval-rules', body: { type: 'amount_over', currency: 'EUR', amount: '500' } }),
  'POST /v1/fx/quotes': async () => ({ caller: c, url: '/v1/fx/quotes', body: { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1.00', intent: 'conversion' } }),
  'POST /v1/fx/conversions': async () => ({ caller: c, url: '/v1/fx/conversions', body: { quoteId: await quote() } }),
  'POST /fx/quotes': async () => ({ caller: c, url: '/fx/quotes', body: { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '1.00', intent: 'conversion' } }),
  'POST /fx/conversions': async () => ({ caller: c, url: '/fx/conversions', body: { quoteId: await quote('/fx/quotes') } }),
  'POST /v1/webhooks': async () => ({ caller: c, url: '/v1/webhooks', body: { url: 'https://93.184.216.34/other' } }),
  'POST /v1/webhooks/:id/rotate-secret': async () => ({ caller: c, url: `/v1/webhooks/${await webhook()}/rotate-secret`, body: {} }),
  'POST /v1/webhooks/:id/test': async () => ({ caller: c, url: `/v1/webhooks/${await webhook()}/test`, body: {} }),
  'POST /v1/virtual-accounts': async () => ({ caller: await receivingWorkspace(t.app), url: '/v1/virtual-accounts', body: { currency: 'USD' } }),
  'POST /v1/orders': async () => ({ caller: c, url: '/v1/orders', body: { fromCurrency: 'EUR', toCurrency: 'USD', fromAmount: '10.00' } }),
  'POST /v1/orders/:id/cancel': async () => ({ caller: c, url: `/v1/orders/${await awaitingFunds()}/cancel` }),
  'POST /v1/orders/:id/settlement/proof-upload-url': async () => ({ caller: c, url: `/v1/orders/${await awaitingFunds()}/settlement/proof-upload-url`, body: { contentType: 'image/png', contentLength: PNG.length } }),
  'POST /v1/orders/:id/settlement/proof': async () => {
    const id = await awaitingFunds();
    return { caller: c, url: `/v1/orders/${id}/settlement/proof`, body: { proofKey: await proofKey(id) } };
  },
  'POST /v2/applications': async () => ({ caller: c, url: '/v2/applications', body: { applicationType: 'business', businessInfo: { registeredName: 'Keyed Ltd' } } }),
  'POST /v2/applications/:id/persons': async () => ({ caller: c, url: `/v2/applications/${(await createApplication(c)).id}/persons`, body: { firstName: 'Ada', lastName: 'Lovelace' } }),
  'POST /v2/applications/:id/documents/upload-url': async () => ({ caller: c, url: `/v2/applications/${(await createApplication(c)).id}/documents/upload-url`, body: { contentType: 'application/pdf', contentLength: 100 } }),
  'POST /v2/applications/:id/documents': async () => {
    const owner = await newWorkspace(t.app);
    const application = await createApplication(owner);
    const personId = await addPerson(owner, application.id);
    // The same document registered twice with one key: one document (the helper registers its own first).
    await addDocument(t.app, owner, application.id, 'certificate_of_incorporation');
    const issued = ok(await owner.request('POST', `/v2/applications/${application.id}/documents/upload-url`, { contentType: 'image/png', contentLength: PNG.length }), 201);
    const url = new URL(issued.uploadUrl as string);
    await t.app.inject({ method: 'PUT', url: `${url.pathname}${url.search}`, payload: PNG, headers: { 'content-type': 'image/png' } });
    return { caller: owner, url: `/v2/applications/${application.id}/documents`, body: { documentKey: issued.documentKey, type: 'photo_id', personId } };
  },
  'POST /v2/applications/:id/terms-acceptance': async () => ({ caller: c, url: `/v2/applications/${(await createApplication(c)).id}/terms-acceptance`, body: { version: '1' } }),
  'POST /v2/applications/:id/submit': async () => {
    const owner = await newWorkspace(t.app);
    const { application } = await completeBusiness(t.app, owner);
    return { caller: owner, url: `/v2/applications/${application.id}/submit` };
  },
  'POST /v1/sandbox/balances/fund': async () => ({ caller: c, url: '/v1/sandbox/balances/fund', body: { currency: 'EUR', amount: '3.00' } }),
  'POST /v1/sandbox/payouts/:id/process': async () => ({ caller: c, url: `/v1/sandbox/payouts/${await payout()}/process` }),
  'POST /v1/sandbox/payouts/:id/pay': async () => ({ caller: c, url: `/v1/sandbox/payouts/${await processing()}/pay` }),
  'POST /v1/sandbox/payouts/:id/fail': async () => ({ caller: c, url: `/v1/sandbox/payouts/${await payout()}/fail`, body: { reason: 'declined' } }),
  'POST /v1/sandbox/payouts/:id/revert': async () => ({ caller: c, url: `/v1/sandbox/payouts/${await paid()}/revert` }),
  'POST /v1/sandbox/applications/:id/review': async () => {
    const { id, owner } = await submittedApplication();
    return { caller: owner, url: `/v1/sandbox/applications/${id}/review`, body: { decision: 'approve' } };
  },
  'POST /v1/sandbox/virtual-accounts/:id/approve': async () => {
    const { id, owner } = await pendingAccount();
    return { caller: owner, url: `/v1/sandbox/virtual-accounts/${id}/approve` };
  },
  'POST /v1/sandbox/virtual-accounts/:id/fail': async () => {
    const { id, owner } = await pendingAccount();
    return { caller: owner, url: `/v1/sandbox/virtual-accounts/${id}/fail`, body: { reason: 'refused' } };
  },
  'POST /v1/sandbox/virtual-accounts/:id/deactivate': async () => {
    const { id, owner } = await activeAccount();
    return { caller: owner, url: `/v1/sandbox/virtual-accounts/${id}/deactivate` };
  },
  'POST /v1/sandbox/deposits': async () => ({ caller: c, url: '/v1/sandbox/deposits', body: { currency: 'USDC', amount: '5.00', rail: 'crypto' } }),
  'POST /v1/sandbox/deposits/:id/complete': async () => ({ caller: c, url: `/v1/sandbox/deposits/${await deposit('pending')}/complete` }),
  'POST /v1/sandbox/deposits/:id/fail': async () => ({ caller: c, url: `/v1/sandbox/deposits/${await deposit('pending')}/fail` }),
  'POST /v1/sandbox/orders/:id/confirm-funds': async () => ({ caller: c, url: `/v1/sandbox/orders/${await awaitingFunds()}/confirm-funds` }),
  'POST /v1/sandbox/orders/:id/expire': async () => ({ caller: c, url: `/v1/sandbox/orders/${await awaitingFunds()}/expire` }),
  'POST /v1/sandbox/orders/:id/execute': async () => ({ caller: c, url: `/v1/sandbox/orders/${await fundsReceived()}/execute` }),
  'POST /v1/sandbox/orders/:id/complete': async () => ({ caller: c, url: `/v1/sandbox/orders/${await fundsReceived()}/complete`, body: {} }),
  'POST /v1/sandbox/orders/:id/fail': async () => ({ caller: c, url: `/v1/sandbox/orders/${await fundsReceived()}/fail` }),

  'POST /operator/v1/workspaces': async () => ({ url: '/operator/v1/workspaces', body: { name: 'Keyed Workspace', country: 'GB' } }),
  'POST /operator/v1/workspaces/:id/credentials': async () => ({ url: `/operator/v1/workspaces/${c.workspaceId}/credentials`, body: { label: 'keyed' } }),
  'POST /operator/v1/workspaces/:id/credentials/:clientId/rotate': async () => {
    const { clientId } = await op(`/operator/v1/workspaces/${c.workspaceId}/credentials`, {}).then((r) => r as unknown as { clientId: string });
    return { url: `/operator/v1/workspaces/${c.workspaceId}/credentials/${clientId}/rotate`, body: {} };
  },
  'POST /operator/v1/workspaces/:id/balances/adjust': async () => ({ url: `/operator/v1/workspaces/${c.workspaceId}/balances/adjust`, body: { currency: 'EUR', amount: '2.00', reason: 'goodwill' } }),
  'POST /operator/v1/workspaces/:id/users': async () => ({ url: `/operator/v1/workspaces/${c.workspaceId}/users`, body: { email: 'keyed@corridor.test', role: 'viewer' } }),
  'POST /operator/v1/workspaces/:id/users/:userId/invitation': async () => ({ url: `/operator/v1/workspaces/${c.workspaceId}/users/${await invitedUser()}/invitation` }),
  'POST /operator/v1/operators': async () => ({ url: '/operator/v1/operators', body: { email: 'keyed-operator@corridor.test' } }),
  'POST /operator/v1/operators/:userId/invitation': async () => {
    const invited = await op('/operator/v1/operators', { email: `o${Math.random()}@corridor.test` });
    return { url: `/operator/v1/operators/${(invited.user as { id: string }).id}/invitation` };
  },
  'POST /operator/v1/payouts/:id/process': async () => ({ url: `/operator/v1/payouts/${await payout()}/process` }),
  'POST /operator/v1/payouts/:id/pay': async () => ({ url: `/operator/v1/payouts/${await processing()}/pay` }),
  'POST /operator/v1/payouts/:id/fail': async () => ({ url: `/operator/v1/payouts/${await payout()}/fail`, body: { reason: 'declined' } }),
  'POST /operator/v1/payouts/:id/revert': async () => ({ url: `/operator/v1/payouts/${await paid()}/revert` }),
  'POST /operator/v1/applications/:id/review': async () => ({ url: `/operator/v1/applications/${(await submittedApplication()).id}/review`, body: { decision: 'approve' } }),
  'POST /operator/v1/virtual-accounts/:id/approve': async () => ({ url: `/operator/v1/virtual-accounts/${(await pendingAccount()).id}/approve` }),
  'POST /operator/v1/virtual-accounts/:id/fail': async () => ({ url: `/operator/v1/virtual-accounts/${(await pendingAccount()).id}/fail`, body: { reason: 'refused' } }),
  'POST /operator/v1/virtual-accounts/:id/deactivate': async () => ({ url: `/operator/v1/virtual-accounts/${(await activeAccount()).id}/deactivate` }),
  'POST /operator/v1/deposits': async () => ({ url: '/operator/v1/deposits', body: { workspaceId: c.workspaceId, currency: 'USDC', amount: '4.00', rail: 'crypto' } }),
  'POST /operator/v1/deposits/:id/complete': async () => ({ url: `/operator/v1/deposits/${await deposit('pending')}/complete` }),
  'POST /operator/v1/deposits/:id/fail': async () => ({ url: `/operator/v1/deposits/${await deposit('pending')}/fail` }),
  'POST /operator/v1/deposits/:id/review': async () => ({ url: `/operator/v1/deposits/${await deposit('pending')}/review` }),
  'POST /operator/v1/deposits/:id/reverse': async () => ({ url: `/operator/v1/deposits/${await deposit('completed')}/reverse` }),
  'POST /operator/v1/deposits/:id/refund': async () => ({ url: `/operator/v1/deposits/${await deposit('completed')}/refund` }),
  'POST /operator/v1/deposits/:id/refunded': async () => {
    const id = await deposit('completed');
    await op(`/operator/v1/deposits/${id}/refund`);
    return { url: `/operator/v1/deposits/${id}/refunded` };
  },
  'POST /operator/v1/orders/:id/confirm-funds': async () => ({ url: `/operator/v1/orders/${await awaitingFunds()}/confirm-funds` }),
  'POST /operator/v1/orders/:id/execute': async () => ({ url: `/operator/v1/orders/${await fundsReceived()}/execute` }),
  'POST /operator/v1/orders/:id/complete': async () => ({ url: `/operator/v1/orders/${await fundsReceived()}/complete`, body: {} }),
  'POST /operator/v1/orders/:id/fail': async () => ({ url: `/operator/v1/orders/${await fundsReceived()}/fail` }),
  'POST /operator/v1/screening/lists/:list/versions': async () => ({ url: '/operator/v1/screening/lists/uk-ofsi/versions', body: UK_LIST, contentType: 'text/csv' }),
  'POST /operator/v1/screening/holds/:payoutId/release': async () => ({ url: `/operator/v1/screening/holds/${await screeningHeldPayout()}/release` }),
  'POST /operator/v1/screening/holds/:payoutId/reject': async () => ({ url: `/operator/v1/screening/holds/${await screeningHeldPayout()}/reject` }),
  'POST /operator/v1/screening/order-holds/:orderId/release': async () => ({ url: `/operator/v1/screening/order-holds/${await screeningHeldOrder()}/release` }),
  'POST /operator/v1/screening/order-holds/:orderId/reject': async () => ({ url: `/operator/v1/screening/order-holds/${await screeningHeldOrder()}/reject` }),
  'POST /operator/v1/screening/check': async () => ({ url: '/operator/v1/screening/check', body: { name: 'Khizri Abakarov' } }),
};

beforeAll(async () => {
  t = await createTestApp();
  c = await payingWorkspace(t);
  await fund(c, 'EUR', '1000.00');
  beneficiaryId = await saveBeneficiary(c);
});
afterAll(async () => t?.close());

function send(call: Call, key: string): Promise<LightMyRequestResponse> {
  const authorization = `Bearer ${call.caller ? call.caller.token : OPERATOR_KEY}`;
  const type = call.contentType ? { 'content-type': call.contentType } : {};
  return t.app.inject({ method: 'POST', url: call.url, headers: { authorization, 'idempotency-key': key, ...type }, ...(call.body === undefined ? {} : { payload: call.body as object }) });
}

describe('every POST route stores and replays its answer under an Idempotency-Key', () => {
  it('lists every POST route: each is exercised below, a web page, or an exception with its reason', () => {
    const routes = postRoutes(t.app);
    expect(routes.length).toBeGreaterThan(60);
    const unaccounted = routes.filter((r) => !CALLS[r] && !EXCEPTIONS[r] && !WEB_PREFIXES.some((p) => r.startsWith(`POST ${p}`)));
    expect(unaccounted, 'POST routes neither exercised under a key nor listed as an exception').toEqual([]);
    // Nothing stale: every route exercised still exists.
    expect(Object.keys(CALLS).filter((r) => !routes.includes(r))).toEqual([]);
  });

  it.each(Object.keys(CALLS))('%s: the same key twice answers once, the second time replayed', async (route) => {
    const call = await (CALLS[route] as () => Promise<Call>)();
    const key = `coverage-${route}`.replace(/[^\x21-\x7e]/g, '_');
    const first = await send(call, key);
    expect(first.statusCode, first.body).toBeGreaterThanOrEqual(200);
    expect(first.statusCode, first.body).toBeLessThan(300);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await send(call, key);
    expect(again.headers['idempotent-replayed'], again.body).toBe('true');
    expect(again.statusCode).toBe(first.statusCode);
    expect(again.body).toBe(first.body);
  });
});

describe('a console form carries a key per rendered form', () => {
  it('a double submit of the credit form credits once; a form rendered again credits again', async () => {
    const client = new WebClient(t.app);
    await client.get('/console/sign-in');
    expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
    const formKey = async () => {
      const page = await client.get('/console/deposits');
      const form = /<form method="post" action="\/console\/deposits"[^>]*>[\s\S]*?name="_idempotency" value="([^"]+)"/.exec(page.body);
      expect(form?.[1]).toBeTruthy();
      return form?.[1] as string;
    };
    const credits = async () => (await t.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposits WHERE workspace_id = $1 AND client_ref = 'console-double'", [c.workspaceId]))[0]?.n;
    const form = { workspaceId: c.workspaceId, currency: 'USDC', amount: '9.00', rail: 'crypto', clientRef: 'console-double' };
    const key = await formKey();
    const [one, two] = await Promise.all([client.post('/console/deposits', { ...form, _idempotency: key }), client.post('/console/deposits', { ...form, _idempotency: key })]);
    expect([one.statusCode, two.statusCode]).toEqual([303, 303]);
    expect(two.headers.location).toBe(one.headers.location);
    expect(await credits()).toBe(1);
    const later = await client.post('/console/deposits', { ...form, _idempotency: key });
    expect(later.statusCode).toBe(303);
    expect(await credits()).toBe(1);
    const other = await formKey();
    expect(other).not.toBe(key);
    expect((await client.post('/console/deposits', { ...form, _idempotency: other })).statusCode).toBe(303);
    expect(await credits()).toBe(2);
  });
});
