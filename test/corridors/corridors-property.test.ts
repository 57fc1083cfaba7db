import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CATALOG,
  catalogCurrencies,
  findProviders,
  payoutRequirements,
  validateRecipient,
  type AccountType,
  type Recipient,
  type RecipientField,
  type RecipientType,
} from '../../src/domains/corridors/index.js';
import { validAccount } from '../helpers/corridor-fixtures.js';

/** Names: mostly plain "First Last", sometimes anything (accents, other scripts, one word, long, stray spaces). */
const word = fc.stringMatching(/^[A-Z][a-z]{1,8}$/);
const nameArb = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(word, word).map(([a, b]) => `${a} ${b}`) },
  { weight: 1, arbitrary: fc.tuple(word, word, word).map((parts) => parts.join(' ')) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z\u00C0-\u00FF' .-]{2,80}$/) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 2, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('Madonna', 'Zoë Ωmega', ' Ada Lovelace', 'Ada  Lovelace', 'José Ñúñez') },
);
const text = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ,.-]{0,30}$/);
const dateOfBirth = fc.date({ min: new Date('1930-01-01T00:00:00Z'), max: new Date('2005-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));

/**
 * A beneficiary satisfying the combined requirements of `currency` for `type`: every required field
 * present, each optional field present or not, and a name fitting every rule (others are discarded).
 */
function satisfying(currency: string, type: RecipientType, travelRuleScreening: boolean) {
  const fields = payoutRequirements({ currency, travelRuleScreening }).beneficiary[type];
  const value = (field: RecipientField) => (field === 'dateOfBirth' ? dateOfBirth : field === 'email' ? fc.emailAddress() : text);
  const required = fc.record(Object.fromEntries(fields.required.map((f) => [f, value(f)])));
  const optional = fc.record(Object.fromEntries(fields.optional.map((f) => [f, value(f)])), { requiredKeys: [] });
  return fc.record({ name: nameArb, required, optional }).filter(({ name }) => name.trim().length >= 2 && fields.rules.every((r) => new RegExp(r.pattern).test(name)));
}

/** Every default-routed provider of the currency, each with the account types it pays. */
function defaultRouted(currency: string) {
  return findProviders({ currency }).filter((p) => p.defaultRouting);
}

describe('combined payout requirements (property)', () => {
  const currencies = catalogCurrencies(CATALOG);

  it('covers every currency with at least one default-routed rail', () => {
    for (const currency of currencies) expect(defaultRouted(currency).length, currency).toBeGreaterThan(0);
  });

  it.each(currencies)('any beneficiary satisfying the combined requirements of %s is accepted by every default-routed rail of it', (currency) => {
    const providers = defaultRouted(currency);
    fc.assert(
      fc.property(fc.constantFrom<RecipientType>('individual', 'business'), fc.boolean(), (type, screening) => {
        fc.assert(
          fc.property(satisfying(currency, type, screening), ({ name, required, optional }) => {
            for (const provider of providers) {
              for (const accountType of Object.keys(provider.accounts) as AccountType[]) {
                const { account, country } = validAccount(provider, currency, accountType);
                const recipient: Recipient = { type, name, country, ...optional, ...required, accounts: [account] };
                const errors = validateRecipient(recipient, { currency, route: provider.route, provider, travelRule: screening });
                expect(errors, `${provider.id} ${accountType} ${JSON.stringify(recipient)}`).toEqual([]);
              }
            }
          }),
          { numRuns: 25 },
        );
      }),
      { numRuns: 4 },
    );
  });

  it('is not vacuous: a name breaking a combined rule is refused by a rail applying it', () => {
    const global = CATALOG.find((p) => p.id === 'sim-swift-global');
    if (!global) throw new Error('no global SWIFT provider');
    const rules = payoutRequirements({ currency: 'USD', travelRuleScreening: true }).beneficiary.individual.rules;
    expect(rules.some((r) => !new RegExp(r.pattern).test('Madonna'))).toBe(true);
    const { account, country } = validAccount(global, 'USD', 'bank_account');
    const recipient: Recipient = { type: 'individual', name: 'Madonna', country, address: 'a', city: 'b', postcode: 'c', accounts: [account] };
    expect(validateRecipient(recipient, { currency: 'USD', route: 'swift', provider: global })[0]?.code).toBe('MISSING_BENEFICIARY_NAME');
  });
});
