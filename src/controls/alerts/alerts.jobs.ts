import type { AppContext } from '../../platform/context.js';
import { evaluateAlerts } from './alerts.service.js';

/** Evaluates the alert conditions, then runs again ALERT_EVALUATE_MS later. */
export async function alertsEvaluateJob(ctx: AppContext): Promise<Date> {
  const { opened, closed, failed } = await evaluateAlerts(ctx);
  if (opened.length + closed.length + failed.length > 0) ctx.log.info({ opened: opened.length, closed: closed.length, failed: failed.length }, 'alerts evaluated');
  return new Date(Date.now() + ctx.config.alerts.evaluateMs);
}
