import type { FastifyInstance } from 'fastify';
import { link, pager, status, table, when } from '../../web/components.js';
import { queryText } from '../../web/forms.js';
import { html } from '../../web/html.js';
import { sendPage, type Web } from '../../web/web.js';
import * as operator from '../operator/operator.service.js';

const member = { schema: { hide: true }, config: { web: { area: 'console' as const } } };

/** Workspaces: the list (the console's home). */
export function workspacePages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get('/console', member, async (req, reply) => {
    const page = await operator.listWorkspaces(ctx.db, { cursor: queryText(req, 'cursor'), limit: 50 });
    const body = html`${table(
      'Workspaces, newest first',
      [
        { label: 'Name', cell: (w) => link(`/console/workspaces/${w.id}`, w.name) },
        { label: 'Country', cell: (w) => w.country },
        { label: 'Status', cell: (w) => status(w.status) },
        { label: 'Currencies', cell: (w) => w.enabledCurrencies.join(', ') },
        { label: 'Created', cell: (w) => when(w.createdAt) },
      ],
      page.data,
      'No workspace yet.',
    )}${pager('/console', {}, page.nextCursor)}`;
    return sendPage(web, req, reply, { title: 'Workspaces', body });
  });
}
