/**
 * Every curl sample of /docs runs as written (issue 25, point 2): each is run by bash against a live
 * server, with the shell variables it reads set to ids created first (a fresh object where the
 * sample changes its state), and must answer 2xx. Nothing but curl and coreutils is needed. The
 * operator API's samples run too, with the operator key, on objects made for them: workspaces and
 * credentials, payouts in each state, applications, virtual accounts, deposits, orders, bank files
 * taken in for reconciliation, invited users and operators, and payouts a sanctions hit holds.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Corridor } from '../../packages/sdk/src/index.js';
import { EXAMPLES_FILE, recordedExample, type RecordedExample } from '../../src/faces/docs/examples.js';
import { createRunner } from '../../src/jobs.js';
import { pollInbound } from '../../src/connectors/bank/inbound/inbound.service.js';
import { LocalDirectorySource } from '../../src/connectors/bank/inbound/inbound.source.js';
import { acceptInvitation } from '../../src/domains/users/users.service.js';
import { BUSINESS, DIRECTOR } from '../applications/helpers.js';
import { camt053, camt054, writeAnswer } from '../helpers/bank-answers.js';
import { HttpsReceiver } from '../helpers/https-receiver.js';
import { getToken, listeningTestApp, newWorkspace, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';

type Json = Record<string, unknown>;
type Env = Record<string, string>;

/** The smallest PDF the document checks accept: the file the upload sample sends (document.pdf). */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
const BENEFICIARY = {
  type: 'individual',
  name: 'Ada Lovelace',
  country: 'DE',
  address: '1 Hauptstrasse',
  city: 'Berlin',
  postcode: '10115',
  accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
} as const;
const SENDER = { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' } as const;

let t: TestApp;
let base: string;
let workDir: string;
let doc: { paths: Record<string, Record<string, Json>> };

interface Workspace {
  caller: Caller;
  sdk: Corridor;
  env: Env;
}

const n = () => Math.random().toString(36).slice(2, 10);
const idOf = (value: unknown): string => (value as { id: string }).id;

async function workspace(): Promise<Workspace> {
  const caller = await newWorkspace(t.app);
  const sdk = new Corridor({ baseUrl: base, clientId: caller.clientId, clientSecret: caller.clientSecret, retryBaseDelayMs: 20 });
  await sdk.sandbox.fundBalance({ currency: 'EUR', amount: '100000.00' });
  await sdk.sandbox.fundBalance({ currency: 'USD', amount: '100000.00' });
  return {
    caller,
    sdk,
    env: { CORRIDOR_BASE_URL: base, TOKEN: caller.token, CORRIDOR_CLIENT_ID: caller.clientId, CORRIDOR_CLIENT_SECRET: caller.clientSecret, CORRIDOR_OPERATOR_KEY: OPERATOR_KEY },
  };
}

async function beneficiary(w: Workspace): Promise<{ id: string; accountId: string }> {
  const b = (await w.sdk.beneficiaries.create(BENEFICIARY as never)) as { id: string; accounts: { id: string }[] };
  return { id: b.id, accountId: b.accounts[0]!.id };
}

/** A payout the sandbox holds (amount .14), moved by `moves` (process, pay…). */
async function payout(w: Workspace, moves: ('process' | 'pay')[] = []): Promise<string> {
  const b = await beneficiary(w);
  const id = idOf(await w.sdk.payouts.create({ clientRef: `s-${n()}`, amount: '10.14', currency: 'EUR', beneficiary: { id: b.id }, senderInfo: SENDER } as never));
  for (const move of moves) await w.sdk.sandbox.payouts[move]({ id }).catch(() => undefined);
  return id;
}

async function upload(w: Workspace, applicationId: string): Promise<{ documentKey: string; uploadUrl: string }> {
  return (await w.sdk.applications.documents.uploadUrl({ id: applicationId }, { contentType: 'application/pdf', contentLength: PDF.length } as never)) as { documentKey: string; uploadUrl: string };
}

async function document(w: Workspace, applicationId: string, type: string, personId?: string): Promise<string> {
  const issued = await upload(w, applicationId);
  const put = await fetch(issued.uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: PDF });
  expect(put.status).toBe(200);
  return idOf(await w.sdk.applications.documents.create({ id: applicationId }, { documentKey: issued.documentKey, type, ...(personId ? { personId } : {}) } as never));
}

