import type { components, paths } from './generated/openapi.js';
import { CorridorError, errorFromResponse } from './errors.js';
import { endpoint, paged, type ArgsOf, type BodyOf, type Endpoint, type GroupTable, type Operation, type ResponseOf } from './operations.js';
import { PagedCall, type CursorPage } from './pagination.js';
import { followEvents, type StreamOptions } from './stream.js';
import { Transport, newIdempotencyKey, type CorridorOptions, type HttpMethod, type RequestOptions } from './transport.js';
import { constructEvent, verifyWebhook, type WebhookHeaders } from './webhooks.js';

/**
 * The method groups: one table per resource, each entry an endpoint of the OpenAPI document. Its
 * method's arguments and result are typed from the generated types (operations.ts ArgsOf/ResponseOf).
 * A new resource is one more table here (and, for the top-level group, nothing else: the Corridor
 * class binds every table of RESOURCES).
 */
export const RESOURCES = {
  payouts: {
    create: endpoint('post', '/v1/payouts'),
    list: paged('get', '/v1/payouts'),
    get: endpoint('get', '/v1/payouts/{id}'),
    cancel: endpoint('post', '/v1/payouts/{id}/cancel'),
    approve: endpoint('post', '/v1/payouts/{id}/approve'),
    reject: endpoint('post', '/v1/payouts/{id}/reject'),
    requirements: endpoint('get', '/v2/payouts/requirements'),
    availableRails: endpoint('get', '/v1/payouts/available-rails'),
  },
  approvals: {
    list: paged('get', '/v1/approvals'),
    rules: {
      create: endpoint('post', '/v1/approval-rules'),
      list: paged('get', '/v1/approval-rules'),
      get: endpoint('get', '/v1/approval-rules/{id}'),
      delete: endpoint('delete', '/v1/approval-rules/{id}'),
    },
  },
  beneficiaries: {
    create: endpoint('post', '/v1/beneficiaries'),
    list: paged('get', '/v1/beneficiaries'),
    get: endpoint('get', '/v1/beneficiaries/{id}'),
    update: endpoint('put', '/v1/beneficiaries/{id}'),
    delete: endpoint('delete', '/v1/beneficiaries/{id}'),
  },
  fx: {
    rates: { get: endpoint('get', '/v1/fx/rates') },
    quotes: { create: endpoint('post', '/v1/fx/quotes'), get: endpoint('get', '/v1/fx/quotes/{id}') },
    conversions: { create: endpoint('post', '/v1/fx/conversions'), get: endpoint('get', '/v1/fx/conversions/{id}') },
  },
  applications: {
    create: endpoint('post', '/v2/applications'),
    list: paged('get', '/v2/applications'),
    get: endpoint('get', '/v2/applications/{id}'),
    update: endpoint('patch', '/v2/applications/{id}'),
    submit: endpoint('post', '/v2/applications/{id}/submit'),
    persons: {
      create: endpoint('post', '/v2/applications/{id}/persons'),
      list: paged('get', '/v2/applications/{id}/persons'),
      get: endpoint('get', '/v2/applications/{id}/persons/{personId}'),
      update: endpoint('patch', '/v2/applications/{id}/persons/{personId}'),
      delete: endpoint('delete', '/v2/applications/{id}/persons/{personId}'),
    },
    documents: {
      uploadUrl: endpoint('post', '/v2/applications/{id}/documents/upload-url'),
      create: endpoint('post', '/v2/applications/{id}/documents'),
      list: paged('get', '/v2/applications/{id}/documents'),
      get: endpoint('get', '/v2/applications/{id}/documents/{documentId}'),
      delete: endpoint('delete', '/v2/applications/{id}/documents/{documentId}'),
    },
    terms: {
      get: endpoint('get', '/v2/terms'),
      accept: endpoint('post', '/v2/applications/{id}/terms-acceptance'),
    },
  },
  webhooks: {
    create: endpoint('post', '/v1/webhooks'),
    list: paged('get', '/v1/webhooks'),
    get: endpoint('get', '/v1/webhooks/{id}'),
    update: endpoint('patch', '/v1/webhooks/{id}'),
    delete: endpoint('delete', '/v1/webhooks/{id}'),
    rotateSecret: endpoint('post', '/v1/webhooks/{id}/rotate-secret'),
    test: endpoint('post', '/v1/webhooks/{id}/test'),
    deliveries: {
      list: paged('get', '/v1/webhooks/{id}/deliveries'),
      get: endpoint('get', '/v1/webhooks/{id}/deliveries/{deliveryId}'),
      resend: endpoint('post', '/v1/webhooks/{id}/deliveries/{deliveryId}/resend'),
    },
  },
  events: {
    list: paged('get', '/v1/events'),
    get: endpoint('get', '/v1/events/{id}'),
  },
  balances: { get: endpoint('get', '/v1/ledger/balances') },
  transactions: { list: paged('get', '/v1/ledger/transactions') },
  accounts: {
    current: endpoint('get', '/v1/account'),
    create: endpoint('post', '/v1/accounts'),
    list: paged('get', '/v1/accounts'),
    get: endpoint('get', '/v1/accounts/{id}'),
  },
  requestLogs: {
    list: paged('get', '/v1/request-logs'),
    get: endpoint('get', '/v1/request-logs/{id}'),
  },
  apiKeys: {
    list: paged('get', '/v1/api-keys'),
    updateScopes: endpoint('put', '/v1/api-keys/{clientId}/scopes'),
  },
  orders: {
    create: endpoint('post', '/v1/orders'),
    list: paged('get', '/v1/orders'),
    get: endpoint('get', '/v1/orders/{id}'),
    cancel: endpoint('post', '/v1/orders/{id}/cancel'),
    settlement: {
      proofUploadUrl: endpoint('post', '/v1/orders/{id}/settlement/proof-upload-url'),
      submitProof: endpoint('post', '/v1/orders/{id}/settlement/proof'),
    },
  },
  virtualAccounts: {
    create: endpoint('post', '/v1/virtual-accounts'),
    list: paged('get', '/v1/virtual-accounts'),
    requirements: endpoint('get', '/v1/virtual-accounts/requirements'),
  },
  deposits: {
    list: paged('get', '/v1/deposits'),
    get: endpoint('get', '/v1/deposits/{id}'),
  },
  capabilities: { get: endpoint('get', '/v1/capabilities') },
  sandbox: {
    fundBalance: endpoint('post', '/v1/sandbox/balances/fund'),
    payouts: {
      process: endpoint('post', '/v1/sandbox/payouts/{id}/process'),
      pay: endpoint('post', '/v1/sandbox/payouts/{id}/pay'),
      fail: endpoint('post', '/v1/sandbox/payouts/{id}/fail'),
      revert: endpoint('post', '/v1/sandbox/payouts/{id}/revert'),
    },
    applications: { review: endpoint('post', '/v1/sandbox/applications/{id}/review') },
    orders: {
      confirmFunds: endpoint('post', '/v1/sandbox/orders/{id}/confirm-funds'),
      execute: endpoint('post', '/v1/sandbox/orders/{id}/execute'),
      complete: endpoint('post', '/v1/sandbox/orders/{id}/complete'),
      fail: endpoint('post', '/v1/sandbox/orders/{id}/fail'),
      expire: endpoint('post', '/v1/sandbox/orders/{id}/expire'),
    },
    deposits: {
      create: endpoint('post', '/v1/sandbox/deposits'),
      complete: endpoint('post', '/v1/sandbox/deposits/{id}/complete'),
      fail: endpoint('post', '/v1/sandbox/deposits/{id}/fail'),
    },
    virtualAccounts: {
      approve: endpoint('post', '/v1/sandbox/virtual-accounts/{id}/approve'),
      fail: endpoint('post', '/v1/sandbox/virtual-accounts/{id}/fail'),
      deactivate: endpoint('post', '/v1/sandbox/virtual-accounts/{id}/deactivate'),
    },
  },
} as const satisfies GroupTable;

