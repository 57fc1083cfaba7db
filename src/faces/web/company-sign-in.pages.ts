import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as company from '../../domains/users/company-sign-in.service.js';
import type { CompanyProvider, PendingSignIn } from '../../domains/users/company-sign-in.service.js';
import { OPERATOR_ROLES, type OperatorRole } from '../../domains/users/rights.js';
import { html } from '../../platform/lib/html.js';
import { field, notice, postForm } from './components.js';
import { formText, queryText, safeNext } from './forms.js';
import type { Area } from './layout.js';
import { companySignInOffered, signInForm } from './sign-in.pages.js';
import { sendPage, startSession, type Web } from './web.js';

/**
 * "Sign in with your company" (OpenID Connect, src/domains/users/company-sign-in.service.ts) on
 * both faces. The way to the provider and back is navigation, never a form's redirect (the pages'
 * CSP allows forms to post only here): a link starts the flow, which 302s to the provider; the
 * provider's answer comes to the callback, which checks it against the sealed cookie the start set
 * (state, nonce, PKCE verifier, for 10 minutes) and opens the session.
 *
 * The dashboard finds the workspace by the domain of the email the person types; the console has
 * one provider, from CONSOLE_OIDC_*.
 */

const FLOW_TTL_MS = 10 * 60_000;
const page = { schema: { hide: true } };
const REFUSED = 'Sign-in with your company did not complete. Start again.';

interface Flow extends PendingSignIn {
  area: Area;
  /** The workspace whose provider the flow began with (dashboard), or null (the console's provider). */
  workspaceId: string | null;
  next: string;
  expiresAt: number;
}

function flowCookie(web: Web, area: Area): { name: string; options: { httpOnly: true; sameSite: 'lax'; secure: boolean; path: string } } {
  // Lax, not Strict: the provider sends the browser back with a top-level GET from its own site.
  return { name: `${web.cookieSecure ? '__Secure-' : ''}corridor_company_signin`, options: { httpOnly: true, sameSite: 'lax', secure: web.cookieSecure, path: `/${area}/sign-in/company` } };
}