/** A complete business application of the workspace; submitted, and reviewed with `decision` when given. */
async function application(w: Workspace, stage: 'draft' | 'complete' | 'submitted' | 'approved'): Promise<{ id: string; personId: string }> {
  const id = idOf(await w.sdk.applications.create(BUSINESS as never));
  const personId = idOf(await w.sdk.applications.persons.create({ id }, DIRECTOR as never));
  if (stage === 'draft') return { id, personId };
  await document(w, id, 'photo_id', personId);
  await document(w, id, 'certificate_of_incorporation');
  const terms = (await w.sdk.applications.terms.get()) as { version: string };
  await w.sdk.applications.terms.accept({ id }, { version: terms.version });
  if (stage === 'complete') return { id, personId };
  await w.sdk.applications.submit({ id });
  if (stage === 'approved') await w.sdk.sandbox.applications.review({ id }, { decision: 'approve' } as never);
  return { id, personId };
}

/** A new workspace with an approved application, and a virtual account in `currency` (USD: pending; EUR: active). */
async function virtualAccount(currency: 'USD' | 'EUR'): Promise<Env> {
  const w = await workspace();
  await application(w, 'approved');
  const va = idOf(await w.sdk.virtualAccounts.create({ currency } as never));
  return { ...w.env, VIRTUAL_ACCOUNT_ID: va };
}

async function order(w: Workspace, funding: 'balance' | 'settlement', fromCurrency = 'USD'): Promise<string> {
  return idOf(await w.sdk.orders.create({ clientRef: `o-${n()}`, fromCurrency, toCurrency: 'EUR', fromAmount: '100.00', funding } as never));
}

