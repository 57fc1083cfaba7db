import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import type { AppContext } from '../../platform/context.js';
import type { Redis } from 'ioredis';
import { AuthFailureLimiter, MemoryFailureStore, RedisFailureStore } from '../../platform/http/auth-failures.js';
import { AppError, toAppError } from '../../platform/http/errors.js';
import { messageInWords } from '../../platform/http/error-catalogue.js';
import { randomSecret } from '../../platform/lib/secrets.js';
import { auditCalls } from '../../platform/http/audited.js';
import type { AuditDraft } from '../../controls/audit/audit.service.js';
import { createSession, csrfToken, csrfTokenMatches, endSession, readSession, type SessionLimits, type WebSession } from '../../domains/users/sessions.service.js';
import { html, type Html } from '../../platform/lib/html.js';
import { assertOperatorRight, assertWorkspaceRight, type OperatorRight, type OperatorRole, type WorkspaceRight, type WorkspaceRole } from '../../domains/users/rights.js';
import { layout, type Area } from './layout.js';
import { acceptMultipartForms } from './multipart.js';

/**
 * How a page route is reached: by anyone (sign-in), mid-sign-in (the second factor), or signed in;
 * a page that changes something names the right it needs (src/domains/users/rights.ts), which the
 * service it calls asserts again: the page's check only answers before any form is read.
 */
export interface WebRouteConfig {
  area: Area;
  access?: 'public' | 'second-factor' | 'member';
  right?: WorkspaceRight | OperatorRight;
}

export interface WebState {
  area: Area;
  session: WebSession | undefined;
  /** The session cookie's token (to end the session, or keep it while ending the others). */
  sessionToken: string | undefined;
  /** The token every form of this page carries. */
  csrf: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A web page of the dashboard or the console (src/faces/web), not an API route. */
    web?: WebRouteConfig;
  }
  interface FastifyRequest {
    web: WebState;
  }
}

/** What the page modules get: the context, the session settings and the sign-in limiter. */
export interface Web {
  ctx: AppContext;
  sessions: SessionLimits;
  /** Failed sign-ins per account and per address (SIGN_IN_FAILURES_PER_15_MIN), shared through Redis when it is set. */
  signInFailures: AuthFailureLimiter;
  cookieSecure: boolean;
  sandbox: boolean;
}

/** What a file form may add to its file: the CSRF token, the form's key and a few fields. */
const FORM_FIELDS_BYTES_MAX = 64 * 1024;

const SIGN_IN_WINDOW_MS = 15 * 60_000;

export function webOptions(ctx: AppContext, redis: Redis | undefined): Web {
  const { config } = ctx;
  const memory = new MemoryFailureStore(config.limits.authFailureAddressesMax);
  return {
    ctx,
    sessions: { idleMs: config.web.sessionIdleMs, absoluteMs: config.web.sessionAbsoluteMs },
    signInFailures: new AuthFailureLimiter(config.web.signInFailuresMax, SIGN_IN_WINDOW_MS, redis ? new RedisFailureStore(redis, memory) : memory),
    // Secure cookies except in a sandbox served over plain HTTP (a local `npm start`).
    cookieSecure: config.publicBaseUrl.startsWith('https:') || config.env === 'production',
    sandbox: config.env === 'sandbox',
  };
}

const ASSETS: Record<string, { file: string; type: string }> = {
  'corridor.css': { file: 'corridor.css', type: 'text/css; charset=utf-8' },
  'corridor.js': { file: 'corridor.js', type: 'text/javascript; charset=utf-8' },
  'logo.svg': { file: 'logo.svg', type: 'image/svg+xml' },
};