/** A page, with its `lastResponse`. */
type PageOf<R> = R extends CursorPage<unknown> ? R & { readonly lastResponse: LastResponse } : never;

/** The HTTP side of a successful call (as stripe-node's `lastResponse`): its request id, status and headers. */
export interface LastResponse {
  /** The `x-request-id` the server answered with: quote it to support. */
  requestId: string | undefined;
  status: number;
  headers: Headers;
  /** Whether the answer was replayed for a repeated Idempotency-Key (`Idempotent-Replayed: true`). */
  idempotentReplayed: boolean;
}

/** An object answer, with its `lastResponse` (not enumerable: JSON.stringify leaves it out). */
export type WithResponse<T> = T extends object ? T & { readonly lastResponse: LastResponse } : T;

/** The typed method of one endpoint (a list's result can also be iterated with `for await`). */
export type Method<E> =
  E extends Endpoint<infer P, infer M>
    ? E extends { paged: true }
      ? (...args: ArgsOf<Operation<P, M>>) => PagedCall<PageOf<ResponseOf<Operation<P, M>>>>
      : (...args: ArgsOf<Operation<P, M>>) => Promise<WithResponse<ResponseOf<Operation<P, M>>>>
    : never;

/** Attaches `lastResponse` to an object answer. */
export function withResponse<T>(value: T, res: Response): T {
  if (value && typeof value === 'object') {
    const lastResponse: LastResponse = {
      requestId: res.headers.get('x-request-id') ?? undefined,
      status: res.status,
      headers: res.headers,
      idempotentReplayed: res.headers.get('idempotent-replayed') === 'true',
    };
    Object.defineProperty(value, 'lastResponse', { value: lastResponse, enumerable: false, configurable: true });
  }
  return value;
}

