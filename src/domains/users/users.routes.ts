import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../../platform/context.js';
import { runIdempotent } from '../../platform/http/idempotency.js';
import { Page, PageQuery, Timestamp, Uuid } from '../../platform/lib/schemas.js';
import { getWorkspace } from '../accounts/accounts.service.js';
import * as users from './users.service.js';
import { OPERATOR_ROLES, ROLE_WORDS, WORKSPACE_ROLES, type OperatorRole, type WorkspaceRole } from './rights.js';

const tags = ['Operator'];
const security = [{ operatorKey: [] }];
const auth = { auth: 'operator' as const };

export const Role = Type.Union(
  WORKSPACE_ROLES.map((r) => Type.Literal(r)),
  { description: WORKSPACE_ROLES.map((r) => `\`${r}\`: ${ROLE_WORDS[`workspace:${r}`].replace(/^[^:]*: /, '')}`).join('; ') },
);

const OperatorRoleSchema = Type.Union(
  OPERATOR_ROLES.map((r) => Type.Literal(r)),
  { description: OPERATOR_ROLES.map((r) => `\`${r}\`: ${ROLE_WORDS[`operator:${r}`].replace(/^[^:]*: /, '')}`).join('; ') },
);

export const UserSchema = Type.Object(
  {
    id: Uuid,
    workspaceId: Uuid,
    email: Type.String(),
    role: Role,
    status: Type.Union([Type.Literal('invited'), Type.Literal('active'), Type.Literal('disabled')]),
    twoFactor: Type.Boolean({ description: 'Whether the user signs in with a TOTP code beside the password' }),
    invitationExpiresAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
  },
  { title: 'DashboardUser' },
);

const InvitationSchema = Type.Object({
  user: UserSchema,
  invitationUrl: Type.String({ description: 'The single-use link to set a password, shown once (there is no mail server: hand it to the person)' }),
});

/** An operator user: signs in to /console with their own email and password (no workspace), with an operator role. */
const OperatorUserSchema = Type.Object(
  {
    id: Uuid,
    email: Type.String(),
    role: OperatorRoleSchema,
    status: UserSchema.properties.status,
    twoFactor: UserSchema.properties.twoFactor,
    invitationExpiresAt: UserSchema.properties.invitationExpiresAt,
    createdAt: Timestamp,
  },
  { title: 'OperatorUser' },
);

const OperatorInvitationSchema = Type.Object({ user: OperatorUserSchema, invitationUrl: InvitationSchema.properties.invitationUrl });

const WorkspaceParams = Type.Object({ id: Uuid });
const UserParams = Type.Object({ id: Uuid, userId: Uuid });

/** Dashboard users through the operator API (the console's Users section calls the same service). */
export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  const invitationOptions = users.invitationOptions(ctx.config);

  app.post<{ Params: Static<typeof WorkspaceParams>; Body: { email: string; role: WorkspaceRole } }>(
    '/operator/v1/workspaces/:id/users',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Invite a dashboard user; the invitation link is returned once',
        description:
          'The person opens `invitationUrl`, chooses a password and is signed in to /dashboard. The link works once, for DASHBOARD_INVITATION_TTL_MS (7 days). An email already in use answers 409 USER_EXISTS.',
        params: WorkspaceParams,
        body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }), role: Role }, { examples: [{ email: 'ada.lovelace@corridor.test', role: 'viewer' }] }),
        response: { 201: InvitationSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await users.inviteUser(tx, ctx.box, invitationOptions, req.params.id, req.body) })),
  );

  app.get<{ Params: Static<typeof WorkspaceParams>; Querystring: Static<typeof PageQuery> }>(
    '/operator/v1/workspaces/:id/users',
    {
      config: auth,
      schema: { tags, security, summary: "A workspace's dashboard users", params: WorkspaceParams, querystring: PageQuery, response: { 200: Page('user.list', UserSchema) } },
    },
    async (req) => {
      await getWorkspace(ctx.db, req.params.id);
      return users.listUsers(ctx.db, ctx.box, req.params.id, req.query);
    },
  );

  app.post<{ Params: Static<typeof UserParams> }>(
    '/operator/v1/workspaces/:id/users/:userId/invitation',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'A new invitation link for a user who has not accepted yet (the earlier link stops working)',
        params: UserParams,
        response: { 201: InvitationSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await users.reinviteUser(tx, ctx.box, invitationOptions, req.params.id, req.params.userId) })),
  );

  app.patch<{ Params: Static<typeof UserParams>; Body: { role?: WorkspaceRole; status?: 'active' | 'disabled' } }>(
    '/operator/v1/workspaces/:id/users/:userId',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: "Change a user's role, or disable (their sessions end at once) or enable them",
        params: UserParams,
        body: Type.Object({ role: Type.Optional(Role), status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])) }, { minProperties: 1, examples: [{ role: 'admin' }] }),
        response: { 200: UserSchema },
      },
    },
    async (req) => ctx.db.tx((tx) => users.changeUser(tx, ctx.box, req.params.id, { userId: undefined, manager: users.OPERATOR_KEY }, req.params.userId, req.body)),
  );

  operatorUserRoutes(app, ctx, invitationOptions);
}

