import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Caller;
let globex: Caller;

beforeAll(async () => {
  t = await createTestApp();
  acme = await newWorkspace(t.app, { name: 'Acme Ltd', country: 'GB' });
  globex = await newWorkspace(t.app, { name: 'Globex Inc', country: 'US' });
});
afterAll(async () => t.close());

/** The embedded database's clock ticks in milliseconds: space rows whose order a test observes. */
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 3));

interface Account {
  id: string;
  parentAccountId?: string;
  accountType: string;
  status: string;
  country: string;
  name: string;
  clientRef?: string;
  createdAt: string;
}

async function createSub(caller: Caller, body: Record<string, unknown>): Promise<Account> {
  const res = await caller.request('POST', '/v1/accounts', body);
  expect(res.statusCode).toBe(201);
  return res.json<Account>();
}

async function counts(workspaceId: string): Promise<{ accounts: number; events: number }> {
  const [a] = await t.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM accounts WHERE workspace_id = $1', [workspaceId]);
  const [e] = await t.ctx.db.query<{ n: string }>('SELECT count(*)::text AS n FROM events WHERE workspace_id = $1', [workspaceId]);
  return { accounts: Number(a?.n), events: Number(e?.n) };
}

function expectNotOwner(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(403);
  const body = res.json<Record<string, unknown>>();
  expect(body).toMatchObject({ statusCode: 403, code: 'not_account_owner', message: 'not_account_owner', error: 'FORBIDDEN', path: expect.any(String) });
  expect(typeof body.timestamp).toBe('string');
  expect(JSON.stringify(body)).not.toContain('Initech');
}

describe('POST /v1/accounts', () => {
  it('creates a pending sub-account under the workspace', async () => {
    const res = await acme.request('POST', '/v1/accounts', { name: 'Acme Retail', country: 'FR' });
    expect(res.statusCode).toBe(201);
    const body = res.json<Account>();
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      parentAccountId: acme.workspaceId,
      accountType: 'sub',
      status: 'pending',
      country: 'FR',
      name: 'Acme Retail',
      createdAt: expect.any(String),
    });
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
    expect(body.id).not.toBe(acme.workspaceId);
  });

  it('keeps a clientRef when given', async () => {
    const body = await createSub(acme, { name: 'Acme Ref', country: 'GB', clientRef: 'acme-ref-1' });
    expect(body.clientRef).toBe('acme-ref-1');
  });

  it('records account.created in the events outbox, in the same transaction as the account', async () => {
    const account = await createSub(acme, { name: 'Acme Events', country: 'DE' });
    const rows = await t.ctx.db.query<{ type: string; workspace_id: string; account_id: string; data: Record<string, unknown>; same_tx: boolean }>(
      `SELECT e.type, e.workspace_id, e.account_id, e.data, e.created_at = a.created_at AS same_tx
         FROM events e JOIN accounts a ON a.id = e.account_id
        WHERE e.account_id = $1`,
      [account.id],
    );
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.type).toBe('account.created');
    expect(row?.workspace_id).toBe(acme.workspaceId);
    expect(row?.data).toEqual({
      id: account.id,
      parentAccountId: acme.workspaceId,
      accountType: 'sub',
      status: 'pending',
      country: 'DE',
      createdAt: account.createdAt,
    });
    // now() is the transaction's start time: equal timestamps mean one transaction.
    expect(row?.same_tx).toBe(true);
  });

  it('writes no account and no event when the request is refused', async () => {
    const before = await counts(acme.workspaceId);
    expect((await acme.request('POST', '/v1/accounts', { name: 'X', country: 'gb' })).statusCode).toBe(400);
    expect((await acme.request('POST', '/v1/accounts', {})).statusCode).toBe(400);
    await createSub(acme, { name: 'Acme Dup', country: 'GB', clientRef: 'dup-ref' });
    const mid = await counts(acme.workspaceId);
    expect(mid).toEqual({ accounts: before.accounts + 1, events: before.events + 1 });
    const dup = await acme.request('POST', '/v1/accounts', { name: 'Acme Dup Again', country: 'GB', clientRef: 'dup-ref' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ statusCode: 409, code: 'DUPLICATE_CLIENT_REF' });
    expect(await counts(acme.workspaceId)).toEqual(mid);
  });

  it('allows the same clientRef in two workspaces', async () => {
    await createSub(acme, { name: 'Shared Ref A', country: 'GB', clientRef: 'shared-ref' });
    await createSub(globex, { name: 'Shared Ref G', country: 'US', clientRef: 'shared-ref' });
  });

  it('answers a validation failure with the validation envelope, one detail per failing field', async () => {
    const res = await acme.request('POST', '/v1/accounts', { name: 'A', country: 'gbr' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<{ statusCode: number; message: string; error: string; details: Array<{ field: string; message: string }>; timestamp: string; path: string }>();
    expect(Object.keys(body).sort()).toEqual(['details', 'error', 'message', 'path', 'statusCode', 'timestamp']);
    expect(body.statusCode).toBe(400);
    expect(body.error).toBe('BAD_REQUEST');
    expect(body.path).toBe('/v1/accounts');
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
    expect(body.details.map((d) => d.field).sort()).toEqual(['country', 'name']);
    for (const d of body.details) {
      expect(d.message.startsWith(d.field)).toBe(true);
      expect(d).not.toHaveProperty('code');
    }
    expect(body.message).toBe(body.details.map((d) => d.message).join('; '));
  });

  it('names each missing required field', async () => {
    const res = await acme.request('POST', '/v1/accounts', {});
    expect(res.statusCode).toBe(400);
    const body = res.json<{ message: string; details: Array<{ field: string; message: string }> }>();
    expect(body.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'name is required' },
        { field: 'country', message: 'country is required' },
      ]),
    );
    expect(body.details).toHaveLength(2);
    expect(body.message).toBe(body.details.map((d) => d.message).join('; '));
  });
});