/** A table of endpoints as an object of methods. */
export type Group<T> = { readonly [K in keyof T]: T[K] extends Endpoint ? Method<T[K]> : Group<T[K]> };

/** An event as GET /v1/events/{id}, the stream and a webhook delivery give it: a union told apart by `type`, `data` typed by it. */
export type CorridorEvent = components['schemas']['Event'];
/** Every event type (`payout.paid`…). */
export type EventType = CorridorEvent['type'];
/** The event of type `T` (`EventOf<'payout.paid'>['data']` is the payout's event data). */
export type EventOf<T extends EventType> = Extract<CorridorEvent, { type: T }>;
export type Payout = components['schemas']['Payout'];
export type Quote = components['schemas']['FxQuote'];
export type QuoteRequest = BodyOf<Operation<'/v1/fx/quotes', 'post'>>;
/** One payout (the create endpoint also takes an array of them). */
export type PayoutRequest = Exclude<BodyOf<Operation<'/v1/payouts', 'post'>>, readonly unknown[]>;
export type { components, paths };

type Schemas = components['schemas'];
type UploadContentType = BodyOf<Operation<'/v2/applications/{id}/documents/upload-url', 'post'>>['contentType'];

/** A file to upload: its bytes and its type (PDF, JPEG or PNG). */
export interface FileInput {
  file: Uint8Array | ArrayBuffer | Blob;
  contentType: UploadContentType;
}

/** A document of an application: the file, and what registers it (its type, the person it belongs to). */
export type DocumentUploadInput = FileInput & Omit<BodyOf<Operation<'/v2/applications/{id}/documents', 'post'>>, 'documentKey'>;

function byteLength(file: FileInput['file']): number {
  return file instanceof Blob ? file.size : file.byteLength;
}

/** PUTs a file to a signed upload URL (the URL is its own credential: no token). */
async function putFile(transport: Transport, url: string, input: FileInput, options?: RequestOptions): Promise<void> {
  const res = await transport.putFile(url, input.file, input.contentType, options?.signal);
  if (!res.ok) throw errorFromResponse(res.status, res.headers, await res.text());
}

