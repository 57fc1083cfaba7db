import type { FastifyReply, FastifyRequest } from 'fastify';
import { CURRENCY_CODES } from '../../platform/lib/currencies.js';
import { checkboxes, facts, field, money, postForm, select, status, table, textarea, when } from '../web/components.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, type Web } from '../web/web.js';
import { getWorkspace } from '../../domains/accounts/accounts.service.js';
import type { BusinessIdentity, WorkspaceSettings } from '../../domains/accounts/workspace-terms.js';
import { ROTATION_GRACE_SECONDS_MAX } from '../../domains/auth/credentials.service.js';
import { CAPABILITIES } from '../../domains/auth/scopes.js';
import * as operator from '../../controls/operator/operator.service.js';
import { listUsers } from '../../domains/users/users.service.js';
import { roleForm, roleOptions } from '../web/users.pages.js';
import { doneNotice, refusalNotice, type Refusal } from './console.kit.js';

/** The sections of a workspace's page, each with its own forms (a refusal is shown in its section). */
export type WorkspaceSection = 'currencies' | 'capabilities' | 'settings' | 'balances' | 'credentials' | 'users';

export interface WorkspaceExtras {
  /** Shown above everything: a secret shown once, or what just happened. */
  top?: Html;
  refused?: { section: WorkspaceSection; refusal: Refusal };
  status?: number;
}

type Workspace = ReturnType<typeof operator.workspaceData>;

/** The rows shown of a workspace's credentials and users. */
const ACCESS_ROWS_MAX = 100;

const base = (w: Workspace) => `/console/workspaces/${w.id}`;
const errorOf = (extras: WorkspaceExtras, section: WorkspaceSection) => (extras.refused?.section === section ? extras.refused.refusal : undefined);

function currenciesSection(req: FastifyRequest, w: Workspace, refusal: Refusal | undefined): Html {
  const others = CURRENCY_CODES.filter((c) => !w.enabledCurrencies.includes(c));
  return html`<section id="currencies"><h2>Currencies</h2>${refusalNotice(refusal)}
${table('Enabled currencies', [
  { label: 'Currency', cell: (c: string) => c },
  {
    label: 'Action',
    cell: (c: string) => postForm({ action: `${base(w)}/currencies`, csrf: req.web.csrf, submit: `Disable ${c}`, danger: true, inline: true }, html`<input type="hidden" name="code" value="${c}"><input type="hidden" name="enabled" value="false">`),
  },
], w.enabledCurrencies, 'No currency enabled.')}
${others.length ? postForm({ action: `${base(w)}/currencies`, csrf: req.web.csrf, submit: 'Enable currency', inline: true }, select({ label: 'Currency to enable', name: 'code', options: others }), html`<input type="hidden" name="enabled" value="true">`) : ''}
</section>`;
}

function capabilitiesSection(req: FastifyRequest, w: Workspace, refusal: Refusal | undefined): Html {
  return html`<section id="capabilities"><h2>Capabilities</h2>${refusalNotice(refusal)}
${table('Capabilities (off answers 403 CAPABILITY_DISABLED)', [
  { label: 'Capability', cell: (c: string) => c },
  { label: 'State', cell: (c: string) => status(w.capabilities[c] ? 'active' : 'disabled') },
  {
    label: 'Action',
    cell: (c: string) =>
      postForm(
        {
          action: `${base(w)}/capabilities/${c}`,
          csrf: req.web.csrf,
          submit: `${w.capabilities[c] ? 'Switch off' : 'Switch on'} ${c}`,
          danger: Boolean(w.capabilities[c]),
          inline: true,
          ...(w.capabilities[c] ? { confirm: `Switch off ${c} for ${w.name}? Its calls through it are refused at once (403 CAPABILITY_DISABLED).` } : {}),
        },
        html`<input type="hidden" name="enabled" value="${w.capabilities[c] ? 'false' : 'true'}">`),
  },
], CAPABILITIES)}
</section>`;
}

const lines = (map: Record<string, string> | undefined) => Object.entries(map ?? {}).map(([c, a]) => `${c} ${a}`).join('\n');
const limitLines = (map: WorkspaceSettings['payoutLimits']) => Object.entries(map ?? {}).map(([c, l]) => `${c} ${l.perTransaction ?? '-'} ${l.daily ?? '-'}`).join('\n');

