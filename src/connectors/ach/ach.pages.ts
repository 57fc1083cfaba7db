import type { FastifyInstance } from 'fastify';
import { table, when } from '../../faces/web/components.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../../faces/web/web.js';
import { consolePage, fedCalendarTable, fileDeliveryColumns } from '../../faces/console/console.kit.js';
import { achOverview, type AchOverview } from './overview.js';

type AchFile = AchOverview['files'][number];
type Inbound = AchOverview['inbound'][number];
type AchException = AchOverview['exceptions'][number];

/** The most recent rows each list shows. */
const ROWS = 50;

const calendarSection = (c: NonNullable<AchOverview['calendar']>) => html`<h2>Cut-off calendar</h2>
<p>Times are the ODFI's, in <code>${c.timeZone}</code>. Same Day cut-offs: ${c.sameDayCutoffs.length ? c.sameDayCutoffs.join(', ') : html`<span class="muted">none (Same Day ACH is off)</span>`}; next-day cut-off: ${c.nextDayCutoff}. A file cut now (${when(c.now)}) settles on <strong>${c.window.effectiveDate}</strong>, ${c.window.sameDay ? 'Same Day' : 'next day'}${c.window.cutoff ? html`, making the ${c.window.cutoff} cut-off` : ', in the next banking day\'s first window'}.</p>
${fedCalendarTable('The next two weeks', c.days)}`;

/**
 * The ACH connector's console page: the NACHA files cut with their control totals (entries, entry
 * hash, total credit and debit) and delivery, the ODFI's files taken in with the returns and
 * notifications of change each applied, what moved nothing (dishonored, contested or late returns,
 * unknown traces, changes the workspace must make), and the calendar of cut-offs and holidays.
 */
export function achPages(app: FastifyInstance, web: Web): void {
  app.get('/console/ach', consolePage, async (req, reply) => {
    const o = await achOverview(web.ctx, ROWS);
    const body = html`<p>US payouts leave as NACHA files to the ODFI over SFTP; returns (Addenda 99) and notifications of change (Addenda 98) come back from its outbox (docs/guides/ach.md).</p>
${o.calendar ? calendarSection(o.calendar) : html`<p class="empty">No ACH connector is configured in this process (the "ach" section of <code>CORRIDOR_CONNECTORS_FILE</code>): the lists below are what earlier runs recorded.</p>`}
${table<AchFile>(
  'Files sent, with their control totals',
  [
    { label: 'File', cell: (f) => html`<code>${f.fileName}</code>` },
    { label: 'Effective', cell: (f) => html`${f.effectiveDate}${f.sameDay ? ' (Same Day)' : ''}` },
    { label: 'Status', cell: (f) => f.status },
    { label: 'Payouts', numeric: true, cell: (f) => String(f.payouts) },
    { label: 'Entries and addenda', numeric: true, cell: (f) => String(f.entries) },
    { label: 'Entry hash', numeric: true, cell: (f) => html`<code>${f.entryHash}</code>` },
    { label: 'Total credit', numeric: true, cell: (f) => `${f.totalCredit} USD` },
    { label: 'Total debit', numeric: true, cell: (f) => `${f.totalDebit} USD` },
    ...fileDeliveryColumns<AchFile>(),
  ],
  o.files,
  'No file yet.',
)}
${table<Inbound>(
  'Returns and notifications of change received',
  [
    { label: 'File', cell: (f) => html`<code>${f.name}</code>` },
    { label: 'Status', cell: (f) => f.status },
    { label: 'Returns applied', numeric: true, cell: (f) => String(f.returns) },
    { label: 'Corrections applied', numeric: true, cell: (f) => String(f.changes) },
    { label: 'Exceptions', numeric: true, cell: (f) => String(f.exceptions) },
    { label: 'Refused because', cell: (f) => (f.reason ? html`<pre>${f.reason}</pre>` : '') },
    { label: 'Received', cell: (f) => when(f.receivedAt) },
  ],
  o.inbound,
  'Nothing received yet.',
)}
${table<AchException>(
  'Codes that moved nothing',
  [
    { label: 'Code', cell: (e) => html`<code>${e.code}</code>${e.words ? html` ${e.words}` : ''}` },
    { label: 'Who must act', cell: (e) => e.actor },
    { label: 'Payout', cell: (e) => (e.payoutId ? html`<code>${e.payoutId}</code>` : html`<span class="muted">none</span>`) },
    { label: 'Trace', cell: (e) => (e.traceNumber ? html`<code>${e.traceNumber}</code>` : '') },
    { label: 'Reason', cell: (e) => e.reason },
    { label: 'File', cell: (e) => html`<code>${e.fileName}</code>` },
    { label: 'Received', cell: (e) => when(e.createdAt) },
  ],
  o.exceptions,
  'None.',
)}`;
    return sendPage(web, req, reply, { title: 'ACH', body });
  });
}