/** Fills the `{name}` segments of a path from its parameters. */
function fillPath(path: string, params: Record<string, unknown> | undefined): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(String(value));
  });
}

const SENDS_BODY: ReadonlySet<HttpMethod> = new Set(['post', 'put', 'patch']);

/** The runtime half of Method: splits the arguments as ArgsOf orders them and sends the call. */
function bindEndpoint(transport: Transport, accountId: string | undefined, ep: Endpoint): (...args: unknown[]) => unknown {
  const hasPath = ep.path.includes('{');
  return (...args: unknown[]) => {
    const params = hasPath ? (args[0] as Record<string, unknown>) : undefined;
    const second = args[hasPath ? 1 : 0];
    const options = args[hasPath ? 2 : 1] as RequestOptions | undefined;
    const body = SENDS_BODY.has(ep.method) ? second : undefined;
    const query = SENDS_BODY.has(ep.method) ? undefined : (second as Record<string, unknown> | undefined);
    const path = fillPath(ep.path, params);
    const call = async (q: Record<string, unknown> | undefined) => {
      const res = await transport.request({ method: ep.method, path, query: q, body, options }, accountId);
      if (res.status === 204) return undefined;
      const text = await res.text();
      return withResponse(text ? (JSON.parse(text) as unknown) : undefined, res);
    };
    if (!ep.paged) return call(query);
    return new PagedCall((cursor) => call(cursor === undefined ? query : { ...query, cursor }) as Promise<CursorPage<unknown>>);
  };
}

function bindGroup<T extends GroupTable>(transport: Transport, accountId: string | undefined, table: T): Group<T> {
  const out: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(table)) {
    out[name] = (entry as Endpoint).kind === 'endpoint' ? bindEndpoint(transport, accountId, entry as Endpoint) : bindGroup(transport, accountId, entry as GroupTable);
  }
  return out as Group<T>;
}

type CreatePayoutAnswer = ResponseOf<Operation<'/v1/payouts', 'post'>>;

/** The payouts group, with the create endpoint's two forms apart: one payout, or a batch (an array). */
export type PayoutsGroup = Omit<Group<typeof RESOURCES.payouts>, 'create'> & {
  /** One payout (201 with the payout). */
  create: (body: PayoutRequest, options?: RequestOptions) => Promise<WithResponse<Exclude<CreatePayoutAnswer, readonly unknown[]>>>;
  /** Up to 100 payouts in one request; the answer lists each one's outcome in order. */
  createBatch: (body: PayoutRequest[], options?: RequestOptions) => Promise<WithResponse<Extract<CreatePayoutAnswer, readonly unknown[]>>>;
};

export interface QuoteAndPayInput {
  /** The quote to request (intent `payout`). */
  quote: QuoteRequest;
  /** The payout to create with the quote's id (its `quoteId` is set by the helper). */
  payout: Omit<PayoutRequest, 'quoteId'>;
  /** Quotes requested at most, when each expires before the payout is accepted (default 3). */
  attemptsMax?: number;
}

/**
 * A client of one Corridor credential. `new Corridor({ baseUrl, clientId, clientSecret, audience })`;
 * every resource is a method group (`payouts.create`, `fx.quotes.create`, `applications.persons.list`…).
 */
