/**
 * `corridor clearbank-sim` as the sandbox runs it: its own process, called over HTTP through Stoplight
 * Prism holding both sides to ClearBank's published definitions (Faster Payments, Confirmation of
 * Payee), its requests signed as the bank requires and its signed webhook received and acknowledged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postSigned } from '../../src/connectors/clearbank/client.js';
import type { ClearBankConfig } from '../../src/connectors/clearbank/config.js';
import { confirmPayee } from '../../src/connectors/clearbank/cop.js';
import { signBody, verifyBody } from '../../src/connectors/clearbank/signature.js';
import { CORRIDOR_BIN, corridorFreeEnv, freePort } from '../helpers/processes.js';
import { startPrism, type PrismProxy } from '../helpers/prism.js';
import { until } from '../helpers/until.js';
import { ALAN, COP_DEFINITION, FPS_DEFINITION, SIM_SORT_CODE } from '../clearbank/harness.js';

const operatorKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bankKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const API_TOKEN = 'sandbox-token-cli-0123456789';

interface Delivery {
  signature: string | undefined;
  body: string;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'corridor-clearbank-sim-'));
const deliveries: Delivery[] = [];
let receiver: http.Server;
let child: ChildProcess;
let stdout = '';
let stderr = '';
let fps: PrismProxy;
let cop: PrismProxy;
let config: ClearBankConfig;

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}

beforeAll(async () => {
  // Corridor's side of the webhook: records it and acknowledges it as ClearBank requires (its Nonce back, signed with the operator's key).
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = req.headers.digitalsignature;
      deliveries.push({ signature: typeof signature === 'string' ? signature : undefined, body });
      const answer = JSON.stringify({ Nonce: (JSON.parse(body) as { Nonce?: number }).Nonce });
      res.writeHead(200, { 'content-type': 'application/json', digitalsignature: signBody(operatorKeys.privateKey, answer) });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/connectors/clearbank/webhooks`;
  const port = await freePort();
  const simUrl = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [
      CORRIDOR_BIN,
      'clearbank-sim',
      '--port',
      String(port),
      '--token-file',
      write('token', API_TOKEN),
      '--operator-public-key',
      write('operator.pub.pem', operatorKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
      '--bank-private-key',
      write('bank.pem', bankKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
      '--webhook-url',
      webhookUrl,
    ],
    { env: corridorFreeEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  await until('clearbank-sim to say it listens', async () => ({ stdout, stderr, exitCode: child.exitCode }), (s) => s.stdout.includes(`listening on ${simUrl}`) || s.exitCode !== null);
  expect(child.exitCode, stderr).toBeNull();
  [fps, cop] = await Promise.all([startPrism(FPS_DEFINITION, simUrl), startPrism(COP_DEFINITION, simUrl)]);
  config = {
    baseUrl: fps.url,
    copBaseUrl: cop.url,
    apiToken: API_TOKEN,
    privateKey: operatorKeys.privateKey,
    bankPublicKey: bankKeys.publicKey,
    debtor: { iban: 'GB29NWBK60161331926819', address: 'GB, London, 1 King Street, EC2V 8AU' },
    batch: { maxSeconds: 0 },
    timeoutMs: 60_000,
    statementsBaseUrl: fps.url,
    statements: { bankAccount: 'clearbank', everySeconds: 3600 },
  };
}, 300_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await Promise.all([fps?.stop(), cop?.stop()]);
  await new Promise((resolve) => receiver?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A Faster Payments request of one credit transfer, as the connector builds its batches. */
function payment(endToEndId: string, accountNumber: string, pounds: number): string {
  return JSON.stringify({
    paymentInstructions: [
      {
        debtor: { address: config.debtor.address },
        paymentInstructionIdentification: `batch-${endToEndId}`,
        paymentTypeCode: 'SIP',
        debtorAccount: { identification: { iban: config.debtor.iban } },
        creditTransfers: [
          {
            paymentIdentification: { instructionIdentification: endToEndId, endToEndIdentification: endToEndId },
            amount: { currency: 'GBP', instructedAmount: pounds },
            creditor: { name: 'Alan Turing' },
            creditorAccount: { identification: { other: { identification: `${SIM_SORT_CODE}${accountNumber}`, schemeName: { code: 'BBAN' } } } },
            remittanceInformation: { structured: { creditorReferenceInformation: { reference: 'CLI SIM' } } },
          },
        ],
      },
    ],
  });
}

describe('corridor clearbank-sim', () => {
  it('answers Confirmation of Payee by magic account: a match, a close match with the name the bank holds, no match', async () => {
    const check = (accountNumber: string) => confirmPayee(config, { rail: 'bank_transfer', currency: 'GBP', beneficiary: ALAN(accountNumber), name: 'Alan Turing', reference: `cli-cop-${accountNumber}` });
    expect(await check('12345601')).toEqual({ kind: 'verdict', result: 'match' });
    expect(await check('00000501')).toMatchObject({ kind: 'verdict', result: 'close_match', suggestedName: 'Alan M Turing' });
    expect(await check('00000502')).toMatchObject({ kind: 'verdict', result: 'no_match' });
  }, 120_000);

  it('accepts a signed Faster Payment, refuses one for a magic account per payment, refuses an unsigned request, and sends the settlement signed with the bank\'s key', async () => {
    const accepted = await postSigned(config, fps.url, '/v3/payments/fps', payment('clisim0001', '12345601', 12.5), 'cli-sim-request-0001');
    expect(accepted).toEqual({ status: 202, body: { transactions: [{ endToEndIdentification: 'clisim0001', response: 'Accepted' }] } });
    // The same X-Request-Id is answered as the first time, acting once.
    expect(await postSigned(config, fps.url, '/v3/payments/fps', payment('clisim0001', '12345601', 12.5), 'cli-sim-request-0001')).toEqual(accepted);
    const refused = await postSigned(config, fps.url, '/v3/payments/fps', payment('clisim0002', '00000101', 3), 'cli-sim-request-0002');
    expect(refused).toEqual({ status: 400, body: { transactions: [{ endToEndIdentification: 'clisim0002', response: 'InvalidAccount' }] } });
    const unsigned = await postSigned({ ...config, privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }, fps.url, '/v3/payments/fps', payment('clisim0003', '12345601', 1), 'cli-sim-request-0003');
    expect(unsigned.status).toBe(422);

    const delivery = await until('the settlement webhook', async () => deliveries.find((d) => d.body.includes('clisim0001')), (d) => d !== undefined, 120_000);
    expect(verifyBody(bankKeys.publicKey, delivery?.body ?? '', delivery?.signature)).toBe(true);
    expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({ Type: 'TransactionSettled', Payload: { EndToEndTransactionId: 'clisim0001', Amount: 12.5, Status: 'Settled', CurrencyCode: 'GBP' } });
    expect(deliveries.filter((d) => d.body.includes('clisim0001'))).toHaveLength(1);
    expect([...fps.violations(), ...cop.violations()]).toEqual([]);
  }, 180_000);

  it('stops on SIGTERM, exiting 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('webhook TransactionSettled clisim0001: 200');
  }, 60_000);
});
