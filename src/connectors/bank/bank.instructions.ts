import type { FieldError } from '../../platform/lib/errors.js';
import { normaliseIban } from '../../platform/lib/bank-account.js';
import { toEpcLatin } from './epc-latin.js';
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

/** EEA countries and the territories that share their SEPA status: a SEPA payee elsewhere needs an address. */
const EEA = new Set('AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO GF GP MQ RE YT BL MF PM AX'.split(' '));

/** The country of the IBAN a beneficiary is paid to, if it has one. */
function ibanCountry(b: BeneficiarySnapshot): string | undefined {
  const iban = (b.accounts ?? []).map((a) => a.data?.iban).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  return iban === undefined ? undefined : normaliseIban(iban).slice(0, 2);
}

/**
 * An address a file writes has its town and country (structured and hybrid addresses alike, from
 * November 2026): a SEPA payout whose beneficiary gives part of an address, or whose IBAN is outside
 * the EEA (the address is then compulsory), is refused at submit naming each field it lacks.
 */
export function sepaAddressErrors(beneficiary: BeneficiarySnapshot, prefix = 'beneficiary.'): FieldError[] {
  const outsideEea = !EEA.has(ibanCountry(beneficiary) ?? 'DE');
  const partial = !blank(beneficiary.address) || !blank(beneficiary.addressLine2) || !blank(beneficiary.postcode);
  if (!outsideEea && !partial) return [];
  const why = outsideEea ? 'a SEPA payee outside the EEA is paid with its address' : 'an address is written with its town and country';
  return (['city', 'country'] as const)
    .filter((field) => blank(beneficiary[field]))
    .map((field) => ({ field: `${prefix}${field}`, message: `${prefix}${field} is required for this bank payout: ${why}`, code: 'BENEFICIARY_INCOMPLETE' }));
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** The street as written: the address and its second line, joined. */
const streetOf = (b: BeneficiarySnapshot): string | undefined => [str(b.address), str(b.addressLine2)].filter(Boolean).join(', ') || undefined;

/** The sender's parts that make its name (the ultimate debtor), by field. */
function senderParts(sender: Record<string, unknown> | null | undefined): { field: string; value: string }[] {
  if (!sender) return [];
  const info = (sender.senderInfo ?? sender) as Record<string, unknown>;
  const company = str(info.companyName);
  if (company) return [{ field: 'companyName', value: company }];
  return (['firstName', 'lastName'] as const).flatMap((field) => {
    const value = str(info[field]);
    return value ? [{ field, value }] : [];
  });
}

/** Who the payout is sent for (the sender identity), as a name, when it has one. */
export function senderName(sender: Record<string, unknown> | null | undefined): string | undefined {
  return senderParts(sender).map((p) => p.value).join(' ') || undefined;
}

/** The payout's text as a payout request carries it: the beneficiary snapshot, the reference, the sender. */
export interface PayoutTexts {
  beneficiary: BeneficiarySnapshot;
  reference?: string | null | undefined;
  sender?: Record<string, unknown> | null | undefined;
}

/** One text of a file, with the request field it comes from and the longest the file takes (after conversion). */
interface TextField {
  field: string;
  value: string;
  max: number;
  code: string;
}

const RECIPIENT = 'RECIPIENT_DETAILS_INVALID';
const SENDER = 'SENDER_INFO_INVALID';

/**
 * The texts a file writes of a payout, by request field. Names stop at 70 characters on the bank rails
 * (EPC and CBPR+ Max70Text, and what Verification of Payee compares): a longer name is refused, never cut.
 */
function textFields(p: PayoutTexts, prefix: string): TextField[] {
  const b = p.beneficiary;
  const fields: TextField[] = [];
  const add = (field: string, value: string | undefined, max: number, code = RECIPIENT) => {
    if (value !== undefined) fields.push({ field, value, max, code });
  };
  add(`${prefix}name`, str(b.name), 70);
  add(`${prefix}address`, str(b.address), 70);
  add(`${prefix}addressLine2`, str(b.addressLine2), 70);
  add(`${prefix}city`, str(b.city), 35);
  add(`${prefix}postcode`, str(b.postcode), 16);
  add(`${prefix}countrySubdivision`, str(b.countrySubdivision), 35);
  add('reference', str(p.reference), 140);
  const parts = senderParts(p.sender);
  for (const part of parts) add(`senderInfo.${part.field}`, part.value, 70, SENDER);
  return fields;
}

/** A text converted to the EPC Latin set, or the field error saying why it cannot be written. */
function convertField(f: TextField): { text: string } | FieldError {
  const converted = toEpcLatin(f.value);
  if (!converted.ok) {
    return { field: f.field, message: `${f.field} ${converted.reason}, which a bank file cannot carry: use letters, digits, spaces and common punctuation`, code: f.code };
  }
  if (converted.text.length > f.max) {
    return { field: f.field, message: `${f.field} is ${converted.text.length} characters as the bank writes it; a bank payout takes at most ${f.max}`, code: f.code };
  }
  return { text: converted.text };
}

/**
 * What a bank file cannot carry of a payout, one entry naming each field: characters with no
 * Latin equivalent (control characters, U+FFFF, emoji…) and texts longer than the file's field once
 * converted to the EPC Latin set (epc-latin.ts). The sender's name is checked as a whole too.
 */
export function textErrors(p: PayoutTexts, prefix = 'beneficiary.'): FieldError[] {
  const errors = textFields(p, prefix).flatMap((f) => {
    const r = convertField(f);
    return 'text' in r ? [] : [r];
  });
  if (errors.length > 0) return errors;
  // Texts the file writes joined, each part fine alone: their whole must fit too.
  const b = p.beneficiary;
  const parts = senderParts(p.sender);
  const joined = [
    { field: `${prefix}addressLine2`, value: str(b.address) && str(b.addressLine2) ? streetOf(b) : undefined, code: RECIPIENT, what: 'the address and its second line together' },
    { field: `senderInfo.${parts[parts.length - 1]?.field}`, value: parts.length > 1 ? senderName(p.sender) : undefined, code: SENDER, what: "the sender's first and last name together" },
  ];
  for (const j of joined) {
    const whole = j.value === undefined ? undefined : toEpcLatin(j.value);
    if (whole?.ok && whole.text.length > 70) errors.push({ field: j.field, message: `${j.field}: ${j.what} are ${whole.text.length} characters as the bank writes them; a bank payout takes at most 70`, code: j.code });
  }
  return errors;
}

/** The text in the EPC Latin set; throws, naming the field, what the file cannot carry (the payout is then held alone). */
function latin(field: string, value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  const r = convertField({ field, value, max, code: RECIPIENT });
  if ('text' in r) return r.text;
  throw new Error(r.message);
}

/** The beneficiary's address as written: never without its town and country. */
function addressOf(b: BeneficiarySnapshot): PostalAddress | undefined {
  const country = str(b.country);
  if (!country || !str(b.city)) return undefined;
  return {
    street: latin('beneficiary.address', streetOf(b), 70),
    postcode: latin('beneficiary.postcode', str(b.postcode), 16),
    town: latin('beneficiary.city', str(b.city), 35),
    subdivision: latin('beneficiary.countrySubdivision', str(b.countrySubdivision), 35),
    country: country.toUpperCase(),
  };
}

/** The account paid: the beneficiary's first account in the payout currency (as chosen at submit), else its first. */
function paidAccount(b: BeneficiarySnapshot, currency: string) {
  const accounts = b.accounts ?? [];
  return accounts.find((a) => a.currency === currency && (a.type === 'iban' || a.type === 'bank_account')) ?? accounts.find((a) => a.type === 'iban' || a.type === 'bank_account');
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

/**
 * A payout as a credit transfer, its texts in the EPC Latin set; an Error (the payout is held, alone)
 * when its beneficiary has no bank account a file can name or a text the file cannot carry.
 */
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
    creditor: { name: latin('beneficiary.name', str(p.beneficiary.name), 70) ?? '', address: addressOf(p.beneficiary) },
    account: iban ? { iban: normaliseIban(iban) } : { other: other as string },
    agentBic: (str(data.bic) ?? str(data.swiftCode))?.toUpperCase(),
    remittance: latin('reference', str(p.reference), 140),
    ultimateDebtor: latin('senderInfo', senderName(p.sender), 70),
  };
}
