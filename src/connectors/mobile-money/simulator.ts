import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local mobile-money provider speaking the GSMA Mobile Money API v1.2 as the definition in
 * ../shared/real-world/mobile-money/gsma-mmapi-v1.2.0.yml describes it, for the sandbox and the
 * tests (`corridor mobile-money-sim`). It keeps state (transactions, request states, responses by
 * client correlation id), answers a disbursement at once with a pending request state (202) and
 * later with a callback to the request's X-Callback-URL (a PUT, with X-Date, X-CorrelationID,
 * X-Content-Hash and the callback secret as X-API-Key), and can lose a callback, as networks do.
 *
 * Outcomes, by GSMA's own simulator's rule and by magic MSISDNs (the last four digits):
 * - an amount whose text is 30.00 to 39.99 (it starts "3", a digit, ".", two digits) fails the
 *   transfer: "Payee FSP has insufficient liquidity to perform the transfer" (5001);
 * - …0001: a wallet whose holder's name is "Mismatched Holder" (the account-name lookup);
 * - …0002: no wallet on that number (account name 404; a disbursement fails `identifierError`);
 * - …0003: the recipient's provider declines (`requestDeclined`);
 * - …0004: no answer: the transaction stays pending until `timeoutMs`, then fails;
 * - any other wallet is paid; its holder's name is the one registered (`register`), else `holderName`.
 *
 * A request to pay (`merchantpay`, a collection) asks the payer, its debit party's MSISDN, whose last
 * four digits pick what the payer does: …0003 declines (`requestDeclined`); …0004 never answers (the
 * request fails `serviceUnavailable` after `timeoutMs`); …0005 enters a wrong PIN
 * (`servicingPartyAuthorisationError`); …0002 has no wallet; any other approves. A payment a payer
 * makes to the merchant or paybill number is pushed with `pushCredit`.
 */

export interface SimulatorOptions {
  /** The API key Corridor must send (X-API-Key). */
  apiKey: string;
  /** The callback secret sent back as the callbacks' X-API-Key. */
  callbackSecret: string;
  /** How long after the request its outcome is decided and called back, in ms. */
  delayMs?: number;
  /** How long a timeout wallet keeps a transaction pending before failing it, in ms. */
  timeoutMs?: number;
  /** The share of callbacks lost on the way (0 to 1). */
  loseRate?: number;
  /** The name of an ordinary wallet's holder when none is registered. */
  holderName?: string;
  log?: (line: string) => void;
  /**
   * Test hooks around a transaction request: `received` before the simulator takes it (answer true
   * to drop the connection: the request never arrived), `accepted` after it is stored and before it
   * is answered (a client killed there never hears the answer).
   */
  hooks?: { received?(correlationId: string | undefined): Promise<boolean | void>; accepted?(correlationId: string): Promise<void> };
}

interface Party {
  key: string;
  value: string;
}

interface SimTransaction {
  transactionReference: string;
  type: string;
  transactionStatus: 'pending' | 'completed' | 'failed' | 'reversed';
  amount: string;
  currency: string;
  creditParty: Party[];
  debitParty?: Party[];
  requestingOrganisationTransactionReference?: string;
  originalTransactionReference?: string;
  creationDate: string;
  modificationDate: string;
  correlationId: string;
  callbackUrl: string | undefined;
  serverCorrelationId: string;
  error?: GsmaErrorBody;
}

interface GsmaErrorBody {
  errorCategory: string;
  errorCode: string;
  errordescription?: string;
  errorDateTime?: string;
}

/** A request Corridor made, as the simulator received it (for tests: what left, how often). */
export interface ReceivedRequest {
  method: string;
  path: string;
  correlationId: string | undefined;
  body: string;
}

/** A callback the simulator sent (or lost). */
export interface SentCallback {
  correlationId: string;
  url: string;
  body: string;
  status: number | 'lost' | 'unreachable';
}

const magic = (msisdn: string): string => msisdn.replace(/\D/g, '').slice(-4);
const LIQUIDITY = /^3\d\.\d\d/;

export class MobileMoneySimulator {
  readonly requests: ReceivedRequest[] = [];
  readonly callbacks: SentCallback[] = [];
  private readonly transactions = new Map<string, SimTransaction>();
  private readonly byCorrelation = new Map<string, string>();
  private readonly byServerCorrelation = new Map<string, string>();
  private readonly wallets = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private loseNext = 0;
  private server: http.Server | undefined;
  private sequence = 0;

  constructor(private readonly options: SimulatorOptions) {}

  /** A wallet and its holder's name, for the account-name lookup. */
  register(msisdn: string, name: string): void {
    this.wallets.set(msisdn, name);
  }