function settingsSection(req: FastifyRequest, w: Workspace, refusal: Refusal | undefined): Html {
  const s = w.settings as WorkspaceSettings;
  const id: Partial<BusinessIdentity> = s.businessIdentity ?? {};
  const flags = [...(s.travelRuleScreening !== false ? ['travelRuleScreening'] : []), ...(s.payoutsPermitted !== false ? ['payoutsPermitted'] : [])];
  const err = (name: string) => refusal && Object.entries(refusal.fields).find(([k]) => k === name || k.startsWith(`${name}.`))?.[1];
  return html`<section id="settings"><h2>Settings</h2>${refusalNotice(refusal)}
${postForm(
  { action: `${base(w)}/settings`, csrf: req.web.csrf, submit: 'Save settings' },
  checkboxes({ legend: 'Flags', name: 'flags', options: ['travelRuleScreening', 'payoutsPermitted'], checked: flags }),
  field({ label: 'Primary currency', name: 'primaryCurrency', value: s.primaryCurrency ?? '', help: 'Empty: the country\'s currency.', error: err('primaryCurrency') }),
  html`<fieldset><legend>Business identity (originator of payouts sent without senderInfo)</legend>
${field({ label: 'Company name', name: 'companyName', value: id.companyName ?? '', error: err('businessIdentity') })}
${field({ label: 'Registration number', name: 'registrationNumber', value: id.registrationNumber ?? '' })}
${field({ label: 'Identity country', name: 'identityCountry', value: id.country ?? '', help: 'Two letters, such as GB', error: err('identityCountry') ?? err('businessIdentity.country') })}
${field({ label: 'Address', name: 'address', value: id.address ?? '' })}
${field({ label: 'City', name: 'city', value: id.city ?? '' })}
${field({ label: 'Postal code', name: 'postalCode', value: id.postalCode ?? '' })}</fieldset>`,
  textarea({ label: 'Payout fees', name: 'payoutFees', value: lines(s.payoutFees), help: 'One per line: CURRENCY AMOUNT (the fixed fee per payout funded from it), such as "EUR 1.50".' }),
  textarea({ label: 'Payout limits', name: 'payoutLimits', value: limitLines(s.payoutLimits), help: 'One per line: CURRENCY PER-TRANSACTION DAILY, "-" for none, such as "EUR 10000.00 50000.00".' }),
  textarea({ label: 'Deposit fees', name: 'depositFees', value: lines(s.depositFees), help: 'One per line: CURRENCY AMOUNT (the fixed service fee per deposit).' }),
)}
</section>`;
}

function balancesSection(req: FastifyRequest, w: Workspace, balances: Awaited<ReturnType<typeof operator.workspaceBalances>>, refusal: Refusal | undefined): Html {
  return html`<section id="balances"><h2>Balances</h2>${refusalNotice(refusal)}
${table('Balances of the master account', [
  { label: 'Currency', cell: (b: (typeof balances)[number]) => b.currency },
  { label: 'Available', cell: (b) => money(b.balance, b.currency), numeric: true },
  { label: 'Pending in', cell: (b) => money(b.pendingIn, b.currency), numeric: true },
  { label: 'Pending out', cell: (b) => money(b.pendingOut, b.currency), numeric: true },
  { label: 'Total', cell: (b) => money(b.totalBalance, b.currency), numeric: true },
], balances, 'No balance yet.')}
<h3>Adjust a balance</h3>
${postForm(
  { action: `${base(w)}/balances/adjust`, csrf: req.web.csrf, submit: 'Adjust balance', confirm: 'Post this adjustment to the ledger?' },
  select({ label: 'Currency', name: 'currency', options: w.enabledCurrencies }),
  field({ label: 'Amount', name: 'amount', required: true, inputmode: 'decimal', help: 'Signed decimal: positive credits the balance, negative debits it.', error: refusal?.fields.amount }),
  field({ label: 'Reason', name: 'reason', required: true, error: refusal?.fields.reason }),
)}
</section>`;
}

