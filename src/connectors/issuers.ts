import { createHash } from 'node:crypto';
import type { Config } from '../platform/config.js';
import type { ApprovalMode, BankDetails, IssueAnswer, IssueRequest, Issuer } from './issuer.js';

/** The currencies virtual accounts are offered in, and how each is approved. */
export const VIRTUAL_ACCOUNT_APPROVAL: Readonly<Record<string, ApprovalMode>> = {
  EUR: 'before_creation',
  GBP: 'before_creation',
  USD: 'after_creation',
  XOF: 'after_creation',
  XAF: 'after_creation',
  GHS: 'after_creation',
  NGN: 'silent',
};

export const VIRTUAL_ACCOUNT_CURRENCIES: readonly string[] = Object.keys(VIRTUAL_ACCOUNT_APPROVAL);

/** Currency families: one simulated issuer each. */
const FAMILY: Readonly<Record<string, string>> = {
  EUR: 'sepa',
  GBP: 'uk',
  USD: 'us',
  XOF: 'west_central_africa',
  XAF: 'west_central_africa',
  GHS: 'ghana',
  NGN: 'nigeria',
};

/** Deterministic digits from the owner and currency, so the same account always reads the same. */
function digits(input: IssueRequest, count: number): string {
  const hex = createHash('sha256').update(`${input.accountId}:${input.currency}`).digest('hex');
  return BigInt(`0x${hex}`).toString().slice(0, count).padStart(count, '0');
}

/** ISO 13616 check digits of an IBAN body (country code + bban). */
function iban(country: string, bban: string): string {
  const rearranged = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  const check = 98n - (BigInt(rearranged) % 97n);
  return `${country}${check.toString().padStart(2, '0')}${bban}`;
}

/** Simulated details per family: well-formed, never a real account. */
export function simulatedDetails(input: IssueRequest): BankDetails {
  const holder = { accountHolderName: input.holderName };
  switch (FAMILY[input.currency]) {
    case 'sepa':
      return { iban: iban('DE', `10000000${digits(input, 10)}`), bic: 'CORRDEFFXXX', ...holder };
    case 'uk':
      return { iban: iban('GB', `CORR040004${digits(input, 8)}`), bic: 'CORRGB2LXXX', accountNumber: digits(input, 8), bankCode: '040004', bankName: 'Corridor Sandbox Bank UK', ...holder };
    case 'us':
      return { accountNumber: digits(input, 12), bankCode: '021000021', bankName: 'Corridor Sandbox Bank NA', ...holder };
    case 'nigeria':
      return { accountNumber: digits(input, 10), bankCode: '058', bankName: 'Corridor Sandbox Bank Nigeria', ...holder };
    case 'ghana':
      return { accountNumber: digits(input, 13), bankCode: 'GH030100', bankName: 'Corridor Sandbox Bank Ghana', ...holder };
    default:
      return { accountNumber: digits(input, 12), bankCode: `${input.currency}001`, bankName: 'Corridor Sandbox Bank UEMOA-CEMAC', ...holder };
  }
}

/**
 * The sandbox issuer of one currency family. Outcomes follow the owner's name (the account holder),
 * so they can be asked for: a name containing "verify" needs more verification until the owner's
 * approved application carries a `proof_of_address` (verification passes); for EUR, GBP and NGN one containing "refuse" is refused on the request. Otherwise EUR, GBP and
 * NGN are issued at once, and XOF, XAF, GHS and USD are pending until approved or refused out of band
 * (POST /v1/sandbox/virtual-accounts/{id}/approve or /fail). Counts the calls it receives.
 */
export class SimulatedIssuer implements Issuer {
  calls = 0;

  constructor(readonly name: string) {}

  async request(input: IssueRequest): Promise<IssueAnswer> {
    this.calls += 1;
    const name = input.holderName.toLowerCase();
    const mode = VIRTUAL_ACCOUNT_APPROVAL[input.currency];
    if (name.includes('refuse') && mode !== 'after_creation') return { kind: 'refused', code: 'VIRTUAL_ACCOUNT_REFUSED', detail: 'The issuing bank refused to open the account' };
    if (name.includes('verify') && !input.documents.includes('proof_of_address')) {
      return { kind: 'refused', code: 'VIRTUAL_ACCOUNT_VERIFICATION_REQUIRED', detail: 'The issuing bank needs verification beyond the application; contact support' };
    }
    return mode === 'after_creation' ? { kind: 'pending' } : { kind: 'issued', details: simulatedDetails(input) };
  }

  detailsOnApproval(input: IssueRequest, given: BankDetails | undefined): BankDetails {
    return given ?? simulatedDetails(input);
  }
}

/**
 * Production's issuer until a bank is plugged in: every request is pending, and the operator
 * approves it (with the details the bank issued), refuses it or deactivates it. Counts its calls.
 */
export class ManualIssuer implements Issuer {
  readonly name = 'manual';
  calls = 0;

  async request(): Promise<IssueAnswer> {
    this.calls += 1;
    return { kind: 'pending' };
  }

  detailsOnApproval(input: IssueRequest, given: BankDetails | undefined): BankDetails {
    return given ?? simulatedDetails(input);
  }
}

export interface Issuers {
  /** The issuer of a currency in this environment. */
  forCurrency(currency: string): SimulatedIssuer | ManualIssuer;
  /** Calls made to every issuer so far (tests count them). */
  calls(): number;
}

const registries = new WeakMap<Config, Issuers>();

/** The issuers of one running app (one per configuration): simulated per family in the sandbox, manual in production. */
export function issuersFor(config: Config): Issuers {
  const existing = registries.get(config);
  if (existing) return existing;
  const simulated = new Map<string, SimulatedIssuer>();
  const manual = new ManualIssuer();
  const issuers: Issuers = {
    forCurrency(currency) {
      if (config.env !== 'sandbox') return manual;
      const family = FAMILY[currency] ?? 'other';
      let issuer = simulated.get(family);
      if (!issuer) simulated.set(family, (issuer = new SimulatedIssuer(`simulated_${family}`)));
      return issuer;
    },
    calls: () => manual.calls + [...simulated.values()].reduce((n, i) => n + i.calls, 0),
  };
  registries.set(config, issuers);
  return issuers;
}
