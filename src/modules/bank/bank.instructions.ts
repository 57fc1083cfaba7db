import type { FieldError } from '../../lib/errors.js';
import { normaliseIban } from '../corridors/account-formats.js';
import type { CreditTransfer, PostalAddress } from './pain001.js';

/**
 * What a handed-over payout becomes in a pain.001 file, and the identifiers that tie the bank's
 * answers back to it (the EndToEndId mapping, both ways: inbound/end-to-end.ts).
 */
import { endToEndIdOf } from './inbound/end-to-end.js';

export { endToEndIdOf };
export { payoutIdOfEndToEndId } from './inbound/end-to-end.js';

/** The beneficiary snapshot stored on a payout (as validated at submit), as far as a file needs it. */
export interface BeneficiarySnapshot {
  type?: string;
  name?: string | null;
  country?: string | null;
  address?: string | null;
  addressLine2?: string | null;
  city?: string | null;
  postcode?: string | null;
  countrySubdivision?: string | null;
  accounts?: { type: string; currency?: string; data?: Record<string, unknown> }[];
}

/** The snapshot's fields that make a SWIFT structured postal address, in the order they are checked. */
const STRUCTURED_ADDRESS: readonly (keyof BeneficiarySnapshot)[] = ['address', 'city', 'postcode', 'country'];
const ADDRESS_PART: Record<string, string> = { address: 'street', city: 'town', postcode: 'post code', country: 'country' };

const blank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

/**
 * SWIFT refuses unstructured-only addresses from November 2026 (CBPR+): a `swift` payout whose
 * beneficiary lacks a structured field is refused at submit, one entry naming each missing field.
 */
export function structuredAddressErrors(beneficiary: BeneficiarySnapshot, prefix = 'beneficiary.'): FieldError[] {
  return STRUCTURED_ADDRESS.filter((field) => blank(beneficiary[field])).map((field) => ({
    field: `${prefix}${field}`,
    message: `${prefix}${field} is required for a SWIFT payout: the bank sends SWIFT payments with a structured postal address (street, post code, town, country), the ${ADDRESS_PART[field]} is missing`,
    code: 'BENEFICIARY_INCOMPLETE',
  }));
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

function addressOf(b: BeneficiarySnapshot): PostalAddress | undefined {
  const country = str(b.country);
  if (!country) return undefined;
  const street = [str(b.address), str(b.addressLine2)].filter(Boolean).join(', ') || undefined;
  return { street, postcode: str(b.postcode), town: str(b.city), subdivision: str(b.countrySubdivision), country: country.toUpperCase() };
}

/** The account paid: the beneficiary's first account in the payout currency (as chosen at submit), else its first. */
function paidAccount(b: BeneficiarySnapshot, currency: string) {
  const accounts = b.accounts ?? [];
  return accounts.find((a) => a.currency === currency && (a.type === 'iban' || a.type === 'bank_account')) ?? accounts.find((a) => a.type === 'iban' || a.type === 'bank_account');
}

/** Who the payout is sent for (the sender identity), as a name, when it has one. */
export function senderName(sender: Record<string, unknown> | null | undefined): string | undefined {
  if (!sender) return undefined;
  const info = (sender.senderInfo ?? sender) as Record<string, unknown>;
  return str(info.companyName) ?? ([str(info.firstName), str(info.lastName)].filter(Boolean).join(' ') || undefined);
}

export interface TransferSource {
  id: string;
  amount: string;
  currency: string;
  beneficiary: BeneficiarySnapshot;
  sender?: Record<string, unknown> | null | undefined;
  reference?: string | null | undefined;
  uetr?: string | null | undefined;
}

/** A payout as a credit transfer; an Error when its beneficiary has no bank account a file can name. */
export function creditTransferOf(p: TransferSource): CreditTransfer {
  const account = paidAccount(p.beneficiary, p.currency);
  const data = account?.data ?? {};
  const iban = str(data.iban);
  const other = str(data.accountNumber);
  if (!iban && !other) throw new Error('the beneficiary has no IBAN or account number');
  return {
    endToEndId: endToEndIdOf(p.id),
    uetr: p.uetr ?? undefined,
    amount: p.amount,
    currency: p.currency,
    creditor: { name: str(p.beneficiary.name) ?? '', address: addressOf(p.beneficiary) },
    account: iban ? { iban: normaliseIban(iban) } : { other: other as string },
    agentBic: (str(data.bic) ?? str(data.swiftCode))?.toUpperCase(),
    remittance: str(p.reference),
    ultimateDebtor: senderName(p.sender),
  };
}
