import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../context.js';
import { AuditScope, withAuditScope, writeAudit, type AuditDraft } from '../../controls/audit/audit.service.js';

/** What `routes` looks at: a route as added, or as a request sees it. */
export interface RouteShape {
  method: string | string[];
  config?: unknown;
}

export interface AuditedRoutes {
  /** Whether a route's calls are audited. */
  routes: (route: RouteShape) => boolean;
  /** The entry of a call, without its status; undefined when this call is not audited (no session). */
  draft: (req: FastifyRequest) => AuditDraft | undefined;
  /** The status a change is recorded with when it commits before the handler sets another (the handler's usual answer). */
  changeStatus: (route: RouteOptions) => number | undefined;
}

/** The one 2xx or 3xx a route's response schema documents, if it documents exactly one. */
export function documentedSuccess(route: RouteOptions): number | undefined {
  const codes = Object.keys((route.schema?.response ?? {}) as Record<string, unknown>)
    .map(Number)
    .filter((n) => n >= 200 && n < 400);
  return codes.length === 1 ? codes[0] : undefined;
}

/**
 * Audits the calls of the routes `audited.routes` picks, added to `app` after this: each handler
 * runs with an AuditScope current, so the first transaction of the call that writes carries the
 * call's entry and commits with it (with the status the reply has by then: set from the route's
 * usual answer before the handler runs, and by runIdempotent to its outcome's). A call that commits
 * nothing (a read, a refusal, a failure, a call refused before its handler) has its entry written
 * before its answer leaves (onSend), so no answered call goes unrecorded.
 */
export function auditCalls(app: FastifyInstance, ctx: AppContext, audited: AuditedRoutes): void {
  const scopes = new WeakMap<FastifyRequest, AuditScope>();
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!audited.routes(route)) return;
    const handler = route.handler;
    const changeStatus = audited.changeStatus(route);
    route.handler = function auditedHandler(this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      const draft = audited.draft(req);
      if (!draft) return handler.call(this, req, reply);
      const scope = new AuditScope(draft, () => reply.statusCode);
      scopes.set(req, scope);
      if (changeStatus !== undefined) reply.code(changeStatus);
      return withAuditScope(scope, () => handler.call(this, req, reply));
    };
  });
  app.addHook('onSend', async (req, reply) => {
    if (!audited.routes(req.routeOptions)) return;
    const scope = scopes.get(req);
    const written = scope ? scope.writeAnswered(ctx.db, reply.statusCode) : writeLate(ctx, req, reply, audited);
    await written.catch((err: unknown) => req.log.error({ err }, 'audit write failed'));
  });
}

/** A call its handler never saw as audited (refused before it, or a session the handler opened): written now. */
async function writeLate(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, audited: AuditedRoutes): Promise<void> {
  const draft = audited.draft(req);
  if (draft) await writeAudit(ctx.db, { ...draft, statusCode: reply.statusCode });
}
