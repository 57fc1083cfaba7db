import { randomBytes } from 'node:crypto';
import { Corridor, CorridorError, type PayoutRequest } from '../../packages/sdk/src/index.js';

/** A recipient every EUR rail of the sandbox pays. */
const BENEFICIARY = {
  type: 'individual',
  name: 'Ada Lovelace',
  country: 'DE',
  address: '1 Hauptstrasse',
  city: 'Berlin',
  postcode: '10115',
  accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
} as const;

const SENDER = { type: 'individual', firstName: 'Grace', lastName: 'Hopper', country: 'DE' } as const;

/** The sandbox simulator leaves an amount ending in .14 processing: the trigger makes the next move itself. */
const HELD_AMOUNT = '10.14';

const BUSINESS_APPLICATION = {
  applicationType: 'business',
  companySize: 'sme',
  businessInfo: { registeredName: 'Trigger Trading Ltd', registrationNumber: '12345678', country: 'GB', address: { street: '1 High Street', city: 'London', postalCode: 'EC1A 1AA', country: 'GB' } },
  hasIndirectControl: false,
} as const;
const DIRECTOR = { firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1985-12-10', nationality: 'GB', title: 'Director', ownershipPercentage: 60, nationalId: 'AB123456C' } as const;
/** The smallest PDF the document checks accept. */
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');

export type Created = { object: string; id: string; [key: string]: unknown };
type Created_ = (object: string, value: unknown) => void;
/** A request body as `--override` changes it: `o('payout', body)`. */
type Override = <T>(resource: string, body: T) => T;
type Scenario = (corridor: Corridor, created: Created_, o: Override) => Promise<void>;

/** The objects each trigger creates (and `--override resource:field=value` may change), by the event type's first part. */
const CREATES: Record<string, string[]> = {
  payout: ['payout', 'beneficiary'],
  account: ['account'],
  application: ['application', 'account'],
  order: ['order'],
  virtual_account: ['virtual_account', 'application', 'account'],
  deposit: ['deposit', 'virtual_account', 'application', 'account'],
};

/** One `--override [resource:]path=value`: the resource defaults to the event's object (payout for payout.paid). */
export interface OverrideSpec {
  resource: string;
  path: string[];
  value: string;
}

/**
 * Parses `--override` values against the event type: `clientRef=inv-7`, `payout:senderInfo.firstName=Ada`,
 * `beneficiary:accounts.0.data.iban=...`. A resource the trigger does not create is refused, naming those it does.
 */
export function parseOverrides(eventType: string, list: readonly string[]): OverrideSpec[] {
  const object = eventType.split('.')[0] as string;
  const creates = CREATES[object];
  if (list.length && !creates) throw new Error(`cannot trigger ${eventType}; one of: ${Object.keys(TRIGGERS).join(', ')}`);
  return list.map((text) => {
    const match = /^(?:([a-z_]+):)?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)=(.*)$/s.exec(text);
    if (!match) throw new Error(`--override takes [resource:]field=value (e.g. payout:clientRef=inv-7), not ${text}`);
    const resource = match[1] ?? object;
    if (!creates?.includes(resource)) throw new Error(`--override ${text}: trigger ${eventType} creates ${creates?.join(', ')}, not ${resource}`);
    return { resource, path: (match[2] as string).split('.'), value: match[3] as string };
  });
}

/**
 * The body with the overrides of `resource` set (a deep copy): a value replacing a number or a boolean
 * takes its type (`ownershipPercentage=75`); every other value is a string, as amounts are on the wire.
 */
