import type { FastifyInstance } from 'fastify';
import { table } from '../web/components.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import { listAlerts, listConditions, runbookAnchor, type AlertView } from '../../controls/alerts/alerts.service.js';
import { registryOf } from '../../connectors/registry.js';
import { listOperatorNotifications } from '../../controls/notifications/notifications.service.js';
import { consolePage } from './console.kit.js';

type Condition = Awaited<ReturnType<typeof listConditions>>[number];
type Notification = Awaited<ReturnType<typeof listOperatorNotifications>>['data'][number];

/** The most recent rows each list shows; the operator API pages through all of them. */
const ROWS = 50;

const alertColumns = [
  { label: 'Summary', cell: (a: AlertView) => a.summary },
  { label: 'Condition', cell: (a: AlertView) => html`<code>${a.conditionId}</code>` },
  { label: 'Subject', cell: (a: AlertView) => html`<code>${a.subject}</code>` },
  { label: 'Opened', cell: (a: AlertView) => a.openedAt },
  { label: 'Closed', cell: (a: AlertView) => a.closedAt ?? '—' },
  { label: 'What to do', cell: (a: AlertView) => html`<code>${runbookAnchor(a.source)}</code>` },
];

/**
 * Alerts: what is wrong now (open), what was (closed lately), the conditions and their thresholds,
 * and whether the e-mails and webhooks that carried them went out.
 */
export function alertPages(app: FastifyInstance, web: Web): void {
  app.get('/console/alerts', consolePage, async (req, reply) => {
    const db = web.ctx.db;
    const [open, closed, conditions, sent] = await Promise.all([
      listAlerts(db, { status: 'open', limit: ROWS }),
      listAlerts(db, { status: 'closed', limit: ROWS }),
      listConditions(db, registryOf(web.ctx.connectors).alertSources()),
      listOperatorNotifications(db, { limit: ROWS }),
    ]);
    const body = html`<p>A worker evaluates each condition every ALERT_EVALUATE_MS: an alert opens once when its condition is found, is mailed and POSTed to the operator, and closes when the condition clears. Thresholds are set with <code>PUT /operator/v1/alert-conditions/{id}</code>; what each alert means and what to do is in docs/operations.md.</p>
${table<AlertView>('Open alerts', alertColumns, open.data, 'No alert is open.')}
${table<Condition>(
  'Conditions',
  [
    { label: 'Condition', cell: (c) => html`<code>${c.id}</code>` },
    { label: 'Source', cell: (c) => c.description },
    { label: 'Threshold', numeric: true, cell: (c) => (c.unit === 'none' ? 'any' : `${c.threshold} ${c.unit}`) },
    { label: 'Filter', cell: (c) => (Object.keys(c.filter).length ? html`<code>${JSON.stringify(c.filter)}</code>` : 'all') },
    { label: 'Status', cell: (c) => (c.enabled ? 'on' : 'off') },
  ],
  conditions,
)}
${table<AlertView>('Closed lately', alertColumns, closed.data, 'No alert has closed yet.')}
${table<Notification>(
  'Notifications sent',
  [
    { label: 'Subject', cell: (n) => n.subject },
    { label: 'Channel', cell: (n) => n.channel },
    { label: 'To', cell: (n) => n.recipient },
    { label: 'Status', cell: (n) => n.status },
    { label: 'Attempts', numeric: true, cell: (n) => String(n.attempts) },
    { label: 'Last error', cell: (n) => n.lastError ?? '' },
  ],
  sent.data,
  'No notification yet (set ALERT_EMAIL_TO and SMTP_URL, or ALERT_WEBHOOK_URL).',
)}`;
    return sendPage(web, req, reply, { title: 'Alerts', body });
  });
}
