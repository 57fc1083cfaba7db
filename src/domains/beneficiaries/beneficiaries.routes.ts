import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { route, type App } from '../../platform/http/routes.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { IdParams } from '../../platform/lib/schemas.js';
import {
  BeneficiaryPage,
  BeneficiarySchema,
  CreateBeneficiaryBody,
  ListBeneficiariesQuery,
  OperatorStatusBody,
  UpdateBeneficiaryBody,
} from './beneficiaries.schemas.js';
import * as beneficiaries from './beneficiaries.service.js';
import { screenBeneficiaries } from '../../controls/screening/screening.service.js';
import type { AccountScope } from '../accounts/caller.js';

const tags = ['Beneficiaries'];

const RECIPIENT_CODES_DOC =
  'Recipient validation runs for the corridor of each account (the provider that would pay it without a route), in order: corridor-required recipient fields (MISSING_BENEFICIARY_NAME, BENEFICIARY_INCOMPLETE, RECIPIENT_DETAILS_INVALID for a name rule), then the account structure (MISSING_BANK_ACCOUNT_DETAILS, INVALID_IBAN, INVALID_ACCOUNT_NUMBER, INVALID_ROUTING_NUMBER, UNSUPPORTED_CORRIDOR); only the first failing stage is reported, in `details[].code`. Nigerian bankCode/crAccount are checked on the account object as a whole: one entry on `accounts.N.data` naming each failing field, without a code. See GET /docs/corridors for what each corridor needs.';

const scopeOf = (req: FastifyRequest): AccountScope => ({ workspaceId: req.auth.workspaceId, subAccountId: req.auth.subAccountId });

/** Beneficiaries: saved recipients with their payment accounts, at the workspace or a sub-account (Service-Account-Id). */
export function beneficiaryRoutes(app: App, ctx: AppContext): void {
  app.route(createBeneficiary(ctx));
  app.route(listBeneficiaries(ctx));
  app.route(getBeneficiary(ctx));
  app.route(updateBeneficiary(ctx));
  app.route(deactivateBeneficiary(ctx));
  app.route(setBeneficiaryStatus(ctx));
}

function createBeneficiary(ctx: AppContext) {
  return route.post(
    '/v1/beneficiaries',
    {
      config: { auth: 'workspace', scope: 'write:beneficiaries' },
      schema: {
        tags,
        summary: 'Create a beneficiary (201), or reference an existing one by id (200)',
        description: `Owned by the Service-Account-Id sub-account when the header is sent, else by the workspace. Account ids are assigned by the server. Everything but name, country, type and status (the personal fields and the accounts' data) is stored encrypted. ${RECIPIENT_CODES_DOC}`,
        body: CreateBeneficiaryBody,
        response: { 200: BeneficiarySchema, 201: BeneficiarySchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const { status, beneficiary } = await beneficiaries.createOrReference(tx, ctx.box, scopeOf(req), req.body);
        if (status === 201) await screenBeneficiaries(ctx, tx, [{ ...beneficiary, workspaceId: req.auth.workspaceId }]);
        return { status, body: beneficiary };
      }),
  );
}

function listBeneficiaries(ctx: AppContext) {
  return route.get(
    '/v1/beneficiaries',
    {
      config: { auth: 'workspace', scope: 'read:beneficiaries' },
      schema: {
        tags,
        summary: 'List beneficiaries, newest first',
        description:
          "Without Service-Account-Id: a roll-up over the workspace's own beneficiaries and its sub-accounts' (`accountId` tells them apart). With it: that sub-account's only.",
        querystring: ListBeneficiariesQuery,
        response: { 200: BeneficiaryPage },
      },
    },
    async (req) => beneficiaries.listBeneficiaries(ctx.db, ctx.box, scopeOf(req), req.query),
  );
}

function getBeneficiary(ctx: AppContext) {
  return route.get(
    '/v1/beneficiaries/:id',
    {
      config: { auth: 'workspace', scope: 'read:beneficiaries' },
      schema: { tags, summary: 'One beneficiary', params: IdParams, response: { 200: BeneficiarySchema } },
    },
    async (req) => beneficiaries.getBeneficiary(ctx.db, ctx.box, req.auth.workspaceId, req.params.id, { subAccountId: req.auth.subAccountId }),
  );
}

function updateBeneficiary(ctx: AppContext) {
  return route.put(
    '/v1/beneficiaries/:id',
    {
      config: { auth: 'workspace', scope: 'write:beneficiaries' },
      schema: {
        tags,
        summary: 'Update a beneficiary (partial: absent keeps, null clears), e.g. to add dateOfBirth',
        description: `The beneficiary as it stands after the update is validated again. \`accounts\`, when given, replaces the list: an item with the \`id\` of an existing account keeps that id. ${RECIPIENT_CODES_DOC} A suspended beneficiary answers 409 BENEFICIARY_SUSPENDED to a status change.`,
        params: IdParams,
        body: UpdateBeneficiaryBody,
        response: { 200: BeneficiarySchema },
      },
    },
    async (req) =>
      ctx.db.tx(async (tx) => {
        const beneficiary = await beneficiaries.updateBeneficiary(tx, ctx.box, scopeOf(req), req.params.id, req.body);
        // Screened again as changed (sanctions screening: status and hits kept for the operator).
        await screenBeneficiaries(ctx, tx, [{ ...beneficiary, workspaceId: req.auth.workspaceId }]);
        return beneficiary;
      }),
  );
}

function deactivateBeneficiary(ctx: AppContext) {
  return route.delete(
    '/v1/beneficiaries/:id',
    {
      config: { auth: 'workspace', scope: 'write:beneficiaries' },
      schema: {
        tags,
        summary: 'Deactivate a beneficiary (status inactive); it stays readable',
        description: 'Idempotent. A suspended beneficiary answers 409 BENEFICIARY_SUSPENDED.',
        params: IdParams,
        response: { 200: BeneficiarySchema },
      },
    },
    async (req) => ctx.db.tx((tx) => beneficiaries.deactivateBeneficiary(tx, ctx.box, scopeOf(req), req.params.id)),
  );
}

function setBeneficiaryStatus(ctx: AppContext) {
  return route.put(
    '/operator/v1/beneficiaries/:id/status',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['Operator'],
        security: [{ operatorKey: [] }],
        summary: "Set the status of any workspace's beneficiary (suspend, reactivate)",
        params: IdParams,
        body: OperatorStatusBody,
        response: { 200: BeneficiarySchema },
      },
    },
    async (req) => ctx.db.tx((tx) => beneficiaries.setStatusAsOperator(tx, ctx.box, req.params.id, req.body.status)),
  );
}
