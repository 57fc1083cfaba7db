import type { AppContext } from '../../platform/context.js';
import type { ConditionSource } from './alert-sources.js';
import { evaluateAlerts } from './alerts.service.js';

/** Evaluates the alert conditions of the sources given, then runs again ALERT_EVALUATE_MS later. */
export async function alertsEvaluateJob(ctx: AppContext, sources: readonly ConditionSource[]): Promise<Date> {
  const { opened, closed, failed } = await evaluateAlerts(ctx, sources);
  if (opened.length + closed.length + failed.length > 0) ctx.log.info({ opened: opened.length, closed: closed.length, failed: failed.length }, 'alerts evaluated');
  return new Date(Date.now() + ctx.config.alerts.evaluateMs);
}
