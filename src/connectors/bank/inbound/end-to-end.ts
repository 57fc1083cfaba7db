/*
 * EndToEndId: ISO limits it to 35 characters and a payout id is a UUID of 36, so a payout's
 * EndToEndId is its id without the four dashes (32 lower-case hexadecimal characters). Both
 * directions of the mapping live here; the id is also stored with each payout's file entry
 * (`bank_payouts.end_to_end_id`).
 */

/** The EndToEndId a payout leaves with in a pain.001 file. */
export function endToEndIdOf(payoutId: string): string {
  return payoutId.replace(/-/g, '').toLowerCase();
}

/** The payout an EndToEndId names (with or without dashes); anything else is not one of Corridor's EndToEndIds: undefined. */
export function payoutIdOfEndToEndId(endToEndId: string): string | undefined {
  const hex = endToEndId.trim().toLowerCase().replace(/^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/, '$1$2$3$4$5');
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
