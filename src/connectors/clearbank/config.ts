import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import { ukAccountOfIban } from './account.js';

/**
 * The "clearbank" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses to
 * start, naming the setting):
 *
 *   { "baseUrl": "https://institution-api.clearbank.co.uk",
 *     "apiTokenFile": "/etc/corridor/clearbank-token",
 *     "privateKeyFile": "/etc/corridor/clearbank-private.pem",
 *     "bankPublicKeyFile": "/etc/corridor/clearbank-webhooks-public.pem",
 *     "debtor": { "iban": "GB29CLRB04045212345678", "address": "GB, London, 1 Main Street, EC1A 1AA" },
 *     "batch": { "maxSeconds": 2 }, "timeoutMs": 30000,
 *     "statements": { "bankAccount": "gbp-clearbank", "everySeconds": 3600 } }
 *
 * `privateKeyFile` is the operator's RSA key (PEM) whose public half is registered in the ClearBank
 * portal: every request's body is signed with it (`DigitalSignature`), and so is every answer to a
 * webhook. `bankPublicKeyFile` is ClearBank's public key, which verifies its webhooks. The API token
 * and the keys are read from files at start and held in memory only (never logged, never stored).
 * `copBaseUrl` (default: `baseUrl`) is where Confirmation of Payee is asked. A plain `http://` URL is
 * accepted for a loopback host only (the local simulator, `corridor clearbank-sim`).
 * `statementsBaseUrl` (default: `baseUrl`) is where the Customer Statements API (camt.053) is asked;
 * `statements.bankAccount` (default "clearbank") is the bank account the statements reconcile in
 * reconciliation (the operator's name for the ClearBank account whose IBAN is `debtor.iban`: the
 * same name as a "bank" account when both connectors report on one account), and
 * `statements.everySeconds` (default 3600) how often the connector looks for a day to ask for.
 */
export interface ClearBankConfig {
  baseUrl: string;
  copBaseUrl: string;
  apiToken: string;
  privateKey: KeyObject;
  bankPublicKey: KeyObject;
  debtor: { iban: string; address: string };
  batch: { maxSeconds: number };
  timeoutMs: number;
  statementsBaseUrl: string;
  statements: { bankAccount: string; everySeconds: number };
}

class ClearBankConfigError extends Error {}

function fail(path: string, why: string): never {
  throw new ClearBankConfigError(`connectors file: clearbank.${path} ${why}`);
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'must be an object');
  return value as Record<string, unknown>;
}

function text(o: Record<string, unknown>, key: string, path: string, fallback?: string): string {
  const value = o[key] ?? fallback;
  if (typeof value !== 'string' || value.trim() === '') fail(`${path}${key}`, 'must be a non-empty string');
  return value;
}

function integer(o: Record<string, unknown>, key: string, path: string, min: number, max: number, fallback: number): number {
  const value = o[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(`${path}${key}`, `must be an integer from ${min} to ${max}`);
  return value;
}

function readFile(o: Record<string, unknown>, key: string, path: string): string {
  const file = text(o, key, path);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fail(`${path}${key}`, `names a file that cannot be read: ${file}`);
  }
}

function url(o: Record<string, unknown>, key: string, fallback?: string): string {
  const value = text(o, key, '', fallback);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return fail(key, `is not a URL: ${value}`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) fail(key, 'must be an https:// URL (http:// only for a loopback host: the local simulator)');
  return value.replace(/\/+$/, '');
}

const ADDRESS = /^[a-zA-Z0-9/\-?:().,'+ ]{1,140}$/;

/** The "clearbank" section as validated; throws naming the first bad setting. */
export function parseClearBankConfig(section: unknown): ClearBankConfig {
  const o = object(section, '(section)');
  const baseUrl = url(o, 'baseUrl');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(readFile(o, 'privateKeyFile', ''));
  } catch (err) {
    if (err instanceof ClearBankConfigError) throw err;
    return fail('privateKeyFile', 'must hold an RSA private key in PEM');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') fail('privateKeyFile', 'must hold an RSA private key (ClearBank signs with RSA)');
  let bankPublicKey: KeyObject;
  try {
    bankPublicKey = createPublicKey(readFile(o, 'bankPublicKeyFile', ''));
  } catch (err) {
    if (err instanceof ClearBankConfigError) throw err;
    return fail('bankPublicKeyFile', "must hold ClearBank's RSA public key in PEM");
  }
  const apiToken = readFile(o, 'apiTokenFile', '').trim();
  if (apiToken === '') fail('apiTokenFile', 'holds no token');
  const debtor = object(o.debtor, 'debtor');
  const iban = text(debtor, 'iban', 'debtor.').replace(/\s+/g, '').toUpperCase();
  if (!ukAccountOfIban(iban)) fail('debtor.iban', 'must be a valid GB IBAN (the operator\'s ClearBank account)');
  const address = text(debtor, 'address', 'debtor.');
  if (!ADDRESS.test(address)) fail('debtor.address', "must be 1 to 140 of the characters ClearBank allows (letters, digits, space and /-?:().,'+)");
  const batch = object(o.batch ?? {}, 'batch');
  const statements = object(o.statements ?? {}, 'statements');
  const bankAccount = text(statements, 'bankAccount', 'statements.', 'clearbank');
  if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(bankAccount)) fail('statements.bankAccount', 'must be 1 to 64 letters, digits, dots, dashes or underscores');
  return {
    baseUrl,
    copBaseUrl: url(o, 'copBaseUrl', baseUrl),
    apiToken,
    privateKey,
    bankPublicKey,
    debtor: { iban, address },
    batch: { maxSeconds: integer(batch, 'maxSeconds', 'batch.', 0, 3600, 2) },
    timeoutMs: integer(o, 'timeoutMs', '', 1000, 120_000, 30_000),
    statementsBaseUrl: url(o, 'statementsBaseUrl', baseUrl),
    statements: { bankAccount, everySeconds: integer(statements, 'everySeconds', 'statements.', 60, 86_400, 3600) },
  };
}
