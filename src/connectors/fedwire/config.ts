import { fileExchangeSettings, Section, type FileExchangeSettings } from '../../platform/connectors-file.js';
import { isAbaRoutingNumber } from '../../platform/lib/bank-account.js';
import { toEpcLatin } from '../bank/bank.port.js';
import { FUNDS_SERVICE, minutesOf } from './calendar.js';

/**
 * The "fedwire" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses to
 * start, naming the setting):
 *
 *   { "sftp": { "host", "port", "username", "privateKeyFile", "hostKeySha256", "inbox", "outbox" },
 *     "account": { "id": "usd-wires", "name": "Corridor Payments Inc", "accountNumber": "5647772655",
 *                  "routingNumber": "011104238", "address": { "street", "buildingNumber", "postcode", "town", "subdivision", "country" } },
 *     "bankCutoff": "17:00", "cutoff": { "maxPayouts": 100, "maxSeconds": 30 }, "pollSeconds": 30,
 *     "maxFileBytes": 5242880 }
 *
 * `account` is the operator's USD account at its US bank, debited for every wire; its routing number
 * is the bank's ABA number. `bankCutoff` is the bank's own cut-off for wire files, Eastern Time (at the
 * latest the Fed's 18:00 for customer transfers). In the sandbox only, `"directory"` may stand instead
 * of `sftp` (a local folder with `in/` and `out/`).
 */
export interface FedwireAccount {
  id: string;
  name: string;
  accountNumber: string;
  routingNumber: string;
  address: FedwireAddress | undefined;
}

export interface FedwireAddress {
  street?: string | undefined;
  buildingNumber?: string | undefined;
  postcode?: string | undefined;
  town: string;
  subdivision?: string | undefined;
  country: string;
}

export interface FedwireConfig extends FileExchangeSettings {
  account: FedwireAccount;
  bankCutoff: string;
  maxFileBytes: number;
}

/** A text every wire file carries, in the EPC Latin set (a subset of what Fedwire takes) and within its field's length. */
function latin(o: Section, key: string, max: number): string {
  const converted = toEpcLatin(o.text(key));
  if (!converted.ok) o.fail(key, `${converted.reason}, which a wire file cannot carry`);
  if (converted.text.length > max) o.fail(key, `must be at most ${max} characters`);
  return converted.text;
}

const optionalLatin = (o: Section, key: string, max: number): string | undefined => (o.has(key) ? latin(o, key, max) : undefined);

function addressSection(o: Section): FedwireAddress {
  const country = o.text('country').toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) o.fail('country', 'must be an ISO 3166 country code of 2 letters');
  return {
    street: optionalLatin(o, 'street', 70),
    buildingNumber: optionalLatin(o, 'buildingNumber', 16),
    postcode: optionalLatin(o, 'postcode', 16),
    town: latin(o, 'town', 35),
    subdivision: optionalLatin(o, 'subdivision', 35),
    country,
  };
}

function accountSection(o: Section): FedwireAccount {
  const id = o.text('id');
  if (!/^[A-Za-z0-9-]{1,32}$/.test(id)) o.fail('id', 'must be 1 to 32 letters, digits or dashes');
  const accountNumber = o.text('accountNumber');
  if (!/^[0-9]{4,17}$/.test(accountNumber)) o.fail('accountNumber', 'must be 4 to 17 digits');
  const routingNumber = o.text('routingNumber');
  if (!isAbaRoutingNumber(routingNumber)) o.fail('routingNumber', 'must be a 9-digit ABA routing number with a valid check digit');
  return { id, name: latin(o, 'name', 70), accountNumber, routingNumber, address: o.has('address') ? addressSection(o.object('address')) : undefined };
}

/** The "fedwire" section as validated; throws naming the first bad setting. `env` is CORRIDOR_ENV: `directory` only in the sandbox. */
export function parseFedwireConfig(section: unknown, env = 'production'): FedwireConfig {
  const o = Section.of('fedwire', section);
  const exchange = fileExchangeSettings(o, env, { maxPayouts: 10_000, maxPayoutsDefault: 100, maxSeconds: 3_600, maxSecondsDefault: 30 });
  const bankCutoff = o.time('bankCutoff', '17:00');
  if (minutesOf(bankCutoff) > FUNDS_SERVICE.customerTransferCutoff) o.fail('bankCutoff', 'must be at the latest 18:00: the Fedwire Funds Service takes customer transfers until 18:00 ET');
  return {
    ...exchange,
    account: accountSection(o.object('account')),
    bankCutoff,
    maxFileBytes: o.integer('maxFileBytes', 1, 1024 * 1024 * 1024, 5 * 1024 * 1024),
  };
}