export function overridden<T>(specs: readonly OverrideSpec[], resource: string, body: T): T {
  const mine = specs.filter((s) => s.resource === resource);
  if (!mine.length) return body;
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const spec of mine) {
    let at: Record<string, unknown> = copy;
    for (const key of spec.path.slice(0, -1)) {
      const next = at[key];
      if (next === null || typeof next !== 'object') at[key] = {};
      at = at[key] as Record<string, unknown>;
    }
    const last = spec.path.at(-1) as string;
    const current = at[last];
    at[last] = typeof current === 'number' && spec.value.trim() !== '' && Number.isFinite(Number(spec.value)) ? Number(spec.value) : typeof current === 'boolean' && /^(true|false)$/.test(spec.value) ? spec.value === 'true' : spec.value;
  }
  return copy as T;
}

/** Every event `corridor trigger` can cause, and how: through the public API and the sandbox moves only. */
export const TRIGGERS: Record<string, Scenario> = {
  'payout.processing': (c, created, o) => heldPayout(c, created, o, async () => undefined),
  'payout.paid': (c, created, o) => heldPayout(c, created, o, async (id) => created('payout', await c.sandbox.payouts.pay({ id }))),
  'payout.failed': (c, created, o) => heldPayout(c, created, o, async (id) => created('payout', await c.sandbox.payouts.fail({ id }, {}))),
  'payout.cancelled': (c, created, o) => heldPayout(c, created, o, async (id) => created('payout', await c.payouts.cancel({ id }))),
  'payout.reverted': (c, created, o) =>
    heldPayout(c, created, o, async (id) => {
      created('payout', await c.sandbox.payouts.pay({ id }));
      created('payout', await c.sandbox.payouts.revert({ id }));
    }),
  'account.created': async (c, created, o) => {
    created('account', await c.accounts.create(o('account', { name: `Trigger ${randomBytes(3).toString('hex')}`, country: 'GB' })));
  },
  'application.under_review': async (c, created, o) => void (await submittedApplication(c, created, o, undefined)),
  'application.approved': async (c, created, o) => void (await submittedApplication(c, created, o, 'approve')),
  'application.rejected': async (c, created, o) => void (await submittedApplication(c, created, o, 'reject')),
  'application.more_info_requested': async (c, created, o) => void (await submittedApplication(c, created, o, 'request_info')),
  'order.completed': async (c, created, o) => {
    const order = await balanceOrder(c, created, o);
    created('order', await c.sandbox.orders.complete({ id: order.id }, {} as never));
  },
  'order.failed': async (c, created, o) => {
    const order = await balanceOrder(c, created, o);
    created('order', await c.sandbox.orders.fail({ id: order.id }));
  },
  'order.expired': async (c, created, o) => {
    const order = await c.orders.create(o('order', { clientRef: `trigger-${randomBytes(6).toString('hex')}`, fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10.00', funding: 'settlement' }) as never);
    created('order', order);
    created('order', await c.sandbox.orders.expire({ id: (order as { id: string }).id }, undefined as never));
  },
  'virtual_account.active': async (c, created, o) => {
    await activeVirtualAccount(c, created, o, true);
  },
  'virtual_account.failed': async (c, created, o) => {
    // USD accounts are approved after creation: pending until the sandbox fails it. A currency's account is made once per owner, so a new sub-account.
    const account = await submittedApplication(c, created, o, 'approve', { fresh: true });
    const virtualAccount = (await account.virtualAccounts.create(o('virtual_account', { currency: 'USD' }) as never)) as { id: string };
    created('virtual_account', virtualAccount);
    created('virtual_account', await account.sandbox.virtualAccounts.fail({ id: virtualAccount.id }));
  },
  'deposit.failed': async (c, created, o) => {
    const { account, virtualAccount } = await activeVirtualAccount(c, created, o);
    const deposit = (await account.sandbox.deposits.create(o('deposit', { virtualAccountId: virtualAccount.id, amount: '25.00', outcome: 'pending' }) as never)) as { id: string };
    created('deposit', deposit);
    created('deposit', await account.sandbox.deposits.fail({ id: deposit.id }));
  },
  'deposit.completed': async (c, created, o) => {
    const { account, virtualAccount } = await activeVirtualAccount(c, created, o);
    const deposit = (await account.sandbox.deposits.create(o('deposit', { virtualAccountId: virtualAccount.id, amount: '25.00' }) as never)) as { id: string; status: string };
    created('deposit', deposit);
    if (deposit.status !== 'completed') created('deposit', await account.sandbox.deposits.complete({ id: deposit.id }, undefined as never));
  },
};

/** A balance-funded order (funds_received at once): the desk's moves follow in the sandbox. */
async function balanceOrder(c: Corridor, created: Created_, o: Override): Promise<{ id: string }> {
  const body = o('order', { clientRef: `trigger-${randomBytes(6).toString('hex')}`, fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10.00', funding: 'balance' });
  await c.sandbox.fundBalance({ currency: body.fromCurrency, amount: body.fromAmount });
  const order = (await c.orders.create(body as never)) as { id: string };
  created('order', order);
  return order;
}

/**
 * The "Trigger" sub-account with an approved business application and an EUR virtual account
 * (approved before creation, so active at once; the same account on every later run). `fresh`: a new
 * sub-account, for the event of a new virtual account.
 */
async function activeVirtualAccount(corridor: Corridor, created: Created_, o: Override, fresh = false): Promise<{ account: Corridor; virtualAccount: { id: string } }> {
  const account = await submittedApplication(corridor, created, o, 'approve', { fresh });
  const virtualAccount = (await account.virtualAccounts.create(o('virtual_account', { currency: 'EUR' }) as never)) as { id: string; status: string };
  created('virtual_account', virtualAccount);
  if (virtualAccount.status !== 'active') throw new Error(`virtual account ${virtualAccount.id} is ${virtualAccount.status}, not active`);
  return { account, virtualAccount };
}

/** Funds the balance, saves a beneficiary and sends a payout the simulator holds at processing; `then` makes the last move. */
async function heldPayout(c: Corridor, created: Created_, o: Override, then: (id: string) => Promise<void>): Promise<void> {
  const beneficiary = await c.beneficiaries.create(o('beneficiary', BENEFICIARY) as never);
  created('beneficiary', beneficiary);
  const body = o('payout', {
    clientRef: `trigger-${randomBytes(6).toString('hex')}`,
    amount: HELD_AMOUNT,
    currency: 'EUR',
    beneficiary: { id: (beneficiary as { id: string }).id },
    senderInfo: SENDER,
  });
  // Enough for the payout and its fee, whatever the amount overridden.
  await c.sandbox.fundBalance({ currency: body.currency, amount: (Math.ceil(Number(body.amount) || 0) + 100).toFixed(2) });
  const payout = await c.payouts.create(body as PayoutRequest);
  created('payout', payout);
  // Without a worker running, nothing moves it: the sandbox's own move does (a worker may have done it already).
  await ignoreStateConflict(c.sandbox.payouts.process({ id: (payout as { id: string }).id }));
  await then((payout as { id: string }).id);
}

async function ignoreStateConflict(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof CorridorError && err.status === 409)) throw err;
  }
}

export const TRIGGER_ACCOUNT_NAME = 'Trigger';

/** The sub-account the triggers act in: the one named "Trigger", made on the first run and reused after (`fresh`: a new one). */
async function triggerAccount(corridor: Corridor, created: Created_, o: Override, fresh: boolean): Promise<string> {
  if (!fresh) {
    for await (const account of corridor.accounts.list({ limit: 100 })) {
      if (account.name === TRIGGER_ACCOUNT_NAME && account.accountType === 'sub' && account.status !== 'closed' && account.status !== 'suspended') return account.id;
    }
  }
  const account = await corridor.accounts.create(o('account', { name: fresh ? `${TRIGGER_ACCOUNT_NAME} ${randomBytes(3).toString('hex')}` : TRIGGER_ACCOUNT_NAME, country: 'GB' }));
  created('account', account);
  return account.id;
}

/** A complete business application of the Trigger sub-account, submitted, then reviewed with `decision`. */
async function submittedApplication(
  corridor: Corridor,
  created: Created_,
  o: Override,
  decision: 'approve' | 'reject' | 'request_info' | undefined,
  options: { fresh?: boolean } = {},
): Promise<Corridor> {
  const c = corridor.withAccount(await triggerAccount(corridor, created, o, options.fresh ?? false));
  const application = await c.applications.create(o('application', BUSINESS_APPLICATION) as never);
  created('application', application);
  const id = (application as { id: string }).id;
  const person = (await c.applications.persons.create({ id }, DIRECTOR as never)) as { id: string };
  await addDocument(c, id, 'photo_id', person.id);
  await addDocument(c, id, 'certificate_of_incorporation');
  const terms = (await c.applications.terms.get()) as { version: string };
  await c.applications.terms.accept({ id }, { version: terms.version });
  const submitted = await c.applications.submit({ id });
  if (!decision) {
    created('application', submitted);
    return c;
  }
  const reason = decision === 'approve' ? {} : { reason: 'Raised by corridor trigger' };
  created('application', await c.sandbox.applications.review({ id }, { decision, ...reason } as never));
  return c;
}

async function addDocument(c: Corridor, id: string, type: string, personId?: string): Promise<void> {
  const issued = (await c.applications.documents.uploadUrl({ id }, { contentType: 'application/pdf', contentLength: PDF.length } as never)) as { documentKey: string; uploadUrl: string };
  const put = await fetch(issued.uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: PDF });
  if (!put.ok) throw new Error(`upload to ${new URL(issued.uploadUrl).origin} answered ${put.status}`);
  await c.applications.documents.create({ id }, { documentKey: issued.documentKey, type, ...(personId ? { personId } : {}) } as never);
}

/** The events the spec has recorded but not delivered, and what to read instead. */
const NOT_DELIVERED = new Map([
  ['payout.reverted', 'per the spec, payout.reverted is not yet sent to webhook endpoints nor to the event stream (so `corridor listen` forwards nothing); read the payout (GET /v1/payouts/{id}) for its state'],
]);

/**
 * `corridor trigger <event-type>`: creates what the event needs in the sandbox and drives it with the
 * sandbox moves until the event is emitted; returns (and prints) the objects it created.
 * Refused outside the sandbox (its endpoints are absent there). `options.overrides`: `--override
 * [resource:]field=value`, set in the body of that resource's create call (see parseOverrides).
 */
export async function trigger(
  corridor: Corridor,
  eventType: string,
  write: (line: string) => void = (l) => void process.stdout.write(`${l}\n`),
  options: { overrides?: readonly string[] } = {},
): Promise<Created[]> {
  const scenario = TRIGGERS[eventType];
  if (!scenario) throw new Error(`cannot trigger ${eventType}; one of: ${Object.keys(TRIGGERS).join(', ')}`);
  const specs = parseOverrides(eventType, options.overrides ?? []);
  await assertSandbox(corridor);
  const out: Created[] = [];
  const created: Created_ = (object, value) => {
    const v = value as { id: string; status?: string };
    out.push({ object, ...v });
    write(`${object} ${v.id}${v.status ? ` ${v.status}` : ''}`);
  };
  await scenario(corridor, created, (resource, body) => overridden(specs, resource, body));
  write(NOT_DELIVERED.has(eventType) ? `Recorded ${eventType}, not delivered: ${NOT_DELIVERED.get(eventType)}` : `Triggered ${eventType}`);
  return out;
}

/** The sandbox's endpoints answer only in the sandbox: a 404 from one means production. */
async function assertSandbox(corridor: Corridor): Promise<void> {
  try {
    await corridor.sandbox.fundBalance({ currency: 'EUR', amount: '0.01' });
  } catch (err) {
    if (err instanceof CorridorError && err.status === 404) throw new Error('corridor trigger works only against a sandbox (CORRIDOR_ENV=sandbox)');
    throw err;
  }
}
