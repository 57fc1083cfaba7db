import type { FastifyInstance } from 'fastify';
import { postForm, section, status, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { formText } from '../web/forms.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import { getWorkspace, listSubAccounts } from '../../domains/accounts/accounts.service.js';
import { setActingAccount } from '../../domains/users/sessions.service.js';
import { actingAccount, dashboardUser, memberPage } from './caller.js';


interface AccountLine {
  id: string | null;
  name: string;
  kind: string;
  status: string;
  createdAt: string | null;
}

/**
 * The workspace's accounts: its master account and its sub-accounts (as GET /v1/accounts). The
 * session acts on one of them, as an API call with or without Service-Account-Id: the overview,
 * payouts, beneficiaries, orders, receiving, onboarding and the sandbox tools then show that one.
 */
export function accountPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  app.get('/dashboard/accounts', memberPage, async (req, reply) => {
    const { workspaceId, subAccountId } = actingAccount(req);
    const workspace = await getWorkspace(ctx.db, workspaceId);
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const subs = await listSubAccounts(ctx.db, workspaceId, pageRequest(at));
    const lines: AccountLine[] = [
      { id: null, name: workspace.name, kind: 'master', status: workspace.status, createdAt: workspace.created_at.toISOString() },
      ...subs.data.map((a) => ({ id: a.id, name: a.name, kind: 'sub-account', status: a.status, createdAt: a.createdAt })),
    ];
    const actingOn = (line: AccountLine) => line.id === (subAccountId ?? null);
    const body = section(
      'Accounts',
      html`<p class="help">The pages show the account you act on, as API calls do with (or without) the <code>Service-Account-Id</code> header.</p>`,
      table(
        'The master account and its sub-accounts',
        [
          { label: 'Name', cell: (a) => a.name },
          { label: 'Kind', cell: (a) => a.kind },
          { label: 'Id', cell: (a) => html`<code>${a.id ?? workspace.id}</code>` },
          { label: 'Status', cell: (a) => status(a.status) },
          { label: 'Created', cell: (a) => (a.createdAt ? when(a.createdAt) : '') },
          {
            label: 'Pages show',
            cell: (a) =>
              actingOn(a)
                ? html`<strong>this account</strong>`
                : postForm(
                    { action: '/dashboard/accounts/acting', csrf: req.web.csrf, submit: 'Act on this account', label: `Act on this account: ${a.name}`, inline: true },
                    html`<input type="hidden" name="accountId" value="${a.id ?? ''}">`,
                  ),
          },
        ],
        lines,
      ),
      pageNav('/dashboard/accounts', {}, at, subs),
    );
    return sendPage(web, req, reply, { title: 'Accounts', body });
  });

  // Reading another account changes nothing, so a viewer may switch too; the change is the session's.
  app.post('/dashboard/accounts/acting', memberPage, async (req, reply) => {
    const accountId = formText(req, 'accountId', { maxLength: 100 });
    await setActingAccount(ctx.db, ctx.box, req.web.sessionToken as string, dashboardUser(req).workspaceId, accountId === '' ? null : accountId);
    return seeOther(reply, '/dashboard');
  });
}
