/** Scopes are `<action>:<resource>`; `write` includes `read` of the same resource. */
export const SCOPE_ACTIONS = ['read', 'write'] as const;
export const SCOPE_RESOURCES = [
  'accounts',
  'balances',
  'beneficiaries',
  'payouts',
  'fx',
  'orders',
  'applications',
  'virtual_accounts',
  'deposits',
  'webhooks',
  'api_keys',
  'capabilities',
  'approvals',
  'request_logs',
] as const;

export type Scope = `${(typeof SCOPE_ACTIONS)[number]}:${(typeof SCOPE_RESOURCES)[number]}`;

export const ALL_SCOPES: readonly Scope[] = SCOPE_RESOURCES.flatMap((r) => SCOPE_ACTIONS.map((a) => `${a}:${r}` as Scope));

const KNOWN = new Set<string>(ALL_SCOPES);
export const isScope = (value: string): value is Scope => KNOWN.has(value);

export function hasScope(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  const [action, resource] = required.split(':');
  return action === 'read' && granted.includes(`write:${resource}`);
}

/** Capabilities the operator can switch off per workspace. */
export const CAPABILITIES = ['payouts', 'crypto_payouts', 'orders', 'fx', 'virtual_accounts', 'deposits', 'applications'] as const;
export type Capability = (typeof CAPABILITIES)[number];
