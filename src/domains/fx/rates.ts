import { CURRENCY_CODES } from '../../platform/lib/currencies.js';

/**
 * Where mid rates come from. The sandbox uses a static table; production plugs in a live source
 * behind the same interface. Rates are decimal strings: EUR per one unit of the currency.
 */
export interface RateSource {
  eurPer(currency: string): string | undefined;
}

/** Static mid rates (EUR per unit), overridable with FX_RATES="USD:0.92,GBP:1.17". */
export const DEFAULT_EUR_RATES: Readonly<Record<string, string>> = {
  EUR: '1',
  USD: '0.92',
  GBP: '1.17',
  USDC: '0.92',
  USDT: '0.92',
  NGN: '0.00058',
  XOF: '0.00152449',
  XAF: '0.00152449',
  GHS: '0.06',
  ZMW: '0.035',
  MZN: '0.0144',
  MWK: '0.00053',
  EGP: '0.019',
};

export class StaticRateSource implements RateSource {
  private readonly rates: Record<string, string>;

  constructor(overrides: string | undefined = undefined) {
    this.rates = { ...DEFAULT_EUR_RATES };
    for (const pair of (overrides ?? '').split(',').filter(Boolean)) {
      const [code, rate] = pair.split(':').map((s) => s.trim());
      if (!code || !rate || !CURRENCY_CODES.includes(code) || !/^\d+(\.\d{1,12})?$/.test(rate)) {
        throw new Error(`FX_RATES entry "${pair}" must be CODE:decimal`);
      }
      this.rates[code] = rate;
    }
  }

  eurPer(currency: string): string | undefined {
    return this.rates[currency];
  }
}
