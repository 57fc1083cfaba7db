/**
 * Valid (and deliberately broken) recipients for any provider of the corridor catalog, built from the
 * catalog's own data, so a new corridor is covered by the per-corridor tests without new fixtures.
 */
import { getExampleNumber, type CountryCode } from 'libphonenumber-js';
import examples from 'libphonenumber-js/mobile/examples';
import type { AccountType, CryptoNetwork, Provider, RecipientType } from '../../src/domains/corridors/index.js';
import type { Recipient, RecipientAccount } from '../../src/domains/corridors/index.js';

/** Known-valid IBANs by country (from the IBAN registry's examples). */
export const IBANS: Record<string, string> = {
  DE: 'DE89370400440532013000',
  GB: 'GB29NWBK60161331926819',
  FR: 'FR1420041010050500013M02606',
  AD: 'AD1200012030200359100100',
  TR: 'TR330006100519786457841326',
  AE: 'AE070331234567890123456',
  EG: 'EG380019000500000000263180002',
};

export const ADDRESSES: Record<CryptoNetwork, { valid: string; invalid: string }> = {
  ethereum: { valid: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', invalid: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' },
  polygon: { valid: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', invalid: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d35' },
  tron: { valid: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', invalid: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u' },
  solana: { valid: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', invalid: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGG' },
};

/** Valid values of bank-account data keys by provider country. */
const BANK_VALUES: Record<string, Record<string, string>> = {
  US: { accountNumber: '123456789', routingNumber: '021000021', bankName: 'Chase' },
  GB: { accountNumber: '31926819', sortCode: '60-16-13' },
  NG: { bankCode: '044', crAccount: '0690000032' },
  GH: { accountNumber: '1234567890', bankCode: '030100' },
  EG: { accountNumber: '1234567890123', swiftCode: 'NBEGEGCX' },
  default: { accountNumber: 'ACC123456', swiftCode: 'DEUTDEFF' },
};

export const mobileNumber = (country: string): string => {
  const example = getExampleNumber(country as CountryCode, examples);
  if (!example) throw new Error(`no example mobile number for ${country}`);
  return example.number;
};

/** A country the provider pays into, preferring ones with fixtures. */
export function countryFor(provider: Provider, accountType: AccountType): string {
  if (provider.countries === 'any') return 'FR';
  const preferred = accountType === 'iban' ? Object.keys(IBANS) : ['US', 'GB', 'NG', 'GH', 'EG', 'DE', 'AE'];
  return preferred.find((c) => (provider.countries as readonly string[]).includes(c)) ?? (provider.countries[0] as string);
}

/** A valid account of this type on this provider, in this currency (for crypto: on `network`, else the first served). */
export function validAccount(provider: Provider, currency: string, type: AccountType, network?: string): { account: RecipientAccount; country: string } {
  const country = countryFor(provider, type);
  switch (type) {
    case 'iban': {
      const iban = IBANS[country];
      if (!iban) throw new Error(`no IBAN fixture for ${country}`);
      const data: Record<string, string> = { iban };
      if (provider.accounts.iban?.bic === 'required') data.bic = 'DEUTDEFF';
      return { account: { type, currency, country, data }, country };
    }
    case 'bank_account': {
      const values = BANK_VALUES[country] ?? (BANK_VALUES.default as Record<string, string>);
      const data: Record<string, string> = {};
      for (const f of provider.accounts.bank_account?.fields ?? []) {
        const value = values[f.key] ?? BANK_VALUES.default?.[f.key];
        if (f.required || value !== undefined) data[f.key] = value ?? 'X';
      }
      return { account: { type, currency, country, data }, country };
    }
    case 'mobile_money': {
      const networks = provider.accounts.mobile_money?.networks[country] ?? [];
      return { account: { type, currency, country, data: { phoneNumber: mobileNumber(country), network: networks[0] as string } }, country };
    }
    case 'crypto': {
      const served = provider.accounts.crypto?.networks[currency] ?? [];
      const chosen = (network ?? served[0]) as CryptoNetwork;
      return { account: { type, currency, data: { address: ADDRESSES[chosen].valid, network: chosen } }, country };
    }
  }
}

export const PERSON_NAME = 'Ada Lovelace';
export const COMPANY_NAME = 'Analytical Engines Ltd';

/** A recipient carrying every field any corridor may require, with a name that fits every name rule of the catalog. */
export function validRecipient(provider: Provider, currency: string, type: RecipientType, accountType: AccountType, network?: string): Recipient {
  const { account, country } = validAccount(provider, currency, accountType, network);
  return {
    type,
    name: type === 'individual' ? PERSON_NAME : COMPANY_NAME,
    country,
    email: 'ada@example.com',
    address: '12 St James Square',
    addressLine2: 'Floor 2',
    city: 'London',
    postcode: 'SW1Y 4JH',
    countrySubdivision: 'LND',
    ...(type === 'individual' ? { dateOfBirth: '1985-12-10' } : {}),
    accounts: [account],
  };
}

/** Every (provider, currency, account type, network) the catalog can pay. */
export function corridorCases(catalog: readonly Provider[]): { provider: Provider; currency: string; accountType: AccountType; network?: string; label: string }[] {
  return catalog.flatMap((provider) =>
    Object.keys(provider.amounts).flatMap((currency) =>
      (Object.keys(provider.accounts) as AccountType[]).flatMap((accountType) => {
        const networks = accountType === 'crypto' ? [...(provider.accounts.crypto?.networks[currency] ?? [])] : [undefined];
        return networks.map((network) => ({
          provider,
          currency,
          accountType,
          ...(network ? { network } : {}),
          label: `${provider.id} ${currency} ${accountType}${network ? ` on ${network}` : ''}`,
        }));
      }),
    ),
  );
}
