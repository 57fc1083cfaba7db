/**
 * The payout an EndToEndId names. ISO limits EndToEndId to 35 characters and a payout id is a UUID
 * of 36, so the bank connector sends the id without its dashes (32 hexadecimal characters); the same
 * id with its dashes reads the same. Anything else is not one of Corridor's EndToEndIds: undefined.
 * (The outbound side, h21-out's bank.instructions.ts, has the same mapping; one of the two goes on merge.)
 */
export function payoutIdOfEndToEndId(endToEndId: string): string | undefined {
  const hex = endToEndId.trim().toLowerCase().replace(/^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/, '$1$2$3$4$5');
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
