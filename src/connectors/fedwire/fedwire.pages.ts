import type { FastifyInstance } from 'fastify';
import { table, when } from '../../faces/web/components.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../../faces/web/web.js';
import { consolePage, fedCalendarTable, fileDeliveryColumns } from '../../faces/console/console.kit.js';
import { fedwireOverview, type FedwireOverview } from './overview.js';

type WireFile = FedwireOverview['files'][number];
type WireException = FedwireOverview['exceptions'][number];

/** The most recent rows each list shows. */
const ROWS = 50;

const calendarSection = (c: NonNullable<FedwireOverview['calendar']>) => html`<h2>Cut-off calendar</h2>
<p>Times are Eastern (<code>${c.timeZone}</code>). The Fedwire Funds Service opens at ${c.opensPreviousDayAt} the day before, takes customer transfers until ${c.customerTransferCutoff} and closes at ${c.closesAt}; your bank takes wire files until <strong>${c.bankCutoff}</strong>. A wire handed over now (${when(c.now)}) is executed on <strong>${c.executionDate}</strong>.</p>
${fedCalendarTable('The next two weeks', c.days)}`;

/**
 * The Fedwire connector's console page: the funds service's hours, the bank's cut-off and the
 * calendar of business days and holidays, the wire files sent with their control totals and the
 * bank's acknowledgement, and the bank's answers (pacs.002, pacs.004, admi.007) that applied nothing.
 */
export function fedwirePages(app: FastifyInstance, web: Web): void {
  app.get('/console/fedwire', consolePage, async (req, reply) => {
    const o = await fedwireOverview(web.ctx, ROWS);
    const body = html`<p>USD wires leave as pain.001 files to your US bank's ISO 20022 channel over SFTP; its status reports (pacs.002) and returns (pacs.004) come back from its outbox (docs/guides/fedwire.md). A wire's reject or return is on its payout.</p>
${o.calendar ? calendarSection(o.calendar) : html`<p class="empty">No Fedwire connector is configured in this process (the "fedwire" section of <code>CORRIDOR_CONNECTORS_FILE</code>): the lists below are what earlier runs recorded.</p>`}
${table<WireFile>(
  'Wire files sent, with their control totals',
  [
    { label: 'File', cell: (f) => html`<code>${f.fileName}</code>` },
    { label: 'Message', cell: (f) => html`<code>${f.msgId}</code>` },
    { label: 'Status', cell: (f) => f.status },
    { label: 'Wires', numeric: true, cell: (f) => String(f.wires) },
    { label: 'Control sum', numeric: true, cell: (f) => `${f.controlSum} USD` },
    { label: 'Bank acknowledgement', cell: (f) => f.acknowledgement ?? html`<span class="muted">none yet</span>` },
    ...fileDeliveryColumns<WireFile>(),
  ],
  o.files,
  'No wire file yet.',
)}
${table<WireException>(
  'Answers that applied nothing',
  [
    { label: 'Code', cell: (e) => html`<code>${e.code}</code>` },
    { label: 'Message', cell: (e) => e.messageType },
    { label: 'Reason', cell: (e) => e.reason },
    { label: 'File', cell: (e) => html`<code>${e.fileName}</code>` },
    { label: 'Received', cell: (e) => when(e.createdAt) },
  ],
  o.exceptions,
  'None.',
)}`;
    return sendPage(web, req, reply, { title: 'Fedwire', body });
  });
}
