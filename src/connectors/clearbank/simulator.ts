import { createHash, randomInt, randomUUID, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { camt053, type Booking } from './camt053.js';
import { signBody, verifyBody } from './signature.js';

/*
 * The sandbox ClearBank: a local stand-in for ClearBank's FPS Initiation API 3.0 and its
 * Confirmation of Payee outbound API, so integrators (and Corridor's tests, through Prism holding it
 * to ClearBank's published definitions) can run the real connector. It serves
 * `POST /v3/payments/fps` (a batch accepted in part, each payment answered),
 * `POST /open-banking/outbound/v1/name-verification`, and the Customer Statements API
 * (`POST /v1/statementrequests`, then a signed `Statements.ReadyForDownload` webhook, then
 * `GET /v1/statements/{messageId}?pageNumber=1`: camt.053 of the account's bookings in the period:
 * payments settled, returns, inbound credits) as the definitions describe them, checks each
 * request's bearer token and `DigitalSignature` (with the operator's public key), answers a repeated
 * `X-Request-Id` as the first without paying twice, keeps its payments, and sends ClearBank's signed
 * webhooks (TransactionSettled, TransactionRejected, and an inbound return as a TransactionSettled
 * credit with IsReturn), redelivering each until Corridor answers 200 with the Nonce signed by the
 * operator's key, as ClearBank does. What happens to a payment, and what CoP answers, is chosen by
 * the payee's account number (MAGIC_ACCOUNTS); `loseRate` and `repeatRate` drop a first delivery or
 * send one twice at random. Run as its own process: `corridor clearbank-sim` (src/cli/clearbank-sim.ts).
 */

export type MagicPayment =
  | { kind: 'refuse'; response: 'InvalidAccount' | 'Rejected' | 'InsufficientFunds' }
  | { kind: 'reject'; code: string; reason: string }
  | { kind: 'return'; code: string; reason: string }
  | { kind: 'lose_first' }
  | { kind: 'repeat' }
  | { kind: 'pending' };

export type MagicCop = { kind: 'close'; name: string; code: string } | { kind: 'no_match' } | { kind: 'not_found' } | { kind: 'unavailable' } | { kind: 'opted_out' };

/** What the sandbox bank does with a payee's account number (any sort code; 70-00-00 passes every modulus check). */
export const MAGIC_ACCOUNTS: Readonly<Record<string, MagicPayment | MagicCop>> = {
  '00000101': { kind: 'refuse', response: 'InvalidAccount' },
  '00000102': { kind: 'refuse', response: 'Rejected' },
  '00000201': { kind: 'reject', code: 'AC04', reason: 'Account closed' },
  '00000202': { kind: 'reject', code: 'CB_AccountNameInvalid', reason: 'Beneficiary account name does not match beneficiary account number' },
  '00000301': { kind: 'return', code: 'AC04', reason: 'Account closed' },
  '00000401': { kind: 'lose_first' },
  '00000402': { kind: 'repeat' },
  '00000403': { kind: 'pending' },
  '00000501': { kind: 'close', name: 'Alan M Turing', code: 'MBAM' },
  '00000502': { kind: 'no_match' },
  '00000503': { kind: 'not_found' },
  '00000504': { kind: 'unavailable' },
  '00000505': { kind: 'opted_out' },
  '00000506': { kind: 'close', name: 'Turing Holdings Ltd', code: 'BANM' },
};

export interface SimOptions {
  /** The API token Corridor must send (`Authorization: Bearer <token>`). */
  apiToken: string;
  /** The operator's public key: verifies requests and the answers to webhooks. */
  operatorPublicKey: KeyObject;
  /** ClearBank's private key: signs webhooks. */
  bankPrivateKey: KeyObject;
  /** Where webhooks go (Corridor's /connectors/clearbank/webhooks); none: kept, not sent. */
  webhookUrl?: string;
  port?: number;
  /** Before a payment's outcome is sent. */
  settleDelayMs?: number;
  /** Between a settlement and its return. */
  returnDelayMs?: number;
  /** Between redeliveries of a webhook Corridor did not acknowledge. */
  redeliverMs?: number;
  /** The chance a first delivery is lost (and redelivered later), and that a webhook is sent twice. */
  loseRate?: number;
  repeatRate?: number;
  log?: (line: string) => void;
  /** The operator's ClearBank account, as statements and webhooks name it. */
  accountIban?: string;
  /** Its balance before the first booking, in pence (default £1,000,000.00). */
  openingBalanceMinor?: bigint;
}

export interface SimPayment {
  endToEndId: string;
  transactionId: string;
  amount: number;
  sortCode: string;
  accountNumber: string;
  name: string;
  status: 'accepted' | 'refused' | 'settled' | 'rejected' | 'returned' | 'pending';
}

export interface SentWebhook {
  type: string;
  endToEndId: string;
  transactionId: string;
  /** Deliveries that reached Corridor (a lost one does not count). */
  delivered: number;
  /** Deliveries lost on the way (Corridor never saw them; the bank delivers again). */
  lost: number;
  acknowledged: boolean;
}

interface Stored {
  hash: string;
  status: number;
  body: string;
}

const json = (res: http.ServerResponse, status: number, body?: unknown): void => {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
  res.end(text);
};

export class ClearBankSimulator {
  readonly payments = new Map<string, SimPayment>();
  readonly webhooks: SentWebhook[] = [];
  /** Requests answered per X-Request-Id (a repeat is answered from here). */
  readonly requests = new Map<string, Stored>();
  /** Every request that reached the simulator, by path (repeats included). */
  readonly calls: { path: string; requestId: string }[] = [];
  /** Everything booked on the operator's account, oldest first: what its statements list. */
  readonly bookings: Booking[] = [];
  /** The statements generated, by MessageId (camt.053). */
  readonly statements = new Map<string, string>();
  private server: http.Server | undefined;
  private timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly options: SimOptions) {}

  get url(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error('the simulator is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  /** Where webhooks go; set after start when Corridor's port is known. */
  set webhookUrl(url: string) {
    this.options.webhookUrl = url;
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          this.handle(req, Buffer.concat(chunks).toString('utf8'), res);
        } catch (err) {
          this.log(`error: ${(err as Error).message}`);
          if (!res.headersSent) json(res, 400, { transactions: [] });
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(this.options.port ?? 0, '127.0.0.1', resolve));
    return this.url;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  private later(ms: number, fn: () => void | Promise<void>): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      void Promise.resolve(fn()).catch((err: unknown) => this.log(`error: ${(err as Error).message}`));
    }, ms);
    this.timers.add(t);
  }

  private handle(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    const [path = '', query = ''] = (req.url ?? '').split('?');
    const requestId = String(req.headers['x-request-id'] ?? '');
    this.calls.push({ path, requestId });
    const authorized = req.headers.authorization === `Bearer ${this.options.apiToken}`;
    if (req.method === 'GET' && path.startsWith('/v1/statements/')) return this.statementPage(decodeURIComponent(path.slice('/v1/statements/'.length)), new URLSearchParams(query).get('pageNumber'), authorized, res);
    const signed = verifyBody(this.options.operatorPublicKey, body, typeof req.headers.digitalsignature === 'string' ? req.headers.digitalsignature : undefined);
    if (req.method !== 'POST' || !POST_PATHS.includes(path)) return json(res, 404);
    if (path === '/open-banking/outbound/v1/name-verification' && (!authorized || !signed)) return json(res, 403);
    if (!authorized || !signed) {
      return json(res, 422, { title: 'One or more validation errors occurred.', status: 422, errors: { [authorized ? 'DigitalSignature' : 'Authorization']: [authorized ? 'The signature does not verify against the body.' : 'The API token is not valid.'] } });
    }
    if (requestId === '' || requestId.length > 83) return json(res, 422, { title: 'One or more validation errors occurred.', status: 422, errors: { 'X-Request-Id': ['A unique X-Request-Id of at most 83 characters is required.'] } });
    const hash = createHash('sha256').update(`${path}\n${body}`).digest('hex');
    const stored = this.requests.get(requestId);
    if (stored) {
      if (stored.hash !== hash) return json(res, 422, { title: 'One or more validation errors occurred.', status: 422, errors: { 'X-Request-Id': ['This X-Request-Id was used with another request.'] } });
      res.writeHead(stored.status, stored.body === '' ? {} : { 'content-type': 'application/json' });
      return void res.end(stored.body);
    }
    const answer = path === '/v3/payments/fps' ? this.payments_(JSON.parse(body) as FpsRequest) : path === STATEMENT_REQUESTS ? this.statementRequest(JSON.parse(body) as StatementRequest) : this.cop(JSON.parse(body) as CopRequest);
    const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
    this.requests.set(requestId, { hash, status: answer.status, body: text });
    res.writeHead(answer.status, text === '' ? {} : { 'content-type': 'application/json' });
    res.end(text);
  }

  // ------------------------------------------------------------------------------------------
  // Faster Payments

  private payments_(request: FpsRequest): { status: number; body: unknown } {
    const transactions: { endToEndIdentification: string; response: string }[] = [];
    for (const instruction of request.paymentInstructions ?? []) {
      for (const ct of instruction.creditTransfers ?? []) {
        const e2e = ct.paymentIdentification?.endToEndIdentification ?? '';
        const bban = ct.creditorAccount?.identification?.other?.identification ?? '';
        const iban = ct.creditorAccount?.identification?.iban ?? '';
        const sortCode = bban ? bban.slice(0, 6) : iban.slice(8, 14);
        const accountNumber = bban ? bban.slice(6, 14) : iban.slice(14, 22);
        const magic = MAGIC_ACCOUNTS[accountNumber] as MagicPayment | undefined;
        if (this.payments.has(e2e)) {
          transactions.push({ endToEndIdentification: e2e, response: 'InvalidInstructionIdentification' });
          continue;
        }
        const payment: SimPayment = { endToEndId: e2e, transactionId: randomUUID(), amount: ct.amount?.instructedAmount ?? 0, sortCode, accountNumber, name: ct.creditor?.name ?? '', status: 'accepted' };
        if (magic?.kind === 'refuse') {
          payment.status = 'refused';
          this.payments.set(e2e, payment);
          transactions.push({ endToEndIdentification: e2e, response: magic.response });
          continue;
        }
        this.payments.set(e2e, payment);
        transactions.push({ endToEndIdentification: e2e, response: 'Accepted' });
        this.later(this.options.settleDelayMs ?? 100, () => this.decide(payment, magic));
      }
    }
    const accepted = transactions.some((t) => t.response === 'Accepted');
    return accepted ? { status: 202, body: { transactions } } : { status: 400, body: { transactions } };
  }

  private async decide(payment: SimPayment, magic: MagicPayment | undefined): Promise<void> {
    if (magic?.kind === 'pending') {
      payment.status = 'pending';
      return;
    }
    if (magic?.kind === 'reject') {
      payment.status = 'rejected';
      await this.send('TransactionRejected', payment, payment.transactionId, { DebitCreditCode: 'Debit', IsReturn: false, CancellationReason: magic.reason, CancellationCode: magic.code });
      return;
    }
    payment.status = 'settled';
    this.book(payment, 'debit', payment.transactionId, 'ICDT', 'DMCT');
    await this.send('TransactionSettled', payment, payment.transactionId, { DebitCreditCode: 'Debit', IsReturn: false }, { lose: magic?.kind === 'lose_first', repeat: magic?.kind === 'repeat' });
    if (magic?.kind === 'return') {
      this.later(this.options.returnDelayMs ?? 300, async () => {
        payment.status = 'returned';
        const transactionId = randomUUID();
        this.book(payment, 'credit', transactionId, 'ICDT', 'RRTN', { code: magic.code, words: magic.reason });
        await this.send('TransactionSettled', payment, transactionId, { DebitCreditCode: 'Credit', IsReturn: true, CancellationReason: magic.reason, CancellationCode: magic.code });
      });
    }
  }

  /** A webhook as ClearBank sends it, redelivered until acknowledged (a lost first delivery never reaches Corridor). */
  private async send(type: string, payment: SimPayment, transactionId: string, extra: Record<string, unknown>, how: { lose?: boolean; repeat?: boolean } = {}): Promise<void> {
    const record: SentWebhook = { type, endToEndId: payment.endToEndId, transactionId, delivered: 0, lost: 0, acknowledged: false };
    this.webhooks.push(record);
    const payload = {
      TransactionId: transactionId,
      Status: type === 'TransactionRejected' ? 'Rejected' : 'Settled',
      Scheme: 'FasterPayments',
      EndToEndTransactionId: payment.endToEndId,
      Amount: payment.amount,
      TimestampModified: new Date().toISOString(),
      CurrencyCode: 'GBP',
      Reference: payment.endToEndId,
      Account: { IBAN: this.accountIban, BBAN: this.accountIban.slice(4) },
      CounterpartAccount: { BBAN: `${payment.sortCode}${payment.accountNumber}` },
      ...extra,
    };
    await this.sendPayload(type, payload, record, how);
  }

  /** A payload sent as a signed webhook, redelivered until Corridor acknowledges it. */
  private async sendPayload(type: string, payload: Record<string, unknown>, record: SentWebhook, how: { lose?: boolean; repeat?: boolean } = {}): Promise<void> {
    const lose = how.lose === true || Math.random() < (this.options.loseRate ?? 0);
    const repeat = how.repeat === true || Math.random() < (this.options.repeatRate ?? 0);
    const deliver = async (attempt: number, dropped: boolean): Promise<void> => {
      if (this.stopped) return;
      if (dropped) record.lost++;
      const ok = dropped ? false : await this.deliver(type, payload, record);
      if (ok) {
        if (repeat && record.delivered === 1) await this.deliver(type, payload, record);
        return;
      }
      if (attempt < 200) this.later((this.options.redeliverMs ?? 500) * Math.min(attempt, 4), () => deliver(attempt + 1, false));
    };
    await deliver(1, lose);
  }

  private async deliver(type: string, payload: Record<string, unknown>, record: SentWebhook): Promise<boolean> {
    const url = this.options.webhookUrl;
    if (!url) return false;
    const nonce = randomInt(1, 2_147_483_647);
    const body = JSON.stringify({ Type: type, Version: 6, Payload: payload, Nonce: nonce });
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', digitalsignature: signBody(this.options.bankPrivateKey, body) }, body, signal: AbortSignal.timeout(30_000) });
      record.delivered++;
      const text = await res.text();
      const signature = res.headers.get('digitalsignature') ?? undefined;
      const acknowledged = res.status === 200 && verifyBody(this.options.operatorPublicKey, text, signature) && (JSON.parse(text) as { Nonce?: unknown }).Nonce === nonce;
      if (acknowledged) record.acknowledged = true;
      this.log(`webhook ${type} ${String(payload.EndToEndTransactionId)}: ${res.status}${acknowledged ? '' : ' (not acknowledged)'}`);
      return acknowledged;
    } catch (err) {
      this.log(`webhook ${type} not delivered: ${(err as Error).message}`);
      return false;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Statements

  private get accountIban(): string {
    return this.options.accountIban ?? 'GB29NWBK60161331926819';
  }

  private book(payment: SimPayment, direction: Booking['direction'], transactionId: string, family: Booking['family'], subFamily: Booking['subFamily'], returnReason?: Booking['returnReason']): void {
    this.bookings.push({
      at: new Date(),
      direction,
      amountMinor: BigInt(Math.round(payment.amount * 100)),
      transactionId,
      endToEndId: payment.endToEndId,
      counterparty: { name: payment.name, sortCode: payment.sortCode, accountNumber: payment.accountNumber },
      reference: payment.endToEndId,
      family,
      subFamily,
      returnReason,
    });
  }

  /**
   * Someone pays the operator's account (an inbound Faster Payment Corridor never asked for): booked,
   * and announced by a TransactionSettled credit webhook, as ClearBank does. Answers its TransactionId.
   */
  async receiveCredit(credit: { amountPence: bigint; name: string; sortCode: string; accountNumber: string; reference: string; endToEndId?: string }): Promise<string> {
    const transactionId = randomUUID();
    const endToEndId = credit.endToEndId ?? randomUUID().replace(/-/g, '');
    this.bookings.push({ at: new Date(), direction: 'credit', amountMinor: credit.amountPence, transactionId, endToEndId, counterparty: { name: credit.name, sortCode: credit.sortCode, accountNumber: credit.accountNumber }, reference: credit.reference, family: 'RCDT', subFamily: 'DMCT' });
    const amount = Number(`${credit.amountPence / 100n}.${(credit.amountPence % 100n).toString().padStart(2, '0')}`);
    const payment: SimPayment = { endToEndId, transactionId, amount, sortCode: credit.sortCode, accountNumber: credit.accountNumber, name: credit.name, status: 'settled' };
    await this.send('TransactionSettled', payment, transactionId, { DebitCreditCode: 'Credit', IsReturn: false, Reference: credit.reference });
    return transactionId;
  }

  /** `POST /v1/statementrequests`: accepted (202, no body); the statement is generated and announced by a signed Statements.ReadyForDownload webhook. */
  private statementRequest(request: StatementRequest): { status: number; body?: unknown } {
    const problem = (field: string, message: string) => ({ status: 422, body: { title: 'One or more validation errors occurred.', status: 422, errors: { [field]: [message] } } });
    const start = new Date(request.startDateTimeUtc ?? '');
    const end = new Date(request.endDateTimeUtc ?? '');
    if (!API_TIME.test(request.startDateTimeUtc ?? '') || Number.isNaN(start.getTime())) return problem('startDateTimeUtc', 'A start in the format yyyy-MM-ddTHH:mm:ssZ is required.');
    if (!API_TIME.test(request.endDateTimeUtc ?? '') || Number.isNaN(end.getTime())) return problem('endDateTimeUtc', 'An end in the format yyyy-MM-ddTHH:mm:ssZ is required.');
    if (end <= start || end.getTime() - start.getTime() > 25 * 3_600_000) return problem('endDateTimeUtc', 'The period can be no more than 25 hours, and must end after it starts.');
    this.later(this.options.settleDelayMs ?? 100, () => this.generateStatement(start, end));
    return { status: 202 };
  }

  private async generateStatement(start: Date, end: Date): Promise<void> {
    const ymd = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
    const messageId = `CAMT053_${ymd(start)}_${ymd(end)}_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
    const opening = this.bookings.filter((b) => b.at < start).reduce((sum, b) => sum + (b.direction === 'credit' ? b.amountMinor : -b.amountMinor), this.options.openingBalanceMinor ?? 100_000_000n);
    this.statements.set(messageId, camt053({ messageId, createdAt: new Date(), iban: this.accountIban, start, end, sequence: this.statements.size + 1, openingMinor: opening, bookings: this.bookings }));
    const record: SentWebhook = { type: 'Statements.ReadyForDownload', endToEndId: '', transactionId: messageId, delivered: 0, lost: 0, acknowledged: false };
    this.webhooks.push(record);
    await this.sendPayload(record.type, { MessageId: messageId, TotalPages: 1, StartDateTime: start.toISOString(), EndDateTime: end.toISOString(), Account: { IBAN: this.accountIban } }, record);
  }

  /** `GET /v1/statements/{messageId}?pageNumber=n`: the statement's page in camt.053 (every sandbox statement is one page). */
  private statementPage(messageId: string, pageNumber: string | null, authorized: boolean, res: http.ServerResponse): void {
    if (!authorized) return json(res, 400, { title: 'One or more validation errors occurred.', status: 400, errors: { Authorization: ['The API token is not valid.'] } });
    if (!/^\d+$/.test(pageNumber ?? '')) return json(res, 400, { title: 'One or more validation errors occurred.', status: 400, errors: { pageNumber: ['A page number is required.'] } });
    const xml = this.statements.get(messageId);
    if (!xml || pageNumber !== '1') return json(res, 404);
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(xml);
  }

  // ------------------------------------------------------------------------------------------
  // Confirmation of Payee

  private cop(request: CopRequest): { status: number; body?: unknown } {
    const identification = request.Identification ?? '';
    const magic = MAGIC_ACCOUNTS[identification.slice(6)] as MagicCop | undefined;
    const name = (request.OwnerName ?? '').split(',').map((s) => s.trim()).filter(Boolean).join(' ');
    const legal = request.LegalOwnerType ?? 'Personal';
    const report = (r: Record<string, unknown>) => ({ status: 200, body: { Data: { VerificationReport: { MatchedBank: 'Sandbox Bank', ResponseWithinSla: true, LegalOwnerType: legal, ...r } } } });
    switch (magic?.kind) {
      case 'close':
        return report({ Matched: false, Name: magic.name, ReasonCode: magic.code, ReasonCodeDescription: magic.code === 'MBAM' ? 'Account name is a close match' : 'Account name matches, but the account is a business account' });
      case 'no_match':
        return report({ Matched: false, ReasonCode: 'ANNM', ReasonCodeDescription: 'Account name does not match' });
      case 'not_found':
        return report({ Matched: false, ReasonCode: 'AC01', ReasonCodeDescription: 'Account does not exist' });
      case 'opted_out':
        return report({ Matched: false, ReasonCode: 'OPTO', ReasonCodeDescription: 'Account holder has opted out of CoP' });
      case 'unavailable':
        return { status: 424 };
      default:
        return name === '' ? { status: 400, body: { Error: { Reason: 'OwnerName is empty', ParticipantName: 'Sandbox Bank' } } } : report({ Matched: true });
    }
  }
}

interface FpsRequest {
  paymentInstructions?: {
    creditTransfers?: {
      paymentIdentification?: { endToEndIdentification?: string };
      amount?: { instructedAmount?: number };
      creditor?: { name?: string };
      creditorAccount?: { identification?: { iban?: string; other?: { identification?: string } } };
    }[];
  }[];
}

const STATEMENT_REQUESTS = '/v1/statementrequests';
const POST_PATHS = ['/v3/payments/fps', '/open-banking/outbound/v1/name-verification', STATEMENT_REQUESTS];
/** The Customer Statements API's date-time format, yyyy-MM-ddTHH:mm:ssZ. */
const API_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

interface StatementRequest {
  startDateTimeUtc?: string;
  endDateTimeUtc?: string;
}

interface CopRequest {
  Identification?: string;
  OwnerName?: string;
  LegalOwnerType?: string;
}
