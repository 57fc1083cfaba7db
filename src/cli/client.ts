import { Corridor } from '../../packages/sdk/src/index.js';

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
