import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubAccount } from '../../src/domains/accounts/accounts.service.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';

interface Page<T> {
  object: string;
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

interface Account {
  id: string;
  name: string;
  createdAt: string;
}

const ROWS = 45;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let t: TestApp;
let caller: Caller;
/** Names of the caller's sub-accounts in creation order. */
const created: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  caller = await newWorkspace(t.app);
  // One transaction per row, so each has its own creation time. The embedded database's clock
  // ticks in milliseconds, so rows are spaced to make creation order observable on both databases.
  for (let i = 0; i < ROWS; i++) {
    const name = `Account ${String(i).padStart(2, '0')}`;
    await t.ctx.db.tx((tx) => createSubAccount(tx, caller.workspaceId, { name, country: 'GB' }));
    created.push(name);
    await sleep(3);
  }
});
afterAll(async () => t.close());

type Fetch = (url: string) => Promise<LightMyRequestResponse>;

/** Follows nextCursor from the first page to the last, checking each page's invariants. */
async function walk<T>(fetch: Fetch, path: string, limit: number): Promise<{ rows: T[]; pages: Page<T>[] }> {
  const pages: Page<T>[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const res = await fetch(`${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json<Page<T>>();
    pages.push(page);
    expect(page.data.length).toBeLessThanOrEqual(limit);
    if (!page.hasMore) {
      expect(page.nextCursor).toBeNull();
      return { rows: pages.flatMap((p) => p.data), pages };
    }
    expect(page.data).toHaveLength(limit);
    expect(typeof page.nextCursor).toBe('string');
    cursor = page.nextCursor;
  }
  throw new Error('pagination did not end');
}

const get: Fetch = (url) => caller.request('GET', url);
const asOperator: Fetch = (url) => operator(t.app, 'GET', url);

function expectFieldRefusal(res: LightMyRequestResponse, field: string, problem: boolean) {
  expect(res.statusCode, res.body).toBe(400);
  if (problem) {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json<{ code: string; errors: { field: string; message: string }[]; detail: string }>();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.errors.map((e) => e.field)).toEqual([field]);
    expect(body.detail).toContain(field);
  } else {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<{ error: string; details: { field: string; message: string }[]; message: string }>();
    expect(body.error).toBe('BAD_REQUEST');
    expect(body.details.map((d) => d.field)).toEqual([field]);
    expect(body.message).toContain(field);
  }
}

/** Cursors that this API did not issue, or issued and then altered. */
function tamperedCursors(valid: string): string[] {
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const [t0, id] = JSON.parse(Buffer.from(valid, 'base64url').toString('utf8')) as [string, string];
  return [
    'abc',
    'not a cursor!',
    valid.slice(0, -3),
    flip(valid, 2),
    `${valid}x`,
    b64({ t: t0, id }),
    b64([t0]),
    b64([t0, id, 'extra']),
    b64([123, id]),
    b64(['yesterday', id]),
    b64(['2024-13-45T25:61:61.000000Z', id]),
    b64([t0, 'not-a-uuid']),
    b64([t0, 'x'.repeat(65)]),
    'x'.repeat(513),
  ];
}

describe('GET /v1/accounts', () => {
  it('defaults to 20 rows, newest first', async () => {
    const res = await get('/v1/accounts');
    expect(res.statusCode).toBe(200);
    const page = res.json<Page<Account>>();
    expect(page.object).toBe('account.list');
    expect(page.data).toHaveLength(20);
    expect(page.hasMore).toBe(true);
    expect(typeof page.nextCursor).toBe('string');
    expect(page.data.map((a) => a.name)).toEqual([...created].reverse().slice(0, 20));
  });

  it('accepts limit 1 to 100', async () => {
    for (const limit of [1, 2, 7, 20, 44, 45, 46, 99, 100]) {
      const res = await get(`/v1/accounts?limit=${limit}`);
      expect(res.statusCode, `limit=${limit}`).toBe(200);
      const page = res.json<Page<Account>>();
      expect(page.data).toHaveLength(Math.min(limit, ROWS));
      expect(page.hasMore).toBe(limit < ROWS);
      expect(page.nextCursor === null).toBe(limit >= ROWS);
    }
  });

  it('refuses limit 0, 101, -1, "abc", 1.5 and a repeated limit with a 400 naming limit', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=1000000000000', 'limit=1&limit=2']) {
      expectFieldRefusal(await get(`/v1/accounts?${q}`), 'limit', false);
    }
  });

  it('lists newest first by creation time', async () => {
    const page = (await get('/v1/accounts?limit=100')).json<Page<Account>>();
    expect(page.data.map((a) => a.name)).toEqual([...created].reverse());
    const times = page.data.map((a) => Date.parse(a.createdAt));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1] ?? Infinity);
  });

  it('walking pages returns every row exactly once, in order, and ends with hasMore false and nextCursor null', async () => {
    const all = (await get('/v1/accounts?limit=100')).json<Page<Account>>().data.map((a) => a.id);
    for (const limit of [1, 7, 9, 20, 44]) {
      const { rows, pages } = await walk<Account>(get, '/v1/accounts', limit);
      expect(rows.map((a) => a.id), `limit=${limit}`).toEqual(all);
      expect(pages).toHaveLength(Math.ceil(ROWS / limit));
      // When the rows divide evenly the last page is full, not an empty page after it.
      expect(pages.at(-1)?.data.length).toBe(ROWS - limit * (pages.length - 1));
    }
  });

  it('rows inserted between page fetches cause no duplicates or misses of the original set', async () => {
    const other = await newWorkspace(t.app, { name: 'Moving Ltd' });
    const fetchOther: Fetch = (url) => other.request('GET', url);
    for (let i = 0; i < 12; i++) {
      const res = await other.request('POST', '/v1/accounts', { name: `Original ${i}`, country: 'GB' });
      expect(res.statusCode).toBe(201);
    }
    const original = (await fetchOther('/v1/accounts?limit=100')).json<Page<Account>>().data.map((a) => a.id);
    expect(original).toHaveLength(12);

    const seen: string[] = [];
    const inserted: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const res = await fetchOther(`/v1/accounts?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json<Page<Account>>();
      seen.push(...page.data.map((a) => a.id));
      // Newer rows arrive while the client is paging.
      for (let j = 0; j < 2; j++) {
        const add = await other.request('POST', '/v1/accounts', { name: `Inserted ${i}.${j}`, country: 'GB' });
        inserted.push(add.json<Account>().id);
      }
      if (!page.hasMore) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(original);
    for (const id of inserted) expect(seen).not.toContain(id);

    // A fresh walk sees everything.
    const { rows } = await walk<Account>(fetchOther, '/v1/accounts', 4);
    expect(rows).toHaveLength(12 + inserted.length);
    expect(new Set(rows.map((a) => a.id)).size).toBe(rows.length);
  });

  it('rows created in one transaction (same timestamp) are each listed once', async () => {
    const tied = await newWorkspace(t.app, { name: 'Tied Ltd' });
    await t.ctx.db.tx(async (tx) => {
      for (let i = 0; i < 7; i++) await createSubAccount(tx, tied.workspaceId, { name: `Tied ${i}`, country: 'GB' });
    });
    const all = (await tied.request('GET', '/v1/accounts?limit=100')).json<Page<Account>>().data;
    expect(new Set(all.map((a) => a.createdAt)).size).toBe(1);
    const ids = all.map((a) => a.id);
    expect(ids).toEqual([...ids].sort().reverse());
    for (const limit of [1, 2, 3]) {
      const { rows } = await walk<Account>((url) => tied.request('GET', url), '/v1/accounts', limit);
      expect(rows.map((a) => a.id)).toEqual(ids);
    }
  });

  it('refuses a tampered cursor with a 400 naming cursor', async () => {
    const first = (await get('/v1/accounts?limit=3')).json<Page<Account>>();
    const valid = first.nextCursor ?? '';
    expect((await get(`/v1/accounts?limit=3&cursor=${encodeURIComponent(valid)}`)).statusCode).toBe(200);
    for (const bad of tamperedCursors(valid)) {
      const res = await get(`/v1/accounts?limit=3&cursor=${encodeURIComponent(bad)}`);
      expectFieldRefusal(res, 'cursor', false);
    }
    expectFieldRefusal(await get('/v1/accounts?cursor='), 'cursor', false);
  });

  it('does not list another workspace\'s rows', async () => {
    const stranger = await newWorkspace(t.app, { name: 'Stranger Ltd' });
    const page = (await stranger.request('GET', '/v1/accounts')).json<Page<Account>>();
    expect(page).toEqual({ object: 'account.list', data: [], hasMore: false, nextCursor: null });
    // A cursor from one workspace positions nothing in another.
    const cursor = (await get('/v1/accounts?limit=1')).json<Page<Account>>().nextCursor ?? '';
    const res = await stranger.request('GET', `/v1/accounts?cursor=${encodeURIComponent(cursor)}`);
    expect(res.statusCode).toBe(200);
    expect(res.json<Page<Account>>().data).toEqual([]);
  });
});

