import fs from 'node:fs';

/**
 * The "paystack" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses to
 * start, naming the setting):
 *
 *   { "baseUrl": "https://api.paystack.co", "secretKeyFile": "/etc/corridor/paystack.key",
 *     "webhookWaitSeconds": 600, "pollSeconds": 60, "lowBalance": "500000.00", "narration": "Payout" }
 *
 * `secretKeyFile` holds the integration's secret key (`sk_live_…`, `sk_test_…`): it authenticates
 * every call (Bearer) and is the HMAC key Paystack signs its webhooks with. It is read once at start
 * and kept only in memory. `webhookWaitSeconds`: how long a sent transfer waits for its webhook before
 * it is verified by reference. `lowBalance`: the NGN provider balance under which the operator is
 * alerted. Only an https base URL is allowed outside the sandbox.
 */
export interface PaystackConfig {
  baseUrl: string;
  secretKey: string;
  webhookWaitSeconds: number;
  pollSeconds: number;
  /** Kobo. */
  lowBalanceMinor: bigint;
  narration: string;
  /** How long one call may take before it counts as ambiguous, in ms. */
  timeoutMs: number;
}

class PaystackConfigError extends Error {}

function fail(path: string, why: string): never {
  throw new PaystackConfigError(`connectors file: paystack.${path} ${why}`);
}

function integer(o: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const value = o[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(key, `must be an integer from ${min} to ${max}`);
  return value;
}

/**
 * The Paystack secret key a file holds (the section's `secretKeyFile`, and the file `corridor
 * paystack-sim --secret-key-file` reads, so the simulator and the connector share one key); `refuse`
 * says why not.
 */
export function readSecretKey(file: string, refuse: (why: string) => never): string {
  let secretKey: string;
  try {
    secretKey = fs.readFileSync(file, 'utf8').trim();
  } catch {
    refuse(`names a file that cannot be read: ${file}`);
  }
  if (!/^sk_[A-Za-z0-9_]+$/.test(secretKey)) refuse('must hold a Paystack secret key (sk_live_… or sk_test_…)');
  return secretKey;
}

/** The "paystack" section as validated; throws naming the first bad setting. */
export function parsePaystackConfig(section: unknown, env = 'production'): PaystackConfig {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) fail('(section)', 'must be an object');
  const o = section as Record<string, unknown>;
  const baseUrl = o.baseUrl ?? 'https://api.paystack.co';
  if (typeof baseUrl !== 'string' || !URL.canParse(baseUrl)) fail('baseUrl', 'must be a URL');
  if (env !== 'sandbox' && new URL(baseUrl).protocol !== 'https:') fail('baseUrl', 'must be https outside the sandbox');
  const file = o.secretKeyFile;
  if (typeof file !== 'string' || file === '') fail('secretKeyFile', 'must name the file holding the secret key');
  const secretKey = readSecretKey(file, (why) => fail('secretKeyFile', why));
  const low = o.lowBalance ?? '0.00';
  if (typeof low !== 'string' || !/^[0-9]{1,15}(\.[0-9]{1,2})?$/.test(low)) fail('lowBalance', 'must be an NGN amount as a decimal string ("500000.00")');
  const [whole, frac = ''] = low.split('.');
  const narration = o.narration ?? 'Payout';
  if (typeof narration !== 'string' || narration.length === 0 || narration.length > 100) fail('narration', 'must be a string of 1 to 100 characters');
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    secretKey,
    webhookWaitSeconds: integer(o, 'webhookWaitSeconds', 1, 86_400, 600),
    pollSeconds: integer(o, 'pollSeconds', 1, 86_400, 60),
    lowBalanceMinor: BigInt(whole as string) * 100n + BigInt(frac.padEnd(2, '0')),
    narration,
    timeoutMs: integer(o, 'timeoutSeconds', 1, 300, 30) * 1000,
  };
}
