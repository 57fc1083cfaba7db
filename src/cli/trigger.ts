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
type Scenario = (corridor: Corridor, created: (object: string, value: unknown) => void) => Promise<void>;

/** Every event `corridor trigger` can cause, and how: through the public API and the sandbox moves only. */
export const TRIGGERS: Record<string, Scenario> = {
  'payout.processing': (c, created) => heldPayout(c, created, async () => undefined),
  'payout.paid': (c, created) => heldPayout(c, created, async (id) => created('payout', await c.sandbox.payouts.pay({ id }))),
  'payout.failed': (c, created) => heldPayout(c, created, async (id) => created('payout', await c.sandbox.payouts.fail({ id }, {}))),
  'payout.cancelled': (c, created) => heldPayout(c, created, async (id) => created('payout', await c.payouts.cancel({ id }))),
  'payout.reverted': (c, created) =>
    heldPayout(c, created, async (id) => {
      created('payout', await c.sandbox.payouts.pay({ id }));
      created('payout', await c.sandbox.payouts.revert({ id }));
    }),
  'account.created': async (c, created) => {
    created('account', await c.accounts.create({ name: `Trigger ${randomBytes(3).toString('hex')}`, country: 'GB' }));
  },
  'application.under_review': async (c, created) => void (await submittedApplication(c, created, undefined)),
  'application.approved': async (c, created) => void (await submittedApplication(c, created, 'approve')),
  'application.rejected': async (c, created) => void (await submittedApplication(c, created, 'reject')),
  'application.more_info_requested': async (c, created) => void (await submittedApplication(c, created, 'request_info')),
  'order.completed': async (c, created) => {
    const order = await balanceOrder(c, created);
    created('order', await c.sandbox.orders.complete({ id: order.id }, {} as never));
  },
  'order.failed': async (c, created) => {
    const order = await balanceOrder(c, created);
    created('order', await c.sandbox.orders.fail({ id: order.id }));
  },
  'order.expired': async (c, created) => {
    const order = await c.orders.create({ clientRef: `trigger-${randomBytes(6).toString('hex')}`, fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10.00', funding: 'settlement' } as never);
    created('order', order);
    created('order', await c.sandbox.orders.expire({ id: (order as { id: string }).id }, undefined as never));
  },
  'virtual_account.active': async (c, created) => {
    await activeVirtualAccount(c, created, true);
  },
  'virtual_account.failed': async (c, created) => {
    // USD accounts are approved after creation: pending until the sandbox fails it. A currency's account is made once per owner, so a new sub-account.
    const account = await submittedApplication(c, created, 'approve', { fresh: true });
    const virtualAccount = (await account.virtualAccounts.create({ currency: 'USD' } as never)) as { id: string };
    created('virtual_account', virtualAccount);
    created('virtual_account', await account.sandbox.virtualAccounts.fail({ id: virtualAccount.id }));
  },
  'deposit.failed': async (c, created) => {
    const { account, virtualAccount } = await activeVirtualAccount(c, created);
    const deposit = (await account.sandbox.deposits.create({ virtualAccountId: virtualAccount.id, amount: '25.00', outcome: 'pending' } as never)) as { id: string };
    created('deposit', deposit);
    created('deposit', await account.sandbox.deposits.fail({ id: deposit.id }));
  },
  'deposit.completed': async (c, created) => {
    const { account, virtualAccount } = await activeVirtualAccount(c, created);
    const deposit = (await account.sandbox.deposits.create({ virtualAccountId: virtualAccount.id, amount: '25.00' } as never)) as { id: string; status: string };
    created('deposit', deposit);
    if (deposit.status !== 'completed') created('deposit', await account.sandbox.deposits.complete({ id: deposit.id }, undefined as never));
  },
};

/** A balance-funded order (funds_received at once): the desk's moves follow in the sandbox. */
async function balanceOrder(c: Corridor, created: (object: string, value: unknown) => void): Promise<{ id: string }> {
  await c.sandbox.fundBalance({ currency: 'USD', amount: '10.00' });
  const order = (await c.orders.create({ clientRef: `trigger-${randomBytes(6).toString('hex')}`, fromCurrency: 'USD', toCurrency: 'EUR', fromAmount: '10.00', funding: 'balance' } as never)) as { id: string };
  created('order', order);
  return order;
}

/**
 * The "Trigger" sub-account with an approved business application and an EUR virtual account
 * (approved before creation, so active at once; the same account on every later run). `fresh`: a new
 * sub-account, for the event of a new virtual account.
 */
async function activeVirtualAccount(corridor: Corridor, created: (object: string, value: unknown) => void, fresh = false): Promise<{ account: Corridor; virtualAccount: { id: string } }> {
  const account = await submittedApplication(corridor, created, 'approve', { fresh });
  const virtualAccount = (await account.virtualAccounts.create({ currency: 'EUR' } as never)) as { id: string; status: string };
  created('virtual_account', virtualAccount);
  if (virtualAccount.status !== 'active') throw new Error(`virtual account ${virtualAccount.id} is ${virtualAccount.status}, not active`);
  return { account, virtualAccount };
}

/** Funds the balance, saves a beneficiary and sends a payout the simulator holds at processing; `then` makes the last move. */
async function heldPayout(c: Corridor, created: (object: string, value: unknown) => void, then: (id: string) => Promise<void>): Promise<void> {
  await c.sandbox.fundBalance({ currency: 'EUR', amount: '100.00' });
  const beneficiary = await c.beneficiaries.create(BENEFICIARY as never);
  created('beneficiary', beneficiary);
  const payout = await c.payouts.create({
    clientRef: `trigger-${randomBytes(6).toString('hex')}`,
    amount: HELD_AMOUNT,
    currency: 'EUR',
    beneficiary: { id: (beneficiary as { id: string }).id },
    senderInfo: SENDER,
  } as PayoutRequest);
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
async function triggerAccount(corridor: Corridor, created: (object: string, value: unknown) => void, fresh: boolean): Promise<string> {
  if (!fresh) {
    for await (const account of corridor.accounts.list({ limit: 100 })) {
      if (account.name === TRIGGER_ACCOUNT_NAME && account.accountType === 'sub' && account.status !== 'closed' && account.status !== 'suspended') return account.id;
    }
  }
  const account = await corridor.accounts.create({ name: fresh ? `${TRIGGER_ACCOUNT_NAME} ${randomBytes(3).toString('hex')}` : TRIGGER_ACCOUNT_NAME, country: 'GB' });
  created('account', account);
  return account.id;
}

/** A complete business application of the Trigger sub-account, submitted, then reviewed with `decision`. */
async function submittedApplication(
  corridor: Corridor,
  created: (object: string, value: unknown) => void,
  decision: 'approve' | 'reject' | 'request_info' | undefined,
  options: { fresh?: boolean } = {},
): Promise<Corridor> {
  const c = corridor.withAccount(await triggerAccount(corridor, created, options.fresh ?? false));
  const application = await c.applications.create(BUSINESS_APPLICATION as never);
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
 * Refused outside the sandbox (its endpoints are absent there).
 */
export async function trigger(corridor: Corridor, eventType: string, write: (line: string) => void = (l) => void process.stdout.write(`${l}\n`)): Promise<Created[]> {
  const scenario = TRIGGERS[eventType];
  if (!scenario) throw new Error(`cannot trigger ${eventType}; one of: ${Object.keys(TRIGGERS).join(', ')}`);
  await assertSandbox(corridor);
  const out: Created[] = [];
  await scenario(corridor, (object, value) => {
    const v = value as { id: string; status?: string };
    out.push({ object, ...v });
    write(`${object} ${v.id}${v.status ? ` ${v.status}` : ''}`);
  });
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
