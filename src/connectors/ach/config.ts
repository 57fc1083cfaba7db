import { fileExchangeSettings, Section, type FileExchangeSettings } from '../../platform/connectors-file.js';
import { isAbaRoutingNumber } from '../../platform/lib/bank-account.js';
import type { AchCalendar } from './calendar.js';

/**
 * The "ach" section of CORRIDOR_CONNECTORS_FILE, validated at start (a bad section refuses to start,
 * naming the setting):
 *
 *   { "sftp": { "host", "port", "username", "privateKeyFile", "hostKeySha256", "inbox": "/in", "outbox": "/out" },
 *     "odfi": { "routingNumber": "121042882", "name": "MY BANK", "origin": " 121042882" },
 *     "originator": { "name": "CORRIDOR PAYMENTS", "companyId": "1234567890" },
 *     "balanced": { "accountNumber": "987654321", "accountType": "checking" },
 *     "calendar": { "timeZone": "America/New_York", "sameDayCutoffs": ["10:00", "14:00"], "nextDayCutoff": "18:00" },
 *     "cutoff": { "maxPayouts": 5000, "maxSeconds": 60 }, "pollSeconds": 30, "description": "PAYOUT",
 *     "statementAccounts": [{ "id": "usd-ach", "accountNumber": "10200123456" }], "settlementAccount": "usd-ach" }
 *
 * `balanced` (absent: unbalanced files, as most ODFIs want) makes every batch end with one debit to
 * the originator's settlement account for its credits. In the sandbox only, `"directory": "<path>"`
 * may stand instead of `sftp`: files go to `<path>/in` and come back from `<path>/out` (the sandbox
 * ACH bank, sandbox.ts, answers there).
 */
export interface AchConfig extends FileExchangeSettings {
  odfi: { routingNumber: string; name: string; origin: string };
  originator: { name: string; companyId: string };
  balanced: { accountNumber: string; accountType: 'checking' | 'savings' } | undefined;
  calendar: AchCalendar;
  description: string;
  /** The operator's accounts at the ODFI whose BAI2 statements are reconciled: Corridor's name for each (`id`) and the account number the reports carry. */
  statementAccounts: { id: string; accountNumber: string }[];
  /**
   * The statement account the ODFI settles Corridor's files on (`settlementAccount`, an id of
   * `statementAccounts`; the only one when there is one): each file's batch totals are booked there as
   * debits on their effective dates, and returns as credits, so its BAI2 statement reconciles.
   */
  settlementAccount: string | undefined;
}

/** Printable ASCII of at most `max` characters: NACHA files carry no other characters. */
function ascii(o: Section, key: string, max: number, fallback?: string): string {
  const value = o.text(key, fallback);
  if (!/^[ -~]+$/.test(value)) o.fail(key, 'must be printable ASCII (NACHA files carry no other characters)');
  if (value.length > max) o.fail(key, `must be at most ${max} characters`);
  return value;
}

function calendarSection(o: Section): AchCalendar {
  const timeZone = o.timeZone('timeZone', 'America/New_York');
  const sameDayCutoffs = o.times('sameDayCutoffs', ['10:30', '14:45']);
  const nextDayCutoff = o.time('nextDayCutoff', '20:00');
  if (sameDayCutoffs.some((t) => t >= nextDayCutoff)) o.fail('sameDayCutoffs', `must all be before ${o.path}.nextDayCutoff`);
  return { timeZone, sameDayCutoffs, nextDayCutoff };
}

/** `statementAccounts`: [{ "id": "usd-ach", "accountNumber": "10200123456" }], the accounts whose BAI2 reports are reconciled. */
function statementAccounts(o: Section): AchConfig['statementAccounts'] {
  const seen = new Set<string>();
  return o.objects('statementAccounts').map((a) => {
    const id = a.text('id');
    if (!/^[A-Za-z0-9-]{1,32}$/.test(id)) a.fail('id', 'must be 1 to 32 letters, digits or dashes');
    if (seen.has(id)) a.fail('id', `repeats "${id}"`);
    seen.add(id);
    const accountNumber = a.text('accountNumber');
    if (!/^[A-Za-z0-9-]{1,35}$/.test(accountNumber)) a.fail('accountNumber', 'must be the account number as the BAI2 reports carry it (letters, digits, dashes)');
    return { id, accountNumber };
  });
}

/** The "ach" section as validated; throws naming the first bad setting. `directory` (the sandbox ACH bank) is refused outside the sandbox. */
export function parseAchConfig(section: unknown, env = 'production'): AchConfig {
  const o = Section.of('ach', section);
  const exchange = fileExchangeSettings(o, env, { maxPayouts: 100_000, maxPayoutsDefault: 5000, maxSeconds: 86_400, maxSecondsDefault: 60 });
  const odfi = o.object('odfi');
  const routingNumber = odfi.text('routingNumber');
  if (!isAbaRoutingNumber(routingNumber)) odfi.fail('routingNumber', 'must be a 9-digit ABA routing number with its check digit');
  // The immediate origin is 10 characters: a routing number goes with a leading blank.
  const origin = ascii(odfi, 'origin', 10, routingNumber);
  const originator = o.object('originator');
  let balanced: AchConfig['balanced'];
  if (o.has('balanced')) {
    const b = o.object('balanced');
    const accountNumber = b.text('accountNumber');
    if (!/^[0-9]{4,17}$/.test(accountNumber)) b.fail('accountNumber', 'must be 4 to 17 digits');
    balanced = { accountNumber, accountType: b.oneOf('accountType', ['checking', 'savings'], 'checking') };
  }
  const accounts = o.has('statementAccounts') ? statementAccounts(o) : [];
  let settlementAccount = accounts.length === 1 ? accounts[0]?.id : undefined;
  if (o.has('settlementAccount')) {
    settlementAccount = o.text('settlementAccount');
    if (!accounts.some((a) => a.id === settlementAccount)) o.fail('settlementAccount', 'must be the id of one of the statementAccounts');
  }
  return {
    ...exchange,
    odfi: { routingNumber, name: ascii(odfi, 'name', 23), origin: /^[0-9]{9}$/.test(origin) ? ` ${origin}` : origin },
    originator: { name: ascii(originator, 'name', 16), companyId: ascii(originator, 'companyId', 10) },
    balanced,
    calendar: calendarSection(o.object('calendar', { optional: true })),
    description: ascii(o, 'description', 10, 'PAYOUT'),
    statementAccounts: accounts,
    settlementAccount,
  };
}
