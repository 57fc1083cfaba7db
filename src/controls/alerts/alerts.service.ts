import type { AppContext } from '../../platform/context.js';
import type { Sql, Tx } from '../../platform/db/db.js';
import type { PageRequest } from '../../platform/db/pagination.js';
import { fieldError, notFound } from '../../platform/lib/errors.js';
import { newId } from '../../platform/lib/ids.js';
import { notifyOperator, type Message } from '../notifications/notifications.service.js';
import type { ConditionSource, Finding } from './alert-sources.js';
import * as repo from './alerts.repository.js';

export const ALERTS_EVALUATE_JOB = 'alerts.evaluate';

export function alertView(row: repo.AlertRow) {
  return {
    id: row.id,
    object: 'alert' as const,
    conditionId: row.condition_id,
    source: row.source,
    subject: row.subject,
    status: row.closed_at ? ('closed' as const) : ('open' as const),
    summary: row.summary,
    details: row.details,
    openedAt: row.opened_at.toISOString(),
    closedAt: row.closed_at?.toISOString() ?? null,
  };
}
export type AlertView = ReturnType<typeof alertView>;

export function conditionView(row: repo.ConditionRow, sources: readonly ConditionSource[]) {
  const source = sources.find((s) => s.name === row.source);
  return {
    id: row.id,
    object: 'alert_condition' as const,
    source: row.source,
    description: source?.description ?? 'unknown source (not registered in this release)',
    unit: source?.unit ?? 'none',
    threshold: row.threshold,
    filter: row.filter,
    enabled: row.enabled,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Where the runbook says what an alert of this source means and what to do. */
export const runbookAnchor = (source: string): string => `docs/operations.md#alert-${source.replace(/[._]/g, '-')}`;

function alertMessage(alert: AlertView, event: 'opened' | 'closed'): Message {
  const lines = [
    event === 'opened' ? `Alert opened: ${alert.summary}` : `Alert closed (the condition cleared): ${alert.summary}`,
    '',
    `Condition: ${alert.conditionId} (source ${alert.source})`,
    `Subject:   ${alert.subject}`,
    `Opened:    ${alert.openedAt}`,
    ...(alert.closedAt ? [`Closed:    ${alert.closedAt}`] : []),
    `Details:   ${JSON.stringify(alert.details)}`,
    '',
    `What it means and what to do: ${runbookAnchor(alert.source)}`,
  ];
  return {
    topic: `alert.${event}`,
    subject: `[Corridor] ${event === 'opened' ? 'ALERT' : 'Resolved'}: ${alert.summary}`.slice(0, 250),
    text: lines.join('\n'),
    data: alert,
  };
}

/** What an evaluation did, per condition. */
export interface Evaluation {
  opened: AlertView[];
  closed: AlertView[];
  /** Conditions whose source failed this time: their alerts are left as they were. */
  failed: { conditionId: string; error: string }[];
}

/**
 * Evaluates every condition of the sources given (the platform's and the connectors present's, as
 * the connector registry's `alertSources` lists them): asks its source what is past its threshold now, opens an alert for
 * each subject newly found, brings the open ones up to date, and closes those no longer found (all
 * of a disabled condition's). Each condition in a transaction of its own that locks it, with the
 * notifications of what opened and closed.
 */
export async function evaluateAlerts(ctx: AppContext, sources: readonly ConditionSource[]): Promise<Evaluation> {
  await repo.ensureConditions(ctx.db, sources.map((s) => ({ id: s.name, source: s.name, threshold: s.defaultThreshold })));
  const result: Evaluation = { opened: [], closed: [], failed: [] };
  for (const condition of await repo.listConditions(ctx.db)) {
    const source = sources.find((s) => s.name === condition.source);
    if (!source) continue;
    let findings: Finding[];
    try {
      findings = condition.enabled ? await source.check(ctx, { threshold: condition.threshold, filter: condition.filter }) : [];
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      ctx.log.warn({ conditionId: condition.id, error }, 'alert condition could not be evaluated');
      result.failed.push({ conditionId: condition.id, error });
      continue;
    }
    const { opened, closed } = await ctx.db.tx((tx) => applyFindings(ctx, tx, condition, findings.slice(0, ctx.config.alerts.findingsPerConditionMax)));
    result.opened.push(...opened);
    result.closed.push(...closed);
  }
  return result;
}

async function applyFindings(ctx: AppContext, tx: Tx, condition: repo.ConditionRow, findings: Finding[]): Promise<{ opened: AlertView[]; closed: AlertView[] }> {
  const open = new Map((await repo.lockOpenAlerts(tx, condition.id)).map((a) => [a.subject, a]));
  const found = new Map(findings.map((f) => [f.subject, f]));
  const fresh = findings.filter((f) => !open.has(f.subject));
  const opened = await repo.openAlerts(
    tx,
    fresh.map((f) => ({ id: newId(), condition_id: condition.id, source: condition.source, subject: f.subject, summary: f.summary, details: f.details ?? {} })),
  );
  await repo.refreshAlerts(
    tx,
    [...open.values()].flatMap((a) => {
      const f = found.get(a.subject);
      return f ? [{ id: a.id, summary: f.summary, details: f.details ?? {} }] : [];
    }),
  );
  const closed = await repo.closeAlerts(tx, [...open.values()].filter((a) => !found.has(a.subject)).map((a) => a.id));
  const views = { opened: opened.map(alertView), closed: closed.map(alertView) };
  for (const alert of views.opened) await notifyOperator(tx, ctx.config, alertMessage(alert, 'opened'));
  for (const alert of views.closed) await notifyOperator(tx, ctx.config, alertMessage(alert, 'closed'));
  return views;
}

export function listAlerts(sql: Sql, f: PageRequest & { status?: 'open' | 'closed' | undefined; source?: string | undefined }) {
  return repo.listAlerts(sql, f, alertView);
}

export async function getAlert(sql: Sql, id: string): Promise<AlertView> {
  const row = await repo.findAlert(sql, id);
  if (!row) throw notFound('Alert');
  return alertView(row);
}

export async function listConditions(sql: Sql, sources: readonly ConditionSource[]) {
  await repo.ensureConditions(sql, sources.map((s) => ({ id: s.name, source: s.name, threshold: s.defaultThreshold })));
  return (await repo.listConditions(sql)).map((row) => conditionView(row, sources));
}

export interface ConditionInput {
  source: string;
  threshold: number;
  filter?: Record<string, string> | undefined;
  enabled?: boolean | undefined;
}

/** Sets a condition (creating it under that id, or changing it): a known source, a filter of the keys it understands. */
export async function putCondition(sql: Sql, id: string, input: ConditionInput, actor: string, sources: readonly ConditionSource[]) {
  const source = sources.find((s) => s.name === input.source);
  if (!source) throw fieldError('source', `unknown source; one of ${sources.map((s) => s.name).join(', ')}`);
  const filter = input.filter ?? {};
  const unknown = Object.keys(filter).find((k) => !source.filterKeys.includes(k));
  if (unknown) throw fieldError(`filter.${unknown}`, source.filterKeys.length ? `${source.name} filters on ${source.filterKeys.join(', ')} only` : `${source.name} takes no filter`);
  const row = await repo.upsertCondition(sql, { id, source: source.name, threshold: input.threshold, filter, enabled: input.enabled ?? true, updated_by: actor });
  return conditionView(row, sources);
}

export const openAlertCounts = repo.openAlertCounts;
