import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, OPERATOR_KEY, type TestApp } from '../helpers/app.js';
import { WebClient } from '../helpers/web-client.js';

let t: TestApp;
let client: WebClient;

beforeAll(async () => {
  t = await createTestApp();
  client = new WebClient(t.app);
  await client.get('/console/sign-in');
  expect((await client.post('/console/sign-in/key', { operatorKey: OPERATOR_KEY })).statusCode).toBe(303);
});
afterAll(async () => t.close());

describe('the console account page opened with the operator key (no user)', () => {
  it('explains that it is for operator users and how to invite one, instead of a 500', async () => {
    const res = await client.get('/console/account');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('operator key');
    expect(res.body).toContain('href="/console/operators"');
  });

  it('refuses the second-factor changes with a 403 page, not a 500', async () => {
    for (const action of ['begin', 'enable', 'disable']) {
      const res = await client.post(`/console/account/second-factor/${action}`, { code: '123456', sealed: 'x' });
      expect(res.statusCode, action).toBe(403);
      expect(res.body).toContain('href="/console/operators"');
    }
  });
});
