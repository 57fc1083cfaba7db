import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { route, type App } from '../../platform/http/routes.js';
import { IdParams, PageQuery, Uuid } from '../../platform/lib/schemas.js';
import { PayoutSchema } from '../../domains/payouts/payouts.schemas.js';
import { ApprovalListQuery, ApprovalPage, ApprovalRulePage, ApprovalRuleSchema, CreateApprovalRuleBody, DecisionBody } from './approvals.schemas.js';
import * as approvals from './approvals.service.js';

const tags = ['Approvals'];

const RULES_TEXT =
  'A payout that any rule matches when it is created waits for an approval: it is answered `queued` with `approval: {status: "pending", rule}` (the first matching rule, oldest first), its funds held and no provider step scheduled, and `payout.approval_required` is emitted. It proceeds only when someone other than its creator approves it (POST /v1/payouts/{id}/approve): a dashboard user, or a credential holding `write:approvals` that did not create it. Rejected, or not decided within the approval window (APPROVAL_WINDOW_MS, default 72 h), it is cancelled and its funds return (`payout.cancelled`). Rules apply to payouts created after they are set.';

const where = (req: FastifyRequest): approvals.AuditContext => ({ requestId: String(req.id), path: req.url.split('?')[0] ?? req.url });

const DeletedRule = Type.Object({ id: Uuid, deleted: Type.Literal(true) }, { title: 'ApprovalRuleDeleted' });

/** Approval rules (maker-checker) of the workspace, the approvals waiting, and the decisions on them. */
export function approvalRoutes(app: App, ctx: AppContext): void {
  app.route(createRule(ctx));
  app.route(listRules(ctx));
  app.route(getRule(ctx));
  app.route(deleteRule(ctx));
  app.route(listApprovals(ctx));
  app.route(decide(ctx, 'approve'));
  app.route(decide(ctx, 'reject'));
}

function createRule(ctx: AppContext) {
  return route.post(
    '/v1/approval-rules',
    {
      config: { auth: 'workspace', scope: 'write:approvals' },
      schema: { tags, summary: 'Add an approval rule: payouts it matches wait for a second person (audited)', description: RULES_TEXT, body: CreateApprovalRuleBody, response: { 201: ApprovalRuleSchema } },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await approvals.createRule(tx, req.auth, req.body, where(req)) })),
  );
}

function listRules(ctx: AppContext) {
  return route.get(
    '/v1/approval-rules',
    {
      config: { auth: 'workspace', scope: 'read:approvals' },
      schema: { tags, summary: "The workspace's approval rules, newest first", querystring: PageQuery, response: { 200: ApprovalRulePage } },
    },
    async (req) => approvals.listRules(ctx.db, req.auth.workspaceId, req.query),
  );
}

function getRule(ctx: AppContext) {
  return route.get(
    '/v1/approval-rules/:id',
    { config: { auth: 'workspace', scope: 'read:approvals' }, schema: { tags, summary: 'One approval rule', params: IdParams, response: { 200: ApprovalRuleSchema } } },
    async (req) => approvals.getRule(ctx.db, req.auth.workspaceId, req.params.id),
  );
}

function deleteRule(ctx: AppContext) {
  return route.delete(
    '/v1/approval-rules/:id',
    {
      config: { auth: 'workspace', scope: 'write:approvals' },
      schema: { tags, summary: 'Remove an approval rule (audited); payouts already waiting still wait for their decision', params: IdParams, response: { 200: DeletedRule } },
    },
    async (req) => {
      await ctx.db.tx((tx) => approvals.removeRule(tx, req.auth, req.params.id, where(req)));
      return { id: req.params.id, deleted: true as const };
    },
  );
}

function listApprovals(ctx: AppContext) {
  return route.get(
    '/v1/approvals',
    {
      config: { auth: 'workspace', scope: 'read:approvals' },
      schema: {
        tags,
        summary: 'Approvals newest first, each with its payout: by default the payouts waiting for a decision (`status=pending`)',
        description: 'With Service-Account-Id, only that sub-account\'s payouts.',
        querystring: ApprovalListQuery,
        response: { 200: ApprovalPage },
      },
    },
    async (req) => approvals.listApprovals(ctx.db, req.auth, req.query),
  );
}

function decide(ctx: AppContext, decision: approvals.Decision) {
  const approve = decision === 'approve';
  return route.post(
    `/v1/payouts/:id/${decision}`,
    {
      config: { auth: 'workspace', scope: 'write:approvals' },
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: {
        tags,
        summary: approve
          ? 'Approve a payout waiting for its approval: it proceeds (its first provider step is scheduled)'
          : 'Reject a payout waiting for its approval: it is cancelled and its held funds return',
        description:
          'Needs `write:approvals`, and a caller other than the payout\'s creator (403 APPROVER_IS_CREATOR). A payout whose approval is no longer pending (decided, someone else first, expired, or the payout cancelled meanwhile) is a 409 APPROVAL_NOT_PENDING; a payout no rule held, 409 APPROVAL_NOT_REQUIRED. Audited with who decided.',
        params: IdParams,
        body: DecisionBody,
        response: { 200: PayoutSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => ({ status: 200, body: await approvals.decidePayout(ctx, tx, req.auth, req.params.id, decision, req.body?.reason, where(req)) })),
  );
}
