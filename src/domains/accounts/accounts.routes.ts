import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { IdParams, PageQuery } from '../../platform/lib/schemas.js';
import { AccountPage, AccountSchema, CreateAccountBody } from './accounts.schemas.js';
import * as accounts from './accounts.service.js';
import type { Static } from 'typebox';

const tags = ['Accounts'];

export function accountRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get(
    '/v1/account',
    {
      config: { auth: 'workspace', scope: 'read:accounts' },
      schema: {
        tags,
        operationId: 'getCurrentAccount',
        summary: 'The account the credential resolves to (or the Service-Account-Id sub-account)',
        response: { 200: AccountSchema },
      },
    },
    async (req) => {
      const workspace = await accounts.getWorkspace(ctx.db, req.auth.workspaceId);
      const account = await accounts.getAccount(ctx.db, req.auth.workspaceId, req.auth.accountId);
      return { ...accounts.accountData(account), primaryCurrency: accounts.workspacePrimaryCurrency(workspace) };
    },
  );

  app.post<{ Body: Static<typeof CreateAccountBody> }>(
    '/v1/accounts',
    {
      config: { auth: 'workspace', scope: 'write:accounts' },
      schema: {
        tags,
        summary: 'Create a sub-account (status pending); emits account.created',
        body: CreateAccountBody,
        response: { 201: AccountSchema },
      },
    },
    async (req, reply) =>
      runIdempotent(ctx, req, reply, async (tx) => {
        const row = await accounts.createSubAccount(tx, req.auth.workspaceId, req.body);
        return { status: 201, body: accounts.accountData(row) };
      }),
  );

  app.get<{ Querystring: Static<typeof PageQuery> }>(
    '/v1/accounts',
    {
      config: { auth: 'workspace', scope: 'read:accounts' },
      schema: { tags, summary: "List the workspace's sub-accounts, newest first", querystring: PageQuery, response: { 200: AccountPage } },
    },
    async (req) => accounts.listSubAccounts(ctx.db, req.auth.workspaceId, req.query),
  );

  app.get<{ Params: Static<typeof IdParams> }>(
    '/v1/accounts/:id',
    {
      config: { auth: 'workspace', scope: 'read:accounts' },
      schema: { tags, summary: 'One account of the workspace', params: IdParams, response: { 200: AccountSchema } },
    },
    async (req) => accounts.accountData(await accounts.getAccount(ctx.db, req.auth.workspaceId, req.params.id)),
  );
}