  /** The next `n` callbacks are lost on the way. */
  loseCallbacks(n = 1): void {
    this.loseNext += n;
  }

  /** The transaction a correlation id made, if any. */
  transactionOf(correlationId: string): SimTransaction | undefined {
    const ref = this.byCorrelation.get(correlationId);
    return ref ? this.transactions.get(ref) : undefined;
  }

  /** Disbursements received for a correlation id (the same request re-sent counts again). */
  disbursementsOf(correlationId: string): ReceivedRequest[] {
    return this.requestsOf('disbursement', correlationId);
  }

  /** Transactions of a type (`disbursement`, `merchantpay`) requested with a correlation id (the same request re-sent counts again). */
  requestsOf(type: string, correlationId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === `/transactions/type/${type}` && r.correlationId === correlationId);
  }

  /**
   * The provider reverses a completed transaction (a reversal transaction of its own, linked by
   * originalTransactionReference): the original becomes `reversed` and its requester is called back
   * with it, at its X-Callback-URL.
   */
  async reverse(correlationId: string): Promise<void> {
    const t = this.transactionOf(correlationId);
    if (!t || t.transactionStatus !== 'completed') throw new Error(`no completed transaction for ${correlationId}`);
    const now = new Date().toISOString();
    const reversal: SimTransaction = { ...t, transactionReference: this.reference(), type: 'reversal', transactionStatus: 'completed', originalTransactionReference: t.transactionReference, creationDate: now, modificationDate: now, correlationId: randomUUID(), callbackUrl: undefined, serverCorrelationId: randomUUID() };
    this.transactions.set(reversal.transactionReference, reversal);
    t.transactionStatus = 'reversed';
    t.modificationDate = now;
    await this.callBack(t, this.view(t));
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = http.createServer((req, res) => {
      void this.handle(req, res).catch((err: unknown) => {
        this.options.log?.(`error: ${(err as Error).message}`);
        if (!res.headersSent) this.json(res, 500, { errorCategory: 'internal', errorCode: 'genericError', errordescription: 'simulator fault' });
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, host, resolve));
    const address = this.server.address() as AddressInfo;
    return `http://${host}:${address.port}`;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
  }

  private reference(): string {
    this.sequence += 1;
    return `REF-${Date.now().toString(36)}-${this.sequence}`;
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'X-Date': new Date().toISOString() });
    res.end(JSON.stringify(body));
  }

  private error(res: http.ServerResponse, status: number, errorCategory: string, errorCode: string, errordescription: string): void {
    this.json(res, status, { errorCategory, errorCode, errordescription, errorDateTime: new Date().toISOString() });
  }

  /** A transaction as the API shows it (responseTransactionType). */
  private view(t: SimTransaction): Record<string, unknown> {
    return {
      transactionReference: t.transactionReference,
      type: t.type,
      transactionStatus: t.transactionStatus,
      amount: t.amount,
      currency: t.currency,
      creditParty: t.creditParty,
      ...(t.debitParty ? { debitParty: t.debitParty } : {}),
      ...(t.requestingOrganisationTransactionReference !== undefined ? { requestingOrganisationTransactionReference: t.requestingOrganisationTransactionReference } : {}),
      ...(t.originalTransactionReference ? { originalTransactionReference: t.originalTransactionReference } : {}),
      creationDate: t.creationDate,
      modificationDate: t.modificationDate,
    };
  }

  private requestState(t: SimTransaction): Record<string, unknown> {
    const status = t.transactionStatus === 'pending' ? 'pending' : t.transactionStatus === 'failed' ? 'failed' : 'completed';
    return { serverCorrelationId: t.serverCorrelationId, objectReference: t.transactionReference, status, notificationMethod: 'callback', ...(t.error ? { error: t.error } : {}) };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://simulator');
    const path = decodeURIComponent(url.pathname);
    const correlationId = typeof req.headers['x-correlationid'] === 'string' ? req.headers['x-correlationid'] : undefined;
    if (req.method === 'POST' && (await this.options.hooks?.received?.(correlationId)) === true) {
      req.socket.destroy();
      return;
    }
    this.requests.push({ method: req.method ?? '', path, correlationId, body });
    if (path === '/heartbeat' && req.method === 'GET') return this.json(res, 200, { serviceStatus: 'available' });
    if (req.headers['x-api-key'] !== this.options.apiKey) return this.error(res, 401, 'authorisation', 'clientAuthorisationError', 'the API key is not known');
    let m: RegExpMatchArray | null;
    if (req.method === 'POST' && (m = path.match(/^\/transactions\/type\/([a-z]+)$/))) return this.create(res, m[1] as string, body, correlationId, req.headers['x-callback-url'] as string | undefined, req.headers['x-content-hash'] as string | undefined);
    if (req.method === 'GET' && (m = path.match(/^\/responses\/([^/]+)$/))) {
      const ref = this.byCorrelation.get(m[1] as string);
      return ref ? this.json(res, 200, { link: `/transactions/${ref}` }) : this.error(res, 404, 'identification', 'genericError', 'no response for this client correlation id');
    }
    if (req.method === 'GET' && (m = path.match(/^\/requeststates\/([^/]+)$/))) {
      const ref = this.byServerCorrelation.get(m[1] as string);
      const t = ref ? this.transactions.get(ref) : undefined;
      return t ? this.json(res, 200, this.requestState(t)) : this.error(res, 404, 'identification', 'genericError', 'no request state with this server correlation id');
    }
    if (req.method === 'GET' && (m = path.match(/^\/transactions\/([^/]+)$/))) {
      const t = this.transactions.get(m[1] as string);
      return t ? this.json(res, 200, this.view(t)) : this.error(res, 404, 'identification', 'genericError', 'no transaction with this reference');
    }
    if (req.method === 'GET' && (m = path.match(/^\/accounts\/([^/]+)\/([^/]+)\/accountname$/))) return this.accountName(res, m[1] as string, m[2] as string);
    return this.error(res, 404, 'identification', 'genericError', `the simulator does not serve ${req.method} ${path}`);
  }

  private accountName(res: http.ServerResponse, type: string, identifier: string): void {
    if (type !== 'msisdn') return this.error(res, 404, 'identification', 'identifierError', 'the simulator knows wallets by msisdn only');
    const registered = this.wallets.get(identifier);
    const code = magic(identifier);
    if (!registered && code === '0002') return this.error(res, 404, 'identification', 'identifierError', 'no wallet is registered on this number');
    const fullName = registered ?? (code === '0001' ? 'Mismatched Holder' : (this.options.holderName ?? 'Ama Mensah'));
    const [firstName, ...rest] = fullName.split(' ');
    this.json(res, 200, { name: { firstName, lastName: rest.join(' '), fullName } });
  }

  private async create(res: http.ServerResponse, type: string, body: string, correlationId: string | undefined, callbackUrl: string | undefined, hash: string | undefined): Promise<void> {
    if (hash !== undefined && hash.toLowerCase() !== createHash('sha256').update(body, 'utf8').digest('hex')) return this.error(res, 400, 'validation', 'formatError', 'X-Content-Hash is not the SHA-256 of the body');
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return this.error(res, 400, 'validation', 'formatError', 'the body is not JSON');
    }
    if (!correlationId) return this.error(res, 400, 'validation', 'mandatoryValueNotSupplied', 'X-CorrelationID is required');
    if (this.byCorrelation.has(correlationId)) return this.error(res, 400, 'businessRule', 'duplicateRequest', 'a request with this X-CorrelationID exists');
    const creditParty = (request.creditParty ?? []) as Party[];
    // A request to pay asks the payer (the debit party); any other transaction pays the credit party.
    const party = type === 'merchantpay' ? 'debitParty' : 'creditParty';
    const msisdn = ((request[party] ?? []) as Party[]).find((p) => p.key === 'msisdn')?.value;
    if (!msisdn) return this.error(res, 400, 'validation', 'mandatoryValueNotSupplied', `${party} must name an msisdn`);
    const now = new Date().toISOString();
    const t: SimTransaction = {
      transactionReference: this.reference(),
      type,
      transactionStatus: 'pending',
      amount: String(request.amount),
      currency: String(request.currency),
      creditParty,
      ...(request.debitParty ? { debitParty: request.debitParty as Party[] } : {}),
      ...(typeof request.requestingOrganisationTransactionReference === 'string' ? { requestingOrganisationTransactionReference: request.requestingOrganisationTransactionReference } : {}),
      creationDate: now,
      modificationDate: now,
      correlationId,
      callbackUrl,
      serverCorrelationId: randomUUID(),
    };
    this.transactions.set(t.transactionReference, t);
    this.byCorrelation.set(correlationId, t.transactionReference);
    this.byServerCorrelation.set(t.serverCorrelationId, t.transactionReference);
    this.options.log?.(`${type} ${t.amount} ${t.currency} to ${msisdn}: ${t.transactionReference} (correlation ${correlationId})`);
    const code = magic(msisdn);
    const timeout = code === '0004';
    this.later(timeout ? (this.options.timeoutMs ?? 60_000) : (this.options.delayMs ?? 50), () => this.decide(t, msisdn, timeout));
    await this.options.hooks?.accepted?.(correlationId);
    this.json(res, 202, { serverCorrelationId: t.serverCorrelationId, objectReference: t.transactionReference, status: 'pending', notificationMethod: 'callback', pollLimit: 100 });
  }

  private later(ms: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run().catch((err: unknown) => this.options.log?.(`error: ${(err as Error).message}`));
    }, ms);
    this.timers.add(timer);
  }

  /** The outcome of a pending transaction, by the rules above, and its callback. */
  private async decide(t: SimTransaction, msisdn: string, timedOut: boolean): Promise<void> {
    const code = magic(msisdn);
    const fail = (errorCategory: string, errorCode: string, errordescription: string): GsmaErrorBody => ({ errorCategory, errorCode, errordescription, errorDateTime: new Date().toISOString() });
    let error: GsmaErrorBody | undefined;
    if (timedOut) error = fail('serviceUnavailable', 'genericError', t.type === 'merchantpay' ? 'The payer did not answer the request in time' : 'The recipient\'s wallet provider did not answer in time');
    else if (!this.wallets.has(msisdn) && code === '0002') error = fail('identification', 'identifierError', 'No wallet is registered on this number');
    else if (code === '0003') error = fail('businessRule', 'requestDeclined', t.type === 'merchantpay' ? 'The payer declined the payment' : 'The recipient\'s provider declined the transaction');
    else if (code === '0005' && t.type === 'merchantpay') error = fail('authorisation', 'servicingPartyAuthorisationError', 'The payer entered a wrong PIN');
    else if (t.type !== 'merchantpay' && LIQUIDITY.test(t.amount)) error = fail('internal', 'genericError', 'Payee FSP has insufficient liquidity to perform the transfer (5001)');
    t.transactionStatus = error ? 'failed' : 'completed';
    t.modificationDate = new Date().toISOString();
    if (error) t.error = error;
    await this.callBack(t, error ?? this.view(t));
  }

  private async callBack(t: SimTransaction, payload: unknown): Promise<void> {
    if (!t.callbackUrl) return;
    const body = JSON.stringify(payload);
    const record: SentCallback = { correlationId: t.correlationId, url: t.callbackUrl, body, status: 'lost' };
    this.callbacks.push(record);
    if (this.loseNext > 0 || Math.random() < (this.options.loseRate ?? 0)) {
      if (this.loseNext > 0) this.loseNext -= 1;
      this.options.log?.(`callback for ${t.correlationId} lost`);
      return;
    }
    record.status = await this.deliver(t.callbackUrl, t.correlationId, body);
  }

  /** PUTs a callback as the operator does; answers the status Corridor gave. */
  async deliver(url: string, correlationId: string, body: string, headers: Record<string, string> = {}): Promise<number | 'unreachable'> {
    try {
      const res = await fetch(url, {
        method: 'PUT',
        headers: {
          'content-type': 'application/json',
          'X-Date': new Date().toISOString(),
          'X-CorrelationID': correlationId,
          'X-Content-Hash': createHash('sha256').update(body, 'utf8').digest('hex'),
          'X-API-Key': this.options.callbackSecret,
          ...headers,
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return 'unreachable';
    }
  }

  /**
   * A payer pays the merchant or paybill number `account` (an `accountid`) with a reference (the
   * account number typed at a paybill, `consumerno`): the completed transaction is pushed to `url`
   * + `/<transaction reference>` as the operator's notification. Answers the transaction's reference
   * and what Corridor answered.
   */
  async pushCredit(url: string, p: { payer: string; account: string; reference?: string; amount: string; currency: string }): Promise<{ transactionReference: string; body: string; status: number | 'unreachable' }> {
    const now = new Date().toISOString();
    const creditParty: Party[] = [{ key: 'accountid', value: p.account }, ...(p.reference !== undefined ? [{ key: 'consumerno', value: p.reference }] : [])];
    const t: SimTransaction = { transactionReference: this.reference(), type: 'merchantpay', transactionStatus: 'completed', amount: p.amount, currency: p.currency, creditParty, debitParty: [{ key: 'msisdn', value: p.payer }], creationDate: now, modificationDate: now, correlationId: randomUUID(), callbackUrl: undefined, serverCorrelationId: randomUUID() };
    this.transactions.set(t.transactionReference, t);
    const body = JSON.stringify(this.view(t));
    const status = await this.deliver(`${url}/${t.transactionReference}`, t.correlationId, body);
    return { transactionReference: t.transactionReference, body, status };
  }

  /** The last callback sent for a correlation id, to deliver again (a provider's retry). */
  lastCallback(correlationId: string): SentCallback | undefined {
    return [...this.callbacks].reverse().find((c) => c.correlationId === correlationId);
  }
}
