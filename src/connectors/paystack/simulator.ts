import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Paystack, for the sandbox and the tests: the endpoints the connector uses, as the published
 * definition (paystack.yaml) describes them, with state kept in memory: transfer recipients (a known
 * account answers its existing recipient), transfers by reference (a reference used twice is
 * refused), the balance (debited by a transfer, credited back by a failure or a reversal), account
 * resolution. After `settleMs` each transfer succeeds, fails or is reversed by its account, and its
 * webhook goes to `webhookUrl`, signed as Paystack signs (`x-paystack-signature`: hex HMAC-SHA512 of the
 * raw body with the secret key); at `loseRate` a webhook is lost, at `repeatRate` sent twice. Never in
 * production: `corridor paystack-sim` runs it in the sandbox only.
 *
 * Magic accounts (bank code 058, valid NUBANs): 9990000011 resolves to another name (a name
 * mismatch); 9990000028 does not exist (resolution and recipient creation refused); 9990000035 fails
 * (Account closed); 9990000042 succeeds, then is reversed. Any other account succeeds; its holder's
 * name is the one `accountNames` gives it, else `defaultAccountName`.
 *
 * Dedicated virtual accounts: customers by email (a known email answers the same customer), one
 * active NGN account per customer at the preferred bank (listed by customer); `credit(accountNumber,
 * amountMinor)` (or, from another process, `POST /_simulator/dedicated_account/{account_number}/credit`
 * with `{"amount": kobo}`, not part of Paystack's API) is a bank transfer into one: its
 * `charge.success` (channel `dedicated_nuban`) goes to `webhookUrl`, signed, lost or repeated as above.
 */
export const SIM_ACCOUNTS = { mismatch: '9990000011', unknown: '9990000028', failure: '9990000035', reversal: '9990000042' } as const;
export const SIM_MISMATCH_NAME = 'CHUKWUEMEKA OBI';

export interface SimulatorOptions {
  secretKey: string;
  webhookUrl?: string | undefined;
  /** Kobo. */
  balanceMinor?: bigint;
  settleMs?: number;
  reverseMs?: number;
  loseRate?: number;
  repeatRate?: number;
  host?: string;
  port?: number;
  log?: (line: string) => void;
  /** The holder's name of an account (`<bank code>:<account number>`), as a name enquiry answers it. */
  accountNames?: Map<string, string>;
  /** The holder's name of any other account (default `SANDBOX ACCOUNT HOLDER`). */
  defaultAccountName?: string;
}

interface SimRecipient {
  id: number;
  code: string;
  name: string;
  accountNumber: string;
  bankCode: string;
  currency: string;
  createdAt: string;
}

interface SimTransfer {
  id: number;
  code: string;
  reference: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  recipient: SimRecipient;
  gatewayResponse: string | null;
  createdAt: string;
  updatedAt: string;
  transferredAt: string | null;
}

interface SimCustomer {
  id: number;
  code: string;
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  createdAt: string;
}

interface SimDedicatedAccount {
  id: number;
  accountNumber: string;
  accountName: string;
  bank: { name: string; id: number; slug: string };
  customer: SimCustomer;
  createdAt: string;
}

/** A bank transfer into a dedicated account, as its charge.success reports it. */
export interface SimCharge {
  reference: string;
  amount: number;
  account: SimDedicatedAccount;
  paidAt: string;
}

export interface PaystackSimulator {
  url: string;
  /** What the simulator holds, for tests to read and steer. */
  state: {
    balanceMinor: bigint;
    recipients: Map<string, SimRecipient>;
    transfers: Map<string, SimTransfer>;
    customers: Map<string, SimCustomer>;
    /** Dedicated accounts by account number. */
    dedicatedAccounts: Map<string, SimDedicatedAccount>;
    charges: Map<string, SimCharge>;
    /** Every request it answered: method, path, status. */
    requests: { method: string; path: string; status: number }[];
    /** Every webhook it sent (or lost), in order. */
    webhooks: { event: string; reference: string; delivered: boolean; status?: number }[];
  };
  options: SimulatorOptions;
  /** The next N webhooks are lost / sent twice (deterministic, for tests). */
  loseNext(n: number): void;
  repeatNext(n: number): void;
  /** Sends a transfer's (or a charge's) webhook again, as Paystack's retries do. */
  resend(reference: string): Promise<void>;
  /** A bank transfer of `amountMinor` kobo into a dedicated account: its charge.success is sent; answers the charge's reference, undefined for an unknown account. */
  credit(accountNumber: string, amountMinor: number): Promise<string | undefined>;
  close(): Promise<void>;
}

const BANKS: Record<string, string> = { '058': 'Guaranty Trust Bank', '044': 'Access Bank', '033': 'United Bank For Africa', '057': 'Zenith Bank', '011': 'First Bank of Nigeria' };
const INTEGRATION = 100032;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

const refuse = (res: http.ServerResponse, status: number, message: string) => send(res, status, { status: false, message });

function recipientJson(r: SimRecipient) {
  return {
    active: true,
    createdAt: r.createdAt,
    currency: r.currency,
    description: '',
    domain: 'test',
    email: '',
    id: r.id,
    integration: INTEGRATION,
    metadata: null,
    name: r.name,
    recipient_code: r.code,
    type: 'nuban',
    updatedAt: r.createdAt,
    is_deleted: false,
    isDeleted: false,
    details: { authorization_code: null, account_number: r.accountNumber, account_name: r.name, bank_code: r.bankCode, bank_name: BANKS[r.bankCode] ?? 'Test Bank' },
  };
}

function transferJson(t: SimTransfer) {
  return {
    amount: t.amount,
    createdAt: t.createdAt,
    currency: t.currency,
    domain: 'test',
    failures: null,
    id: t.id,
    integration: INTEGRATION,
    reason: t.reason,
    reference: t.reference,
    source: 'balance',
    source_details: null,
    status: t.status,
    titan_code: null,
    transfer_code: t.code,
    transferred_at: t.transferredAt,
    updatedAt: t.updatedAt,
    recipient: recipientJson(t.recipient),
    session: { provider: null, id: null },
    gateway_response: t.gatewayResponse,
  };
}

function createdJson(t: SimTransfer) {
  return {
    transfersessionid: [],
    transfertrials: [],
    domain: 'test',
    amount: t.amount,
    currency: t.currency,
    reference: t.reference,
    source: 'balance',
    source_details: null,
    reason: t.reason,
    status: t.status,
    failures: null,
    transfer_code: t.code,
    titan_code: null,
    transferred_at: t.transferredAt,
    id: t.id,
    integration: INTEGRATION,
    request: t.id + 7000,
    recipient: t.recipient.id,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
}

/** The dedicated-account banks the simulator offers (GET /dedicated_account/available_providers in Paystack). */
const DVA_BANKS: Record<string, { name: string; id: number }> = { 'wema-bank': { name: 'Wema Bank', id: 20 }, 'titan-paystack': { name: 'Titan Paystack', id: 67 }, 'test-bank': { name: 'Test Bank', id: 1 } };

function customerJson(c: SimCustomer) {
  return { id: c.id, first_name: c.firstName, last_name: c.lastName, email: c.email, customer_code: c.code, phone: c.phone, metadata: {}, risk_action: 'default', international_format_phone: null };
}

function dedicatedJson(a: SimDedicatedAccount) {
  return {
    bank: a.bank,
    account_name: a.accountName,
    account_number: a.accountNumber,
    assigned: true,
    currency: 'NGN',
    metadata: null,
    active: true,
    id: a.id,
    created_at: a.createdAt,
    updated_at: a.createdAt,
    assignment: { integration: INTEGRATION, assignee_id: a.customer.id, assignee_type: 'Customer', expired: false, account_type: 'PAY-WITH-TRANSFER-RECURRING', assigned_at: a.createdAt, expired_at: null },
    customer: customerJson(a.customer),
  };
}

function dedicatedListJson(a: SimDedicatedAccount) {
  return { customer: customerJson(a.customer), bank: a.bank, id: a.id, account_name: a.accountName, account_number: a.accountNumber, created_at: a.createdAt, updated_at: a.createdAt, currency: 'NGN', split_config: null, active: true, assigned: true };
}

/** A charge.success body's data for a transfer into a dedicated account, as Paystack sends it. */
function chargeJson(ch: SimCharge, id: number) {
  const a = ch.account;
  return {
    id,
    domain: 'test',
    status: 'success',
    reference: ch.reference,
    amount: ch.amount,
    message: null,
    gateway_response: 'Approved',
    paid_at: ch.paidAt,
    created_at: ch.paidAt,
    channel: 'dedicated_nuban',
    currency: 'NGN',
    ip_address: null,
    metadata: { receiver_account_number: a.accountNumber, receiver_bank: a.bank.name },
    fees: Math.min(Math.ceil(ch.amount / 100), 30000),
    authorization: {
      authorization_code: `AUTH_${ch.reference.slice(0, 10)}`,
      channel: 'dedicated_nuban',
      card_type: 'transfer',
      bank: a.bank.name,
      country_code: 'NG',
      brand: 'Managed Account',
      reusable: false,
      sender_bank: 'Guaranty Trust Bank',
      sender_bank_account_number: 'XXXXXX4084',
      sender_name: 'SANDBOX PAYER',
      receiver_bank_account_number: a.accountNumber,
      receiver_bank: a.bank.name,
    },
    customer: customerJson(a.customer),
    plan: null,
    requested_amount: ch.amount,
  };
}

const code = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex').slice(0, 15)}`;

export async function startPaystackSimulator(options: SimulatorOptions): Promise<PaystackSimulator> {
  const log = options.log ?? (() => undefined);
  const state: PaystackSimulator['state'] = { balanceMinor: options.balanceMinor ?? 100_000_000_00n, recipients: new Map(), transfers: new Map(), customers: new Map(), dedicatedAccounts: new Map(), charges: new Map(), requests: [], webhooks: [] };
  let ids = 1000;
  let lose = 0;
  let repeat = 0;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void | Promise<void>) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      void Promise.resolve(fn()).catch((err: unknown) => log(`error: ${String(err)}`));
    }, ms);
    timers.add(timer);
  };

  async function deliver(event: string, t: SimTransfer): Promise<void> {
    await deliverData(event, t.reference, { ...transferJson(t), integration: { id: INTEGRATION, is_live: false, business_name: 'Corridor Sandbox' }, created_at: t.createdAt, updated_at: t.updatedAt });
  }

  async function deliverData(event: string, reference: string, data: Record<string, unknown>): Promise<void> {
    const url = options.webhookUrl;
    if (!url) return;
    if (lose > 0 || Math.random() < (options.loseRate ?? 0)) {
      if (lose > 0) lose--;
      state.webhooks.push({ event, reference, delivered: false });
      log(`${event} ${reference}: webhook lost`);
      return;
    }
    const times = repeat > 0 || Math.random() < (options.repeatRate ?? 0) ? 2 : 1;
    if (repeat > 0) repeat--;
    const body = JSON.stringify({ event, data });
    const signature = createHmac('sha512', options.secretKey).update(body).digest('hex');
    for (let i = 0; i < times; i++) {
      const status = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-paystack-signature': signature }, body })
        .then((r) => r.status)
        .catch(() => 0);
      state.webhooks.push({ event, reference, delivered: status >= 200 && status < 300, status });
      log(`${event} ${reference}: webhook ${status}`);
    }
  }

  const chargeIds = new Map<string, number>();
  async function credit(accountNumber: string, amountMinor: number): Promise<string | undefined> {
    const account = state.dedicatedAccounts.get(accountNumber);
    if (!account || !Number.isSafeInteger(amountMinor) || amountMinor <= 0) return undefined;
    const ch: SimCharge = { reference: `${Date.now()}${randomBytes(6).toString('hex')}`, amount: amountMinor, account, paidAt: new Date().toISOString() };
    state.charges.set(ch.reference, ch);
    chargeIds.set(ch.reference, ++ids);
    state.balanceMinor += BigInt(amountMinor);
    await deliverData('charge.success', ch.reference, chargeJson(ch, chargeIds.get(ch.reference) as number));
    return ch.reference;
  }

  function nuban(): string {
    // Ten digits; the simulator's dedicated accounts start 99 (never a magic transfer account).
    return `99${String(8_000_000 + state.dedicatedAccounts.size * 7 + (ids % 7)).padStart(8, '0')}`;
  }

  function settle(t: SimTransfer): void {
    later(options.settleMs ?? 200, async () => {
      const now = new Date().toISOString();
      if (t.recipient.accountNumber === SIM_ACCOUNTS.failure) {
        t.status = 'failed';
        t.gatewayResponse = 'Account closed';
        state.balanceMinor += BigInt(t.amount);
        t.updatedAt = now;
        await deliver('transfer.failed', t);
        return;
      }
      t.status = 'success';
      t.gatewayResponse = 'Approved or completed successfully';
      t.transferredAt = now;
      t.updatedAt = now;
      await deliver('transfer.success', t);
      if (t.recipient.accountNumber === SIM_ACCOUNTS.reversal) {
        later(options.reverseMs ?? 200, async () => {
          t.status = 'reversed';
          t.gatewayResponse = 'Transfer reversed';
          t.updatedAt = new Date().toISOString();
          state.balanceMinor += BigInt(t.amount);
          await deliver('transfer.reversed', t);
        });
      }
    });
  }

  const EVENT_OF: Record<string, string> = { success: 'transfer.success', failed: 'transfer.failed', reversed: 'transfer.reversed' };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, text: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim');
    if (req.headers.authorization !== `Bearer ${options.secretKey}`) return refuse(res, 401, 'Invalid key');
    let body: Record<string, unknown> = {};
    if (req.method === 'POST') {
      try {
        body = JSON.parse(text || '{}') as Record<string, unknown>;
      } catch {
        return refuse(res, 400, 'Invalid JSON body');
      }
    }
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /balance') return send(res, 200, { status: true, message: 'Balances retrieved', data: [{ currency: 'NGN', balance: Number(state.balanceMinor) }] });
    if (route === 'GET /bank/resolve') {
      const account = url.searchParams.get('account_number') ?? '';
      const bank = url.searchParams.get('bank_code') ?? '';
      if (!/^[0-9]{10}$/.test(account)) return refuse(res, 422, 'Account number is invalid');
      if (account === SIM_ACCOUNTS.unknown || !BANKS[bank]) return refuse(res, 422, 'Could not resolve account name. Check parameters or try again.');
      const name = account === SIM_ACCOUNTS.mismatch ? SIM_MISMATCH_NAME : (options.accountNames?.get(`${bank}:${account}`) ?? options.defaultAccountName ?? 'SANDBOX ACCOUNT HOLDER');
      return send(res, 200, { status: true, message: 'Account number resolved', data: { account_number: account, account_name: name, bank_id: 9 } });
    }
    if (route === 'POST /transferrecipient') {
      const { type, name, account_number: account, bank_code: bank, currency } = body as Record<string, string | undefined>;
      if (type !== 'nuban') return refuse(res, 400, 'Recipient type is invalid');
      if (!account) return refuse(res, 400, 'Account number is required');
      if (!bank) return refuse(res, 400, 'bank_code is required');
      if (!BANKS[bank]) return refuse(res, 400, 'Bank code is invalid');
      if (account === SIM_ACCOUNTS.unknown) return refuse(res, 400, 'Cannot resolve account');
      const key = `${bank}:${account}`;
      let r = state.recipients.get(key);
      if (!r) {
        r = { id: ++ids, code: code('RCP'), name: name ?? '', accountNumber: account, bankCode: bank, currency: currency ?? 'NGN', createdAt: new Date().toISOString() };
        state.recipients.set(key, r);
      }
      return send(res, 201, { status: true, message: 'Transfer recipient created successfully', data: recipientJson(r) });
    }
    if (route === 'POST /transfer') {
      const { amount, recipient, reference, reason, currency } = body as { amount?: unknown; recipient?: unknown; reference?: unknown; reason?: unknown; currency?: unknown };
      if (typeof reference !== 'string' || !/^[a-z0-9_-]{16,100}$/.test(reference)) return refuse(res, 400, 'Your reference contains illegal special characters');
      const r = [...state.recipients.values()].find((x) => x.code === recipient);
      if (!r) return refuse(res, 400, 'Recipient specified is invalid');
      if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0) return refuse(res, 400, 'Invalid amount');
      if (state.transfers.has(reference)) return refuse(res, 400, 'Please provide a unique reference. Reference already exists on a transfer');
      if (BigInt(amount) > state.balanceMinor) return refuse(res, 400, 'Your balance is not enough to fulfill this request');
      state.balanceMinor -= BigInt(amount);
      const now = new Date().toISOString();
      const t: SimTransfer = { id: ++ids, code: code('TRF'), reference, amount, currency: typeof currency === 'string' ? currency : 'NGN', reason: typeof reason === 'string' ? reason : '', status: 'pending', recipient: r, gatewayResponse: null, createdAt: now, updatedAt: now, transferredAt: null };
      state.transfers.set(reference, t);
      settle(t);
      return send(res, 200, { status: true, message: 'Transfer has been queued', data: createdJson(t) });
    }
    const verify = /^\/transfer\/verify\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && verify) {
      const t = state.transfers.get(decodeURIComponent(verify[1] as string));
      if (!t) return refuse(res, 404, 'Transfer not found');
      return send(res, 200, { status: true, message: 'Transfer retrieved', data: transferJson(t) });
    }
    if (route === 'POST /customer') {
      const { email, first_name: first, last_name: last, phone } = body as Record<string, string | undefined>;
      if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email)) return refuse(res, 400, 'Invalid Email Address Passed');
      let c = state.customers.get(email.toLowerCase());
      if (!c) {
        c = { id: ++ids, code: code('CUS'), email: email.toLowerCase(), firstName: first ?? '', lastName: last ?? '', phone: phone ?? '', createdAt: new Date().toISOString() };
        state.customers.set(c.email, c);
      }
      return send(res, 200, {
        status: true,
        message: 'Customer created',
        data: { transactions: [], subscriptions: [], authorizations: [], email: c.email, first_name: c.firstName, last_name: c.lastName, phone: c.phone, integration: INTEGRATION, domain: 'test', metadata: {}, customer_code: c.code, risk_action: 'default', id: c.id, createdAt: c.createdAt, updatedAt: c.createdAt, identified: false, identifications: null },
      });
    }
    if (route === 'GET /dedicated_account') {
      const customer = url.searchParams.get('customer');
      const list = [...state.dedicatedAccounts.values()].filter((a) => customer === null || String(a.customer.id) === customer);
      return send(res, 200, { status: true, message: 'Managed Accounts Successfully Retrieved', data: list.map(dedicatedListJson), meta: { total: list.length, skipped: 0, perPage: 50, page: 1, pageCount: 1 } });
    }
    if (route === 'POST /dedicated_account') {
      const { customer, preferred_bank: bank } = body as Record<string, string | undefined>;
      const c = [...state.customers.values()].find((x) => x.code === customer);
      if (!c) return refuse(res, 400, 'Customer not found');
      const slug = bank ?? 'wema-bank';
      const known = DVA_BANKS[slug];
      if (!known) return refuse(res, 400, 'Invalid preferred bank');
      let a = [...state.dedicatedAccounts.values()].find((x) => x.customer.id === c.id);
      if (!a) {
        a = { id: ++ids, accountNumber: nuban(), accountName: `CORRIDOR/${`${c.firstName} ${c.lastName}`.trim().toUpperCase()}`, bank: { name: known.name, id: known.id, slug }, customer: c, createdAt: new Date().toISOString() };
        state.dedicatedAccounts.set(a.accountNumber, a);
      }
      return send(res, 200, { status: true, message: 'NUBAN successfully created', data: dedicatedJson(a) });
    }
    const simCredit = /^\/_simulator\/dedicated_account\/([0-9]{10})\/credit$/.exec(url.pathname);
    if (req.method === 'POST' && simCredit) {
      const reference = await credit(simCredit[1] as string, Number(body.amount));
      if (!reference) return refuse(res, 404, 'No such dedicated account, or the amount is not a positive number of kobo');
      return send(res, 200, { status: true, message: 'Credit sent', data: { reference } });
    }
    return refuse(res, 404, 'Route not found');
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const originalEnd = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => {
        state.requests.push({ method: req.method ?? '', path, status: res.statusCode });
        return originalEnd(...args);
      }) as typeof res.end;
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
        log(`error: ${String(err)}`);
        refuse(res, 500, 'Internal simulator error');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    state,
    options,
    loseNext: (n) => void (lose += n),
    repeatNext: (n) => void (repeat += n),
    credit,
    resend: async (reference) => {
      const ch = state.charges.get(reference);
      if (ch) return deliverData('charge.success', reference, chargeJson(ch, chargeIds.get(reference) ?? 0));
      const t = state.transfers.get(reference);
      const event = t ? EVENT_OF[t.status] : undefined;
      if (t && event) await deliver(event, t);
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