describe('GET /v1/accounts and /v1/accounts/{id}', () => {
  it("lists only the workspace's own sub-accounts, newest first, as a page", async () => {
    const ws = await newWorkspace(t.app, { name: 'Lister Ltd' });
    const first = await createSub(ws, { name: 'Lister One', country: 'GB' });
    await tick();
    const second = await createSub(ws, { name: 'Lister Two', country: 'GB' });
    const res = await ws.request('GET', '/v1/accounts');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ object: 'account.list', data: [second, first], hasMore: false, nextCursor: null });
  });

  it('pages with limit and cursor', async () => {
    const ws = await newWorkspace(t.app, { name: 'Pager Ltd' });
    const made: Account[] = [];
    for (const name of ['Pager One', 'Pager Two', 'Pager Three']) {
      made.push(await createSub(ws, { name, country: 'GB' }));
      await tick();
    }
    const page1 = await ws.request('GET', '/v1/accounts?limit=2');
    const p1 = page1.json<{ data: Account[]; hasMore: boolean; nextCursor: string | null }>();
    expect(p1.data.map((a) => a.name)).toEqual(['Pager Three', 'Pager Two']);
    expect(p1.hasMore).toBe(true);
    expect(typeof p1.nextCursor).toBe('string');
    const page2 = await ws.request('GET', `/v1/accounts?limit=2&cursor=${encodeURIComponent(p1.nextCursor as string)}`);
    const p2 = page2.json<{ data: Account[]; hasMore: boolean; nextCursor: string | null }>();
    expect(p2.data.map((a) => a.name)).toEqual(['Pager One']);
    expect(p2.hasMore).toBe(false);
    expect(p2.nextCursor).toBeNull();
  });

  it("never lists another workspace's accounts", async () => {
    const theirs = await createSub(globex, { name: 'Globex Hidden', country: 'US' });
    const res = await acme.request('GET', '/v1/accounts?limit=100');
    const ids = res.json<{ data: Account[] }>().data.map((a) => a.id);
    expect(ids).not.toContain(theirs.id);
    expect(ids).not.toContain(globex.workspaceId);
    expect(res.body).not.toContain('Globex');
  });

  it('reads one owned account by id', async () => {
    const mine = await createSub(acme, { name: 'Acme Read', country: 'GB' });
    const res = await acme.request('GET', `/v1/accounts/${mine.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(mine);
  });

  it("answers 404 (never 403, never the object) for another workspace's account", async () => {
    const theirs = await createSub(globex, { name: 'Globex Secret', country: 'US' });
    for (const id of [theirs.id, globex.workspaceId, randomUUID()]) {
      const res = await acme.request('GET', `/v1/accounts/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ statusCode: 404, error: 'NOT_FOUND' });
      expect(res.body).not.toContain('Globex');
    }
  });
});

describe('Service-Account-Id', () => {
  it('makes GET /v1/account answer with the owned sub-account', async () => {
    const sub = await createSub(acme, { name: 'Acme Acting', country: 'NG' });
    const res = await acme.request('GET', '/v1/account', undefined, { 'service-account-id': sub.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: sub.id, parentAccountId: acme.workspaceId, accountType: 'sub', status: 'pending', name: 'Acme Acting', country: 'NG' });
    // Without the header the credential acts on the master account.
    const master = await acme.request('GET', '/v1/account');
    expect(master.json()).toMatchObject({ id: acme.workspaceId, accountType: 'master' });
  });

  it("refuses another workspace's sub-account with 403 not_account_owner", async () => {
    const theirs = await createSub(globex, { name: 'Initech Branch', country: 'US' });
    expectNotOwner(await acme.request('GET', '/v1/account', undefined, { 'service-account-id': theirs.id }));
    expectNotOwner(await acme.request('GET', '/v1/accounts', undefined, { 'service-account-id': theirs.id }));
  });

  it('refuses an unknown UUID, a non-UUID and the master account id with 403 not_account_owner', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', acme.workspaceId, globex.workspaceId]) {
      expectNotOwner(await acme.request('GET', '/v1/account', undefined, { 'service-account-id': id }));
    }
  });

  it('refuses a POST with a foreign Service-Account-Id without creating anything', async () => {
    const theirs = await createSub(globex, { name: 'Globex Target', country: 'US' });
    const before = await counts(acme.workspaceId);
    const res = await acme.request('POST', '/v1/accounts', { name: 'Sneaky', country: 'GB' }, { 'service-account-id': theirs.id });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'not_account_owner' });
    expect(await counts(acme.workspaceId)).toEqual(before);
  });
});
