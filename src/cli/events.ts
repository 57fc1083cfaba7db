import { CorridorError, type Corridor } from '../../packages/sdk/src/index.js';

export interface ResendSummary {
  /** The deliveries sent again (or, waiting for their next attempt, sent now). */
  resent: { endpointId: string; url: string; deliveryId: string }[];
  /** Endpoints that could not take it now, with the server's reason. */
  refused: { endpointId: string; url: string; reason: string }[];
}

/**
 * `corridor events resend EVT_ID [--webhook ID]`: sends an event again to the endpoints it was
 * delivered to (or only to `webhookId`), through `POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend`:
 * a finished delivery gets one fresh attempt, one waiting for its next attempt has it now. An endpoint
 * that never had the event (registered later, other event types) is named, not given a new delivery.
 */
export async function resendEvent(corridor: Corridor, eventId: string, webhookId: string | undefined, write: (line: string) => void): Promise<ResendSummary> {
  const event = await corridor.events.get({ id: eventId }).catch((err: unknown) => {
    if (err instanceof CorridorError && err.status === 404) throw new Error(`no event ${eventId} in this workspace`, { cause: err });
    throw err;
  });
  const endpoints: { id: string; url: string }[] = [];
  if (webhookId) endpoints.push(await corridor.webhooks.get({ id: webhookId }));
  else for await (const endpoint of corridor.webhooks.list({ limit: 100 })) endpoints.push(endpoint);
  if (!endpoints.length) throw new Error('no webhook endpoint in this workspace: register one (POST /v1/webhooks) first');
  const summary: ResendSummary = { resent: [], refused: [] };
  for (const endpoint of endpoints) {
    const page = await corridor.webhooks.deliveries.list({ id: endpoint.id }, { eventId, limit: 1 });
    const delivery = page.data[0];
    if (!delivery) {
      write(`${endpoint.url}: never had ${eventId} (${event.type}); nothing to resend`);
      continue;
    }
    try {
      await corridor.webhooks.deliveries.resend({ id: endpoint.id, deliveryId: delivery.id });
      summary.resent.push({ endpointId: endpoint.id, url: endpoint.url, deliveryId: delivery.id });
      write(`${endpoint.url}: ${event.type} ${eventId} queued to send now (delivery ${delivery.id}, was ${delivery.status})`);
    } catch (err) {
      if (!(err instanceof CorridorError && err.status === 409)) throw err;
      summary.refused.push({ endpointId: endpoint.id, url: endpoint.url, reason: err.message });
      write(`${endpoint.url}: not resent, ${err.message} (${err.code})`);
    }
  }
  return summary;
}
