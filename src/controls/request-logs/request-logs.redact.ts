import { REDACTED } from '../../platform/lib/log-safety.js';

/**
 * What a request log keeps of a body: its shape, amounts, currencies, ids, statuses and references,
 * never a secret nor personal data. A field whose name says it holds either (compared in lower case
 * without `-` and `_`) is replaced whole, whatever it holds; any other string that looks like a
 * credential, an e-mail address or an IBAN is replaced too.
 */
const SECRET_NAME = /secret|password|passphrase|token|apikey|privatekey|credential|signature|mnemonic|xpub|otp|authorization|cookie|^key$|documentkey/;
const PERSONAL_NAME =
  /^(name|firstname|lastname|middlename|fullname|legalname|registeredname|tradingname|accountholder|accountholdername|holdername|email|phone|phonenumber|mobile|address|addressline1|addressline2|line1|line2|street|city|postcode|postalcode|zip|zipcode|state|region|dateofbirth|dob|birthdate|nationalid|passportnumber|taxid|vatnumber|ssn|iban|accountnumber|routingnumber|sortcode|bsb|ifsc|clabe|cardnumber|ip|ipaddress|walletaddress|title|reason|remittanceinformation|memo|description|notes|note)$/;

const JWS_LIKE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const CREDENTIAL_VALUE = /^(whsec_|sk_|cor_sec_|Bearer\s)/i;
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/;
const IBAN = /^[A-Z]{2}\d{2}[A-Z0-9 ]{11,40}$/;
const DEPTH_MAX = 12;

const plain = (name: string): string => name.toLowerCase().replace(/[-_]/g, '');

export function isRedactedName(name: string): boolean {
  const n = plain(name);
  return SECRET_NAME.test(n) || PERSONAL_NAME.test(n);
}

/** Longer strings are not searched (the unanchored e-mail pattern is quadratic in the length): they are replaced whole. */
const SEARCHED_CHARS_MAX = 1_000;

function redactString(value: string): string {
  if (value.length > SEARCHED_CHARS_MAX) return REDACTED;
  return JWS_LIKE.test(value) || CREDENTIAL_VALUE.test(value) || EMAIL.test(value) || IBAN.test(value.toUpperCase()) ? REDACTED : value;
}

/** A redacted deep copy of a parsed JSON body. */
export function redactBody(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= DEPTH_MAX) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactBody(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = isRedactedName(k) && v !== null ? REDACTED : redactBody(v, depth + 1);
  return out;
}
