/**
 * The quickstart's (docs/quickstart.md) "Integrate in five minutes" calls, typechecked (npm run typecheck) against the
 * generated types: if the API or the SDK changes under them, this file stops compiling.
 */
import { Corridor } from '../src/index.js';

export async function readmeExample(corridor: Corridor, subAccountId: string): Promise<unknown[]> {
  const ada = await corridor.beneficiaries.create({
    type: 'individual', name: 'Ada Lovelace', country: 'DE', address: '1 Hauptstrasse', city: 'Berlin', postcode: '10115',
    accounts: [{ type: 'iban', currency: 'EUR', data: { iban: 'DE89370400440532013000' } }],
  });
  const payout = await corridor.payouts.create({ clientRef: 'invoice-1042', amount: '25.00', currency: 'EUR', beneficiary: { id: ada.id } });
  const status: string = payout.status;
  const paid = await corridor.quoteAndPay({
    quote: { fromCurrency: 'USD', toCurrency: 'EUR', toAmount: '25.00', intent: 'payout' },
    payout: { clientRef: 'invoice-1043', amount: '25.00', currency: 'EUR', beneficiary: { id: ada.id } },
  });
  const ids: string[] = [];
  for await (const p of corridor.payouts.list({ limit: 100 })) ids.push(p.id);
  const branch = corridor.withAccount(subAccountId);
  const endpoint = await corridor.webhooks.create({ url: 'https://example.com/hooks', events: ['payout.paid', 'payout.failed'] });
  const secret: string = endpoint.secret;
  const ok: boolean = await corridor.webhooks.verify('{}', { 'x-service-signature': '', 'x-service-timestamp': '' }, secret);
  for await (const event of corridor.events.stream({ types: ['payout.paid'] })) return [event.type, event.data, status, paid.payout.id, ids, branch, ok];
  return [];
}
