/**
 * The typed event union, typechecked by `npm run typecheck`: event types are the API's own, a typo
 * does not compile (each `@ts-expect-error` below fails the typecheck if the line it covers compiles),
 * and narrowing on `type` types `data`.
 */
import type { Corridor, CorridorEvent, EventOf, WebhookHeaders } from '../src/index.js';

export async function typedEvents(corridor: Corridor, rawBody: string, headers: WebhookHeaders, secret: string): Promise<unknown[]> {
  // @ts-expect-error 'payout.paidd' is not an event type
  corridor.events.stream({ types: ['payout.paidd'] });
  // @ts-expect-error 'payout.paidd' is not an event type
  await corridor.events.list({ type: 'payout.paidd' });
  // @ts-expect-error webhooks.create refuses the same typo
  await corridor.webhooks.create({ url: 'https://hooks.invalid/corridor', events: ['payout.paidd'] });

  const out: unknown[] = [];
  for await (const event of corridor.events.stream({ types: ['payout.paid', 'order.failed'] })) {
    // Only the asked-for types come out of the stream.
    const type: 'payout.paid' | 'order.failed' = event.type;
    if (event.type === 'payout.paid') {
      const amount: string = event.data.amount;
      out.push(type, amount);
    } else {
      const reason: string | null = event.data.failureReason;
      out.push(reason);
    }
    break;
  }

  const page = await corridor.events.list({ type: 'deposit.failed' });
  for (const event of page.data) if (event.type === 'deposit.failed') out.push(event.data.creditedAmount);

  const delivered = await corridor.webhooks.constructEvent(rawBody, headers, secret);
  switch (delivered.type) {
    case 'virtual_account.failed': {
      const currency: string = delivered.data.currency;
      out.push(currency);
      break;
    }
    case 'webhook.test':
      out.push(delivered.data.endpointId);
      break;
    default:
      // @ts-expect-error 'payout.paidd' is not among the types
      if (delivered.type === 'payout.paidd') out.push(delivered);
  }
  // A body whose fields are all optional may be left out; a required one may not.
  await corridor.sandbox.orders.complete({ id: 'ord' });
  await corridor.payouts.cancel({ id: 'pay' });
  // @ts-expect-error a payout needs its body
  await corridor.payouts.create();
  const paid: EventOf<'payout.paid'>['data']['status'] = 'paid';
  const any: CorridorEvent['type'] = 'order.failed';
  return [...out, paid, any];
}
