import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, newWorkspace, OPERATOR_KEY, type Caller, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

/** What the logs may and may not hold: no personal data from failing statements, no credentials from URLs. */

const chunks: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    chunks.push(chunk.toString('utf8'));
    done();
  },
});
const logLines = () =>
  chunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown> & { err?: Record<string, unknown>; req?: { url?: string } });

const ProbeBody = Type.Object({ name: Type.String(), iban: Type.String(), metadata: Type.Record(Type.String(), Type.String()) });

let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp({
    env: { LOG_LEVEL: 'info' },
    logStream,
    beforeReady: (app, ctx) => {
      // Two statements that fail with the values they carried in the error: a unique violation
      // (PostgreSQL puts the duplicate key in `detail`) and a bad cast (the value is in `message`).
      app.post<{ Body: { name: string; iban: string; metadata: Record<string, string> } }>(
        '/v1/test-db-duplicate',
        { config: { auth: 'workspace' }, schema: { body: ProbeBody } },
        async (req) => {
          const { name, iban, metadata } = req.body;
          await ctx.db.tx(async (tx) => {
            const insert = 'INSERT INTO log_probe (name, iban, metadata) VALUES ($1, $2, $3)';
            await tx.query(insert, [name, iban, JSON.stringify(metadata)]);
            await tx.query(insert, [name, iban, JSON.stringify(metadata)]);
          });
          return { ok: true };
        },
      );
      app.post<{ Body: { name: string; iban: string; metadata: Record<string, string> } }>(
        '/v1/test-db-cast',
        { config: { auth: 'workspace' }, schema: { body: ProbeBody } },
        async (req) => {
          await ctx.db.query('SELECT $1::int, $2::text, $3::jsonb', [req.body.name, req.body.iban, JSON.stringify(req.body.metadata)]);
          return { ok: true };
        },
      );
    },
  });
  await t.ctx.db.exec('CREATE TABLE log_probe (name text UNIQUE, iban text, metadata jsonb)');
  caller = await newWorkspace(t.app, { name: 'Logs Ltd' });
});
afterAll(async () => t.close());

describe('logs', () => {
  it('a database error is logged with its SQLSTATE, never with the SQL, the parameters or the values in its message', async () => {
    const marker = randomBytes(4).toString('hex');
    const body = {
      name: `Zelda Quux${marker}`,
      iban: 'DE89370400440532013000',
      metadata: { note: `private-note-${marker}` },
    };
    chunks.length = 0;
    const duplicate = await caller.request('POST', '/v1/test-db-duplicate', body);
    expect(duplicate.statusCode).toBe(500);
    const cast = await caller.request('POST', '/v1/test-db-cast', body);
    expect(cast.statusCode).toBe(500);
    // A real route: a NUL in a beneficiary name is refused one way or another; whatever the answer, no value reaches the log.
    await caller.request('POST', '/v1/beneficiaries', {
      type: 'individual',
      name: `Ada\u0000 Nul${marker}`,
      currency: 'EUR',
      country: 'DE',
      accounts: [{ type: 'iban', data: { iban: body.iban } }],
    });

    const text = chunks.join('');
    for (const value of [body.name, marker, 'DE89370400440532013000', 'INSERT INTO', 'SELECT $1', 'log_probe (name']) {
      expect(text, `log contains ${value}`).not.toContain(value);
    }
    // Still useful: each failure is logged as an error with its SQLSTATE and request id.
    const failures = logLines().filter((l) => l.msg === 'request failed');
    expect(failures.map((l) => l.err?.code)).toEqual(expect.arrayContaining(['23505', '22P02']));
    for (const f of failures) expect(f.reqId).toMatch(/^req_/);
  });

  it('a credential in the query string is redacted from the logged URL', async () => {
    chunks.length = 0;
    const secret = `cs_${randomBytes(16).toString('hex')}`;
    const res = await t.app.inject({ method: 'GET', url: `/v1/account?access_token=${caller.token}&limit=5` });
    expect(res.statusCode).toBe(401);
    await t.app.inject({ method: 'POST', url: `/oauth/token?client_secret=${secret}&client_id=${caller.clientId}`, payload: {} });
    await t.app.inject({ method: 'GET', url: `/v1/payouts?Token=${encodeURIComponent(caller.token)}&api_key=${secret}&password=${secret}&code=${secret}` });

    const text = chunks.join('');
    expect(text).not.toContain(caller.token);
    expect(text).not.toContain(caller.token.split('.')[2]);
    expect(text).not.toContain(secret);
    const urls = logLines()
      .map((l) => l.req?.url)
      .filter((u): u is string => typeof u === 'string');
    // The rest of the URL is kept.
    expect(urls).toContain('/v1/account?access_token=[redacted]&limit=5');
    expect(urls.some((u) => u.startsWith('/oauth/token?client_secret=[redacted]&client_id='))).toBe(true);
  });

  it('an invitation link, a password and a session cookie of the dashboard never reach the log', async () => {
    chunks.length = 0;
    const password = `pw ${randomBytes(12).toString('hex')}`;
    const invited = await t.app.inject({
      method: 'POST',
      url: `/operator/v1/workspaces/${caller.workspaceId}/users`,
      headers: { authorization: `Bearer ${OPERATOR_KEY}` },
      payload: { email: 'logged@example.com', role: 'admin' },
    });
    const link = new URL(invited.json<{ invitationUrl: string }>().invitationUrl);
    const token = link.searchParams.get('token') as string;
    const web = new WebClient(t.app);
    await web.get(link.pathname + link.search);
    await web.get('/dashboard/invitation');
    await web.post('/dashboard/invitation', { password, confirmation: password });
    const session = web.cookies.get('corridor_dashboard') as string;
    expect(session).toBeDefined();
    expect((await web.get('/dashboard')).statusCode).toBe(200);

    const text = chunks.join('');
    expect(text).toContain('/dashboard/invitation?token=[redacted]');
    expect(text).not.toContain(token);
    expect(text).not.toContain(password);
    expect(text).not.toContain(session);
  });
});