export function companySignInPages(app: FastifyInstance, web: Web, area: Area): void {
  const { ctx } = web;
  const allowHttp = ctx.config.env !== 'production';
  const publicPage = { ...page, config: { web: { area, access: 'public' as const } } };
  const redirectUri = `${ctx.config.publicBaseUrl}/${area}/sign-in/company/callback`;
  const title = area === 'console' ? 'Operator console' : 'Sign in';
  const consoleSettings = ctx.config.web.consoleOidc;
  // The console's provider is checked at start: a wrong CONSOLE_OIDC_ROLE_MAP or issuer stops Corridor, not a sign-in.
  const consoleProvider: CompanyProvider<OperatorRole> | undefined =
    area === 'console' && consoleSettings
      ? {
          issuer: company.checkIssuer(consoleSettings.issuer, allowHttp, 'CONSOLE_OIDC_ISSUER'),
          clientId: consoleSettings.clientId,
          clientSecret: consoleSettings.clientSecret,
          roleClaim: consoleSettings.roleClaim,
          roleMap: company.parseRoleMap(consoleSettings.roleMap, OPERATOR_ROLES, 'CONSOLE_OIDC_ROLE_MAP'),
          allowHttp,
        }
      : undefined;

  const refusedPage = (req: FastifyRequest, reply: FastifyReply, message: string, next?: string) =>
    sendPage(web, req, reply, { title, status: 401, body: signInForm(req, area, { next, error: message, company: companySignInOffered(web, area) }) });

  /** Leaves for the provider: the flow sealed in a cookie of the callback's path, then 302 there. */
  const leave = async (req: FastifyRequest, reply: FastifyReply, workspaceId: string | null, provider: CompanyProvider, next: string) => {
    let started: Awaited<ReturnType<typeof company.beginSignIn>>;
    try {
      started = await company.beginSignIn(provider, redirectUri);
    } catch (err) {
      req.log.warn({ err, issuer: provider.issuer }, 'company identity provider unreachable');
      return refusedPage(req, reply, 'Your company\'s identity provider did not answer. Try again in a moment, or sign in with your password.', next);
    }
    const flow: Flow = { ...started.pending, area, workspaceId, next, expiresAt: Date.now() + FLOW_TTL_MS };
    const cookie = flowCookie(web, area);
    reply.setCookie(cookie.name, ctx.box.sealJson(flow), { ...cookie.options, maxAge: FLOW_TTL_MS / 1000 });
    return reply.code(302).header('location', started.url).send();
  };

  if (area === 'dashboard') {
    const emailForm = (req: FastifyRequest, next: string | undefined, error?: string) =>
      html`<div class="signin">${error ? notice('error', error) : ''}
<p>Type your work email: Corridor sends you to your company's sign-in.</p>
${postForm(
  { action: '/dashboard/sign-in/company', csrf: req.web.csrf, submit: 'Continue' },
  html`<input type="hidden" name="next" value="${next ?? ''}">`,
  field({ label: 'Work email', name: 'email', type: 'email', required: true, autocomplete: 'username' }),
)}
<p class="help"><a href="/dashboard/sign-in">Sign in with a password instead</a></p></div>`;

    app.get('/dashboard/sign-in/company', publicPage, async (req, reply) =>
      sendPage(web, req, reply, { title: 'Sign in with your company', body: emailForm(req, queryText(req, 'next')) }),
    );

    // The form only finds the company; the way on is a link (a form's redirect to another site breaks the CSP's form-action).
    app.post('/dashboard/sign-in/company', publicPage, async (req, reply) => {
      const next = safeNext(formText(req, 'next'), 'dashboard');
      const found = await company.providerForEmail(ctx.db, ctx.box, formText(req, 'email', { maxLength: 320 }), allowHttp);
      if (!found) {
        return sendPage(web, req, reply, { title: 'Sign in with your company', status: 404, body: emailForm(req, next, 'No company signs in to Corridor with this email\'s domain. Sign in with your password, or ask your administrator.') });
      }
      const href = `/dashboard/sign-in/company/start?domain=${encodeURIComponent(found.emailDomain)}&next=${encodeURIComponent(next)}`;
      return sendPage(web, req, reply, {
        title: 'Sign in with your company',
        body: html`<div class="signin"><p>You sign in at your company's identity provider, <strong>${new URL(found.provider.issuer).host}</strong>, and come back here.</p>
<p><a class="button" href="${href}">Continue to your company's sign-in</a></p></div>`,
      });
    });

    app.get('/dashboard/sign-in/company/start', publicPage, async (req, reply) => {
      const next = safeNext(queryText(req, 'next'), 'dashboard');
      const found = await company.providerForEmail(ctx.db, ctx.box, `someone@${queryText(req, 'domain') ?? ''}`, allowHttp);
      if (!found) return refusedPage(req, reply, 'No company signs in to Corridor with this domain.', next);
      return leave(req, reply, found.workspaceId, found.provider, next);
    });
  } else {
    app.get('/console/sign-in/company/start', publicPage, async (req, reply) => {
      const next = safeNext(queryText(req, 'next'), 'console');
      if (!consoleProvider) return refusedPage(req, reply, 'The console has no company sign-in (CONSOLE_OIDC_ISSUER is not set).', next);
      return leave(req, reply, null, consoleProvider, next);
    });
  }

  app.get(`/${area}/sign-in/company/callback`, publicPage, async (req, reply) => {
    const cookie = flowCookie(web, area);
    const sealed = req.cookies[cookie.name];
    reply.clearCookie(cookie.name, cookie.options);
    let flow: Flow | undefined;
    try {
      flow = sealed ? ctx.box.openJson<Flow>(sealed) : undefined;
    } catch {
      flow = undefined;
    }
    if (!flow || flow.area !== area || flow.expiresAt < Date.now()) return refusedPage(req, reply, REFUSED);
    const owner = area === 'dashboard' ? await company.providerOfWorkspace(ctx.db, ctx.box, flow.workspaceId as string, allowHttp) : consoleProvider && { provider: consoleProvider, emailDomain: undefined };
    if (!owner) return refusedPage(req, reply, REFUSED);
    let claims: Record<string, unknown>;
    try {
      claims = await company.finishSignIn(owner.provider, new URL(req.url, ctx.config.publicBaseUrl), flow);
    } catch (err) {
      // A wrong state, nonce, code or token (a forged or replayed answer), or the person said no at the provider.
      req.log.warn({ err: { name: (err as Error).name, message: (err as Error).message } }, 'company sign-in refused');
      return refusedPage(req, reply, REFUSED, flow.next);
    }
    const signedIn = await company.companySignIn(ctx.db, ctx.box, flow.workspaceId, owner.provider, claims, owner.emailDomain);
    if ('refused' in signedIn) return refusedPage(req, reply, signedIn.refused, flow.next);
    await startSession(web, req, reply, { area, userId: signedIn.user.id, secondFactorPending: false });
    // A page, not a redirect: this request came from the provider's site, and the browser sends the
    // (SameSite=Strict) session cookie only on a navigation that starts here.
    const next = safeNext(flow.next, area);
    return sendPage(web, req, reply, {
      title: 'Signed in',
      body: html`<div class="signin"><meta http-equiv="refresh" content="0;url=${next}">${notice('success', 'You are signed in through your company.')}
<p><a class="button" href="${next}" id="company-signed-in">Continue</a></p></div>`,
    });
  });
}
