import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../platform/lib/schemas.js';
import { words, readable, copyable, accountColumn, facts, filterForm, link, pageNav, pagePosition, pageRequest, section, select, status, table, when } from '../web/components.js';
import { statusWords } from '../web/codes.js';
import { queryChoice } from '../web/forms.js';
import { html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import { getBeneficiary, listBeneficiaries, type BeneficiaryAccountView, type BeneficiaryStatus } from '../../domains/beneficiaries/beneficiaries.service.js';
import { actingAccount, canChange, dashboardUser, memberPage } from './caller.js';

const STATUSES: readonly BeneficiaryStatus[] = ['active', 'inactive', 'suspended'];

/** An account's identifiers as the API shows them (IBAN, account number, wallet...). */
const accountData = (a: BeneficiaryAccountView) =>
  html`<dl class="inline-facts">${Object.entries(a.data).map(([k, v]) => html`<dt>${words(k)}</dt><dd>${typeof v === 'string' ? copyable(v) : readable(v)}</dd>`)}</dl>`;

/** Saved beneficiaries (as GET /v1/beneficiaries): the workspace's and its sub-accounts'. */
export function beneficiaryPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;

  app.get('/dashboard/beneficiaries', memberPage, async (req, reply) => {
    const wanted = queryChoice(req, 'status', STATUSES);
    const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
    const scope = actingAccount(req);
    const list = await listBeneficiaries(ctx.db, ctx.box, scope, { status: wanted, ...pageRequest(at) });
    const body = html`${canChange(req, 'beneficiaries') ? html`<p class="actions">${link('/dashboard/beneficiaries/new', 'Add a beneficiary')}</p>` : ''}${filterForm('/dashboard/beneficiaries', [select({ label: 'Status', name: 'status', options: [{ value: '', label: 'Any' }, ...STATUSES.map((s) => ({ value: s, label: statusWords(s) }))], value: wanted ?? '' })])}
${table(
  'Beneficiaries, newest first',
  [
    { label: 'Name', cell: (b) => link(`/dashboard/beneficiaries/${b.id}`, b.name) },
    { label: 'Type', cell: (b) => b.type },
    { label: 'Country', cell: (b) => b.country },
    { label: 'Accounts', cell: (b) => b.accounts.map((a) => `${a.type} ${a.currency}`).join(', ') },
    { label: 'Status', cell: (b) => status(b.status) },
    { label: 'Created', cell: (b) => when(b.createdAt) },
    ...accountColumn(scope.subAccountId, (b: (typeof list.data)[number]) => b.accountId),
  ],
  list.data,
  'No beneficiary saved yet.',
)}
${pageNav('/dashboard/beneficiaries', { status: wanted }, at, list)}`;
    return sendPage(web, req, reply, { title: 'Beneficiaries', body });
  });

  app.get<{ Params: { id: string } }>('/dashboard/beneficiaries/:id', { ...memberPage, schema: { hide: true, params: IdParams } }, async (req, reply) => {
    const b = await getBeneficiary(ctx.db, ctx.box, dashboardUser(req).workspaceId, req.params.id);
    const pay = canChange(req, 'pay') && b.status === 'active' ? html`<p class="actions">${link(`/dashboard/payouts/new?beneficiaryId=${b.id}`, 'Send a payout')}</p>` : '';
    const body = html`${pay}${facts([
      ['Beneficiary id', copyable(b.id)],
      ['Status', status(b.status)],
      ['Type', b.type],
      ['Country', b.country],
      ['Address', [b.address, b.addressLine2, b.postcode, b.city, b.countrySubdivision].filter(Boolean).join(', ') || null],
      ['Email', b.email],
      ['Date of birth', b.dateOfBirth],
      ['Registration number', b.registrationNumber],
      ['Sub-account', b.accountId],
      ['Notes', b.notes],
      ['Created', when(b.createdAt)],
      ['Updated', when(b.updatedAt)],
    ])}
${section(
  'Accounts',
  table(
    'Where this beneficiary is paid',
    [
      { label: 'Type', cell: (a) => a.type },
      { label: 'Currency', cell: (a) => a.currency },
      { label: 'Country', cell: (a) => a.country ?? '' },
      { label: 'Details', cell: (a) => accountData(a) },
      { label: 'Account id', cell: (a) => copyable(a.id) },
    ],
    b.accounts,
    'No account.',
  ),
)}`;
    return sendPage(web, req, reply, { title: b.name, body });
  });
}
