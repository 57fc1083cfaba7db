/**
 * The "mobile-money" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses
 * to start, naming the setting):
 *
 *   { "baseUrl": "https://api.operator.example/mm/v1.2",
 *     "apiKey": "<sealed with `corridor mobile-money encrypt-secret`>",
 *     "clientId": "corridor",
 *     "callbackSecret": "<sealed>",
 *     "callbackBaseUrl": "https://corridor.example.com",
 *     "debitParty": { "key": "accountid", "value": "2000023" },
 *     "callbackWaitSeconds": 60, "pollSeconds": 30, "callbackMaxAgeSeconds": 300, "accountNameLookup": true }
 *
 * `apiKey` is the operator's API key Corridor sends as X-API-Key; `callbackSecret` is the shared
 * secret the operator sends back in the X-API-Key of its callbacks (configured at the operator), so a
 * callback proves it comes from the operator. Both are sealed under CORRIDOR_ENCRYPTION_KEY and opened
 * only when used; neither is ever logged. `callbackBaseUrl` (default PUBLIC_BASE_URL) is where the
 * operator reaches Corridor: each request's X-Callback-URL is
 * `<callbackBaseUrl>/callbacks/mobile-money/<correlation id>`.
 */
export interface MobileMoneyConfig {
  baseUrl: string;
  apiKey: string;
  clientId: string | undefined;
  callbackSecret: string;
  callbackBaseUrl: string;
  debitParty: { key: string; value: string } | undefined;
  callbackWaitSeconds: number;
  pollSeconds: number;
  callbackMaxAgeSeconds: number;
  accountNameLookup: boolean;
  requestTimeoutMs: number;
}

class MobileMoneyConfigError extends Error {}

function fail(path: string, why: string): never {
  throw new MobileMoneyConfigError(`connectors file: mobile-money.${path} ${why}`);
}

function text(o: Record<string, unknown>, key: string, fallback?: string): string {
  const value = o[key] ?? fallback;
  if (typeof value !== 'string' || value.trim() === '') fail(key, 'must be a non-empty string');
  return value;
}

function integer(o: Record<string, unknown>, key: string, min: number, max: number, fallback: number): number {
  const value = o[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(key, `must be an integer from ${min} to ${max}`);
  return value;
}

function httpUrl(o: Record<string, unknown>, key: string, env: string, fallback?: string): string {
  const value = text(o, key, fallback);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(key, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(env === 'sandbox' && url.protocol === 'http:')) fail(key, 'must be an https URL (http only with CORRIDOR_ENV=sandbox)');
  if (url.username || url.password) fail(key, 'must not carry credentials: give them as apiKey and callbackSecret, sealed');
  return value.replace(/\/+$/, '');
}

function sealed(o: Record<string, unknown>, key: string): string {
  const value = o[key];
  if (typeof value !== 'string' || !value.startsWith('v1.')) fail(key, 'must be sealed with `corridor mobile-money encrypt-secret` (a value starting "v1.")');
  return value;
}

/** The "mobile-money" section as validated; throws naming the first bad setting. */
export function parseMobileMoneyConfig(section: unknown, env: string, publicBaseUrl: string): MobileMoneyConfig {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) fail('(section)', 'must be an object');
  const o = section as Record<string, unknown>;
  let debitParty: MobileMoneyConfig['debitParty'];
  if (o.debitParty !== undefined) {
    const d = o.debitParty as Record<string, unknown>;
    if (typeof d !== 'object' || d === null || typeof d.key !== 'string' || typeof d.value !== 'string' || d.key === '' || d.value === '') fail('debitParty', 'must be { "key": <identifier type>, "value": <identifier> }');
    debitParty = { key: d.key, value: d.value };
  }
  const lookup = o.accountNameLookup ?? true;
  if (typeof lookup !== 'boolean') fail('accountNameLookup', 'must be true or false');
  const clientId = o.clientId === undefined ? undefined : text(o, 'clientId');
  return {
    baseUrl: httpUrl(o, 'baseUrl', env),
    apiKey: sealed(o, 'apiKey'),
    clientId,
    callbackSecret: sealed(o, 'callbackSecret'),
    callbackBaseUrl: httpUrl(o, 'callbackBaseUrl', env, publicBaseUrl),
    debitParty,
    callbackWaitSeconds: integer(o, 'callbackWaitSeconds', 1, 86_400, 60),
    pollSeconds: integer(o, 'pollSeconds', 1, 86_400, 30),
    callbackMaxAgeSeconds: integer(o, 'callbackMaxAgeSeconds', 10, 86_400, 300),
    accountNameLookup: lookup,
    requestTimeoutMs: integer(o, 'requestTimeoutMs', 100, 120_000, 15_000),
  };
}
