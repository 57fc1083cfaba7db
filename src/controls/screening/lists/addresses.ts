/**
 * Digital-currency addresses on the sanctions lists. OFAC writes them in an entry's Remarks (SDN.CSV,
 * continued in SDN_COMMENTS.CSV) and as an `id` of type `Digital Currency Address - XBT` in SDN.XML:
 * `Digital Currency Address - ETH 0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c`, the part after the
 * dash naming the currency (XBT, ETH, USDT, USDC, TRX, LTC, XMR…).
 */

/** One listed address: the entry that carries it, the currency the list names, the address as written. */
export interface ListedAddress {
  entryId: string;
  entryName: string;
  currency: string;
  address: string;
}

/** The key an address is looked up by: hex (EVM) and bech32 addresses are case-insensitive, others (base58) are not. */
export function addressKey(address: string): string {
  const a = address.trim();
  if (/^0x[0-9a-fA-F]{40}$/.test(a)) return a.toLowerCase();
  if (/^(bc|tb|ltc|bcrt)1[0-9a-zA-Z]+$/i.test(a)) return a.toLowerCase();
  return a;
}

const DIGITAL_CURRENCY_ADDRESS = /Digital Currency Address - ([A-Za-z0-9]+)[\s:]+([A-Za-z0-9]+)/g;

/** The addresses a Remarks text names, in order, each once. */
export function remarksAddresses(remarks: string): { currency: string; address: string }[] {
  const seen = new Set<string>();
  const out: { currency: string; address: string }[] = [];
  for (const m of remarks.matchAll(DIGITAL_CURRENCY_ADDRESS)) {
    const currency = (m[1] as string).toUpperCase();
    const address = m[2] as string;
    const key = `${currency}:${addressKey(address)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ currency, address });
  }
  return out;
}

/** The currency an id type names (`Digital Currency Address - ETH` → `ETH`), or undefined for any other id. */
export function digitalCurrencyOf(idType: string | undefined): string | undefined {
  const m = /^\s*Digital Currency Address - ([A-Za-z0-9]+)\s*$/.exec(idType ?? '');
  return m ? (m[1] as string).toUpperCase() : undefined;
}