async function conversionQuote(w: Workspace): Promise<string> {
  return idOf(await w.sdk.fx.quotes.create({ fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10.00', intent: 'conversion' } as never));
}

/** An operator call (the key of the bootstrap operator), answered 2xx or the test stops there. */
async function operatorCall(method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown): Promise<Json> {
  const res = await t.app.inject({ method, url, headers: { authorization: `Bearer ${OPERATOR_KEY}`, ...(method === 'POST' ? { 'idempotency-key': n() } : {}) }, ...(body === undefined ? {} : { payload: body as object }) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json<Json>();
}

const credential = async (w: Workspace): Promise<string> => String((await operatorCall('POST', `/operator/v1/workspaces/${w.caller.workspaceId}/credentials`, {})).clientId);

/** A settlement-funded order whose funds the operator has confirmed. */
async function fundsReceived(w: Workspace): Promise<string> {
  const id = await order(w, 'settlement');
  await operatorCall('POST', `/operator/v1/orders/${id}/confirm-funds`);
  return id;
}

/** A settlement-funded order with its proof of payment uploaded and submitted. */
async function orderWithProof(w: Workspace): Promise<{ ORDER_ID: string; PROOF_KEY: string }> {
  const id = await order(w, 'settlement');
  const issued = (await w.sdk.orders.settlement.proofUploadUrl({ id }, { contentType: 'application/pdf', contentLength: PDF.length } as never)) as { proofKey: string; uploadUrl: string };
  await fetch(issued.uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: PDF });
  return { ORDER_ID: id, PROOF_KEY: issued.proofKey };
}

const sandboxDeposit = async (w: Workspace, outcome: 'pending' | 'completed'): Promise<string> => idOf(await w.sdk.sandbox.deposits.create({ currency: 'USDC', amount: '5.00', outcome } as never));

/** OFSI's list format with one listed name (test/fixtures/sanctions/uk/ConList.csv). */
const UK_LIST = fs.readFileSync(new URL('../fixtures/sanctions/uk/ConList.csv', import.meta.url));
/** OFAC's SDN list in its CSV set (the three files in one body): the file the list sample sends (list.csv). */
const OFAC_CSV = Buffer.concat(['SDN.CSV', 'ALT.CSV', 'ADD.CSV'].map((f) => fs.readFileSync(new URL(`../fixtures/sanctions/ofac/${f}`, import.meta.url))));

/** A payout a sanctions hit holds: OFSI's list is loaded, and the beneficiary is a listed name. */
async function screeningHeld(w: Workspace): Promise<string> {
  const loaded = await t.app.inject({ method: 'POST', url: '/operator/v1/screening/lists/uk-ofsi/versions', headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'text/csv', 'idempotency-key': n() }, payload: UK_LIST });
  expect(loaded.statusCode, loaded.body).toBe(201);
  return idOf(await w.sdk.payouts.create({ clientRef: `h-${n()}`, amount: '1.00', currency: 'EUR', beneficiary: { ...BENEFICIARY, name: 'Khizri Abakarov' }, senderInfo: SENDER } as never));
}

/** An order its beneficiary's screening holds: OFSI's list is loaded, and the saved beneficiary is a listed name. */
async function screeningHeldOrder(w: Workspace): Promise<string> {
  await screeningHeld(w);
  const beneficiary = idOf(await w.sdk.beneficiaries.create({ ...BENEFICIARY, name: 'Khizri Abakarov' } as never));
  return idOf(await w.sdk.orders.create({ clientRef: `o-${n()}`, fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '100.00', funding: 'settlement', beneficiary: { id: beneficiary } } as never));
}

/**
 * What the reconciliation samples act on, taken in from bank files: a payout's movement (booked by a
 * camt.054), a statement line for it naming neither its reference nor its EndToEndId (to match by
 * hand), a bank fee line (to ignore), and an entry of an unknown EndToEndId (an exception).
 */
async function reconciliation(w: Workspace): Promise<Env> {
  const account = { id: 'samples-eur', iban: 'DE02100100100006820101', currency: 'EUR' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-samples-bank-'));
  try {
    const take = async (name: string, xml: string) => {
      writeAnswer(dir, name, xml);
      await pollInbound(t.ctx, new LocalDirectorySource(dir), { accounts: [account] });
    };
    const id = idOf(await w.sdk.payouts.create({ clientRef: `r-${n()}`, amount: '3.00', currency: 'EUR', beneficiary: { id: (await beneficiary(w)).id }, senderInfo: SENDER } as never));
    await operatorCall('POST', `/operator/v1/payouts/${id}/process`);
    await take('paid.xml', camt054({ account, entries: [{ direction: 'debit', amount: '3.00', endToEndId: id, ref: 'SMP-3', bookingDate: '2026-05-04' }, { direction: 'debit', amount: '4.00', endToEndId: '00000000000040008000000000000000', ref: 'SMP-4' }] }));
    await take('statement.xml', camt053({ account, date: '2026-05-04', opening: '100.00', entries: [{ direction: 'debit', amount: '3.00', ref: 'OTHER-REF' }, { direction: 'debit', amount: '1.50', ref: 'FEE' }] }));
    const statements = (await operatorCall('GET', '/operator/v1/reconciliation/statements?bankAccount=samples-eur')).data as { id: string }[];
    const statementId = statements[0]!.id;
    const lines = (await operatorCall('GET', `/operator/v1/reconciliation/statements/${statementId}/lines`)).data as { id: string }[];
    const [movement] = await t.ctx.db.query<{ id: string }>('SELECT id FROM bank_movements WHERE object_id = $1', [id]);
    const exceptions = (await operatorCall('GET', '/operator/v1/reconciliation/exceptions')).data as { id: string }[];
    return { STATEMENT_ID: statementId, LINE_ID: lines[1]!.id, PAYOUT_LINE_ID: lines[0]!.id, MOVEMENT_ID: movement!.id, EXCEPTION_ID: exceptions[0]!.id };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const invitedUser = async (w: Workspace): Promise<string> => idOf((await operatorCall('POST', `/operator/v1/workspaces/${w.caller.workspaceId}/users`, { email: `u-${n()}@corridor.test`, role: 'viewer' })).user);
const invitedOperator = async (): Promise<string> => idOf((await operatorCall('POST', '/operator/v1/operators', { email: `o-${n()}@corridor.test` })).user);
/** An operator who has accepted the invitation (set a password): one that can be disabled. */
async function activeOperator(): Promise<string> {
  const invited = await operatorCall('POST', '/operator/v1/operators', { email: `o-${n()}@corridor.test` });
  const token = new URL(String(invited.invitationUrl)).searchParams.get('token') as string;
  return (await acceptInvitation(t.ctx.db, t.ctx.box, token, 'a long enough passphrase 4711', 'a long enough passphrase 4711')).id;
}

let shared: Workspace;
/** The shared ids, for a FRESH entry that picks another of them. */
let sharedValues: Env = {};

/** Ids every sample may read, in one workspace; samples that change an object get their own (FRESH). */
async function sharedEnv(w: Workspace): Promise<Env> {
  const b = await beneficiary(w);
  const app = await application(w, 'draft');
  const documentId = await document(w, app.id, 'certificate_of_incorporation');
  const unregistered = await upload(w, app.id);
  await fetch(unregistered.uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: PDF });
  const forUpload = await upload(w, app.id);
  const webhook = idOf(await w.sdk.webhooks.create({ url: 'https://localhost:3000/webhooks/corridor' } as never));
  await w.sdk.webhooks.test({ id: webhook });
  const deliveries = await w.sdk.webhooks.deliveries.list({ id: webhook });
  const quote = await conversionQuote(w);
  const conversion = idOf(await w.sdk.fx.conversions.create({ quoteId: await conversionQuote(w) } as never));
  const deposit = idOf(await w.sdk.sandbox.deposits.create({ currency: 'USDC', amount: '25.00' } as never));
  const terms = (await w.sdk.applications.terms.get()) as { version: string };
  const credential = await t.app.inject({ method: 'POST', url: `/operator/v1/workspaces/${w.caller.workspaceId}/credentials`, headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': n() }, payload: {} });
  const events = await w.sdk.events.list({ limit: 1 });
  const recon = await reconciliation(w);
  return {
    ...w.env,
    ...recon,
    WORKSPACE_ID: w.caller.workspaceId,
    CURRENCY_CODE: 'EUR',
    USER_ID: await invitedUser(w),
    BENEFICIARY_ID: b.id,
    BENEFICIARY_ACCOUNT_ID: b.accountId,
    PAYOUT_ID: await payout(w),
    QUOTE_ID: quote,
    CONVERSION_ID: conversion,
    WEBHOOK_ID: webhook,
    DELIVERY_ID: deliveries.data[0]!.id,
    EVENT_ID: events.data[0]!.id,
    ACCOUNT_ID: idOf(await w.sdk.accounts.create({ name: 'Sample Branch', country: 'GB' } as never)),
    APPLICATION_ID: app.id,
    PERSON_ID: app.personId,
    DOCUMENT_ID: documentId,
    DOCUMENT_KEY: unregistered.documentKey,
    UPLOAD_URL: forUpload.uploadUrl,
    TERMS_VERSION: terms.version,
    ORDER_ID: await order(w, 'balance'),
    DEPOSIT_ID: deposit,
    CLIENT_ID: credential.json<{ clientId: string }>().clientId,
  };
}

/**
 * A payout an approval rule holds, in a workspace of its own, and the token of a second credential
 * that may decide it (the creator may not).
 */
async function awaitingApproval(): Promise<Env> {
  const w = await workspace();
  const rule = await w.caller.request('POST', '/v1/approval-rules', { type: 'every_payout' });
  expect(rule.statusCode, rule.body).toBe(201);
  const id = await payout(w);
  const issued = await t.app.inject({ method: 'POST', url: `/operator/v1/workspaces/${w.caller.workspaceId}/credentials`, headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'idempotency-key': n() }, payload: { scopes: ['read:payouts', 'write:approvals'] } });
  const checker = issued.json<{ clientId: string; clientSecret: string }>();
  return { ...w.env, PAYOUT_ID: id, TOKEN: await getToken(t.app, checker.clientId, checker.clientSecret) };
}

/** Samples that change the object they name: each gets one in the state the sample needs. */
const FRESH: Record<string, (w: Workspace) => Promise<Env>> = {
  'POST /v1/fx/conversions': async (w) => ({ QUOTE_ID: await conversionQuote(w) }),
  'POST /fx/conversions': async (w) => ({ QUOTE_ID: await conversionQuote(w) }),
  'POST /v1/payouts/{id}/cancel': async (w) => ({ PAYOUT_ID: await payout(w) }),
  'POST /v1/sandbox/payouts/{id}/process': async (w) => ({ PAYOUT_ID: await payout(w) }),
  'POST /v1/sandbox/payouts/{id}/pay': async (w) => ({ PAYOUT_ID: await payout(w, ['process']) }),
  'POST /v1/sandbox/payouts/{id}/fail': async (w) => ({ PAYOUT_ID: await payout(w, ['process']) }),
  'POST /v1/sandbox/payouts/{id}/revert': async (w) => ({ PAYOUT_ID: await payout(w, ['process', 'pay']) }),
  'POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend': async (w) => {
    // A finished delivery: the workers run only until it has succeeded (nothing else moves meanwhile).
    const receiver = await HttpsReceiver.start();
    const runner = createRunner(t.ctx);
    try {
      const webhook = idOf(await w.sdk.webhooks.create({ url: receiver.url('/hooks') } as never));
      const delivery = idOf(await w.sdk.webhooks.test({ id: webhook }));
      runner.start();
      await receiver.waitFor('/hooks', 1);
      while ((await w.sdk.webhooks.deliveries.get({ id: webhook, deliveryId: delivery })).status === 'pending') await new Promise((r) => setTimeout(r, 25));
      return { WEBHOOK_ID: webhook, DELIVERY_ID: delivery };
    } finally {
      await runner.stop();
      await receiver.close();
    }
  },
  'DELETE /v1/beneficiaries/{id}': async (w) => ({ BENEFICIARY_ID: (await beneficiary(w)).id }),
  'GET /v1/approval-rules/{id}': async (w) => {
    const rule = await w.caller.request('POST', '/v1/approval-rules', { type: 'batch_over', rows: 500 });
    expect(rule.statusCode, rule.body).toBe(201);
    return { APPROVAL_RULE_ID: idOf(rule.json()) };
  },
  'GET /v1/request-logs/{id}': async (w) => {
    const logs = await w.caller.request('GET', '/v1/request-logs');
    return { REQUEST_LOG_ID: idOf(logs.json<{ data: unknown[] }>().data[0]) };
  },
  'DELETE /v1/approval-rules/{id}': async (w) => {
    const rule = await w.caller.request('POST', '/v1/approval-rules', { type: 'batch_over', rows: 500 });
    expect(rule.statusCode, rule.body).toBe(201);
    return { APPROVAL_RULE_ID: idOf(rule.json()) };
  },
  'POST /v1/payouts/{id}/approve': awaitingApproval,
  'POST /v1/payouts/{id}/reject': awaitingApproval,
  'DELETE /v1/webhooks/{id}': async (w) => ({ WEBHOOK_ID: idOf(await w.sdk.webhooks.create({ url: 'https://localhost:3000/webhooks/corridor' } as never)) }),
  'DELETE /v2/applications/{id}/persons/{personId}': async (w) => {
    const app = await application(w, 'draft');
    return { APPLICATION_ID: app.id, PERSON_ID: app.personId };
  },
  'DELETE /v2/applications/{id}/documents/{documentId}': async (w) => {
    const app = await application(w, 'draft');
    return { APPLICATION_ID: app.id, DOCUMENT_ID: await document(w, app.id, 'certificate_of_incorporation') };
  },
  'POST /v2/applications/{id}/submit': async (w) => ({ APPLICATION_ID: (await application(w, 'complete')).id }),
  'POST /v1/sandbox/applications/{id}/review': async (w) => ({ APPLICATION_ID: (await application(w, 'submitted')).id }),
  'POST /v1/virtual-accounts': async () => {
    const w = await workspace();
    await application(w, 'approved');
    return w.env;
  },
  'GET /v1/virtual-accounts': async () => virtualAccount('EUR'),
  'POST /v1/sandbox/virtual-accounts/{id}/approve': async () => virtualAccount('USD'),
  'POST /v1/sandbox/virtual-accounts/{id}/fail': async () => virtualAccount('USD'),
  'POST /v1/sandbox/virtual-accounts/{id}/deactivate': async () => virtualAccount('EUR'),
  'POST /v1/sandbox/deposits/{id}/complete': async (w) => ({ DEPOSIT_ID: idOf(await w.sdk.sandbox.deposits.create({ currency: 'USDC', amount: '5.00', outcome: 'pending' } as never)) }),
  'POST /v1/sandbox/deposits/{id}/fail': async (w) => ({ DEPOSIT_ID: idOf(await w.sdk.sandbox.deposits.create({ currency: 'USDC', amount: '5.00', outcome: 'pending' } as never)) }),
  'POST /v1/orders/{id}/cancel': async (w) => ({ ORDER_ID: await order(w, 'settlement') }),
  'POST /v1/orders/{id}/settlement/proof-upload-url': async (w) => ({ ORDER_ID: await order(w, 'settlement') }),
  'POST /v1/orders/{id}/settlement/proof': orderWithProof,
  'POST /v1/sandbox/orders/{id}/confirm-funds': async (w) => ({ ORDER_ID: await order(w, 'settlement') }),
  'POST /v1/sandbox/orders/{id}/execute': async (w) => ({ ORDER_ID: await order(w, 'balance') }),
  'POST /v1/sandbox/orders/{id}/complete': async (w) => {
    const id = await order(w, 'balance');
    await w.sdk.sandbox.orders.execute({ id });
    return { ORDER_ID: id };
  },
  'POST /v1/sandbox/orders/{id}/fail': async (w) => ({ ORDER_ID: await order(w, 'balance') }),
  'POST /v1/sandbox/orders/{id}/expire': async (w) => ({ ORDER_ID: await order(w, 'settlement') }),
  // The operator API.
  'POST /operator/v1/workspaces/{id}/credentials/{clientId}/rotate': async (w) => ({ CLIENT_ID: await credential(w) }),
  'DELETE /operator/v1/workspaces/{id}/credentials/{clientId}': async (w) => ({ CLIENT_ID: await credential(w) }),
  'POST /operator/v1/payouts/{id}/process': async (w) => ({ PAYOUT_ID: await payout(w) }),
  'POST /operator/v1/payouts/{id}/pay': async (w) => ({ PAYOUT_ID: await payout(w, ['process']) }),
  'POST /operator/v1/payouts/{id}/fail': async (w) => ({ PAYOUT_ID: await payout(w, ['process']) }),
  'POST /operator/v1/payouts/{id}/revert': async (w) => ({ PAYOUT_ID: await payout(w, ['process', 'pay']) }),
  'POST /operator/v1/applications/{id}/review': async (w) => ({ APPLICATION_ID: (await application(w, 'submitted')).id }),
  'POST /operator/v1/virtual-accounts/{id}/approve': async () => virtualAccount('USD'),
  'POST /operator/v1/virtual-accounts/{id}/fail': async () => virtualAccount('USD'),
  'POST /operator/v1/virtual-accounts/{id}/deactivate': async () => virtualAccount('EUR'),
  'POST /operator/v1/deposits/{id}/complete': async (w) => ({ DEPOSIT_ID: await sandboxDeposit(w, 'pending') }),
  'POST /operator/v1/deposits/{id}/fail': async (w) => ({ DEPOSIT_ID: await sandboxDeposit(w, 'pending') }),
  'POST /operator/v1/deposits/{id}/review': async (w) => ({ DEPOSIT_ID: await sandboxDeposit(w, 'pending') }),
  'POST /operator/v1/deposits/{id}/reverse': async (w) => ({ DEPOSIT_ID: await sandboxDeposit(w, 'completed') }),
  'POST /operator/v1/deposits/{id}/refund': async (w) => ({ DEPOSIT_ID: await sandboxDeposit(w, 'completed') }),
  'POST /operator/v1/deposits/{id}/refunded': async (w) => {
    const id = await sandboxDeposit(w, 'completed');
    await operatorCall('POST', `/operator/v1/deposits/${id}/refund`);
    return { DEPOSIT_ID: id };
  },
  'POST /operator/v1/reconciliation/lines/{id}/match': async () => ({ LINE_ID: sharedValues.PAYOUT_LINE_ID! }),
  'POST /operator/v1/orders/{id}/confirm-funds': async (w) => ({ ORDER_ID: await order(w, 'settlement') }),
  'POST /operator/v1/orders/{id}/execute': async (w) => ({ ORDER_ID: await fundsReceived(w) }),
  'POST /operator/v1/orders/{id}/complete': async (w) => ({ ORDER_ID: await fundsReceived(w) }),
  'POST /operator/v1/orders/{id}/fail': async (w) => ({ ORDER_ID: await fundsReceived(w) }),
  'GET /operator/v1/orders/{id}/settlement/proof': async (w) => {
    const { ORDER_ID, PROOF_KEY } = await orderWithProof(w);
    await w.sdk.orders.settlement.submitProof({ id: ORDER_ID }, { proofKey: PROOF_KEY } as never);
    return { ORDER_ID };
  },
  'POST /operator/v1/workspaces/{id}/users/{userId}/invitation': async (w) => ({ USER_ID: await invitedUser(w) }),
  'PATCH /operator/v1/workspaces/{id}/users/{userId}': async (w) => ({ USER_ID: await invitedUser(w) }),
  'POST /operator/v1/operators/{userId}/invitation': async () => ({ USER_ID: await invitedOperator() }),
  'PATCH /operator/v1/operators/{userId}': async () => ({ USER_ID: await activeOperator() }),
  'GET /operator/v1/screening/holds/{payoutId}': async (w) => ({ PAYOUT_ID: await screeningHeld(w) }),
  'POST /operator/v1/screening/holds/{payoutId}/release': async (w) => ({ PAYOUT_ID: await screeningHeld(w) }),
  'POST /operator/v1/screening/holds/{payoutId}/reject': async (w) => ({ PAYOUT_ID: await screeningHeld(w) }),
  'PUT /operator/v1/alert-conditions/{id}': async () => ({ ALERT_CONDITION_ID: 'payouts.stuck' }),
  'GET /operator/v1/screening/order-holds/{orderId}': async (w) => ({ ORDER_ID: await screeningHeldOrder(w) }),
  'POST /operator/v1/screening/order-holds/{orderId}/release': async (w) => ({ ORDER_ID: await screeningHeldOrder(w) }),
  'POST /operator/v1/screening/order-holds/{orderId}/reject': async (w) => ({ ORDER_ID: await screeningHeldOrder(w) }),
};

/** Not run here, and why. */
const NOT_RUN: Record<string, string> = {
  'GET /v1/events/stream': 'an open stream: run with --max-time below',
  // These act on what a chain connector holds (a live chain: anvil); their calls are run in test/chain.
  'POST /operator/v1/chain/deposits/{id}/release': 'a deposit held by the chain watcher: test/chain/address-screening.test.ts',
  'POST /operator/v1/chain/deposits/{id}/reject': 'a deposit held by the chain watcher: test/chain/address-screening.test.ts',
  'POST /operator/v1/chain/chains/{name}/resume': "a configured chain's circuit breaker: test/chain/issuer.test.ts and nonces.test.ts",
  'POST /operator/v1/chain/payouts/{id}/resign': 'a chain payout in nonce conflict: test/chain/nonces.test.ts',
  'POST /operator/v1/chain/payouts/{id}/cancel': 'a chain payout in nonce conflict: test/chain/nonces.test.ts',
  'POST /operator/v1/chain/chains/{name}/fundings': "a configured chain's hot wallet: test/chain/sweeps.test.ts (the float reconciled)",
  // These need a connector that checks recipients or a provider connector configured (with its simulator); their calls run there.
  'POST /v1/payouts/{id}/recipient-check/confirm': 'a payout held by a recipient check (a connector offering verifyRecipient): test/recipient-checks/recipient-checks.test.ts',
  'POST /v1/beneficiaries/{id}/verify-recipient': 'a connector offering verifyRecipient on the beneficiary\'s route: test/recipient-checks/recipient-checks.test.ts',
  'GET /operator/v1/paystack/balance': 'the Paystack connector configured (its simulator): test/paystack/transfers.test.ts',
  'GET /operator/v1/mobile-money/exceptions': 'the mobile-money connector configured (its simulator pushing credits): test/mobile-money/credits.test.ts',
  'POST /v1/collections': 'the mobile-money connector configured (its simulator, behind Prism): test/mobile-money/collections.test.ts',
  'POST /operator/v1/paystack/dedicated-accounts': 'the Paystack connector configured (its simulator, behind Prism): test/paystack/dedicated-accounts.test.ts',
};

/** The JSON body a curl sample sends, as bash expands it with `env` (undefined: none). */
function sentBody(source: string, env: Env): Promise<unknown> {
  const argument = /\n {2}-d (.+)$/.exec(source)?.[1];
  if (!argument) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    execFile('bash', ['-c', `printf '%s' ${argument}`], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 30_000 }, (_err, stdout) => resolve(JSON.parse(stdout) as unknown));
  });
}

/** The real exchanges of the samples run, by operation id: with CORRIDOR_RECORD_EXAMPLES=1 (npm run openapi:examples) they become the document's examples. */
const recorded: Record<string, RecordedExample> = {};

function runSample(source: string, env: Env, extra = ''): Promise<{ status: number; body: string; stderr: string }> {
  const out = path.join(workDir, `out-${n()}`);
  // The sample exactly as shown, then curl's own flags to read the status.
  const script = `${source} -s -o '${out}' -w '%{http_code}' ${extra}`;
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: workDir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 30_000 }, (_err, stdout, stderr) => {
      const body = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
      resolve({ status: Number(stdout.trim().slice(-3)) || 0, body, stderr });
    });
  });
}

