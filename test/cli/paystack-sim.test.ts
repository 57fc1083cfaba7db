/**
 * `corridor paystack-sim` as the sandbox runs it: its own process, called over HTTP through Stoplight
 * Prism holding both sides to Paystack's published definition, and its signed webhook received.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_ACCOUNTS, SIM_MISMATCH_NAME } from '../../src/connectors/paystack/simulator.js';
import { CORRIDOR_BIN, corridorFreeEnv, freePort } from '../helpers/processes.js';
import { startPrism, type PrismProxy } from '../helpers/prism.js';
import { until } from '../helpers/until.js';
import { PAYSTACK_YAML, SECRET_KEY, secretKeyFile } from '../paystack/helpers.js';

interface Delivery {
  signature: string | undefined;
  body: string;
}

let receiver: http.Server;
const deliveries: Delivery[] = [];
let child: ChildProcess;
let stdout = '';
let stderr = '';
let simUrl: string;
let prism: PrismProxy;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const signature = req.headers['x-paystack-signature'];
      deliveries.push({ signature: typeof signature === 'string' ? signature : undefined, body: Buffer.concat(chunks).toString('utf8') });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/connectors/paystack/webhook`;
  const port = await freePort();
  simUrl = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [CORRIDOR_BIN, 'paystack-sim', '--port', String(port), '--secret-key-file', secretKeyFile(), '--webhook-url', webhookUrl, '--balance', '5000.00', '--account-name', 'ADAEZE OKAFOR'],
    { env: corridorFreeEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await until('paystack-sim to say it serves', async () => ({ stdout, stderr, exitCode: child.exitCode }), (s) => s.stdout.includes(`serving Paystack's transfer API at ${simUrl}`) || s.exitCode !== null);
  expect(child.exitCode, stderr).toBeNull();
  prism = await startPrism(PAYSTACK_YAML, simUrl);
}, 300_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await prism?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function call(method: string, path: string, body?: unknown, key = SECRET_KEY, base = prism.url): Promise<{ status: number; json: { status: boolean; message: string; data?: Record<string, unknown> & { reference?: string } } }> {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, json: (await res.json()) as { status: boolean; message: string } };
}

describe('corridor paystack-sim', () => {
  it('serves the balance it was given and the name enquiry by magic account, and refuses another key', async () => {
    const balance = await call('GET', '/balance');
    expect(balance.status).toBe(200);
    expect(balance.json.data).toEqual([{ currency: 'NGN', balance: 500000 }]);
    const named = await call('GET', '/bank/resolve?account_number=0000000018&bank_code=058');
    expect(named.json.data).toMatchObject({ account_number: '0000000018', account_name: 'ADAEZE OKAFOR' });
    const mismatch = await call('GET', `/bank/resolve?account_number=${SIM_ACCOUNTS.mismatch}&bank_code=058`);
    expect(mismatch.json.data).toMatchObject({ account_name: SIM_MISMATCH_NAME });
    const unknown = await call('GET', `/bank/resolve?account_number=${SIM_ACCOUNTS.unknown}&bank_code=058`);
    expect(unknown).toMatchObject({ status: 422, json: { status: false } });
    expect((await call('GET', '/balance', undefined, 'sk_test_someone_else', simUrl)).status).toBe(401);
  }, 120_000);

  it('pays a transfer from its balance and sends transfer.success signed with the secret key', async () => {
    const recipient = await call('POST', '/transferrecipient', { type: 'nuban', name: 'Adaeze Okafor', account_number: '0000000018', bank_code: '058', currency: 'NGN' });
    expect(recipient.status).toBe(201);
    const code = String(recipient.json.data?.recipient_code);
    const reference = 'corridor-cli-sim-transfer-0001';
    const sent = await call('POST', '/transfer', { source: 'balance', amount: 125000, recipient: code, reference, reason: 'Payout', currency: 'NGN' });
    expect(sent.status).toBe(200);
    expect(sent.json.data).toMatchObject({ reference, amount: 125000, status: 'pending' });
    // A reference used twice is refused, as Paystack refuses it.
    expect((await call('POST', '/transfer', { source: 'balance', amount: 125000, recipient: code, reference, reason: 'Payout', currency: 'NGN' })).status).toBe(400);

    const delivery = await until('the transfer.success webhook', async () => deliveries.find((d) => d.body.includes(reference)), (d) => d !== undefined, 120_000);
    expect(delivery?.signature).toBe(createHmac('sha512', SECRET_KEY).update(delivery?.body ?? '').digest('hex'));
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ event: 'transfer.success', data: { reference, amount: 125000, status: 'success' } });
    expect((await call('GET', `/transfer/verify/${reference}`)).json.data).toMatchObject({ reference, status: 'success' });
    expect((await call('GET', '/balance')).json.data).toEqual([{ currency: 'NGN', balance: 500000 - 125000 }]);
    expect(prism.violations()).toEqual([]);
  }, 180_000);

  it('stops on SIGTERM, exiting 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('transfer.success corridor-cli-sim-transfer-0001: webhook 200');
  }, 60_000);
});
