import * as credentials from '../../domains/auth/credentials.service.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { secretOnce } from '../web/components.js';
import { formOptional, formText } from '../web/forms.js';
import { html, type Html } from '../../platform/lib/html.js';
import type { Web } from '../web/web.js';
import { changeUser, inviteUser, reinviteUser } from '../../domains/users/users.service.js';
import { attempt, consoleRoute, IdPath, idsPath, operatorActor } from './console.kit.js';
import { changeWorkspace } from './workspaces.pages.js';
import { showWorkspace, type WorkspaceSection } from './workspace.view.js';

type Params<Extra = object> = { Params: { id: string } & Extra };

/**
 * A change whose answer carries a secret (a credential's secret, an invitation link): shown once,
 * in this POST's answer, never in a URL. A refusal shows the page with it.
 */
async function changeWithSecret<T>(web: Web, req: FastifyRequest<Params>, reply: FastifyReply, section: WorkspaceSection, change: () => Promise<T>, shown: (done: T) => Html): Promise<FastifyReply> {
  reply.code(200); // the answer when it commits (its audit entry records it)
  const result = await attempt(change);
  if ('refused' in result) return showWorkspace(web, req, reply, req.params.id, { refused: { section, refusal: result.refused }, status: result.refused.status });
  return showWorkspace(web, req, reply, req.params.id, { top: shown(result.done) });
}

/** The seconds a rotated secret keeps working, as typed (the credentials service checks the range). */
function graceSecondsOf(req: FastifyRequest): number {
  const text = formText(req, 'graceSeconds', { maxLength: 10 });
  return text === '' ? 0 : Number(text);
}

/** A workspace's credentials and dashboard users: the operator API's services, secrets shown once. */
export function workspaceAccessPages(app: FastifyInstance, web: Web): void {
  const { ctx } = web;
  const invitation = { baseUrl: ctx.config.publicBaseUrl, invitationTtlMs: ctx.config.web.invitationTtlMs };

  app.post<Params>('/console/workspaces/:id/credentials', consoleRoute(IdPath, 'workspaces'), async (req, reply) =>
    changeWithSecret(
      web,
      req,
      reply,
      'credentials',
      () => ctx.db.tx((tx) => credentials.issueCredential(tx, ctx.box, { workspaceId: req.params.id }, { label: formOptional(req, 'label', 100) })),
      (c) => html`${secretOnce(`Client ${c.clientId}: its secret.`, c.clientSecret)}`,
    ),
  );

  app.post<Params<{ clientId: string }>>('/console/workspaces/:id/credentials/:clientId/rotate', consoleRoute(idsPath('clientId'), 'workspaces'), async (req, reply) =>
    changeWithSecret(
      web,
      req,
      reply,
      'credentials',
      () => ctx.db.tx((tx) => credentials.rotateWorkspaceCredential(tx, ctx.box, { workspaceId: req.params.id }, req.params.clientId, graceSecondsOf(req))),
      (r) => html`${secretOnce(`Client ${r.clientId}: its new secret (the old one works until ${r.previousSecretExpiresAt}).`, r.clientSecret)}`,
    ),
  );

  app.post<Params<{ clientId: string }>>('/console/workspaces/:id/credentials/:clientId/revoke', consoleRoute(idsPath('clientId'), 'workspaces'), async (req, reply) =>
    changeWorkspace(web, req, reply, 'credentials', (tx) => credentials.revokeWorkspaceCredential(tx, { workspaceId: req.params.id }, req.params.clientId)),
  );

  app.post<Params>('/console/workspaces/:id/users', consoleRoute(IdPath, 'workspaces'), async (req, reply) =>
    changeWithSecret(
      web,
      req,
      reply,
      'users',
      () => ctx.db.tx((tx) => inviteUser(tx, ctx.box, invitation, req.params.id, { email: formText(req, 'email', { maxLength: 320 }), role: formText(req, 'role', { maxLength: 20 }) }, { seesEveryOwner: true, manager: { operator: operatorActor(req).role } })),
      (i) => html`${secretOnce(`Invitation link for ${i.user.email}.`, i.invitationUrl)}`,
    ),
  );

  app.post<Params<{ userId: string }>>('/console/workspaces/:id/users/:userId/invitation', consoleRoute(idsPath('userId'), 'workspaces'), async (req, reply) =>
    changeWithSecret(
      web,
      req,
      reply,
      'users',
      () => ctx.db.tx((tx) => reinviteUser(tx, ctx.box, invitation, req.params.id, req.params.userId, { operator: operatorActor(req).role })),
      (i) => html`${secretOnce(`New invitation link for ${i.user.email} (the earlier one no longer works).`, i.invitationUrl)}`,
    ),
  );

  app.post<Params<{ userId: string }>>('/console/workspaces/:id/users/:userId', consoleRoute(idsPath('userId'), 'workspaces'), async (req, reply) => {
    const role = formOptional(req, 'role', 20);
    const status = formOptional(req, 'status') as 'active' | 'disabled' | undefined;
    return changeWorkspace(web, req, reply, 'users', (tx) => changeUser(tx, ctx.box, req.params.id, { userId: undefined, manager: { operator: operatorActor(req).role } }, req.params.userId, { ...(role ? { role } : {}), ...(status ? { status } : {}) }));
  });
}