beforeAll(async () => {
  t = await listeningTestApp();
  base = t.config.publicBaseUrl;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-samples-'));
  fs.writeFileSync(path.join(workDir, 'document.pdf'), PDF);
  fs.writeFileSync(path.join(workDir, 'list.csv'), OFAC_CSV);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  shared = await workspace();
});
afterAll(async () => {
  await t.close();
  fs.rmSync(workDir, { recursive: true, force: true });
  if (process.env.CORRIDOR_RECORD_EXAMPLES === '1' && Object.keys(recorded).length > 0) {
    const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
    fs.writeFileSync(EXAMPLES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  }
});

const samplesOf = () =>
  Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${p}`,
      operationId: String(op.operationId),
      curl: ((op['x-codeSamples'] as { label: string; source: string }[]).find((s) => s.label === 'curl') as { source: string }).source,
    })),
  );

let sharedEnvOnce: Promise<Env> | undefined;

/** Runs the samples `which` picks (the NOT_RUN ones aside), each with the shared ids and its FRESH ones. */
async function runSamples(which: (key: string) => boolean): Promise<{ ran: string[]; failed: string[] }> {
  sharedEnvOnce ??= sharedEnv(shared);
  const env = await sharedEnvOnce;
  sharedValues = env;
  const failed: string[] = [];
  const ran: string[] = [];
  for (const { key, operationId, curl } of samplesOf()) {
    if (NOT_RUN[key] || !which(key)) continue;
    const fresh = FRESH[key];
    const sampleEnv = { ...env, ...(fresh ? await fresh(shared) : {}) };
    const result = await runSample(curl, sampleEnv);
    ran.push(key);
    // A variable no setup gave expands to nothing (`/v1/alerts/` is then the list): such an answer is no example of the operation.
    const unset = [...curl.matchAll(/\$([A-Z][A-Z0-9_]*)/g)].some(([, name]) => sampleEnv[name as string] === undefined);
    if (result.status < 200 || result.status >= 300) failed.push(`${key}: ${result.status} ${result.body.slice(0, 300)} ${result.stderr.slice(0, 200)}`);
    else if (!unset) recorded[operationId] = recordedExample(result.status, await sentBody(curl, sampleEnv), result.body, base);
  }
  return { ran, failed };
}

describe('the curl samples of /docs', () => {
  it('need no uuidgen and name no outside host', () => {
    for (const { key, curl } of samplesOf()) {
      expect(curl, key).not.toMatch(/uuidgen/);
      expect(curl, key).not.toMatch(/example\.(com|org|net)/);
    }
  });

  it('run as written against a live server: every one of the API answers 2xx', async () => {
    const { ran, failed } = await runSamples((key) => !key.includes('/operator/'));
    expect(failed).toEqual([]);
    expect(ran.length).toBeGreaterThan(100);
  }, 600_000);

  it("run as written against a live server: every one of the operator API answers 2xx (with the operator key)", async () => {
    const { ran, failed } = await runSamples((key) => key.includes('/operator/'));
    expect(failed).toEqual([]);
    expect(ran.length).toBeGreaterThan(70);
  }, 600_000);

  it("the README's five minutes run as written, twice: a token, a beneficiary and a payout in curl, each run's payout with a clientRef of its own", async () => {
    const readme = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const block = /## Five minutes[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(block).toMatch(/\/v1\/payouts/);
    const w = await workspace();
    // The placeholders the reader replaces by what `npm start` printed.
    const script = block.replace(/^BASE=.*$/m, `BASE=${base}`).replace(/^CLIENT_ID=.*$/m, `CLIENT_ID=${w.caller.clientId}`).replace(/^CLIENT_SECRET=.*$/m, `CLIENT_SECRET=${w.caller.clientSecret}`);
    const run = () =>
      new Promise<string>((resolve, reject) =>
        execFile('bash', ['-e', '-c', script], { cwd: workDir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
      );
    const outputs = [await run(), await run()];
    const payouts = await w.sdk.payouts.list();
    const refs = payouts.data.map((p) => p.clientRef);
    expect(refs).toHaveLength(2);
    expect(new Set(refs).size).toBe(2);
    for (const [i, output] of outputs.entries()) {
      expect(refs[1 - i]).toMatch(/^invoice-\d+$/);
      expect(output).toContain(`"clientRef":"${refs[1 - i]}"`);
    }
  }, 120_000);

  it('the event stream sample opens a stream (200 until curl stops it)', async () => {
    const stream = samplesOf().find((s) => s.key === 'GET /v1/events/stream') as { curl: string };
    const result = await runSample(stream.curl, shared.env, '--max-time 1');
    expect(result.status).toBe(200);
  });
});
