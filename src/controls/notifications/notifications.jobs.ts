import type { AppContext } from '../../platform/context.js';
import { sendDue } from './notifications.service.js';
import { createSenders } from './senders.js';

/** Sends the due notifications (e-mail and webhooks to the operator). */
export async function notificationsSendJob(ctx: AppContext): Promise<void> {
  const senders = createSenders(ctx.config);
  try {
    await sendDue(ctx.db, ctx.config, senders, ctx.log);
  } finally {
    await senders.close();
  }
}
