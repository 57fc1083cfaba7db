import type { AppContext } from '../../platform/context.js';
import { pendingApprovalAges } from '../approvals/approvals.service.js';
import { ledgerInvariantViolations } from '../../domains/ledger/ledger.service.js';
import { unfinishedPayouts } from '../../domains/payouts/payouts.service.js';
import { activeListAges } from '../screening/screening.service.js';
import { failingEndpoints } from '../../domains/webhooks/webhooks.service.js';
import { metrics } from '../../platform/observability/metrics.js';

/** Something a condition found past its threshold: what it is about (one alert per subject), in words, with figures. */
export interface Finding {
  /** Stable for as long as the same thing is wrong (`bank/processing`, an endpoint's id, a list's name). */
  subject: string;
  summary: string;
  details?: Record<string, unknown>;
}

/** A condition as the operator set it: its threshold (in the source's unit) and its filter. */
export interface ConditionSettings {
  threshold: number;
  filter: Record<string, string>;
}

/**
 * A condition source: a function that looks at the current state and answers what is past the
 * threshold now. An alert opens for each subject found and closes at the first evaluation that no
 * longer finds it. Another module plugs in by adding its source to `conditionSources` below: its
 * condition (named after the source, with `defaultThreshold`) is created at the next evaluation.
 */
export interface ConditionSource {
  name: string;
  /** What the threshold counts: minutes, hours, days, attempts, or `none` (any finding is an alert). */
  unit: 'minutes' | 'hours' | 'days' | 'attempts' | 'none';
  defaultThreshold: number;
  /** Filter keys the source understands (a filter with another key is refused). */
  filterKeys: readonly string[];
  description: string;
  check(ctx: AppContext, condition: ConditionSettings): Promise<Finding[]>;
}

const minutes = (seconds: number): number => Math.floor(seconds / 60);

/** Payouts stuck: the oldest unfinished payout of a connector and status has not moved for `threshold` minutes. */
export const payoutsStuck: ConditionSource = {
  name: 'payouts.stuck',
  unit: 'minutes',
  defaultThreshold: 60,
  filterKeys: ['connector', 'status'],
  description: 'Payouts of a connector in a non-final status (created, queued, processing) that have not moved for N minutes',
  async check(ctx, { threshold, filter }) {
    const groups = await unfinishedPayouts(ctx.db);
    return groups
      .filter((g) => (!filter.connector || g.connector === filter.connector) && (!filter.status || g.status === filter.status) && g.oldestAgeSeconds >= threshold * 60)
      .map((g) => ({
        subject: `${g.connector}/${g.status}`,
        summary: `${g.count} payout(s) ${g.status} on connector ${g.connector}, the oldest unmoved for ${minutes(g.oldestAgeSeconds)} min`,
        details: { connector: g.connector, status: g.status, count: g.count, oldestAgeSeconds: Math.round(g.oldestAgeSeconds) },
      }));
  },
};

/** A workspace's webhook endpoint failing: `threshold` failed attempts since its last success. */
export const webhookEndpointFailing: ConditionSource = {
  name: 'webhooks.endpoint_failing',
  unit: 'attempts',
  defaultThreshold: 10,
  filterKeys: ['workspaceId'],
  description: "A workspace's webhook endpoint with N failed delivery attempts since its last successful delivery",
  async check(ctx, { threshold, filter }) {
    const endpoints = await failingEndpoints(ctx.db, Math.max(1, threshold));
    return endpoints
      .filter((e) => !filter.workspaceId || e.workspaceId === filter.workspaceId)
      .map((e) => ({
        subject: e.endpointId,
        summary: `Webhook endpoint ${e.endpointId} of workspace ${e.workspaceId} has failed ${e.failedAttempts} attempts since its last success`,
        details: { endpointId: e.endpointId, workspaceId: e.workspaceId, url: e.url, failedAttempts: e.failedAttempts },
      }));
  },
};

/** Approvals waiting: a workspace's oldest pending approval has waited `threshold` hours. */
export const approvalWaiting: ConditionSource = {
  name: 'approvals.waiting',
  unit: 'hours',
  defaultThreshold: 4,
  filterKeys: ['workspaceId'],
  description: "A workspace's payout approval pending for N hours",
  async check(ctx, { threshold, filter }) {
    const waiting = await pendingApprovalAges(ctx.db);
    return waiting
      .filter((w) => (!filter.workspaceId || w.workspaceId === filter.workspaceId) && w.oldestAgeSeconds >= threshold * 3600)
      .map((w) => ({
        subject: w.workspaceId,
        summary: `${w.count} approval(s) pending in workspace ${w.workspaceId}, the oldest for ${Math.floor(w.oldestAgeSeconds / 3600)} h`,
        details: { workspaceId: w.workspaceId, count: w.count, oldestAgeSeconds: Math.round(w.oldestAgeSeconds) },
      }));
  },
};

/** A sanctions list stale: its active version was loaded `threshold` days ago (lists never loaded are not screened against, and not alerted). */
export const screeningListStale: ConditionSource = {
  name: 'screening.list_stale',
  unit: 'days',
  defaultThreshold: 7,
  filterKeys: ['list'],
  description: 'A sanctions list whose active version was loaded N days ago or more',
  async check(ctx, { threshold, filter }) {
    const lists = await activeListAges(ctx.db);
    return lists
      .filter((l) => (!filter.list || l.list === filter.list) && l.ageSeconds >= threshold * 86_400)
      .map((l) => ({
        subject: l.list,
        summary: `Sanctions list ${l.list} was last loaded ${Math.floor(l.ageSeconds / 86_400)} days ago (${l.loadedAt.toISOString()})`,
        details: { list: l.list, loadedAt: l.loadedAt.toISOString(), ageSeconds: Math.round(l.ageSeconds) },
      }));
  },
};

/** The ledger's invariants (src/domains/ledger): any violation is an alert. */
export const ledgerInvariant: ConditionSource = {
  name: 'ledger.invariant',
  unit: 'none',
  defaultThreshold: 0,
  filterKeys: [],
  description: 'A ledger invariant broken: running balances that differ from transfers, a negative customer balance, a currency not summing to zero',
  async check(ctx) {
    const violations = await ledgerInvariantViolations(ctx.db);
    metrics.ledgerInvariantViolations.set(violations.length);
    return violations.map((v) => ({ subject: `${v.problem}: ${v.subject}`, summary: `Ledger invariant broken: ${v.problem} (${v.subject})`, details: v }));
  },
};

/**
 * The condition sources of the platform's own modules. A module adds its own with one line here; a
 * connector declares its conditions in its definition (`conditions`), and they count only where it
 * is present (`allConditionSources`).
 */
export const conditionSources: readonly ConditionSource[] = [payoutsStuck, webhookEndpointFailing, approvalWaiting, screeningListStale, ledgerInvariant];
