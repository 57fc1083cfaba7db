import { Corridor, CorridorError } from '../../packages/sdk/src/index.js';

/** The flags of the commands that call a Corridor API as an integrator (listen, trigger). */
export const CLIENT_FLAGS = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  audience: { type: 'string' },
} as const;

/** An SDK client from the flags, else CORRIDOR_BASE_URL, CORRIDOR_CLIENT_ID, CORRIDOR_CLIENT_SECRET, CORRIDOR_AUDIENCE. */
export function clientFromFlags(
  values: { 'base-url'?: string | undefined; 'client-id'?: string | undefined; 'client-secret'?: string | undefined; audience?: string | undefined },
  fail: (message: string) => never,
  env: NodeJS.ProcessEnv = process.env,
): Corridor {
  const baseUrl = values['base-url'] ?? env.CORRIDOR_BASE_URL ?? 'http://127.0.0.1:8080';
  const clientId = values['client-id'] ?? env.CORRIDOR_CLIENT_ID;
  const clientSecret = values['client-secret'] ?? env.CORRIDOR_CLIENT_SECRET;
  if (!clientId || !clientSecret) fail('credentials needed: --client-id and --client-secret, or CORRIDOR_CLIENT_ID and CORRIDOR_CLIENT_SECRET');
  return new Corridor({ baseUrl, clientId, clientSecret, audience: values.audience ?? env.CORRIDOR_AUDIENCE ?? 'corridor-api' });
}

/**
 * What to check when a command's call failed for its settings, not for the request: the setting a
 * refused credential, a wrong audience or an unreachable server names. Undefined for other errors.
 */
export function settingHint(err: unknown, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const cause = err instanceof CorridorError ? err : err instanceof Error && err.cause instanceof CorridorError ? err.cause : undefined;
  if (!cause) return undefined;
  const base = env.CORRIDOR_BASE_URL ?? 'http://127.0.0.1:8080';
  if (cause.code === 'NETWORK_ERROR') return `no answer from the API: check CORRIDOR_BASE_URL (or --base-url; now ${base}) and that the server runs`;
  if (cause.code === 'invalid_audience') return `the token endpoint refused the audience: check CORRIDOR_AUDIENCE (or --audience); ${cause.message}`;
  if (cause.status === 401 || cause.code === 'access_denied') {
    return 'the credential was refused (401): check CORRIDOR_CLIENT_ID and CORRIDOR_CLIENT_SECRET (or --client-id and --client-secret), and that CORRIDOR_BASE_URL names the server that issued them';
  }
  if (cause.status === 403) return `the credential may not do this (${cause.code ?? 'forbidden'}): check the scopes of CORRIDOR_CLIENT_ID (the dashboard's Credentials page)`;
  return undefined;
}