/** No inline script or style, nothing from elsewhere, no framing, forms post only here. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function sessionCookieName(area: Area, secure: boolean): string {
  return `${secure ? '__Host-' : ''}corridor_${area}`;
}
export function preSessionCookieName(secure: boolean): string {
  return `${secure ? '__Host-' : ''}corridor_pre`;
}

export function cookieOptions(secure: boolean, maxAgeSec?: number) {
  return { httpOnly: true, sameSite: 'strict' as const, secure, path: '/', ...(maxAgeSec !== undefined ? { maxAge: maxAgeSec } : {}) };
}

/** A page in its area's frame, never cached (pages carry balances and personal data). */
export function sendPage(web: Web, req: FastifyRequest, reply: FastifyReply, page: { title: string; body: Html; status?: number }): FastifyReply {
  const state = req.web;
  return reply
    .code(page.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(layout({ area: state.area, title: page.title, body: page.body, path: req.url.split('?')[0] as string, session: state.session, csrf: state.csrf, sandbox: web.sandbox }));
}

/** After a change: 303 to the page that shows it (a reload never sends the form again). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send();
}

/** A new session replaces whatever the browser held (a planted or earlier token is never kept). */
export async function startSession(web: Web, req: FastifyRequest, reply: FastifyReply, owner: Parameters<typeof createSession>[3]): Promise<void> {
  const name = sessionCookieName(owner.area, web.cookieSecure);
  const previous = req.cookies[name];
  if (previous) await endSession(web.ctx.db, web.ctx.box, previous);
  const token = await createSession(web.ctx.db, web.ctx.box, web.sessions, owner);
  reply.setCookie(name, token, cookieOptions(web.cookieSecure, Math.floor(web.sessions.absoluteMs / 1000)));
}

export async function endBrowserSession(web: Web, req: FastifyRequest, reply: FastifyReply, area: 'dashboard' | 'console'): Promise<FastifyReply> {
  const name = sessionCookieName(area, web.cookieSecure);
  const token = req.cookies[name];
  if (token) await endSession(web.ctx.db, web.ctx.box, token);
  reply.clearCookie(name, cookieOptions(web.cookieSecure));
  return seeOther(reply, `/${area}/sign-in`);
}

function expectedOrigins(web: Web, req: FastifyRequest): string[] {
  return [new URL(web.ctx.config.publicBaseUrl).origin, `${req.protocol}://${req.headers.host ?? ''}`];
}

/** A state-changing request must come from one of our pages: same origin (when the browser says) and the page's CSRF token. */
function assertSameSite(web: Web, req: FastifyRequest): void {
  const origin = req.headers.origin;
  const fetchSite = req.headers['sec-fetch-site'];
  const crossOrigin = (origin !== undefined && !expectedOrigins(web, req).includes(origin)) || (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none');
  const body = (req.body ?? {}) as Record<string, unknown>;
  const presented = body._csrf ?? req.headers['x-csrf-token'];
  // A page's token is derived from the session, or before sign-in from the pre-session cookie: both
  // are HttpOnly and only our same-origin pages carry tokens made from them, so either is accepted.
  const seeds = [req.web.sessionToken, req.cookies[preSessionCookieName(web.cookieSecure)]].filter((seed): seed is string => seed !== undefined);
  if (crossOrigin || !seeds.some((seed) => csrfTokenMatches(web.ctx.box, seed, presented))) {
    throw new AppError({ status: 403, code: 'CSRF_REJECTED', message: 'This form expired or was not sent from this site. Reload the page and try again.' });
  }
}

function signInPath(area: Area): string {
  return `/${area}/sign-in`;
}

async function loadSession(web: Web, req: FastifyRequest, reply: FastifyReply, route: WebRouteConfig): Promise<void> {
  const name = sessionCookieName(route.area, web.cookieSecure);
  const token = req.cookies[name];
  const session = token ? await readSession(web.ctx.db, web.ctx.box, web.sessions, token) : undefined;
  const live = session && session.area === route.area ? session : undefined;
  if (token && !live) reply.clearCookie(name, cookieOptions(web.cookieSecure));
  let seed = live ? token : req.cookies[preSessionCookieName(web.cookieSecure)];
  if (!seed || !/^[A-Za-z0-9_-]{43}$/.test(seed)) {
    seed = randomSecret('', 32);
    req.cookies[preSessionCookieName(web.cookieSecure)] = seed;
    reply.setCookie(preSessionCookieName(web.cookieSecure), seed, cookieOptions(web.cookieSecure));
  }
  req.web = { area: route.area, session: live, sessionToken: live ? token : undefined, csrf: csrfToken(web.ctx.box, seed) };
}

function enforceAccess(req: FastifyRequest, reply: FastifyReply, route: WebRouteConfig): FastifyReply | undefined {
  const access = route.access ?? 'member';
  const session = req.web.session;
  if (access === 'public') return undefined;
  if (access === 'second-factor') {
    if (session?.secondFactorPending) return undefined;
    return seeOther(reply, session ? `/${route.area}` : signInPath(route.area));
  }
  if (!session) {
    if (req.method === 'GET') return seeOther(reply, `${signInPath(route.area)}?next=${encodeURIComponent(req.url)}`);
    throw new AppError({ status: 401, code: 'SIGNED_OUT', message: 'Your session has ended. Sign in again.' });
  }
  if (session.secondFactorPending) return seeOther(reply, `/${route.area}/second-factor`);
  if (route.right !== undefined) {
    if (route.area === 'dashboard') assertWorkspaceRight({ role: session.user?.role as WorkspaceRole }, route.right as WorkspaceRight);
    else assertOperatorRight({ role: session.user?.role as OperatorRole | undefined }, route.right as OperatorRight);
  }
  return undefined;
}

function errorPage(web: Web, req: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const appError = toAppError(err, { ...web.ctx.config.limits, bodyLimit: req.routeOptions.bodyLimit });
  if (appError.status >= 500) req.log.error({ err }, 'page failed');
  for (const [k, v] of Object.entries(appError.headers ?? {})) reply.header(k, v);
  if (!req.web) req.web = { area: req.url.startsWith('/console') ? 'console' : 'dashboard', session: undefined, sessionToken: undefined, csrf: '' };
  const message = appError.status >= 500 ? 'Something went wrong on our side. Try again; if it keeps happening, tell the operator.' : messageInWords(appError.code, appError.message);
  const details = (appError.details ?? []).map((d) => html`<li><strong>${d.field}</strong>: ${d.message}</li>`);
  const title = appError.status === 404 ? 'Not found' : appError.status === 403 ? 'Not allowed' : appError.status === 401 ? 'Signed out' : appError.status === 429 ? 'Too many attempts' : appError.status >= 500 ? 'Error' : 'Not done';
  const body = html`<div class="notice notice-error" role="alert"><p>${message}</p>${details.length ? html`<ul>${details}</ul>` : ''}</div>
<p><a href="/${req.web.area}">Back to the ${req.web.area === 'console' ? 'console' : 'dashboard'}</a>${appError.status === 401 ? html` · <a href="${signInPath(req.web.area)}">Sign in</a>` : ''}</p>`;
  return sendPage(web, req, reply, { title, body, status: appError.status });
}

/** The entry of a change from a page, when a signed-in person (past the second factor) made it. */
function pageChangeDraft(req: FastifyRequest): AuditDraft | undefined {
  const session = req.web?.session;
  if (!session || session.secondFactorPending) return undefined;
  const params = (req.params ?? {}) as Record<string, string>;
  return {
    operatorKeyId: session.operatorKeyId ?? null,
    actor: session.user ? `user:${session.user.id}` : 'console',
    method: req.method,
    path: req.url,
    requestId: String(req.id),
    workspaceId: session.user?.workspaceId ?? (req.url.startsWith('/console/workspaces/') ? params.id : undefined),
    body: req.body,
  };
}

/**
 * The shared part of the dashboard and the console, registered in its own scope: cookies,
 * security headers, the session, access and role checks, CSRF on every POST, HTML errors and the
 * static assets. `register` adds the area's pages.
 */
export async function registerWeb(app: FastifyInstance, web: Web, register: (scope: FastifyInstance, web: Web) => void): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(cookie);
    // A form with a file: the file and the form's fields (at most the largest upload, with room for the fields).
    acceptMultipartForms(scope, web.ctx.config.limits.uploadBytesMax + FORM_FIELDS_BYTES_MAX);
    scope.addHook('onRequest', async (req, reply) => {
      const route = req.routeOptions.config.web;
      if (!route) return;
      reply.header('content-security-policy', PAGE_CSP);
      reply.header('x-frame-options', 'DENY');
      // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form posts.
      reply.header('referrer-policy', 'same-origin');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('cache-control', 'no-store');
      await loadSession(web, req, reply, route);
      return enforceAccess(req, reply, route);
    });
    scope.addHook('preHandler', async (req) => {
      if (req.routeOptions.config.web && req.method !== 'GET' && req.method !== 'HEAD') assertSameSite(web, req);
    });
    scope.setErrorHandler(async (err, req, reply) => errorPage(web, req, reply, err));
    // Every change made from a page is in the audit log, as the operator API's calls are: who
    // (the console's operator key, or the person: a dashboard user or an operator user), what, the
    // answer, the form (secrets redacted); a change's entry commits with the change (src/platform/http/audited.ts).
    auditCalls(scope, web.ctx, {
      routes: (route) => Boolean((route.config as { web?: unknown } | undefined)?.web) && (route.method === 'POST' || (Array.isArray(route.method) && route.method.includes('POST'))),
      draft: pageChangeDraft,
      // A change from a page is answered 303 (back to a page) unless its handler shows a page.
      changeStatus: () => 303,
    });
    const assetDir = new URL('./assets/', import.meta.url);
    const assets = new Map(Object.entries(ASSETS).map(([name, a]) => [name, { body: readFileSync(new URL(a.file, assetDir)), type: a.type }]));
    scope.get<{ Params: { name: string } }>('/assets/:name', { schema: { hide: true } }, async (req, reply) => {
      const asset = assets.get(req.params.name);
      if (!asset) throw new AppError({ status: 404, code: 'NOT_FOUND', message: 'No such asset' });
      return reply.type(asset.type).header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(asset.body);
    });
    // The POST-only addresses (a form's action), to send a GET of one to the page it belongs to.
    const formActions: RegExp[] = [];
    scope.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!route.config?.web || !methods.includes('POST')) return;
      formActions.push(new RegExp(`^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+')}$`));
    });
    register(scope, web);
    for (const area of ['dashboard', 'console'] as const) scope.get(`/${area}/*`, { schema: { hide: true }, config: { web: { area } } }, async (req, reply) => unknownPage(web, req, reply, formActions));
  });
}

/**
 * A GET of an address no page has: the address of a form's action (a bookmark, the back button
 * after a POST answered with a page) goes to the page the form was on; anything else is the
 * area's "Not found" page, never the API's JSON.
 */
function unknownPage(web: Web, req: FastifyRequest, reply: FastifyReply, formActions: readonly RegExp[]): FastifyReply {
  const path = req.url.split('?')[0] as string;
  if (formActions.some((action) => action.test(path))) return seeOther(reply, path.slice(0, path.lastIndexOf('/')) || `/${req.web.area}`);
  return errorPage(web, req, reply, new AppError({ status: 404, code: 'NOT_FOUND', message: 'There is no page at this address. It may have moved, or the link may be mistyped.' }));
}
