import type { PaystackConfig } from './config.js';

/**
 * Paystack's API as the connector uses it (the published definition, paystack.yaml): transfer
 * recipients, transfers, their verification by reference, the balance, and account-number
 * resolution. Every answer is one of three: the provider's data; its refusal (`status: false` with a
 * message, a 4xx), which is definitive; or ambiguous (no answer, a timeout, a 5xx), after which the
 * caller does not know whether the request took effect and must look before acting again.
 */

export type Answer<T> = { kind: 'ok'; data: T } | { kind: 'refused'; status: number; message: string } | { kind: 'ambiguous'; message: string };

export interface PaystackRecipient {
  recipient_code: string;
  details?: { account_name?: string | null };
}

export interface PaystackTransfer {
  reference: string;
  transfer_code: string;
  status: string;
  amount: number;
  currency: string;
  gateway_response?: string | null;
  failures?: unknown;
}

export interface PaystackBalance {
  currency: string;
  balance: number;
}

export interface PaystackCustomer {
  id: number;
  customer_code: string;
  email: string;
}

/** A dedicated virtual account (DedicatedNubanCreateResponse, DedicatedNubanListResponseArray). */
export interface PaystackDedicatedAccount {
  id: number;
  account_name: string;
  account_number: string;
  currency: string;
  active: boolean;
  bank: { name: string; id: number; slug: string };
  customer?: { id?: number; customer_code?: string };
}

export class PaystackClient {
  constructor(private readonly config: Pick<PaystackConfig, 'baseUrl' | 'secretKey' | 'timeoutMs'>) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<T>> {
    let res: Response;
    try {
      res = await fetch(`${this.config.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.config.secretKey}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
    } catch (err) {
      return { kind: 'ambiguous', message: `${method} ${path}: no answer (${err instanceof Error ? err.message : String(err)})` };
    }
    const text = await res.text().catch(() => '');
    let json: { status?: unknown; message?: unknown; data?: unknown } | undefined;
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      json = undefined;
    }
    const message = typeof json?.message === 'string' ? json.message : text.slice(0, 200);
    if (res.status >= 500 || res.status === 429 || res.status === 408) return { kind: 'ambiguous', message: `${method} ${path}: ${res.status} ${message}` };
    if (!res.ok || json?.status !== true) return { kind: 'refused', status: res.status, message };
    return { kind: 'ok', data: json.data as T };
  }

  /** POST /transferrecipient (type nuban): a duplicate account number answers the existing recipient. */
  createRecipient(r: { name: string; accountNumber: string; bankCode: string; currency: string }): Promise<Answer<PaystackRecipient>> {
    return this.call('POST', '/transferrecipient', { type: 'nuban', name: r.name, account_number: r.accountNumber, bank_code: r.bankCode, currency: r.currency });
  }

  /** POST /transfer from the balance, with the payout's reference. */
  initiateTransfer(t: { amountMinor: bigint; recipient: string; reference: string; reason: string; currency: string }): Promise<Answer<PaystackTransfer>> {
    return this.call('POST', '/transfer', { source: 'balance', amount: Number(t.amountMinor), recipient: t.recipient, reference: t.reference, reason: t.reason, currency: t.currency });
  }

  /** GET /transfer/verify/{reference}: a 404 (refused) means Paystack has no transfer of that reference. */
  verifyTransfer(reference: string): Promise<Answer<PaystackTransfer>> {
    return this.call('GET', `/transfer/verify/${encodeURIComponent(reference)}`);
  }

  balance(): Promise<Answer<PaystackBalance[]>> {
    return this.call('GET', '/balance');
  }

  resolveAccount(accountNumber: string, bankCode: string): Promise<Answer<{ account_number: string; account_name: string }>> {
    return this.call('GET', `/bank/resolve?account_number=${encodeURIComponent(accountNumber)}&bank_code=${encodeURIComponent(bankCode)}`);
  }

  /** POST /customer: Paystack answers the existing customer for an email it knows. */
  createCustomer(c: { email: string; firstName: string; lastName: string; phone?: string | undefined }): Promise<Answer<PaystackCustomer>> {
    return this.call('POST', '/customer', { email: c.email, first_name: c.firstName, last_name: c.lastName, ...(c.phone ? { phone: c.phone } : {}) });
  }

  /** GET /dedicated_account?customer=…&currency=NGN&active=true: the customer's active NGN accounts. */
  dedicatedAccountsOf(customerId: number): Promise<Answer<PaystackDedicatedAccount[]>> {
    return this.call('GET', `/dedicated_account?customer=${customerId}&currency=NGN&active=true`);
  }

  /** POST /dedicated_account for an existing customer, at the preferred bank (its slug). */
  createDedicatedAccount(customerCode: string, preferredBank: string): Promise<Answer<PaystackDedicatedAccount>> {
    return this.call('POST', '/dedicated_account', { customer: customerCode, preferred_bank: preferredBank });
  }
}
