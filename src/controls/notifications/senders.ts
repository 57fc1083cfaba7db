import nodemailer from 'nodemailer';
import type { Config } from '../../platform/config.js';
import { DeliveryClient } from '../../domains/webhooks/delivery-client.js';
import type { NotificationRow } from './notifications.repository.js';

/** Sends one notification over its channel; throws with the reason when it was not accepted. */
export interface Senders {
  send(notification: NotificationRow): Promise<void>;
  close(): Promise<void>;
}

/**
 * E-mail through the operator's SMTP server (nodemailer), webhooks as a signed POST by the same
 * client and signature as workspace webhooks (src/domains/webhooks/delivery-client.ts). The operator
 * configured the URL, so it may be on a private network.
 */
export function createSenders(config: Config): Senders {
  const { alerts } = config;
  const mail = alerts.smtpUrl ? nodemailer.createTransport(alerts.smtpUrl) : undefined;
  const webhooks = new DeliveryClient({
    timeoutMs: config.webhookTimeoutMs,
    excerptBytesMax: config.limits.webhookResponseExcerptBytesMax,
    allowPrivateNetworks: true,
    caFile: config.webhookCaFile,
  });
  return {
    async send(n) {
      if (n.channel === 'email') {
        if (!mail) throw new Error('SMTP_URL is not set');
        await mail.sendMail({ from: alerts.emailFrom, to: n.recipient, subject: n.subject, text: n.body, messageId: n.message_id });
        return;
      }
      if (!alerts.webhookSecret) throw new Error('ALERT_WEBHOOK_SECRET is not set');
      const result = await webhooks.send({ url: n.recipient, body: n.body, eventId: n.id, signing: { secret: alerts.webhookSecret } });
      if (!result.ok) throw new Error(result.error ?? `HTTP ${result.responseStatus}`);
    },
    async close() {
      mail?.close();
      await webhooks.close();
    },
  };
}
