/**
 * The Arazzo 1.0 workflow served at /arazzo.json (issue 25, point 7) runs against a live server with
 * Redocly's Respect: token, webhook endpoint, beneficiary, quote, payout, paid. The payout.paid
 * delivery reaches a real HTTPS receiver signed with the secret the workflow's webhook step output.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from '@redocly/respect-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/jobs.js';
import type { JobRunner } from '../../src/platform/jobs/runner.js';
import { listeningTestApp, newWorkspace, type Caller, type TestApp } from '../helpers/app.js';
import { HttpsReceiver, signedWith } from '../helpers/https-receiver.js';

let t: TestApp;
let caller: Caller;
let receiver: HttpsReceiver;
let runner: JobRunner;
let dir: string;

beforeAll(async () => {
  // The sandbox's own payout steps wait long: the workflow's steps make the moves (the workers deliver the webhook).
  t = await listeningTestApp({ JOB_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '2000', SANDBOX_STEP_MS: '600000' });
  caller = await newWorkspace(t.app);
  receiver = await HttpsReceiver.start();
  runner = createRunner(t.ctx);
  runner.start();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-arazzo-'));
});
afterAll(async () => {
  await runner.stop();
  await receiver.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Respect's own openapi-core (its config and logger), whichever version the root has. */
async function respectCore(): Promise<{ createConfig: (raw?: object) => Promise<unknown>; logger: unknown }> {
  // Respect's own copy (nested when the root's openapi-core is another version), by path: neither package exports a require entry.
  const modules = path.join(import.meta.dirname, '..', '..', 'node_modules');
  const nested = path.join(modules, '@redocly', 'respect-core', 'node_modules', '@redocly', 'openapi-core', 'lib', 'index.js');
  const coreDir = fs.existsSync(nested) ? nested : path.join(modules, '@redocly', 'openapi-core', 'lib', 'index.js');
  return (await import(pathToFileURL(coreDir).href)) as { createConfig: (raw?: object) => Promise<unknown>; logger: unknown };
}

/** Respect's run, its log kept: a failure says which step refused what. */
async function runLogged(lines: string[], options: Parameters<typeof run>[0]): ReturnType<typeof run> {
  try {
    return await run(options);
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${lines.join('\n')}`, { cause: err });
  }
}

describe('GET /arazzo.json', () => {
  it('is linked from the reference (/docs reads the document\'s description), beside /openapi.json and /docs/errors', async () => {
    const description = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ info: { description: string } }>().info.description;
    expect(description).toContain('[/arazzo.json](/arazzo.json)');
    expect(description).toContain('[/docs/errors](/docs/errors)');
  });

  it('is an Arazzo 1.0 workflow over the served OpenAPI document, and runs against the server: the payout is paid and its webhook verifies', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/arazzo.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json<{ arazzo: string; sourceDescriptions: { url: string }[]; workflows: { steps: { operationId: string }[] }[] }>();
    expect(doc.arazzo).toMatch(/^1\.0\./);
    expect(doc.sourceDescriptions[0]!.url).toBe(`${t.config.publicBaseUrl}/openapi.json`);
    const file = path.join(dir, 'corridor.arazzo.json');
    fs.writeFileSync(file, res.body);

    const core = await respectCore();
    const runId = `arazzo-${Date.now().toString(36)}`;
    const lines: string[] = [];
    const log = (m: unknown) => void lines.push(String(m));
    const results = await runLogged(lines, {
      files: [file],
      input: JSON.stringify({ clientId: caller.clientId, clientSecret: caller.clientSecret, webhookUrl: receiver.url('/arazzo'), runId }),
      config: (await core.createConfig({})) as never,
      maxSteps: 50,
      verbose: true,
      maxFetchTimeout: 30_000,
      requestFileLoader: { getFileBody: async (p: string) => new Blob([fs.readFileSync(p)]) },
      logger: { ...(core.logger as object), info: log, warn: log, error: log, output: log, printNewLine: () => undefined, printSeparator: () => undefined } as never,
      fetch,
    });
    const [result] = results;
    expect(result?.hasProblems, lines.join('\n')).toBe(false);
    const workflow = result!.executedWorkflows[0]!;
    expect(workflow.executedSteps.map((s) => ('stepId' in s ? s.stepId : ''))).toEqual(['token', 'webhook', 'fund', 'beneficiary', 'quote', 'payout', 'process', 'pay', 'paid']);

    const payouts = await caller.request('GET', `/v1/payouts?clientRef=${runId}`);
    const payout = payouts.json<{ data: { id: string; status: string }[] }>().data[0]!;
    expect(payout.status).toBe('paid');
    const endpoints = await caller.request('GET', '/v1/webhooks');
    expect(endpoints.json<{ data: unknown[] }>().data).toHaveLength(1);
    const [delivery] = await receiver.waitFor('/arazzo', 1);
    const event = JSON.parse(delivery!.body) as { type: string; data: { id: string } };
    expect(event).toMatchObject({ type: 'payout.paid', data: { id: payout.id } });
    const secret = (workflow as unknown as { outputs?: { webhookSecret?: string } }).outputs?.webhookSecret ?? /whsec_[A-Za-z0-9+/=_-]+/.exec(JSON.stringify(result))?.[0];
    expect(secret).toMatch(/^whsec_/);
    expect(signedWith(delivery!.body, delivery!.headers, secret!)).toBe(true);
  });
});
