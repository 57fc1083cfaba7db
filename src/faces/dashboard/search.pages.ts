import type { FastifyInstance } from 'fastify';
import { isUuid } from '../../platform/lib/ids.js';
import { link, money, section, status, table, when } from '../web/components.js';
import { queryText } from '../web/forms.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { listBeneficiaries } from '../../domains/beneficiaries/beneficiaries.service.js';
import { listOrders } from '../../domains/orders/orders.read.js';
import { listPayouts } from '../../domains/payouts/payouts.read.js';
import { actingAccount, dashboardCaller, memberPage } from './caller.js';
import { payoutSearchOf } from './payouts.pages.js';

/** Matches shown per kind; the rest are a click away in that kind's list. */
const MATCHES_SHOWN = 10;

/**
 * One search box for payouts, beneficiaries and orders (the header's): by id (an exact id opens its
 * page), by any part of a client reference, by amount, by beneficiary name.
 */
export function searchPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/dashboard/search', memberPage, async (req, reply) => {
    const q = queryText(req, 'q')?.trim();
    const scope = actingAccount(req);
    if (!q) return sendPage(web, req, reply, { title: 'Search', body: html`<p>Type an id, part of a client reference, an amount or a beneficiary's name in the search box.</p>` });
    const caller = await dashboardCaller(ctx, req);
    const search = await payoutSearchOf(web, req, q, caller.workspace.enabledCurrencies);
    const [payouts, beneficiaries, orders] = await Promise.all([
      listPayouts(ctx.db, scope, { search, limit: MATCHES_SHOWN }),
      listBeneficiaries(ctx.db, ctx.box, scope, { nameContains: q, limit: MATCHES_SHOWN }),
      listOrders(ctx.db, scope, { search: q, limit: MATCHES_SHOWN }),
    ]);
    // An id that names exactly one thing opens it.
    if (isUuid(q)) {
      const only = [...payouts.data.map((p) => `/dashboard/payouts/${p.id}`), ...beneficiaries.data.map((b) => `/dashboard/beneficiaries/${b.id}`), ...orders.data.map((o) => `/dashboard/orders/${o.id}`)];
      if (only.length === 1) return seeOther(reply, only[0] as string);
    }
    const more = (shown: number, next: string | null, href: string) => (next || shown >= MATCHES_SHOWN ? html`<p>${link(href, 'See every match')}</p>` : '');
    const body = html`${section(
      'Payouts',
      table('Payouts that match', [
        { label: 'Created', cell: (p) => when(p.createdAt) },
        { label: 'Client reference', cell: (p) => link(`/dashboard/payouts/${p.id}`, p.clientRef) },
        { label: 'Amount', numeric: true, cell: (p) => money(p.amount, p.currency) },
        { label: 'Status', cell: (p) => status(p.status) },
      ], payouts.data, 'No payout matches.'),
      more(payouts.data.length, payouts.nextCursor, `/dashboard/payouts?q=${encodeURIComponent(q)}`),
    )}
${section(
  'Beneficiaries',
  table('Beneficiaries that match', [
    { label: 'Name', cell: (b) => link(`/dashboard/beneficiaries/${b.id}`, b.name) },
    { label: 'Country', cell: (b) => b.country },
    { label: 'Status', cell: (b) => status(b.status) },
  ], beneficiaries.data, 'No beneficiary matches.'),
)}
${section(
  'Orders',
  table('Orders that match', [
    { label: 'Created', cell: (o) => when(o.createdAt) },
    { label: 'Client reference', cell: (o) => link(`/dashboard/orders/${o.id}`, o.clientRef ?? o.id) },
    { label: 'Sell', numeric: true, cell: (o) => money(o.fromAmount, o.fromCurrency) },
    { label: 'Status', cell: (o) => status(o.status) },
  ], orders.data, 'No order matches.'),
  more(orders.data.length, orders.nextCursor, `/dashboard/orders?q=${encodeURIComponent(q)}`),
)}`;
    return sendPage(web, req, reply, { title: `Search: ${q}`, body });
  });
}