export class Corridor {
  readonly payouts: PayoutsGroup;
  readonly beneficiaries: Group<typeof RESOURCES.beneficiaries>;
  readonly fx: Group<typeof RESOURCES.fx>;
  readonly applications: Group<typeof RESOURCES.applications> & {
    documents: Group<typeof RESOURCES.applications.documents> & {
      /** A document in one call: an upload URL, the PUT of the file's bytes to it, and the registration. */
      upload: (params: { id: string }, input: DocumentUploadInput, options?: RequestOptions) => Promise<WithResponse<Schemas['ApplicationDocument']>>;
    };
  };
  readonly webhooks: Group<typeof RESOURCES.webhooks> & {
    /** Verifies a delivery (constant time, timestamp within `toleranceS`). */
    verify: (rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, toleranceS?: number) => Promise<boolean>;
    /** Verifies a delivery and returns its event, typed by `type`; throws WebhookVerificationError when the signature or timestamp is wrong. */
    constructEvent: (rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, toleranceS?: number) => Promise<CorridorEvent>;
  };
  readonly events: Group<typeof RESOURCES.events> & {
    /**
     * The live event stream as an async iterator; reconnects with Last-Event-ID after a dropped
     * connection, and with a new token when the server ends it at the token's expiry. Throws the
     * CorridorError when the credential may no longer read it (CREDENTIAL_REVOKED, METHOD_NOT_ENTITLED).
     */
    stream: <T extends EventType = EventType>(options?: StreamOptions<T>) => AsyncGenerator<EventOf<T>, void, undefined>;
  };
  readonly balances: Group<typeof RESOURCES.balances>;
  readonly transactions: Group<typeof RESOURCES.transactions>;
  readonly accounts: Group<typeof RESOURCES.accounts>;
  /** The workspace's recent API requests (GET /v1/request-logs), bodies redacted. */
  readonly requestLogs: Group<typeof RESOURCES.requestLogs>;
  readonly apiKeys: Group<typeof RESOURCES.apiKeys>;
  readonly orders: Group<typeof RESOURCES.orders> & {
    settlement: Group<typeof RESOURCES.orders.settlement> & {
      /** A proof of payment in one call: an upload URL, the PUT of the file's bytes to it, and the submission. */
      uploadProof: (params: { id: string }, input: FileInput, options?: RequestOptions) => Promise<WithResponse<Schemas['Order']>>;
    };
  };
  readonly virtualAccounts: Group<typeof RESOURCES.virtualAccounts>;
  readonly deposits: Group<typeof RESOURCES.deposits>;
  readonly capabilities: Group<typeof RESOURCES.capabilities>;
  readonly sandbox: Group<typeof RESOURCES.sandbox>;

  private readonly transport: Transport;
  /** The sub-account every call acts on (Service-Account-Id), if any. */
  readonly accountId: string | undefined;

  constructor(options: CorridorOptions);
  constructor(options: CorridorOptions | Transport, accountId?: string);
  constructor(options: CorridorOptions | Transport, accountId?: string) {
    this.transport = options instanceof Transport ? options : new Transport(options);
    this.accountId = accountId;
    const t = this.transport;
    const payouts = bindGroup(t, accountId, RESOURCES.payouts);
    this.payouts = { ...payouts, create: payouts.create as PayoutsGroup['create'], createBatch: payouts.create as unknown as PayoutsGroup['createBatch'] };
    this.beneficiaries = bindGroup(t, accountId, RESOURCES.beneficiaries);
    this.fx = bindGroup(t, accountId, RESOURCES.fx);
    const applications = bindGroup(t, accountId, RESOURCES.applications);
    this.applications = {
      ...applications,
      documents: {
        ...applications.documents,
        upload: async ({ id }, input, options) => {
          const issued = await applications.documents.uploadUrl({ id }, { contentType: input.contentType, contentLength: byteLength(input.file) }, options);
          await putFile(t, issued.uploadUrl, input, options);
          const { file: _file, contentType: _type, ...register } = input;
          return applications.documents.create({ id }, { ...register, documentKey: issued.documentKey }, options);
        },
      },
    };
    this.webhooks = { ...bindGroup(t, accountId, RESOURCES.webhooks), verify: verifyWebhook, constructEvent: (rawBody, headers, secret, toleranceS) => constructEvent<CorridorEvent>(rawBody, headers, secret, toleranceS) };
    this.events = {
      ...bindGroup(t, accountId, RESOURCES.events),
      stream: <T extends EventType>(streamOptions?: StreamOptions<T>) => this.streamEvents(streamOptions) as AsyncGenerator<EventOf<T>, void, undefined>,
    };
    this.balances = bindGroup(t, accountId, RESOURCES.balances);
    this.transactions = bindGroup(t, accountId, RESOURCES.transactions);
    this.accounts = bindGroup(t, accountId, RESOURCES.accounts);
    this.requestLogs = bindGroup(t, accountId, RESOURCES.requestLogs);
    this.apiKeys = bindGroup(t, accountId, RESOURCES.apiKeys);
    const orders = bindGroup(t, accountId, RESOURCES.orders);
    this.orders = {
      ...orders,
      settlement: {
        ...orders.settlement,
        uploadProof: async ({ id }, input, options) => {
          const issued = await orders.settlement.proofUploadUrl({ id }, { contentType: input.contentType, contentLength: byteLength(input.file) }, options);
          await putFile(t, issued.uploadUrl, input, options);
          return orders.settlement.submitProof({ id }, { proofKey: issued.proofKey }, options) as Promise<WithResponse<Schemas['Order']>>;
        },
      },
    };
    this.virtualAccounts = bindGroup(t, accountId, RESOURCES.virtualAccounts);
    this.deposits = bindGroup(t, accountId, RESOURCES.deposits);
    this.capabilities = bindGroup(t, accountId, RESOURCES.capabilities);
    this.sandbox = bindGroup(t, accountId, RESOURCES.sandbox);
  }

