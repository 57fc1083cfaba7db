import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { newWorkspace, operator, type Caller } from '../helpers/app.js';
import { completeBusiness } from '../applications/helpers.js';

/** The same credential acting on one of its sub-accounts (`Service-Account-Id`). */
export function asSub(c: Caller, subAccountId: string): Caller {
  return { ...c, request: (method, url, body, headers = {}) => c.request(method, url, body, { 'service-account-id': subAccountId, ...headers }) };
}

/** A complete business application of the caller (or its sub-account), submitted and approved in the sandbox. */
export async function approveOnboarding(app: FastifyInstance, c: Caller): Promise<string> {
  const { application } = await completeBusiness(app, c);
  const submitted = await c.request('POST', `/v2/applications/${application.id}/submit`);
  expect(submitted.statusCode, submitted.body).toBe(200);
  const approved = await c.request('POST', `/v1/sandbox/applications/${application.id}/review`, { decision: 'approve' });
  expect(approved.statusCode, approved.body).toBe(200);
  return application.id;
}

/** A new workspace with XOF, XAF and GHS enabled besides the defaults, and its onboarding approved. */
export async function receivingWorkspace(app: FastifyInstance, options: { name?: string; approved?: boolean } = {}): Promise<Caller> {
  const c = await newWorkspace(app, { name: options.name ?? 'Receiver Ltd' });
  for (const code of ['XOF', 'XAF', 'GHS']) {
    const res = await operator(app, 'PUT', `/operator/v1/workspaces/${c.workspaceId}/currencies/${code}`, { enabled: true });
    expect(res.statusCode, res.body).toBe(200);
  }
  if (options.approved !== false) await approveOnboarding(app, c);
  return c;
}

export async function createSubAccount(c: Caller, name: string): Promise<string> {
  const res = await c.request('POST', '/v1/accounts', { name, country: 'GB' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

export interface VirtualAccount {
  id: string;
  accountId: string | null;
  currency: string;
  status: string;
  deactivated: boolean;
  failureReason: string | null;
  [key: string]: unknown;
}

export async function requestAccount(c: Caller, currency: string, expected = 201): Promise<VirtualAccount> {
  const res = await c.request('POST', '/v1/virtual-accounts', { currency });
  expect(res.statusCode, res.body).toBe(expected);
  return res.json<VirtualAccount>();
}

/** An active account in the currency: requested, and approved in the sandbox when it is pending. */
export async function activeAccount(c: Caller, currency: string): Promise<VirtualAccount> {
  const account = await requestAccount(c, currency);
  if (account.status === 'active') return account;
  const approved = await c.request('POST', `/v1/sandbox/virtual-accounts/${account.id}/approve`);
  expect(approved.statusCode, approved.body).toBe(200);
  return approved.json<VirtualAccount>();
}

export async function eventsOfType(c: Caller, prefix: string): Promise<{ type: string; accountId: string | null; data: Record<string, unknown> }[]> {
  const res = await c.request('GET', '/v1/events?limit=100');
  expect(res.statusCode, res.body).toBe(200);
  return res
    .json<{ data: { type: string; accountId: string | null; data: Record<string, unknown> }[] }>()
    .data.filter((e) => e.type.startsWith(prefix))
    .reverse();
}

export function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: <T>() => T }, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(res.json<{ code: string }>().code).toBe(code);
}

/** A refusal of a sandbox route (the legacy envelope, its code in `code`). */
export function expectCode(res: { statusCode: number; json: <T>() => T }, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect(res.json<{ code: string }>().code).toBe(code);
}