describe('GET /v1/api-keys', () => {
  interface ApiKey {
    clientId: string;
    createdAt: string;
  }

  it('pages the workspace credentials with the same rules', async () => {
    const ws = await newWorkspace(t.app, { name: 'Keys Ltd' });
    const issued = [ws.clientId];
    for (let i = 0; i < 6; i++) {
      const res = await operator(t.app, 'POST', `/operator/v1/workspaces/${ws.workspaceId}/credentials`, { label: `key ${i}` });
      expect(res.statusCode).toBe(201);
      issued.push(res.json<{ clientId: string }>().clientId);
      await sleep(3);
    }
    const fetchKeys: Fetch = (url) => ws.request('GET', url);

    const first = await fetchKeys('/v1/api-keys');
    expect(first.statusCode).toBe(200);
    const page = first.json<Page<ApiKey>>();
    expect(page.object).toBe('api_key.list');
    expect(page.data.map((k) => k.clientId)).toEqual([...issued].reverse());
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBeNull();
    expect(first.body).not.toMatch(/secret/i);

    for (const limit of [1, 2, 3, 7]) {
      const { rows, pages } = await walk<ApiKey>(fetchKeys, '/v1/api-keys', limit);
      expect(rows.map((k) => k.clientId)).toEqual([...issued].reverse());
      expect(pages).toHaveLength(Math.ceil(issued.length / limit));
    }

    for (const q of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc']) expectFieldRefusal(await fetchKeys(`/v1/api-keys?${q}`), 'limit', true);
    const valid = (await fetchKeys('/v1/api-keys?limit=2')).json<Page<ApiKey>>().nextCursor ?? '';
    for (const bad of tamperedCursors(valid)) expectFieldRefusal(await fetchKeys(`/v1/api-keys?cursor=${encodeURIComponent(bad)}`), 'cursor', true);
  });
});

describe('GET /operator/v1/workspaces', () => {
  interface Workspace {
    id: string;
    name: string;
  }

  it('pages every workspace with the same rules', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await operator(t.app, 'POST', '/operator/v1/workspaces', { name: `Paged ${i}`, country: 'DE' });
      expect(res.statusCode).toBe(201);
      await sleep(3);
    }
    const [count] = await t.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM workspaces');
    const total = count?.n ?? 0;
    expect(total).toBeGreaterThan(5);

    const first = await asOperator('/operator/v1/workspaces');
    expect(first.statusCode).toBe(200);
    const page = first.json<Page<Workspace>>();
    expect(page.object).toBe('workspace.list');
    expect(page.data.length).toBe(Math.min(20, total));
    expect(page.data.slice(0, 5).map((w) => w.name)).toEqual(['Paged 4', 'Paged 3', 'Paged 2', 'Paged 1', 'Paged 0']);

    const everything = (await asOperator('/operator/v1/workspaces?limit=100')).json<Page<Workspace>>().data.map((w) => w.id);
    expect(everything).toHaveLength(total);
    for (const limit of [1, 3, 4]) {
      const { rows } = await walk<Workspace>(asOperator, '/operator/v1/workspaces', limit);
      expect(rows.map((w) => w.id)).toEqual(everything);
    }

    for (const q of ['limit=0', 'limit=101', 'limit=-1', 'limit=abc']) expectFieldRefusal(await asOperator(`/operator/v1/workspaces?${q}`), 'limit', true);
    const valid = (await asOperator('/operator/v1/workspaces?limit=2')).json<Page<Workspace>>().nextCursor ?? '';
    for (const bad of tamperedCursors(valid)) {
      expectFieldRefusal(await asOperator(`/operator/v1/workspaces?cursor=${encodeURIComponent(bad)}`), 'cursor', true);
    }
  });
});