  /** The API base address this client calls. */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** The client id of the credential this client uses. */
  get clientId(): string {
    return this.transport.clientId;
  }

  /** The same client acting on a sub-account (Service-Account-Id); it shares this client's token. */
  withAccount(subAccountId: string): Corridor {
    return new Corridor(this.transport, subAccountId);
  }

  /**
   * Any endpoint by method and path, with the same token, Idempotency-Key and retries as the method
   * groups: for endpoints newer than this SDK's tables. Resolves to the parsed JSON answer.
   */
  async request<T = unknown>(method: HttpMethod, path: string, init: { query?: Record<string, unknown>; body?: unknown; options?: RequestOptions } = {}): Promise<T> {
    const res = await this.transport.request({ method, path, query: init.query, body: init.body, options: init.options }, this.accountId);
    const text = res.status === 204 ? '' : await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The cached access token (requested when there is none or it is about to expire). */
  accessToken(): Promise<string> {
    return this.transport.accessToken();
  }

  private streamEvents(options: StreamOptions<EventType> = {}): AsyncGenerator<CorridorEvent, void, undefined> {
    return followEvents<CorridorEvent>(async (lastEventId, signal) => {
      const res = await this.transport.request(
        {
          method: 'get',
          path: '/v1/events/stream',
          query: { types: options.types?.length ? options.types.join(',') : undefined },
          options: { headers: lastEventId ? { 'last-event-id': lastEventId } : {}, ...(signal ? { signal } : {}) },
          stream: true,
        },
        this.accountId,
      );
      if (!res.body) throw new CorridorError({ status: res.status, message: 'event stream without a body', retryable: true, shape: 'network' });
      return res.body;
    }, options, () => this.transport.dropToken());
  }

  /**
   * Requests a quote and pays out with it. When the quote expires before the payout is accepted
   * (QUOTE_EXPIRED), a fresh quote is requested and the payout sent again with it, instead of
   * retrying the expired one (spec, rule 5). Each attempt is a new call with its own Idempotency-Key.
   */
  async quoteAndPay(input: QuoteAndPayInput): Promise<{ quote: Quote; payout: Awaited<ReturnType<PayoutsGroup['create']>> }> {
    const attemptsMax = input.attemptsMax ?? 3;
    for (let attempt = 1; ; attempt++) {
      const quote = (await this.fx.quotes.create(input.quote)) as Quote;
      try {
        const payout = await this.payouts.create({ ...input.payout, quoteId: quote.id } as PayoutRequest, { idempotencyKey: newIdempotencyKey() });
        return { quote, payout };
      } catch (err) {
        if (err instanceof CorridorError && err.code === 'QUOTE_EXPIRED' && attempt < attemptsMax) continue;
        throw err;
      }
    }
  }
}
