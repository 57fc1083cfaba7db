import { randomBytes } from 'node:crypto';
import type { Config } from '../../platform/config.js';
import { currencyInfo } from '../../platform/lib/currencies.js';
import { formatAmount } from '../../platform/lib/money.js';
import type { OrderRow } from './orders.repository.js';

/**
 * How a settlement-funded order is paid in: the desk's collection account for the source currency
 * (bank details) or its deposit address (crypto). The caller quotes `reference` with the transfer.
 * The operator configures them (ORDER_SETTLEMENT_INSTRUCTIONS); without that, the sandbox uses the
 * details below (it moves no money) and production has none: settlement funding is unavailable.
 */
const SANDBOX_BANK_INSTRUCTIONS: Record<string, Record<string, string>> = {
  EUR: { accountHolderName: 'Corridor Trade Desk', bankName: 'Corridor Settlement Bank', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
  GBP: { accountHolderName: 'Corridor Trade Desk', bankName: 'Corridor Settlement Bank', accountNumber: '31926819', sortCode: '601613', iban: 'GB29NWBK60161331926819' },
  USD: { accountHolderName: 'Corridor Trade Desk', bankName: 'Corridor Settlement Bank', accountNumber: '000123456789', routingNumber: '021000021', swiftCode: 'CHASUS33' },
  NGN: { accountHolderName: 'Corridor Trade Desk', bankName: 'Corridor Settlement Bank', accountNumber: '0123456789', bankCode: '058' },
};
const SANDBOX_CRYPTO_INSTRUCTIONS: Record<string, Record<string, string>> = {
  USDC: { network: 'ethereum', address: '0x52908400098527886E0F7030069857D2E4169EE7' },
  USDT: { network: 'tron', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
};
const sandboxBank = (currency: string): Record<string, string> => ({
  accountHolderName: 'Corridor Trade Desk',
  bankName: 'Corridor Settlement Bank',
  accountNumber: '000987654321',
  swiftCode: 'CORRGB2L',
  currency,
});

export type SettlementMethod = 'bank_transfer' | 'crypto';
export interface NewSettlement {
  id: string;
  method: SettlementMethod;
  reference: string;
  instructions: Record<string, string>;
}

/** The collection details for `currency`, or undefined when settlement funding is unavailable for it. */
export function settlementInstructions(config: Pick<Config, 'env' | 'orderSettlementInstructions'>, currency: string): Record<string, string> | undefined {
  if (config.orderSettlementInstructions) return config.orderSettlementInstructions[currency];
  if (config.env !== 'sandbox') return undefined;
  if (currencyInfo(currency)?.crypto) return SANDBOX_CRYPTO_INSTRUCTIONS[currency] ?? { network: 'ethereum', address: '0x52908400098527886E0F7030069857D2E4169EE7' };
  return SANDBOX_BANK_INSTRUCTIONS[currency] ?? sandboxBank(currency);
}

/** A new settlement for an order paying in `currency`: crypto currencies settle to an address, the rest by bank transfer. */
export function newSettlement(id: string, currency: string, instructions: Record<string, string>): NewSettlement {
  return {
    id,
    method: currencyInfo(currency)?.crypto ? 'crypto' : 'bank_transfer',
    reference: `ORD-${randomBytes(5).toString('hex').toUpperCase()}`,
    instructions,
  };
}

/** The settlement object of order data (spec §Events: order data), or null on balance-funded orders. */
export function settlementView(row: OrderRow) {
  if (!row.settlement_id || !row.settlement_method) return null;
  return {
    settlementId: row.settlement_id,
    method: row.settlement_method,
    requiredAmount: formatAmount(BigInt(row.from_amount_minor), row.from_currency),
    currency: row.from_currency,
    reference: row.settlement_reference ?? '',
    status: row.settlement_status ?? 'pending',
    instructions: row.settlement_instructions ?? {},
    expiresAt: row.funding_deadline_at.toISOString(),
    requirements: { proofOfPayment: row.settlement_method === 'bank_transfer' },
  };
}
