import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURRENCY_CODES } from '../../src/platform/lib/currencies.js';
import {
  CATALOG,
  ROUTES,
  amountBounds,
  findProviders,
  payoutRequirements,
  reportedRoute,
  selectProvider,
  withinBounds,
  type Provider,
} from '../../src/domains/corridors/index.js';
import { parseAmount } from '../../src/platform/lib/money.js';
import { createTestApp, newWorkspace, operator, type Caller, type TestApp } from '../helpers/app.js';
import { IBANS, mobileNumber } from '../helpers/corridor-fixtures.js';

let t: TestApp;
let caller: Caller;

beforeAll(async () => {
  t = await createTestApp();
  caller = await newWorkspace(t.app);
});
afterAll(async () => t.close());

interface Fields {
  required: string[];
  optional: string[];
  rules: { field: string; pattern: string; description: string }[];
}
interface Requirements {
  beneficiary: { individual: Fields; business: Fields };
  sender: { individual: { required: string[]; optional: string[] }; business: { required: string[]; optional: string[] }; senderInfoRequired: boolean };
}

async function requirements(query: string, c: Caller = caller): Promise<Requirements> {
  const res = await c.request('GET', `/v2/payouts/requirements?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Requirements>();
}

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: <T>() => T }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = res.json<{ code: string; detail: string; errors?: { field: string }[] }>();
  expect(body.code).toBe(code);
  return body;
}

const byId = (id: string): Provider => CATALOG.find((p) => p.id === id) as Provider;

describe('the corridor catalog', () => {
  it('serves every route of the spec and every currency', () => {
    expect(new Set(CATALOG.map((p) => p.route))).toEqual(new Set(ROUTES));
    for (const currency of CURRENCY_CODES) expect(findProviders({ currency }).length, currency).toBeGreaterThan(0);
  });

  it('has at least two SWIFT providers with different name rules, told apart by country', () => {
    const swift = CATALOG.filter((p) => p.route === 'swift' && p.defaultRouting);
    expect(swift.length).toBeGreaterThanOrEqual(2);
    const rules = swift.map((p) => JSON.stringify(p.recipient.individual.rules));
    expect(new Set(rules).size).toBe(swift.length);
    for (const a of swift) for (const b of swift) if (a !== b) expect((a.countries as string[]).filter((c) => (b.countries as string[]).includes(c))).toEqual([]);
  });

  it('pays mobile money into several countries within the spec bounds (XOF 200–2,000,000, XAF 500–1,000,000, GHS 5–50,000)', () => {
    const momo = CATALOG.filter((p) => p.route === 'mobile_money');
    expect(new Set(momo.flatMap((p) => p.countries as string[])).size).toBeGreaterThanOrEqual(5);
    for (const [currency, min, max] of [
      ['XOF', '200', '2000000'],
      ['XAF', '500', '1000000'],
      ['GHS', '5', '50000'],
    ] as const) {
      const providers = findProviders({ currency, route: 'mobile_money' });
      expect(providers.length).toBeGreaterThan(0);
      for (const p of providers) {
        expect(parseAmount(amountBounds(p, currency).min, currency, 'min')).toBe(parseAmount(min, currency, 'min'));
        expect(parseAmount(amountBounds(p, currency).max, currency, 'max')).toBe(parseAmount(max, currency, 'max'));
        const scale = currency === 'GHS' ? 100n : 1n;
        expect(withinBounds(p, currency, BigInt(min) * scale)).toBe(true);
        expect(withinBounds(p, currency, BigInt(min) * scale - 1n)).toBe(false);
        expect(withinBounds(p, currency, BigInt(max) * scale)).toBe(true);
        expect(withinBounds(p, currency, BigInt(max) * scale + 1n)).toBe(false);
      }
    }
  });

  it('requires senderInfo (with the sender phone) on mobile money into Cameroon only', () => {
    const cameroon = findProviders({ currency: 'XAF', route: 'mobile_money', country: 'CM' });
    expect(cameroon.map((p) => p.sender.senderInfoRequired)).toEqual([true]);
    expect(cameroon[0]?.sender.individual.required).toContain('phoneNumber');
    expect(findProviders({ currency: 'XAF', route: 'mobile_money', country: 'GA' }).every((p) => !p.sender.senderInfoRequired)).toBe(true);
  });

  it('pays USDC and USDT on several networks under the Travel Rule', () => {
    const crypto = findProviders({ currency: 'USDT', route: 'crypto' });
    expect(crypto.flatMap((p) => p.accounts.crypto?.networks.USDT ?? [])).toEqual(expect.arrayContaining(['ethereum', 'tron', 'polygon', 'solana']));
    expect(findProviders({ currency: 'USDC', route: 'crypto' }).flatMap((p) => p.accounts.crypto?.networks.USDC ?? []).length).toBeGreaterThanOrEqual(3);
    expect(crypto.every((p) => p.travelRule)).toBe(true);
  });

  it('gives every provider valid patterns, bounds in major units and fields within the allowed lists', () => {
    for (const p of CATALOG) {
      for (const type of ['individual', 'business'] as const) {
        for (const rule of p.recipient[type].rules) expect(() => new RegExp(rule.pattern)).not.toThrow();
        expect(p.recipient[type].required.filter((f) => p.recipient[type].optional.includes(f))).toEqual([]);
      }
      expect(p.recipient.business.optional).not.toContain('dateOfBirth');
      expect(p.sender.business.required).not.toContain('dateOfBirth');
      for (const [currency, bounds] of Object.entries(p.amounts)) {
        const min = parseAmount(bounds.min, currency, 'min');
        if (bounds.max !== undefined) expect(parseAmount(bounds.max, currency, 'max') > min).toBe(true);
      }
    }
  });

  it('auto-routes EUR and GBP to iban accounts and reports the route as international', () => {
    const account = { type: 'iban', currency: 'EUR', data: { iban: IBANS.DE } };
    const sepa = selectProvider({ currency: 'EUR', account });
    expect(sepa?.id).toBe('sim-sepa-instant');
    expect(reportedRoute(sepa as Provider, undefined)).toBe('international');
    expect(reportedRoute(sepa as Provider, 'sepa_inst')).toBe('sepa_inst');
    // above the SEPA Instant cap: SEPA Credit
    expect(selectProvider({ currency: 'EUR', account, amountMinor: 100_000_01n })?.id).toBe('sim-sepa-credit');
    // an IBAN outside SEPA: SWIFT
    expect(selectProvider({ currency: 'EUR', account: { type: 'iban', currency: 'EUR', data: { iban: IBANS.TR } } })?.id).toBe('sim-swift-europe');
    expect(selectProvider({ currency: 'GBP', account: { type: 'iban', currency: 'GBP', data: { iban: IBANS.GB } } })?.id).toBe('sim-uk-faster-payments');
    // without route EUR/GBP pay iban accounts only
    expect(selectProvider({ currency: 'GBP', account: { type: 'bank_account', currency: 'GBP', country: 'GB', data: {} } })).toBeUndefined();
    expect(selectProvider({ currency: 'GBP', route: 'bank_transfer', account: { type: 'bank_account', currency: 'GBP', country: 'GB', data: {} } })?.id).toBe(
      'sim-uk-faster-payments',
    );
  });

  it('pays a rail served only outside default routing with its provider', () => {
    const gh = selectProvider({ currency: 'GHS', route: 'bank_transfer', account: { type: 'bank_account', currency: 'GHS', country: 'GH', data: {} } });
    expect(gh?.id).toBe('sim-gh-ghipss');
    expect(gh?.defaultRouting).toBe(false);
  });
});

describe('GET /v2/payouts/requirements', () => {
  it('answers one corridor: sender and recipient lists, and the rules checked at submit', async () => {
    const body = await requirements('currency=EUR&route=sepa_inst');
    expect(body).toEqual({
      beneficiary: {
        individual: {
          required: [],
          optional: ['email', 'address', 'addressLine2', 'city', 'postcode', 'countrySubdivision', 'dateOfBirth'],
          rules: [
            {
              field: 'name',
              pattern: '^\\S+(?:\\s+\\S+)+$',
              description: 'First and last name separated by a space, with no leading or trailing space',
            },
          ],
        },
        business: { required: [], optional: ['email', 'address', 'addressLine2', 'city', 'postcode', 'countrySubdivision'], rules: [] },
      },
      sender: {
        individual: { required: ['firstName', 'lastName', 'country'], optional: ['dateOfBirth', 'address', 'postalCode', 'city', 'phoneNumber', 'fundOrigin', 'gender'] },
        business: { required: ['companyName', 'country'], optional: ['registrationNumber', 'address', 'postalCode', 'city', 'phoneNumber', 'fundOrigin'] },
        senderInfoRequired: false,
      },
    });
  });

  it('combines every rail of the currency without route, so it satisfies the most demanding one', async () => {
    const combined = await requirements('currency=USD');
    const rails = await Promise.all(['ach', 'fedwire', 'swift'].map((route) => requirements(`currency=USD&route=${route}`)));
    for (const type of ['individual', 'business'] as const) {
      const c = combined.beneficiary[type];
      const required = new Set(rails.flatMap((r) => r.beneficiary[type].required));
      expect(new Set(c.required)).toEqual(required);
      expect(new Set(c.optional)).toEqual(new Set(rails.flatMap((r) => r.beneficiary[type].optional).filter((f) => !required.has(f))));
      expect(new Set(c.rules.map((r) => r.pattern))).toEqual(new Set(rails.flatMap((r) => r.beneficiary[type].rules.map((x) => x.pattern))));
      expect(c.required.filter((f) => c.optional.includes(f))).toEqual([]);
      const senderRequired = new Set(rails.flatMap((r) => r.sender[type].required));
      expect(new Set(combined.sender[type].required)).toEqual(senderRequired);
    }
    expect(combined.beneficiary.individual.required).toEqual(['address', 'city', 'postcode', 'countrySubdivision']);
  });

  it('combines the SWIFT providers without country and answers the paying provider with one', async () => {
    const all = await requirements('currency=USD&route=swift');
    const europe = await requirements('currency=USD&route=swift&country=DE');
    const global = await requirements('currency=usd&route=swift&country=ae');
    expect(europe.beneficiary.individual.rules.map((r) => r.pattern)).toEqual(byId('sim-swift-europe').recipient.individual.rules.map((r) => r.pattern));
    expect(global.beneficiary.individual.rules.map((r) => r.pattern)).toEqual(byId('sim-swift-global').recipient.individual.rules.map((r) => r.pattern));
    expect(europe.beneficiary.individual.rules).not.toEqual(global.beneficiary.individual.rules);
    expect(all.beneficiary.individual.rules.length).toBe(3);
    expect(europe.beneficiary.individual.required).toEqual(['address', 'city']);
    expect(global.beneficiary.individual.required).toEqual(['address', 'city', 'postcode']);
    expect(all.beneficiary.individual.required).toEqual(['address', 'city', 'postcode']);
  });

  it('takes the destination country on mobile money: Cameroon needs senderInfo with the sender phone', async () => {
    const cameroon = await requirements('currency=XAF&route=mobile_money&country=CM');
    expect(cameroon.sender.senderInfoRequired).toBe(true);
    expect(cameroon.sender.individual.required).toContain('phoneNumber');
    expect(cameroon.sender.business.required).toContain('phoneNumber');
    const gabon = await requirements('currency=XAF&route=mobile_money&country=GA');
    expect(gabon.sender.senderInfoRequired).toBe(false);
    expect(gabon.beneficiary.individual.rules).toEqual([]);
    // combined over XAF: the most demanding wins
    expect((await requirements('currency=XAF')).sender.senderInfoRequired).toBe(true);
    expect((await requirements('currency=XAF&route=mobile_money')).sender.senderInfoRequired).toBe(true);
  });

  it('ignores country on other rails and without route', async () => {
    expect(await requirements('currency=USD&route=ach&country=ZZ')).toEqual(await requirements('currency=USD&route=ach'));
    expect(await requirements('currency=XAF&country=GA')).toEqual(await requirements('currency=XAF'));
  });

  it('asks an individual for dateOfBirth on crypto while Travel Rule screening is on, never a business', async () => {
    const on = await requirements('currency=USDC&route=crypto');
    expect(on.beneficiary.individual.required).toEqual(['dateOfBirth']);
    expect(on.beneficiary.individual.optional).not.toContain('dateOfBirth');
    expect(on.beneficiary.business.required).not.toContain('dateOfBirth');
    expect(on.beneficiary.business.optional).not.toContain('dateOfBirth');
    const other = await newWorkspace(t.app, { name: 'No Screening Ltd' });
    const off = await operator(t.app, 'PUT', `/operator/v1/workspaces/${other.workspaceId}/settings`, { travelRuleScreening: false });
    expect(off.statusCode).toBe(200);
    const relaxed = await requirements('currency=USDC&route=crypto', other);
    expect(relaxed.beneficiary.individual.required).toEqual([]);
    expect(relaxed.beneficiary.individual.optional).toContain('dateOfBirth');
  });

  it('never lists name, country or accounts, nor anything outside the allowed values', async () => {
    const allowed = new Set(['email', 'address', 'addressLine2', 'city', 'postcode', 'countrySubdivision', 'dateOfBirth']);
    for (const currency of CURRENCY_CODES) {
      const body = await requirements(`currency=${currency}`);
      for (const type of ['individual', 'business'] as const) {
        for (const f of [...body.beneficiary[type].required, ...body.beneficiary[type].optional]) expect(allowed.has(f), `${currency} ${f}`).toBe(true);
        expect(body.beneficiary[type].rules.every((r) => r.field === 'name')).toBe(true);
      }
      expect(body.beneficiary.business.required).not.toContain('dateOfBirth');
      expect(body.beneficiary.business.optional).not.toContain('dateOfBirth');
    }
  });

  it('takes required and optional from default routing, and rules from the providers checking names at submit (rule 3)', () => {
    const base = byId('sim-sepa-instant');
    const routed: Provider = { ...base, id: 'routed', route: 'bank_transfer', amounts: { EUR: { min: '1' } }, submitValidators: ['iban'], recipient: {
      individual: { required: ['city'], optional: ['email'], rules: [{ field: 'name', pattern: '^A', description: 'starts with A', code: 'RECIPIENT_DETAILS_INVALID' }] },
      business: { required: [], optional: [], rules: [] },
    } };
    const checker: Provider = { ...routed, id: 'checker', defaultRouting: false, submitValidators: ['name_rules'], recipient: {
      individual: { required: ['postcode'], optional: [], rules: [{ field: 'name', pattern: '^B', description: 'starts with B', code: 'RECIPIENT_DETAILS_INVALID' }] },
      business: { required: [], optional: [], rules: [] },
    } };
    const answer = payoutRequirements({ currency: 'EUR', route: 'bank_transfer', travelRuleScreening: true }, [routed, checker]);
    expect(answer.beneficiary.individual).toEqual({ required: ['city'], optional: ['email'], rules: [{ field: 'name', pattern: '^B', description: 'starts with B' }] });
    // a rail served only outside default routing: its providers give the fields too
    const only = payoutRequirements({ currency: 'EUR', route: 'bank_transfer', travelRuleScreening: true }, [checker]);
    expect(only.beneficiary.individual.required).toEqual(['postcode']);
    expect(payoutRequirements({ currency: 'GHS', route: 'bank_transfer', travelRuleScreening: true }).beneficiary.individual.required).toEqual(['city']);
  });

  it('refuses malformed parameters with a 400 problem naming the field', async () => {
    for (const [query, field] of [
      ['', 'currency'],
      ['currency=E', 'currency'],
      ['currency=EU1', 'currency'],
      ['currency=EUR&route=wire', 'route'],
      ['currency=EUR&route=swift&country=DEU', 'country'],
      ['currency=EUR&route=swift&country=1A', 'country'],
    ] as const) {
      const body = expectProblem(await caller.request('GET', `/v2/payouts/requirements?${query}`), 400, 'VALIDATION_ERROR');
      expect(body.errors?.[0]?.field, query).toBe(field);
    }
  });

  it('answers 404 for each case without a provider', async () => {
    for (const [query, detail] of [
      ['currency=ABC', 'No provider serves ABC'],
      ['currency=EUR&route=ach', 'No provider serves EUR over ach'],
      ['currency=XOF&route=mobile_money&country=GH', 'No provider pays XOF by mobile money into GH'],
      ['currency=USD&route=swift&country=KP', 'No provider makes international transfers of USD to KP'],
    ] as const) {
      const body = expectProblem(await caller.request('GET', `/v2/payouts/requirements?${query}`), 404, 'CORRIDOR_NOT_FOUND');
      expect(body.detail).toBe(detail);
    }
  });

  it('needs a credential with read:payouts', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v2/payouts/requirements?currency=EUR' })).statusCode).toBe(401);
    const limited = await newWorkspace(t.app, { name: 'Limited Ltd', scopes: ['read:beneficiaries'] });
    expectProblem(await limited.request('GET', '/v2/payouts/requirements?currency=EUR'), 403, 'METHOD_NOT_ENTITLED');
  });
});

describe('GET /v1/payouts/available-rails', () => {
  async function beneficiary(body: Record<string, unknown>, c: Caller = caller, headers: Record<string, string> = {}) {
    const res = await c.request('POST', '/v1/beneficiaries', body, headers);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string; accounts: { id: string }[] }>();
  }
  interface Rails {
    object: string;
    accountId: string;
    beneficiaryId: string;
    currency: string;
    autoRoute: string | null;
    data: { route: string; provider: string; minAmount: string; maxAmount: string | null; recipientReady: boolean; recipientIssues: { code?: string }[] }[];
  }
  const rails = async (accountId: string, c: Caller = caller, headers: Record<string, string> = {}) => {
    const res = await c.request('GET', `/v1/payouts/available-rails?accountId=${accountId}`, undefined, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Rails>();
  };

  it('lists the rails that pay an EUR iban account, with the auto-routed one and what each would refuse now', async () => {
    const b = await beneficiary({ name: 'Ada Lovelace', country: 'DE', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: IBANS.DE } }] });
    const answer = await rails(b.accounts[0]!.id);
    expect(answer).toMatchObject({ object: 'rail.list', accountId: b.accounts[0]!.id, beneficiaryId: b.id, currency: 'EUR', autoRoute: 'sepa_inst' });
    expect(answer.data.map((r) => r.route)).toEqual(['sepa_inst', 'sepa_credit', 'swift']);
    expect(answer.data[0]).toMatchObject({ provider: 'sim-sepa-instant', minAmount: '0.01', maxAmount: '100000.00', recipientReady: true, recipientIssues: [] });
    expect(answer.data[2]).toMatchObject({ provider: 'sim-swift-europe', maxAmount: null, recipientReady: false });
    expect(answer.data[2]?.recipientIssues.map((i) => i.code)).toEqual(['BENEFICIARY_INCOMPLETE', 'BENEFICIARY_INCOMPLETE']);
  });

  it('lists mobile money for a Ghanaian number and nothing while the currency is not enabled', async () => {
    const b = await beneficiary({ name: 'Kofi Mensah', country: 'GH', accounts: [{ type: 'mobile_money', currency: 'GHS', data: { phoneNumber: mobileNumber('GH'), network: 'mtn' } }] });
    expect((await rails(b.accounts[0]!.id)).data).toEqual([]);
    expect((await operator(t.app, 'PUT', `/operator/v1/workspaces/${caller.workspaceId}/currencies/GHS`, { enabled: true })).statusCode).toBe(200);
    const answer = await rails(b.accounts[0]!.id);
    expect(answer.autoRoute).toBeNull();
    expect(answer.data.map((r) => [r.route, r.provider, r.minAmount, r.maxAmount])).toEqual([['mobile_money', 'sim-momo-ghana', '5.00', '50000.00']]);
  });

  it('lists nothing for an inactive beneficiary', async () => {
    const b = await beneficiary({ name: 'Grace Hopper', country: 'US', accounts: [{ type: 'bank_account', currency: 'USD', data: { accountNumber: '123456789', routingNumber: '021000021' } }] });
    expect((await rails(b.accounts[0]!.id)).data.map((r) => r.route)).toEqual(['ach', 'fedwire', 'swift']);
    expect((await caller.request('DELETE', `/v1/beneficiaries/${b.id}`)).statusCode).toBe(200);
    expect((await rails(b.accounts[0]!.id)).data).toEqual([]);
  });

  it("answers 404 for an unknown account, another workspace's, or another sub-account's", async () => {
    const b = await beneficiary({ name: 'Ada Lovelace', country: 'DE', accounts: [{ type: 'iban', currency: 'EUR', data: { iban: IBANS.DE } }] });
    const other = await newWorkspace(t.app, { name: 'Other Ltd' });
    expect((await other.request('GET', `/v1/payouts/available-rails?accountId=${b.accounts[0]!.id}`)).statusCode).toBe(404);
    expect((await caller.request('GET', `/v1/payouts/available-rails?accountId=${b.id}`)).statusCode).toBe(404);
    const sub = (await caller.request('POST', '/v1/accounts', { name: 'Shop', country: 'DE' })).json<{ id: string }>();
    expect((await caller.request('GET', `/v1/payouts/available-rails?accountId=${b.accounts[0]!.id}`, undefined, { 'service-account-id': sub.id })).statusCode).toBe(404);
    const res = await caller.request('GET', '/v1/payouts/available-rails?accountId=nope');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [{ field: 'accountId' }] });
  });
});

describe('the corridor table in the docs', () => {
  it('is generated from the catalog into the OpenAPI description of the requirements operation', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { description?: string }>> }>();
    const description = doc.paths['/v2/payouts/requirements']?.get?.description ?? '';
    expect(description).toContain('| Currency | Route | Provider |');
    for (const p of CATALOG) for (const currency of Object.keys(p.amounts)) expect(description).toContain(`| ${currency} | ${p.route} | ${p.id} |`);
    expect(description).toContain('| XOF | mobile_money | sim-momo-waemu | yes | CI SN BJ BF ML TG NE GW |');
  });

  it('is served as a page at /docs/corridors with currency, route, countries, recipient fields and bounds', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/corridors' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<td>XAF</td><td>mobile_money</td><td>sim-momo-cameroon</td><td>yes</td><td>CM</td>');
    expect(res.body).toContain('<td>500</td><td>1000000</td><td>yes</td>');
    expect(res.body).toContain('dateOfBirth while Travel Rule screening is on');
    expect(res.body.match(/<tr>/g)?.length).toBe(1 + CATALOG.reduce((n, p) => n + Object.keys(p.amounts).length, 0));
  });
});