const OperatorUserParams = Type.Object({ userId: Uuid });

/** The operator's own users, who sign in to the console; the same service as workspace users, with no workspace (owner null). */
function operatorUserRoutes(app: FastifyInstance, ctx: AppContext, invitationOptions: users.InvitationOptions): void {
  app.post<{ Body: { email: string; role?: OperatorRole } }>(
    '/operator/v1/operators',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Invite an operator user to the console; the invitation link is returned once',
        description:
          'The person opens `invitationUrl`, chooses a password and is signed in to /console, where their changes are audited as `user:<id>`. The link works once, for DASHBOARD_INVITATION_TTL_MS (7 days). The role says what they may change (default `administrator`: everything); every role reads everything. An email already in use (by any user) answers 409 USER_EXISTS.',
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 320 }), role: Type.Optional(OperatorRoleSchema) },
          { examples: [{ email: 'grace.hopper@corridor.test', role: 'compliance' }] },
        ),
        response: { 201: OperatorInvitationSchema },
      },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await users.inviteUser(tx, ctx.box, invitationOptions, null, req.body) })),
  );

  app.get<{ Querystring: Static<typeof PageQuery> }>(
    '/operator/v1/operators',
    { config: auth, schema: { tags, security, summary: 'The operator users of the console', querystring: PageQuery, response: { 200: Page('user.list', OperatorUserSchema) } } },
    async (req) => users.listUsers(ctx.db, ctx.box, null, req.query),
  );

  app.post<{ Params: Static<typeof OperatorUserParams> }>(
    '/operator/v1/operators/:userId/invitation',
    {
      config: auth,
      schema: { tags, security, summary: 'A new invitation link for an operator user who has not accepted yet (the earlier link stops working)', params: OperatorUserParams, response: { 201: OperatorInvitationSchema } },
    },
    async (req, reply) => runIdempotent(ctx, req, reply, async (tx) => ({ status: 201, body: await users.reinviteUser(tx, ctx.box, invitationOptions, null, req.params.userId) })),
  );

  app.patch<{ Params: Static<typeof OperatorUserParams>; Body: { role?: OperatorRole; status?: 'active' | 'disabled' } }>(
    '/operator/v1/operators/:userId',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: "Change an operator user's role, or disable them (their console sessions end at once) or enable them again",
        params: OperatorUserParams,
        body: Type.Object(
          { role: Type.Optional(OperatorRoleSchema), status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('disabled')])) },
          { minProperties: 1, examples: [{ role: 'support' }, { status: 'disabled' }] },
        ),
        response: { 200: OperatorUserSchema },
      },
    },
    async (req) => ctx.db.tx((tx) => users.changeUser(tx, ctx.box, null, { userId: undefined, manager: users.OPERATOR_KEY }, req.params.userId, req.body)),
  );
}
