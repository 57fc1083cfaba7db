import type { AppContext } from '../../platform/context.js';
import { fedCalendarDays, type FedCalendarDay } from '../../platform/lib/federal-reserve-calendar.js';
import { easternTime, EASTERN, fedwireExecutionDate, FUNDS_SERVICE } from './calendar.js';
import { fedwireConnectorOf } from './fedwire.connector.js';
import { latestWireExceptions, latestWireFiles } from './fedwire.repository.js';

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The Fedwire connector as the operator's console shows it: the funds service's hours and the bank's cut-off, the calendar, the wire files sent and the answers that applied nothing. */
export interface FedwireOverview {
  configured: boolean;
  calendar: { timeZone: string; opensPreviousDayAt: string; customerTransferCutoff: string; closesAt: string; bankCutoff: string; now: string; executionDate: string; days: FedCalendarDay[] } | null;
  files: { id: string; fileName: string; msgId: string; status: string; wires: number; controlSum: string; acknowledgement: string | null; createdAt: string; deliveredAt: string | null; lastError: string | null }[];
  exceptions: { id: string; fileName: string; messageType: string; code: string; reason: string; endToEndId: string | null; createdAt: string }[];
}

/** What the console's Fedwire page shows: the latest `limit` of each list, and the calendar of the connector of this process (none when it is not configured). */
export async function fedwireOverview(ctx: AppContext, limit: number, now = new Date()): Promise<FedwireOverview> {
  const fw = fedwireConnectorOf(ctx);
  const [files, exceptions] = await Promise.all([latestWireFiles(ctx.db, limit), fw ? latestWireExceptions(ctx.db, fw.runtime.config.account.id, limit) : Promise.resolve([])]);
  const calendar: FedwireOverview['calendar'] = fw
    ? {
        timeZone: EASTERN,
        opensPreviousDayAt: hhmm(FUNDS_SERVICE.opensPreviousDayAt),
        customerTransferCutoff: hhmm(FUNDS_SERVICE.customerTransferCutoff),
        closesAt: hhmm(FUNDS_SERVICE.closesAt),
        bankCutoff: fw.runtime.config.bankCutoff,
        now: now.toISOString(),
        executionDate: fedwireExecutionDate(now, fw.runtime.config.bankCutoff),
        days: fedCalendarDays(easternTime(now).date, 14),
      }
    : null;
  return {
    configured: Boolean(fw),
    calendar,
    files: files.map((f) => ({
      id: f.id,
      fileName: f.file_name,
      msgId: f.msg_id,
      status: f.status,
      wires: f.nb_of_txs,
      controlSum: f.ctrl_sum.replace(/\.?0+$/, '') || '0',
      acknowledgement: f.ack_status,
      createdAt: f.created_at.toISOString(),
      deliveredAt: f.delivered_at?.toISOString() ?? null,
      lastError: f.last_error,
    })),
    exceptions: exceptions.map((e) => ({ id: e.id, fileName: e.file_name, messageType: e.message_type, code: e.code, reason: e.reason, endToEndId: e.end_to_end_id, createdAt: e.created_at.toISOString() })),
  };
}
