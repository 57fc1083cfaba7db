/**
 * The corridor table of the docs, generated from the catalog itself: one row per provider and
 * currency with its route, countries, accounts, recipient fields, name rules, amount bounds and
 * whether senderInfo is required. Rendered as Markdown (the OpenAPI description of the requirements
 * operation) and as HTML (GET /docs/corridors).
 */
import { CATALOG, type Provider } from './catalog.js';
import { requiredRecipientFields } from './recipient-validation.js';

export interface CorridorRow {
  currency: string;
  route: string;
  provider: string;
  defaultRouting: boolean;
  countries: string;
  accounts: string;
  individualRequired: string;
  businessRequired: string;
  nameRules: string;
  minAmount: string;
  maxAmount: string;
  senderInfoRequired: boolean;
}

const list = (items: readonly string[]): string => (items.length ? items.join(', ') : '—');

function accountsOf(provider: Provider): string {
  const parts: string[] = [];
  const { iban, bank_account: bank, mobile_money: momo, crypto } = provider.accounts;
  if (iban) parts.push(iban.bic === 'required' ? 'iban (iban, bic)' : 'iban (iban, bic?)');
  if (bank) parts.push(`bank_account (${bank.fields.map((f) => (f.required ? f.key : `${f.key}?`)).join(', ')})`);
  if (momo) parts.push(`mobile_money (phoneNumber, network: ${Object.entries(momo.networks).map(([c, n]) => `${c} ${n.join('/')}`).join('; ')})`);
  if (crypto) parts.push(`crypto (address, network: ${Object.entries(crypto.networks).map(([c, n]) => `${c} ${n.join('/')}`).join('; ')})`);
  return parts.join('; ');
}

function rulesOf(provider: Provider): string {
  if (!provider.submitValidators.includes('name_rules')) return 'none at submit';
  const individual = provider.recipient.individual.rules.map((r) => r.description);
  const business = provider.recipient.business.rules.map((r) => r.description);
  const parts = [];
  if (individual.length) parts.push(`individual: ${individual.join('; ')}`);
  if (business.length) parts.push(`business: ${business.join('; ')}`);
  return parts.length ? parts.join(' / ') : '—';
}

/** Every corridor of the catalog, sorted by currency then route. */
export function corridorRows(catalog: readonly Provider[] = CATALOG): CorridorRow[] {
  const rows = catalog.flatMap((p) =>
    Object.entries(p.amounts).map(([currency, bounds]) => ({
      currency,
      route: p.route,
      provider: p.id,
      defaultRouting: p.defaultRouting,
      countries: p.countries === 'any' ? 'any' : p.countries.join(' '),
      accounts: accountsOf(p),
      individualRequired:
        list(requiredRecipientFields(p, 'individual', true)) + (p.travelRule ? ' (dateOfBirth while Travel Rule screening is on)' : ''),
      businessRequired: list(requiredRecipientFields(p, 'business', true)),
      nameRules: rulesOf(p),
      minAmount: bounds.min,
      maxAmount: bounds.max ?? 'no cap',
      senderInfoRequired: p.sender.senderInfoRequired,
    })),
  );
  return rows.sort((a, b) => a.currency.localeCompare(b.currency) || a.route.localeCompare(b.route));
}

const HEADERS = [
  'Currency',
  'Route',
  'Provider',
  'Default routing',
  'Countries',
  'Accounts',
  'Individual requires',
  'Business requires',
  'Name rules',
  'Min',
  'Max',
  'senderInfo required',
];

function cells(row: CorridorRow): string[] {
  return [
    row.currency,
    row.route,
    row.provider,
    row.defaultRouting ? 'yes' : 'no',
    row.countries,
    row.accounts,
    row.individualRequired,
    row.businessRequired,
    row.nameRules,
    row.minAmount,
    row.maxAmount,
    row.senderInfoRequired ? 'yes' : 'no',
  ];
}

export function corridorTableMarkdown(catalog: readonly Provider[] = CATALOG): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|');
  const lines = [`| ${HEADERS.join(' | ')} |`, `|${HEADERS.map(() => '---').join('|')}|`];
  for (const row of corridorRows(catalog)) lines.push(`| ${cells(row).map(escape).join(' | ')} |`);
  return lines.join('\n');
}

const html = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function corridorTableHtml(catalog: readonly Provider[] = CATALOG): string {
  const head = HEADERS.map((h) => `<th>${html(h)}</th>`).join('');
  const body = corridorRows(catalog)
    .map((row) => `<tr>${cells(row).map((c) => `<td>${html(c)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Corridor: payout corridors</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:4px 6px;vertical-align:top;text-align:left}th{background:#f4f4f4}</style>
</head><body>
<h1>Payout corridors</h1>
<p>Generated from the corridor catalog. Amounts are decimal strings in major units. GET /v2/payouts/requirements answers the same data per currency, route and country. EUR and GBP payouts sent without a route go to iban accounts over the auto-routed providers and are reported as route <code>international</code>.</p>
<table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table>
</body></html>
`;
}
