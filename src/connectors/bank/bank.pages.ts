import type { FastifyInstance } from 'fastify';
import { link, table } from '../../faces/web/components.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../../faces/web/web.js';
import { fileView, heldPayoutView, listBankFiles, listHeldPayouts } from './bank.service.js';
import { consolePage } from '../../faces/console/console.kit.js';

type HeldPayout = ReturnType<typeof heldPayoutView>;
type BankFile = ReturnType<typeof fileView>;

/** The most recent rows each list shows; the operator API pages through all of them. */
const ROWS = 50;

/**
 * The bank connector's outbound side: the operator's queue (payouts held because their file failed
 * its XSD validation, with the validator's message) and the latest pain.001 files with their delivery state.
 */
export function bankPages(app: FastifyInstance, web: Web): void {
  app.get('/console/bank', consolePage, async (req, reply) => {
    const [held, files] = await Promise.all([listHeldPayouts(web.ctx.db, { limit: ROWS }), listBankFiles(web.ctx.db, { limit: ROWS })]);
    const body = html`<p>Payouts leave as ISO 20022 pain.001 files over SFTP (docs/guides/bank-rails.md). A file that fails its schema never leaves: its payouts wait here, queued, until you fail them (the Payouts page, or <code>POST /operator/v1/payouts/{id}/fail</code>).</p>
${table<HeldPayout>(
  'Held payouts (operator queue)',
  [
    { label: 'Payout', cell: (p) => html`<code>${p.payoutId}</code>` },
    { label: 'Workspace', cell: (p) => link(`/console/workspaces/${p.workspaceId}`, p.workspaceId) },
    { label: 'Rail', cell: (p) => html`<code>${p.route}</code>` },
    { label: 'Amount', numeric: true, cell: (p) => `${p.amount} ${p.currency}` },
    { label: 'Account', cell: (p) => p.debtorAccount ?? '—' },
    { label: 'Reason', cell: (p) => html`<pre>${p.reason}</pre>` },
    { label: 'Held at', cell: (p) => p.heldAt },
  ],
  held.data,
  'No payout is held.',
)}
${table<BankFile>(
  'Latest files',
  [
    { label: 'File', cell: (f) => html`<code>${f.fileName}</code>` },
    { label: 'Status', cell: (f) => f.status },
    { label: 'Payouts', numeric: true, cell: (f) => String(f.payouts) },
    { label: 'Control sum', numeric: true, cell: (f) => f.controlSum },
    { label: 'Message', cell: (f) => f.message },
    { label: 'Problem', cell: (f) => (f.validationError ?? f.lastError ? html`<pre>${f.validationError ?? f.lastError}</pre>` : '') },
    { label: 'Created', cell: (f) => f.createdAt },
  ],
  files.data,
  'No file yet.',
)}`;
    return sendPage(web, req, reply, { title: 'Bank files', body });
  });
}
