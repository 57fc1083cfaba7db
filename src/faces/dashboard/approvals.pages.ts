import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdParams } from '../../platform/lib/schemas.js';
import { field, filterForm, link, money, notice, postForm, section, select, status, table, when, pageNav, pagePosition, pageRequest } from '../web/components.js';
import { attempt, changeOnce, formOptional, formText, queryChoice, queryText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import { sendPage, seeOther, type Web } from '../web/web.js';
import * as approvals from '../../controls/approvals/approvals.service.js';
import { APPROVAL_STATUSES, RULE_TYPES, type RuleType } from '../../controls/approvals/approvals.service.js';
import { auditedByChange } from '../../controls/audit/audit.service.js';
import { actingAccount, rightPage, canChange, dashboardCaller, dashboardUser, memberPage, type Refusal } from './caller.js';

type Item = Awaited<ReturnType<typeof approvals.listApprovals>>['data'][number];
type Rule = approvals.RuleView;
type IdRequest = FastifyRequest<{ Params: { id: string } }>;

const PATH = '/dashboard/approvals';
const idPage = { ...rightPage('approve'), schema: { hide: true, params: IdParams } };

/** What the page says after a change (`?done=`): only these texts, whatever the link says. */
const DONE: Record<string, string> = {
  approved: 'Payout approved: it proceeds to the provider.',
  rejected: 'Payout rejected: it is cancelled and its held funds are back on the balance.',
  'rule-added': 'Approval rule added: payouts created from now on that it matches wait for an approval.',
  'rule-removed': 'Approval rule removed: payouts already waiting still wait for their decision.',
};

const RULE_LABEL: Record<RuleType, string> = {
  amount_over: 'Payouts over an amount (per currency)',
  new_beneficiary: 'Payouts to a beneficiary saved less than N days ago',
  batch_over: 'Every payout of a batch over N rows',
  every_payout: 'Every payout',
};

function ruleText(rule: Pick<Rule, 'type'> & { currency?: string; amount?: string; days?: number; rows?: number }): string {
  switch (rule.type) {
    case 'amount_over':
      return `Over ${rule.amount ?? ''} ${rule.currency ?? ''}`;
    case 'new_beneficiary':
      return `Beneficiary saved less than ${rule.days ?? ''} days ago`;
    case 'batch_over':
      return `Batch over ${rule.rows ?? ''} rows`;
    case 'every_payout':
      return 'Every payout';
  }
}

/** A person or credential as the page names them: "you", a dashboard user, or a credential. */
function who(req: FastifyRequest, id: string | null): string {
  if (!id) return '';
  if (id === `dashboard:${dashboardUser(req).id}`) return 'you';
  return id.startsWith('dashboard:') ? `dashboard user ${id.slice('dashboard:'.length)}` : id === 'system' ? 'the approval window' : `credential ${id}`;
}

function decisionForms(req: FastifyRequest, a: Item): Html | string {
  if (a.status !== 'pending' || !canChange(req, 'approve')) return '';
  if (a.requestedBy === `dashboard:${dashboardUser(req).id}`) return html`<span class="muted">You created it: someone else decides.</span>`;
  const what = `payout ${a.payout.clientRef} of ${a.payout.amount} ${a.payout.currency}`;
  return html`<div class="actions">${postForm({ action: `${PATH}/${a.payoutId}/approve`, csrf: req.web.csrf, submit: 'Approve', inline: true, label: `Approve ${what}`, confirm: `Approve ${what}? It is sent to the beneficiary.` })}${postForm({
    action: `${PATH}/${a.payoutId}/reject`,
    csrf: req.web.csrf,
    submit: 'Reject',
    danger: true,
    inline: true,
    label: `Reject ${what}`,
    confirm: `Reject ${what}? It is cancelled and its held funds return to the balance.`,
  })}</div>`;
}

function approvalsTable(req: FastifyRequest, items: readonly Item[], shown: string): Html {
  return table(
    shown === 'pending' ? 'Payouts waiting for an approval, newest first' : `Approvals ${shown}, newest first`,
    [
      { label: 'Payout', cell: (a: Item) => link(`/dashboard/payouts/${a.payoutId}`, a.payout.clientRef) },
      { label: 'Amount', numeric: true, cell: (a) => money(a.payout.amount, a.payout.currency) },
      { label: 'Rule', cell: (a) => ruleText(a.rule) },
      { label: 'Requested by', cell: (a) => who(req, a.requestedBy) },
      { label: 'Status', cell: (a) => status(a.status) },
      { label: shown === 'pending' ? 'Expires' : 'Decided', cell: (a) => (a.status === 'pending' ? when(a.expiresAt) : html`${when(a.decidedAt)} ${who(req, a.decidedBy)}`) },
      { label: 'Decision', cell: (a) => decisionForms(req, a) },
    ],
    items,
    shown === 'pending' ? 'No payout waits for an approval.' : 'No approval in this view.',
  );
}

function ruleForm(req: FastifyRequest, refusal: Refusal | undefined): Html {
  const posted = req.method === 'POST' && Boolean(refusal);
  const value = (name: string) => (posted ? formText(req, name, { maxLength: 200 }) : undefined);
  return section(
    'Add a rule',
    refusal ? notice('error', refusal.message) : '',
    postForm(
      { action: '/dashboard/approval-rules', csrf: req.web.csrf, submit: 'Add rule' },
      select({ label: 'Rule', name: 'type', options: RULE_TYPES.map((t) => ({ value: t, label: RULE_LABEL[t] })), value: value('type') }),
      field({ label: 'Currency', name: 'currency', value: value('currency'), help: 'Over an amount: the payout currency, such as EUR', error: refusal?.fields.currency }),
      field({ label: 'Amount', name: 'amount', inputmode: 'decimal', value: value('amount'), help: 'Over an amount: payouts over it (not equal) wait', error: refusal?.fields.amount }),
      field({ label: 'Days', name: 'days', inputmode: 'numeric', value: value('days'), help: 'New beneficiary: saved less than this many days ago', error: refusal?.fields.days }),
      field({ label: 'Rows', name: 'rows', inputmode: 'numeric', value: value('rows'), help: 'Batch: more rows than this', error: refusal?.fields.rows }),
      field({ label: 'Description', name: 'description', value: value('description'), error: refusal?.fields.description }),
    ),
  );
}

function rulesSection(req: FastifyRequest, rules: { data: Rule[] }): Html {
  return section(
    'Rules',
    html`<p class="help">A payout a rule matches when it is created waits, queued with its funds held, until someone other than its creator approves it here or through the API (<code>write:approvals</code>). Rejected, or not decided in time, it is cancelled and its funds return.</p>`,
    table(
      'Approval rules of the workspace, newest first',
      [
        { label: 'Rule', cell: (r: Rule) => ruleText(r) },
        { label: 'Description', cell: (r) => r.description ?? '' },
        { label: 'Set', cell: (r) => html`${when(r.createdAt)} ${who(req, r.createdBy)}` },
        {
          label: 'Remove',
          cell: (r) =>
            canChange(req, 'workspace') ? postForm({ action: `/dashboard/approval-rules/${r.id}/remove`, csrf: req.web.csrf, submit: 'Remove', danger: true, inline: true, label: `Remove the rule ${ruleText(r)}`, confirm: `Remove the rule "${ruleText(r)}"?` }) : '',
        },
      ],
      rules.data,
      'No rule: payouts proceed without an approval.',
    ),
  );
}

async function approvalsPage(web: Web, req: FastifyRequest, reply: FastifyReply, refused?: { refusal: Refusal; where: 'decision' | 'rule' }): Promise<FastifyReply> {
  const { ctx } = web;
  const shown = queryChoice(req, 'status', APPROVAL_STATUSES, 'pending') ?? 'pending';
  const at = pagePosition((req.query ?? {}) as Record<string, unknown>);
  const page = await approvals.listApprovals(ctx.db, actingAccount(req), { status: shown, ...pageRequest(at) });
  const rules = await approvals.listRules(ctx.db, dashboardUser(req).workspaceId, { limit: 100 });
  const done = DONE[queryText(req, 'done') ?? ''];
  const body = html`${done ? notice('success', done) : ''}${refused?.where === 'decision' ? notice('error', refused.refusal.message) : ''}
${section(
  'Approvals',
  filterForm(PATH, [select({ label: 'Status', name: 'status', options: APPROVAL_STATUSES, value: shown })]),
  approvalsTable(req, page.data, shown),
  pageNav(PATH, { status: shown }, at, page),
)}
${rulesSection(req, rules)}
${canChange(req, 'workspace') ? ruleForm(req, refused?.where === 'rule' ? refused.refusal : undefined) : ''}`;
  return sendPage(web, req, reply, { title: 'Approvals', body, status: refused?.refusal.status });
}

const optionalInt = (req: FastifyRequest, name: string): number | undefined => {
  const text = formOptional(req, name, 10);
  return text === undefined ? undefined : /^\d+$/.test(text) ? Number(text) : Number.NaN;
};

/** The rule form as the API's body (the same service checks it; a field a type does not take is left out). */
function ruleInput(req: FastifyRequest): approvals.RuleInput {
  const type = formText(req, 'type', { maxLength: 40 }) as RuleType;
  const input: approvals.RuleInput = { type, description: formOptional(req, 'description', 200) };
  if (type === 'amount_over') Object.assign(input, { currency: formOptional(req, 'currency', 10)?.toUpperCase(), amount: formOptional(req, 'amount', 40) });
  if (type === 'new_beneficiary') input.days = optionalInt(req, 'days');
  if (type === 'batch_over') input.rows = optionalInt(req, 'rows');
  return input;
}

const where = (req: FastifyRequest): approvals.AuditContext => ({ requestId: String(req.id), path: req.url });

/**
 * A change of the approvals service, made from the page: the service audits it (who, what, in its
 * transaction), so the page's own entry for the call is not added to it (one change, one entry);
 * a refused call still gets the page's entry. Answers where the page goes next.
 */
async function auditedChange(change: () => Promise<unknown>, next: string): Promise<string> {
  await change();
  auditedByChange();
  return next;
}

/** Approvals: the payouts waiting for one (approve, reject), the decided ones, and the workspace's rules. */
export function approvalPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  app.get(PATH, memberPage, async (req, reply) => approvalsPage(web, req, reply));

  for (const decision of ['approve', 'reject'] as const) {
    app.post<{ Params: { id: string } }>(`${PATH}/:id/${decision}`, idPage, async (req: IdRequest, reply) => {
      const caller = await dashboardCaller(ctx, req);
      const result = await attempt(() => changeOnce(ctx, req, (tx) => auditedChange(() => approvals.decidePayout(ctx, tx, caller, req.params.id, decision, undefined, where(req)), `${PATH}?done=${decision === 'approve' ? 'approved' : 'rejected'}`)));
      if ('refused' in result) return approvalsPage(web, req, reply, { refusal: result.refused, where: 'decision' });
      return seeOther(reply, result.done);
    });
  }

  app.post('/dashboard/approval-rules', rightPage('workspace'), async (req, reply) => {
    const caller = await dashboardCaller(ctx, req);
    const result = await attempt(() => changeOnce(ctx, req, (tx) => auditedChange(() => approvals.createRule(tx, caller, ruleInput(req), where(req)), `${PATH}?done=rule-added`)));
    if ('refused' in result) return approvalsPage(web, req, reply, { refusal: result.refused, where: 'rule' });
    return seeOther(reply, result.done);
  });

  app.post<{ Params: { id: string } }>('/dashboard/approval-rules/:id/remove', idPage, async (req: IdRequest, reply) => {
    const caller = await dashboardCaller(ctx, req);
    await changeOnce(ctx, req, (tx) => auditedChange(() => approvals.removeRule(tx, caller, req.params.id, where(req)), `${PATH}?done=rule-removed`));
    return seeOther(reply, `${PATH}?done=rule-removed`);
  });
}
