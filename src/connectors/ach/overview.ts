import type { AppContext } from '../../platform/context.js';
import { fedCalendarDays, type FedCalendarDay } from '../../platform/lib/federal-reserve-calendar.js';
import { formatAmount } from '../../platform/lib/money.js';
import { localNow, windowAt, type AchCalendar, type AchWindow } from './calendar.js';
import { latestAchExceptions, latestAchFiles, latestAchInbound } from './ach.repository.js';
import { changeCode, returnCode } from './codes.js';
import { achConnectorOf } from './index.js';

/** The ACH connector as the operator's console shows it: files sent, files taken in, what moved nothing, and the calendar of cut-offs. */
export interface AchOverview {
  configured: boolean;
  calendar: (AchCalendar & { now: string; window: AchWindow; days: FedCalendarDay[] }) | null;
  files: { id: string; fileName: string; effectiveDate: string; sameDay: boolean; status: string; entries: number; payouts: number; entryHash: string; totalCredit: string; totalDebit: string; createdAt: string; deliveredAt: string | null; lastError: string | null }[];
  inbound: { id: string; name: string; status: string; reason: string | null; returns: number; changes: number; exceptions: number; receivedAt: string }[];
  exceptions: { id: string; fileName: string; code: string; words: string; reason: string; actor: string; traceNumber: string | null; payoutId: string | null; createdAt: string }[];
}

/** What the console's ACH page shows: the latest `limit` of each list, and the cut-off calendar of the connector of this process (none when it is not configured). */
export async function achOverview(ctx: AppContext, limit: number): Promise<AchOverview> {
  const ach = achConnectorOf(ctx);
  const [files, inbound, exceptions] = await Promise.all([latestAchFiles(ctx.db, limit), latestAchInbound(ctx.db, limit), latestAchExceptions(ctx.db, limit)]);
  let calendar: AchOverview['calendar'] = null;
  if (ach) {
    const { calendar: c } = ach.runtime.config;
    const now = ach.runtime.now();
    calendar = { ...c, now: now.toISOString(), window: windowAt(now, c), days: fedCalendarDays(localNow(now, c.timeZone).date, 14) };
  }
  return {
    configured: Boolean(ach),
    calendar,
    files: files.map((f) => ({
      id: f.id,
      fileName: f.file_name,
      effectiveDate: f.effective_date,
      sameDay: f.same_day,
      status: f.status,
      entries: f.entry_count,
      payouts: f.payouts,
      entryHash: f.entry_hash,
      totalCredit: formatAmount(BigInt(f.total_credit), 'USD'),
      totalDebit: formatAmount(BigInt(f.total_debit), 'USD'),
      createdAt: f.created_at.toISOString(),
      deliveredAt: f.delivered_at?.toISOString() ?? null,
      lastError: f.last_error,
    })),
    inbound: inbound.map((f) => ({ id: f.id, name: f.name, status: f.status, reason: f.reason, returns: f.returns, changes: f.changes, exceptions: f.exceptions, receivedAt: f.received_at.toISOString() })),
    exceptions: exceptions.map((e) => ({
      id: e.id,
      fileName: e.file_name,
      code: e.code,
      words: /^R\d\d$/.test(e.code) ? returnCode(e.code).words : (changeCode(e.code)?.words ?? ''),
      reason: e.reason,
      actor: e.actor,
      traceNumber: e.trace_number,
      payoutId: e.payout_id,
      createdAt: e.created_at.toISOString(),
    })),
  };
}