async function credentialsSection(web: Web, req: FastifyRequest, w: Workspace, refusal: Refusal | undefined): Promise<Html> {
  const page = await operator.workspaceCredentials(web.ctx.db, w.id, { limit: ACCESS_ROWS_MAX });
  type Row = (typeof page.data)[number];
  const actions = (c: Row) =>
    c.status !== 'active'
      ? html`<span class="muted">—</span>`
      : html`<div class="actions">${postForm(
          { action: `${base(w)}/credentials/${c.clientId}/rotate`, csrf: req.web.csrf, submit: 'Rotate secret', inline: true },
          field({ label: 'Old secret works for (seconds)', name: 'graceSeconds', type: 'number', value: '0', help: `0 to ${ROTATION_GRACE_SECONDS_MAX}` }),
        )}${postForm({ action: `${base(w)}/credentials/${c.clientId}/revoke`, csrf: req.web.csrf, submit: 'Revoke', danger: true, inline: true, confirm: 'Revoke this credential? Its tokens stop working at once.' })}</div>`;
  return html`<section id="credentials"><h2>Credentials</h2>${refusalNotice(refusal)}
${table('API credentials (secrets are never shown again)', [
  { label: 'Client id', cell: (c: Row) => html`<code>${c.clientId}</code>` },
  { label: 'Label', cell: (c) => c.label ?? '' },
  { label: 'Status', cell: (c) => status(c.status) },
  { label: 'Scopes', cell: (c) => `${c.scopes.length} scopes` },
  { label: 'Last used', cell: (c) => when(c.lastUsedAt) },
  { label: 'Actions', cell: actions },
], page.data, 'No credential yet.')}
${postForm({ action: `${base(w)}/credentials`, csrf: req.web.csrf, submit: 'Issue credential' }, field({ label: 'Label', name: 'label', help: 'Every scope is granted.' }))}
</section>`;
}

async function usersSection(web: Web, req: FastifyRequest, w: Workspace, refusal: Refusal | undefined): Promise<Html> {
  const page = await listUsers(web.ctx.db, web.ctx.box, w.id, { limit: ACCESS_ROWS_MAX });
  type Row = (typeof page.data)[number];
  const actions = (u: Row) =>
    html`<div class="actions">${
      u.status === 'invited'
        ? postForm({ action: `${base(w)}/users/${u.id}/invitation`, csrf: req.web.csrf, submit: 'New invitation link', label: `New invitation link for ${u.email}`, inline: true })
        : postForm(
            { action: `${base(w)}/users/${u.id}`, csrf: req.web.csrf, submit: u.status === 'disabled' ? 'Enable' : 'Disable', label: `${u.status === 'disabled' ? 'Enable' : 'Disable'} ${u.email}`, danger: u.status !== 'disabled', inline: true },
            html`<input type="hidden" name="status" value="${u.status === 'disabled' ? 'active' : 'disabled'}">`,
          )
    }${roleForm({ area: 'dashboard', action: `${base(w)}/users/${u.id}`, csrf: req.web.csrf, user: u })}</div>`;
  return html`<section id="users"><h2>Dashboard users</h2>${refusalNotice(refusal)}
${table('Dashboard users', [
  { label: 'Email', cell: (u: Row) => u.email },
  { label: 'Role', cell: (u) => u.role },
  { label: 'Status', cell: (u) => status(u.status) },
  { label: 'Actions', cell: actions },
], page.data, 'No dashboard user yet.')}
${postForm(
  { action: `${base(w)}/users`, csrf: req.web.csrf, submit: 'Invite user' },
  field({ label: 'Email', name: 'email', type: 'email', required: true, error: refusal?.fields.email }),
  select({ label: 'Role', name: 'role', options: roleOptions('dashboard'), value: 'viewer' }),
)}
</section>`;
}

/** A workspace's page: its facts, then every section with its forms. */
export async function showWorkspace(web: Web, req: FastifyRequest, reply: FastifyReply, id: string, extras: WorkspaceExtras = {}): Promise<FastifyReply> {
  const w = operator.workspaceData(await getWorkspace(web.ctx.db, id));
  const balances = await operator.workspaceBalances(web.ctx.db, id);
  const body = html`${extras.top ?? doneNotice(req)}
${facts([
  ['Id', html`<code>${w.id}</code>`],
  ['Country', w.country],
  ['Status', status(w.status)],
  ['Created', when(w.createdAt)],
])}
<p><a href="/console/audit?workspaceId=${w.id}">Audit log of this workspace</a></p>
${currenciesSection(req, w, errorOf(extras, 'currencies'))}
${capabilitiesSection(req, w, errorOf(extras, 'capabilities'))}
${balancesSection(req, w, balances, errorOf(extras, 'balances'))}
${await credentialsSection(web, req, w, errorOf(extras, 'credentials'))}
${await usersSection(web, req, w, errorOf(extras, 'users'))}
${settingsSection(req, w, errorOf(extras, 'settings'))}`;
  return sendPage(web, req, reply, { title: w.name, body, status: extras.status });
}
